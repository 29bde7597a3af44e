package devsync

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/engram-app/engram/vault"
	"github.com/engram-app/engram/vault/atomicfile"
	"github.com/engram-app/engram/vault/segment"
	"github.com/google/uuid"
)

// The folder's layout (vault/DESIGN.md, "The folder").
const (
	dirName      = "engram"
	vaultFile    = "vault.json"
	segExt       = ".seg"
	folderFormat = 1
)

// folderVault is FOLDER/engram/vault.json.
type folderVault struct {
	Format  int             `json:"engram_sync"`
	VaultID string          `json:"vault_id"`
	Header  json.RawMessage `json:"header"`
}

func root(folder string) string { return filepath.Join(folder, dirName) }

func segName(seq uint64) string { return fmt.Sprintf("%016d%s", seq, segExt) }

func segPath(folder, device string, seq uint64) string {
	return filepath.Join(root(folder), device, segName(seq))
}

// readFolderVault reads FOLDER/engram/vault.json, ErrNoFolderVault when
// there is none.
func readFolderVault(folder string) (*folderVault, error) {
	raw, err := readLimited(filepath.Join(root(folder), vaultFile), 1<<20)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNoFolderVault
	}
	if err != nil {
		return nil, err
	}
	var fv folderVault
	if err := json.Unmarshal(raw, &fv); err != nil || fv.Format == 0 {
		return nil, fmt.Errorf("%s: not an Engram sync folder's vault file", filepath.Join(root(folder), vaultFile))
	}
	if fv.Format > folderFormat {
		return nil, fmt.Errorf("%w: the folder's format %d is newer than this Engram's", vault.ErrFormat, fv.Format)
	}
	id, err := vault.HeaderVaultID(fv.Header)
	if err != nil || id != fv.VaultID {
		return nil, fmt.Errorf("%s: its vault header is damaged", filepath.Join(root(folder), vaultFile))
	}
	return &fv, nil
}

// readLimited reads at most limit bytes of a regular file.
func readLimited(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	raw, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(raw)) > limit {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, limit)
	}
	return raw, nil
}

// writeAtomic writes data to path through a hidden temporary name in the
// same directory (atomicfile.TempPrefix, which readers of the folder
// ignore), synced, renamed over path, and the directory synced: a sync
// engine never picks up half a file under the final name.
func writeAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, data, 0o600)
}

// deviceDirs lists the device directories in the folder (names that are
// UUIDs), other than skip.
func deviceDirs(folder, skip string) ([]string, error) {
	ents, err := os.ReadDir(root(folder))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if !e.IsDir() || e.Name() == skip {
			continue
		}
		if u, err := uuid.Parse(e.Name()); err != nil || u.String() != e.Name() {
			continue
		}
		out = append(out, e.Name())
	}
	return out, nil
}

// fileHash is the hex SHA-256 of a segment file, the link of its
// device's chain.
func fileHash(raw []byte) string {
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:])
}

// Fingerprint sums what the folder holds from other devices (names,
// sizes, times of their segments): a change means something may have
// arrived. It is cheap enough to poll.
func Fingerprint(folder string) string {
	h := sha256.New()
	_ = filepath.WalkDir(root(folder), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, segExt) {
			return nil
		}
		if info, err := d.Info(); err == nil {
			fmt.Fprintf(h, "%s\x00%d\x00%d\n", p, info.Size(), info.ModTime().UnixNano())
		}
		return nil
	})
	return hex.EncodeToString(h.Sum(nil))
}

// payload is a segment's plaintext.
type payload struct {
	Device  string    `json:"device"`
	Seq     uint64    `json:"seq"`
	Prev    string    `json:"prev"`
	Created time.Time `json:"created"`
	// Snapshot marks a compaction: the device's whole state, which
	// replaces its segments before it (deleted once it is written).
	Snapshot bool `json:"snapshot,omitempty"`
	// Part numbers a snapshot's segments from 1 when it takes several;
	// a reader may skip to part 1 only.
	Part    int     `json:"part,omitempty"`
	Entries []entry `json:"entries"`
}

// Entry types.
const (
	typeDevice = "device"
	typePut    = "put"
	typeTomb   = "tomb"
	typeRevoke = "revoke"
)

// entry is one change in a segment.
type entry struct {
	Type string `json:"type"`
	// device
	Name string `json:"name,omitempty"`
	Pub  []byte `json:"pub,omitempty"`
	// put, tomb
	ID       string          `json:"id,omitempty"`
	HLC      uint64          `json:"hlc,omitempty"`
	RID      string          `json:"rid,omitempty"`
	Base     string          `json:"base,omitempty"`
	Memory   *vault.Memory   `json:"memory,omitempty"`
	Versions []vault.Version `json:"versions,omitempty"`
	Action   vault.Action    `json:"action,omitempty"`
	// Keep, on a put after a forget removed older versions of the
	// memory on its device, lists the keyed fingerprints of the contents
	// of every version kept there: a receiver removes its versions whose
	// content is not among them.
	Keep []string `json:"keep,omitempty"`
	// Origin, in a snapshot, is the device whose write the state is
	// (another device's state travels in a snapshot with its own stamp).
	Origin string `json:"origin,omitempty"`
	// revoke
	Device string `json:"device,omitempty"`
	Upto   uint64 `json:"upto,omitempty"`
}

// decodePayload parses and checks an opened segment's payload.
func decodePayload(raw []byte) (*payload, error) {
	var p payload
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, fmt.Errorf("payload: %v", err)
	}
	for i, e := range p.Entries {
		switch e.Type {
		case typeDevice:
			if len(e.Pub) != 32 {
				return nil, fmt.Errorf("entry %d: a device announcement without a key", i)
			}
		case typePut:
			if e.Memory == nil || e.Memory.ID != e.ID || e.ID == "" {
				return nil, fmt.Errorf("entry %d: a put without its memory", i)
			}
		case typeTomb:
			if e.ID == "" || (e.Action != vault.ActionDelete && e.Action != vault.ActionPurge) {
				return nil, fmt.Errorf("entry %d: a tombstone without id or action", i)
			}
		case typeRevoke:
			if _, err := uuid.Parse(e.Device); err != nil {
				return nil, fmt.Errorf("entry %d: a revocation without a device", i)
			}
		default:
			return nil, fmt.Errorf("entry %d: unknown type %q", i, e.Type)
		}
	}
	return &p, nil
}

// seqOf parses a segment file's name.
func seqOf(name string) (uint64, bool) {
	if !strings.HasSuffix(name, segExt) {
		return 0, false
	}
	n, err := strconv.ParseUint(strings.TrimSuffix(name, segExt), 10, 64)
	return n, err == nil && segName(n) == name
}

// maxSegmentFile bounds what is read of a segment file.
const maxSegmentFile = segment.MaxFile

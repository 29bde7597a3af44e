package vault

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"filippo.io/age"
	"github.com/engram-app/engram/vault/atomicfile"
	"github.com/engram-app/engram/vault/internal/seal"
	bolt "go.etcd.io/bbolt"
)

// A backup is an age file (https://age-encryption.org/v1) with one scrypt
// recipient: the backup passphrase. Its plaintext is JSON lines:
//
//	{"engram_backup":1,"vault_id":"…","created":"…","memories":2}
//	{"memory":{…},"versions":[{…},…]}
//	…
//
// age authenticates every 64 KiB chunk and the end of the stream, so a
// flipped byte or a truncated file fails to decrypt. Anyone with the backup
// passphrase can also read it with the age command-line tool.

// BackupFormat is the version of the backup plaintext this code writes.
const BackupFormat = 2

// MaxBackupSize bounds how much decrypted backup Import holds in memory.
const MaxBackupSize = 2 << 30

// DefaultBackupWorkFactor is age's scrypt work factor (2^18, about 1 s).
const DefaultBackupWorkFactor = 18

type backupHeader struct {
	Format   int    `json:"engram_backup"`
	VaultID  string `json:"vault_id"`
	Created  string `json:"created"`
	Memories int    `json:"memories"`
}

type backupItem struct {
	Memory   Memory    `json:"memory"`
	Versions []Version `json:"versions"`
	// Audit is set on the last line only (format 2), which holds no
	// memory: the vault's audit log.
	Audit *backupAudit `json:"audit,omitempty"`
}

// backupAudit is a vault's audit log in a backup: every entry as stored
// (the bytes the chain hashes), from the entry after the checkpoint to
// the head. Import verifies the chain before it writes anything.
type backupAudit struct {
	VaultID        string   `json:"vault_id"`
	CheckpointSeq  uint64   `json:"checkpoint_seq"`
	CheckpointHash string   `json:"checkpoint_hash"`
	HeadSeq        uint64   `json:"head_seq"`
	HeadHash       string   `json:"head_hash"`
	Entries        [][]byte `json:"entries"`
}

// verify checks the log's chain: consecutive sequence numbers from the
// checkpoint, each entry linking to the one before, the last one the head.
func (a *backupAudit) verify() error {
	prev, err := hexHash(a.CheckpointHash)
	if err != nil {
		return fmt.Errorf("audit log checkpoint: %v", err)
	}
	seq := a.CheckpointSeq
	for _, body := range a.Entries {
		var e AuditEntry
		if err := json.Unmarshal(body, &e); err != nil {
			return fmt.Errorf("audit entry after %d: %v", seq, err)
		}
		if e.Seq != seq+1 || e.Prev != hex.EncodeToString(prev[:]) {
			return fmt.Errorf("audit entry %d does not follow entry %d in the chain", e.Seq, seq)
		}
		prev, seq = chainHash(prev, body), e.Seq
	}
	head, err := hexHash(a.HeadHash)
	if err != nil || seq != a.HeadSeq || head != prev {
		return fmt.Errorf("the audit log does not end at its head (entry %d)", a.HeadSeq)
	}
	return nil
}

func hexHash(s string) ([32]byte, error) {
	var h [32]byte
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != len(h) {
		return h, errors.New("not a 32-byte hex hash")
	}
	copy(h[:], b)
	return h, nil
}

// auditForBackupTx reads the vault's audit log for a backup.
func auditForBackupTx(tx *bolt.Tx, vaultID string) *backupAudit {
	a := &backupAudit{VaultID: vaultID}
	meta := tx.Bucket(bucketAuditMeta)
	var zero [32]byte
	a.CheckpointHash = hex.EncodeToString(zero[:])
	if s, h, ok := readLink(meta.Get(keyAuditCheckpoint)); ok {
		a.CheckpointSeq, a.CheckpointHash = s, hex.EncodeToString(h[:])
	}
	a.HeadSeq, a.HeadHash = a.CheckpointSeq, a.CheckpointHash
	if s, h, ok := readLink(meta.Get(keyAuditHead)); ok {
		a.HeadSeq, a.HeadHash = s, hex.EncodeToString(h[:])
	}
	_ = tx.Bucket(bucketAudit).ForEach(func(_, body []byte) error {
		a.Entries = append(a.Entries, bytes.Clone(body))
		return nil
	})
	return a
}

// BackupOptions tune Export. WorkFactor 0 means DefaultBackupWorkFactor.
type BackupOptions struct {
	WorkFactor int
}

// Export writes an encrypted backup of every memory (all partitions and
// the archive, with their versions) to w. It needs the vault unlocked.
func (v *Vault) Export(ctx context.Context, w io.Writer, passphrase []byte, opts BackupOptions, a Actor) (int, error) {
	if len(passphrase) == 0 {
		return 0, fmt.Errorf("export: %w: empty backup passphrase", ErrInvalid)
	}
	key, err := v.key()
	if err != nil {
		return 0, fmt.Errorf("export: %w", err)
	}
	defer seal.Wipe(key)
	if err := v.flushReads(); err != nil { // the backup's log holds every read so far
		return 0, fmt.Errorf("export: %w", err)
	}
	var items []backupItem
	var audit *backupAudit
	err = v.view(func(tx *bolt.Tx) error {
		audit = auditForBackupTx(tx, v.ID())
		for _, name := range partitionBuckets() {
			err := tx.Bucket(name).ForEach(func(k, _ []byte) error {
				if err := ctx.Err(); err != nil {
					return err
				}
				m, err := getTx(tx, string(k), key)
				if err != nil {
					return err
				}
				item := backupItem{Memory: *m}
				vb := tx.Bucket(bucketVersions).Bucket(k)
				if vb == nil {
					return fmt.Errorf("%w: no versions for %s", ErrCorrupt, k)
				}
				err = vb.ForEach(func(vk, raw []byte) error {
					var ver Version
					if _, err := decodeRecord(raw, key, string(bucketVersions), versionName(string(k), vk), &ver); err != nil {
						return err
					}
					item.Versions = append(item.Versions, ver)
					return nil
				})
				items = append(items, item)
				return err
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("export: %w", err)
	}
	if err := writeBackup(w, passphrase, opts, v.ID(), v.now(), items, audit); err != nil {
		return 0, fmt.Errorf("export: %w", err)
	}
	if err := v.appendAudit(AuditEntry{Action: ActionExport, Agent: a.agent(), Session: a.Session, Result: ResultOK, Count: len(items), Reason: a.Reason}); err != nil {
		return 0, fmt.Errorf("export: %w", mapBoltErr(err))
	}
	return len(items), nil
}

// ExportFile writes a backup to path atomically: a crash or an error leaves
// any previous file at path intact.
func (v *Vault) ExportFile(ctx context.Context, path string, passphrase []byte, opts BackupOptions, a Actor) (int, error) {
	n := 0
	err := atomicfile.Write(path, 0o600, func(w io.Writer) error {
		var err error
		n, err = v.Export(ctx, w, passphrase, opts, a)
		return err
	})
	return n, err
}

// ImportStats counts what Import did.
type ImportStats struct {
	Added   int // memories written
	Skipped int // ids the vault already had, left as they are
	// Forgotten counts memories left out because this vault deleted or
	// forgot them (a tombstone with their id or content fingerprint).
	Forgotten int
	// AuditEntries is the size of the backup's audit log, verified and
	// kept apart from this vault's chain (never merged into it), and
	// AuditVaultID the vault it came from. Zero for a backup without one.
	AuditEntries int
	AuditVaultID string
}

// bucketAuditImported keeps the audit logs of imported backups, one
// sub-bucket per import named "VAULT_ID@TIME", entries under their
// sequence number as stored, and "meta" with the log's checkpoint and
// head. They are never merged into this vault's chain.
var bucketAuditImported = []byte("audit_imported")

func keepImportedAuditTx(tx *bolt.Tx, a *backupAudit, now time.Time) error {
	root, err := tx.CreateBucketIfNotExists(bucketAuditImported)
	if err != nil {
		return err
	}
	name := a.VaultID + "@" + now.UTC().Format(time.RFC3339Nano)
	if root.Bucket([]byte(name)) != nil {
		if err := root.DeleteBucket([]byte(name)); err != nil { // the function ran before (group commit)
			return err
		}
	}
	b, err := root.CreateBucket([]byte(name))
	if err != nil {
		return err
	}
	meta, err := json.Marshal(backupAudit{VaultID: a.VaultID, CheckpointSeq: a.CheckpointSeq, CheckpointHash: a.CheckpointHash, HeadSeq: a.HeadSeq, HeadHash: a.HeadHash})
	if err != nil {
		return err
	}
	if err := b.Put([]byte("meta"), meta); err != nil {
		return err
	}
	for i, body := range a.Entries {
		if err := b.Put(seqKey(a.CheckpointSeq+uint64(i)+1), body); err != nil {
			return err
		}
	}
	return nil
}

// ImportOptions tune Import.
type ImportOptions struct {
	// IncludeForgotten imports memories this vault deleted or forgot too,
	// and drops their tombstones.
	IncludeForgotten bool
}

// Import reads a backup written by Export and adds its memories to the
// vault. It decrypts and checks the whole backup before writing anything:
// a wrong passphrase gives ErrWrongPassphrase, any damage ErrBackup, and in
// both cases the vault is unchanged. Memories whose id the vault already
// holds are skipped, so importing twice adds nothing.
//
// A memory this vault deleted or purged is left out and counted in
// Forgotten: its id, or the keyed fingerprint of its content, has a
// tombstone. o.IncludeForgotten brings it back and drops the tombstone.
func (v *Vault) Import(ctx context.Context, r io.Reader, passphrase []byte, a Actor, o ImportOptions) (ImportStats, error) {
	var st ImportStats
	items, audit, err := readBackup(r, passphrase)
	if err != nil {
		return st, fmt.Errorf("import: %w", err)
	}
	key, _ := v.key()
	defer seal.Wipe(key)
	for _, it := range items {
		if it.Memory.sealed() && key == nil {
			return st, fmt.Errorf("import: %w: the backup holds sensitive memories", ErrLocked)
		}
	}
	err = v.update(func(tx *bolt.Tx) error {
		st = ImportStats{}
		gone, goneText := tombstonesTx(tx)
		for i := range items {
			if err := ctx.Err(); err != nil {
				return err
			}
			m := &items[i].Memory
			if _, _, err := findTx(tx, m.ID); err == nil {
				st.Skipped++
				continue
			}
			if gone[m.ID] || (key != nil && goneText[keyedHash(m.Content, key)]) {
				if !o.IncludeForgotten {
					st.Forgotten++
					continue
				}
				if tb := tx.Bucket(bucketTombstones); tb != nil {
					if err := tb.Delete([]byte(m.ID)); err != nil {
						return err
					}
				}
			}
			k := key
			if !m.sealed() {
				k = nil
			}
			if err := putMemoryTx(tx, m, k); err != nil {
				return err
			}
			vb, err := tx.Bucket(bucketVersions).CreateBucketIfNotExists([]byte(m.ID))
			if err != nil {
				return err
			}
			for _, ver := range items[i].Versions {
				vk := seqKey(uint64(ver.Version))
				raw, err := encodeRecord(ver, k, string(bucketVersions), versionName(m.ID, vk), uint64(ver.Version))
				if err != nil {
					return err
				}
				if err := vb.Put(vk, raw); err != nil {
					return err
				}
			}
			st.Added++
		}
		reason := fmt.Sprintf("skipped %d existing, %d forgotten", st.Skipped, st.Forgotten)
		if audit != nil {
			if err := keepImportedAuditTx(tx, audit, v.now()); err != nil {
				return err
			}
			st.AuditEntries, st.AuditVaultID = len(audit.Entries), audit.VaultID
			reason += fmt.Sprintf("; the backup's audit log (%d entries, chain intact) kept apart", len(audit.Entries))
		}
		return appendAuditTx(tx, v.now(), AuditEntry{Action: ActionImport, Agent: a.agent(), Session: a.Session, Result: ResultOK, Count: st.Added, Reason: reason})
	})
	if err != nil {
		return ImportStats{}, fmt.Errorf("import: %w", mapBoltErr(err))
	}
	return st, nil
}

// ImportFile opens path and calls Import.
func (v *Vault) ImportFile(ctx context.Context, path string, passphrase []byte, a Actor, o ImportOptions) (ImportStats, error) {
	f, err := os.Open(path)
	if err != nil {
		return ImportStats{}, fmt.Errorf("import: %w", err)
	}
	defer f.Close()
	return v.Import(ctx, f, passphrase, a, o)
}

// readBackup decrypts and fully validates a backup.
func readBackup(r io.Reader, passphrase []byte) ([]backupItem, *backupAudit, error) {
	id, err := age.NewScryptIdentity(string(passphrase))
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	ar, err := age.Decrypt(r, id)
	if err != nil {
		var nomatch *age.NoIdentityMatchError
		if errors.As(err, &nomatch) {
			// A damaged scrypt stanza looks the same as a wrong passphrase.
			return nil, nil, fmt.Errorf("backup: %w (or its header is damaged)", ErrWrongPassphrase)
		}
		return nil, nil, fmt.Errorf("%w: %v", ErrBackup, err)
	}
	plain, err := io.ReadAll(io.LimitReader(ar, MaxBackupSize+1))
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrBackup, err)
	}
	if len(plain) > MaxBackupSize {
		return nil, nil, fmt.Errorf("%w: larger than %d bytes", ErrBackup, MaxBackupSize)
	}
	return decodeBackupAudit(plain)
}

// decodeBackup parses and checks decrypted backup bytes, audit log aside.
func decodeBackup(plain []byte) ([]backupItem, error) {
	items, _, err := decodeBackupAudit(plain)
	return items, err
}

// decodeBackupAudit parses and checks decrypted backup bytes: the
// memories, and the audit log (format 2) with its chain verified.
func decodeBackupAudit(plain []byte) ([]backupItem, *backupAudit, error) {
	dec := json.NewDecoder(bytes.NewReader(plain))
	dec.DisallowUnknownFields()
	var h backupHeader
	if err := dec.Decode(&h); err != nil {
		return nil, nil, fmt.Errorf("%w: header: %v", ErrBackup, err)
	}
	if h.Format != 1 && h.Format != BackupFormat {
		return nil, nil, fmt.Errorf("%w: backup format %d, this Engram reads 1 and %d", ErrFormat, h.Format, BackupFormat)
	}
	var audit *backupAudit
	items := make([]backupItem, 0, min(max(h.Memories, 0), 1<<16))
	seen := map[string]bool{}
	for dec.More() {
		var it backupItem
		if err := dec.Decode(&it); err != nil {
			return nil, nil, fmt.Errorf("%w: memory %d: %v", ErrBackup, len(items)+1, err)
		}
		if audit != nil {
			return nil, nil, fmt.Errorf("%w: lines after the audit log", ErrBackup)
		}
		if it.Audit != nil {
			if h.Format < 2 || it.Memory.ID != "" || it.Versions != nil {
				return nil, nil, fmt.Errorf("%w: a misplaced audit log", ErrBackup)
			}
			if err := it.Audit.verify(); err != nil {
				return nil, nil, fmt.Errorf("%w: %v", ErrBackup, err)
			}
			audit = it.Audit
			continue
		}
		if err := checkItem(&it); err != nil {
			return nil, nil, fmt.Errorf("%w: memory %d: %v", ErrBackup, len(items)+1, err)
		}
		if seen[it.Memory.ID] {
			return nil, nil, fmt.Errorf("%w: memory %s appears twice", ErrBackup, it.Memory.ID)
		}
		seen[it.Memory.ID] = true
		items = append(items, it)
	}
	if len(items) != h.Memories {
		return nil, nil, fmt.Errorf("%w: header counts %d memories, found %d", ErrBackup, h.Memories, len(items))
	}
	return items, audit, nil
}

// checkItem applies the same rules a stored memory obeys.
func checkItem(it *backupItem) error {
	m := &it.Memory
	if err := m.Validate(); err != nil {
		return err
	}
	if HashContent(m.Content) != m.ContentHash {
		return fmt.Errorf("content hash mismatch for %s", m.ID)
	}
	if len(it.Versions) == 0 || it.Versions[len(it.Versions)-1].Version != m.Version {
		return fmt.Errorf("versions of %s do not end at version %d", m.ID, m.Version)
	}
	last := 0
	for _, ver := range it.Versions {
		if ver.Version <= last || ver.Memory.ID != m.ID || ver.Memory.StateHash() != ver.StateHash {
			return fmt.Errorf("version %d of %s is inconsistent", ver.Version, m.ID)
		}
		last = ver.Version
	}
	return nil
}

// writeBackup encrypts items to w in the backup format: an age file for
// the passphrase, a header line, then one line per memory.
func writeBackup(w io.Writer, passphrase []byte, opts BackupOptions, vaultID string, now time.Time, items []backupItem, audit *backupAudit) error {
	r, err := age.NewScryptRecipient(string(passphrase))
	if err != nil {
		return err
	}
	wf := opts.WorkFactor
	if wf == 0 {
		wf = DefaultBackupWorkFactor
	}
	r.SetWorkFactor(wf)
	aw, err := age.Encrypt(w, r)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(aw)
	enc := json.NewEncoder(bw)
	if err := enc.Encode(backupHeader{Format: BackupFormat, VaultID: vaultID, Created: now.UTC().Format("2006-01-02T15:04:05Z"), Memories: len(items)}); err != nil {
		return err
	}
	for i := range items {
		if err := enc.Encode(&items[i]); err != nil {
			return err
		}
	}
	if audit != nil {
		if err := enc.Encode(backupItem{Audit: audit}); err != nil {
			return err
		}
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return aw.Close()
}

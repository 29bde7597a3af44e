package devsync

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/engram-app/engram/vault"
	"github.com/engram-app/engram/vault/segment"
)

// Report says what one exchange did.
type Report struct {
	// Sent is how many changes this device's new segment carried (0: no
	// segment was written); Segment names it.
	Sent    int    `json:"sent"`
	Segment string `json:"segment,omitempty"`
	// Applied counts the other devices' segments applied, Changed and
	// Removed the memories they wrote and removed here.
	Applied int `json:"applied"`
	Changed int `json:"changed"`
	Removed int `json:"removed"`
	// Conflicts counts concurrent edits put in the quarantine; Dropped
	// the changes to memories this vault removed (never brought back).
	Conflicts int `json:"conflicts"`
	Dropped   int `json:"dropped"`
	// Compacted says this device replaced its segments with a snapshot.
	Compacted bool `json:"compacted,omitempty"`
	// Refused lists segments refused in this exchange, with why.
	Refused []string `json:"refused,omitempty"`
}

// Setup makes this vault the first device of folder: it writes the
// folder's vault.json (the header, for joining) and a first segment with
// every memory, its versions and every tombstone. name labels the device
// for the user (a host name).
func (s *Syncer) Setup(ctx context.Context, folder, name string) (Report, error) {
	if err := checkUnlocked(s.v); err != nil {
		return Report{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.loadSelf(); err == nil {
		return Report{}, ErrAlreadySetUp
	} else if !errors.Is(err, ErrNotSetUp) {
		return Report{}, err
	}
	folder, err := filepath.Abs(folder)
	if err != nil {
		return Report{}, err
	}
	if st, err := os.Stat(folder); err != nil || !st.IsDir() {
		return Report{}, fmt.Errorf("%s is not a folder", folder)
	}
	fv, err := readFolderVault(folder)
	switch {
	case errors.Is(err, ErrNoFolderVault):
		hdr, err := s.v.Header()
		if err != nil {
			return Report{}, err
		}
		raw, err := json.MarshalIndent(folderVault{Format: folderFormat, VaultID: s.v.ID(), Header: hdr}, "", " ")
		if err != nil {
			return Report{}, err
		}
		if err := writeAtomic(filepath.Join(root(folder), vaultFile), raw); err != nil {
			return Report{}, fmt.Errorf("write the folder's vault file: %w", err)
		}
	case err != nil:
		return Report{}, err
	case fv.VaultID != s.v.ID():
		return Report{}, fmt.Errorf("%w (%s): join it with 'engram sync join', or choose another folder", ErrOtherVault, fv.VaultID)
	}
	me, err := newSelf(folder, name)
	if err != nil {
		return Report{}, err
	}
	b := batch{}
	b.put(keySelf, me)
	if err := s.v.SyncPut(b); err != nil {
		return Report{}, err
	}
	return s.exchange(ctx, me)
}

// Join creates the vault at path from folder's vault.json and the
// passphrase (the same vault id and data key), then applies every
// segment in the folder and announces this device. The vault is
// returned open and unlocked; the caller closes it.
func Join(ctx context.Context, folder, path string, passphrase []byte, name string, o Options) (*vault.Vault, Report, error) {
	folder, err := filepath.Abs(folder)
	if err != nil {
		return nil, Report{}, err
	}
	fv, err := readFolderVault(folder)
	if err != nil {
		return nil, Report{}, err
	}
	v, err := vault.Join(ctx, path, fv.Header, passphrase, vault.Options{Now: o.Now})
	if err != nil {
		return nil, Report{}, err
	}
	s := New(v, o)
	me, err := newSelf(folder, name)
	if err != nil {
		v.Close()
		return nil, Report{}, err
	}
	me.Full = false // nothing of its own to send yet
	b := batch{}
	b.put(keySelf, me)
	if err := v.SyncPut(b); err != nil {
		v.Close()
		return nil, Report{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.exchange(ctx, me)
	if err != nil {
		return v, r, err
	}
	return v, r, nil
}

// Now exchanges with the folder: this device's changes since its last
// segment go into a new segment, then the other devices' new segments
// are applied.
func (s *Syncer) Now(ctx context.Context) (Report, error) {
	if err := checkUnlocked(s.v); err != nil {
		return Report{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	me, err := s.loadSelf()
	if err != nil {
		return Report{}, err
	}
	return s.exchange(ctx, me)
}

// exchange sends, then receives, then sends what receiving decided (a
// revocation of this device stops it).
func (s *Syncer) exchange(ctx context.Context, me *self) (Report, error) {
	if me.Revoked {
		return Report{}, ErrRevoked
	}
	k, err := s.keys()
	if err != nil {
		return Report{}, err
	}
	defer k.wipe()
	var r Report
	if err := s.send(ctx, me, k, &r, nil, nil); err != nil {
		return r, err
	}
	if err := s.receive(ctx, me, k, &r); err != nil {
		return r, err
	}
	if r.Removed > 0 {
		me.Removed = true
	}
	if !me.Revoked && ((me.Removed && !s.now().Before(me.CompactedAt.Add(compactAfterRemoval))) || me.Seq-me.Compacted > compactEvery) {
		if err := s.compact(ctx, me, k, &r); err != nil {
			return r, err
		}
	}
	me.LastSync = s.now().UTC()
	b := batch{}
	b.put(keySelf, me)
	if err := s.v.SyncPut(b); err != nil {
		return r, err
	}
	if me.Revoked {
		return r, ErrRevoked
	}
	return r, nil
}

// writeSegment seals entries as this device's next segment and records
// it. A segment file already at that number (a crash after writing it
// and before recording it) is adopted when it opens: its changes are
// sent again in the new one, which readers skip as seen.
func (s *Syncer) writeSegment(me *self, k keys, entries []entry, b batch) (string, error) {
	return s.write(me, k, entries, b, 0)
}

// writeSnapshot writes entries (part of the device's whole state, its
// announcement first in part 1) as a snapshot segment.
func (s *Syncer) writeSnapshot(me *self, k keys, entries []entry, part int) (string, error) {
	return s.write(me, k, entries, batch{}, part)
}

// write writes a segment; part > 0 makes it that part of a snapshot.
func (s *Syncer) write(me *self, k keys, entries []entry, b batch, part int) (string, error) {
	snapshot := part > 0
	priv := me.key()
	for {
		next := me.Seq + 1
		path := segPath(me.Folder, me.Device, next)
		raw, err := readLimited(path, maxSegmentFile)
		if errors.Is(err, fs.ErrNotExist) {
			break
		}
		if err != nil {
			return "", err
		}
		if _, err := segment.Open(raw, k.segment, s.v.ID(), priv.Public().(ed25519.PublicKey)); err != nil {
			return "", fmt.Errorf("%s: this device's own segment %d does not open (%v): move it aside", path, next, err)
		}
		me.Seq, me.Prev = next, fileHash(raw)
	}
	if me.Seq == 0 && !snapshot {
		entries = append([]entry{{Type: typeDevice, Name: me.Name, Pub: priv.Public().(ed25519.PublicKey)}}, entries...)
	}
	p := payload{Device: me.Device, Seq: me.Seq + 1, Prev: me.Prev, Created: s.now().UTC(), Snapshot: snapshot, Part: part, Entries: entries}
	plain, err := json.Marshal(p)
	if err != nil {
		return "", err
	}
	raw, err := segment.Seal(k.segment, s.v.ID(), me.Device, p.Seq, plain, priv)
	if err != nil {
		return "", err
	}
	path := segPath(me.Folder, me.Device, p.Seq)
	if err := writeAtomic(path, raw); err != nil {
		return "", fmt.Errorf("write segment: %w", err)
	}
	me.Seq, me.Prev = p.Seq, fileHash(raw)
	b.put(keySelf, me)
	if err := s.v.SyncPut(b); err != nil {
		return "", err
	}
	return path, nil
}

// Revoke stops applying device's segments beyond the last one applied
// here, and tells the other devices so in this device's next segment.
func (s *Syncer) Revoke(ctx context.Context, device string) (Report, error) {
	if err := checkUnlocked(s.v); err != nil {
		return Report{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	me, err := s.loadSelf()
	if err != nil {
		return Report{}, err
	}
	peers, err := s.loadPeers()
	if err != nil {
		return Report{}, err
	}
	p := findPeer(peers, device)
	if p == nil {
		return Report{}, fmt.Errorf("%w %q: 'engram sync devices' lists them", ErrUnknownDevice, device)
	}
	k, err := s.keys()
	if err != nil {
		return Report{}, err
	}
	defer k.wipe()
	p.Revoked, p.Upto = true, p.Seq
	b := batch{}
	b.put(prefixPeer+p.Device, p)
	var r Report
	err = s.send(ctx, me, k, &r, []entry{{Type: typeRevoke, Device: p.Device, Upto: p.Upto}}, b)
	return r, err
}

// findPeer finds a device by its id or a unique prefix of it, or by its
// name when one device has it.
func findPeer(peers map[string]*peer, name string) *peer {
	if p, ok := peers[name]; ok {
		return p
	}
	var hits []*peer
	for _, p := range peers {
		if (len(name) >= 4 && len(p.Device) >= len(name) && p.Device[:len(name)] == name) || p.Name == name {
			hits = append(hits, p)
		}
	}
	if len(hits) == 1 {
		return hits[0]
	}
	return nil
}

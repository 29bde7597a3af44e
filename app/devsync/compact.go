package devsync

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/engram-app/engram/vault"
)

// A device replaces its segments with a snapshot when it wrote
// compactEvery of them since the last, or when a memory was removed
// (its sealed copies then leave the folder), at most once per
// compactAfterRemoval for removals: a snapshot rewrites the whole vault.
const (
	compactEvery        = 1024
	compactAfterRemoval = 10 * time.Minute
)

// compact writes this device's whole state as one snapshot segment and
// deletes its segments before it (vault/DESIGN.md, "Compaction"): every
// memory as it is here with its versions and the stamp and origin of
// its state, every tombstone, the revocations this device made. A
// device that had not applied all of them applies the snapshot instead;
// what a removal took out of this vault leaves the folder with them.
func (s *Syncer) compact(ctx context.Context, me *self, k keys, r *Report) error {
	priv := me.key()
	entries := []entry{{Type: typeDevice, Name: me.Name, Pub: priv.Public().(ed25519.PublicKey)}}
	all := vault.AllPartitions
	var ids []string
	if _, err := s.v.Each(vault.ListFilter{Partitions: all, OnDamaged: func(string, error) {}}, func(m *vault.Memory) error {
		ids = append(ids, m.ID)
		return nil
	}); err != nil {
		return err
	}
	for _, id := range ids {
		if err := ctx.Err(); err != nil {
			return err
		}
		m, vers, err := s.v.Replica(id)
		if errors.Is(err, vault.ErrNotFound) {
			continue
		}
		if err != nil {
			return fmt.Errorf("compact: %w", err)
		}
		ms, err := s.loadMem(id)
		if err != nil {
			return err
		}
		e := entry{Type: typePut, ID: id, Memory: &m, Versions: vers, RID: k.rid(&m), Origin: me.Device, HLC: hlcFor(m.Updated, 0)}
		if ms != nil && ms.RID == e.RID {
			e.HLC, e.Origin = ms.HLC, ms.Origin
		}
		entries = append(entries, e)
	}
	ts, err := s.v.Tombstones()
	if err != nil {
		return err
	}
	for _, t := range ts {
		entries = append(entries, entry{Type: typeTomb, ID: t.ID, Action: t.Action})
	}
	peers, err := s.loadPeers()
	if err != nil {
		return err
	}
	for _, p := range peers {
		if p.Revoked {
			entries = append(entries, entry{Type: typeRevoke, Device: p.Device, Upto: p.Upto})
		}
	}
	chunks, err := pack(entries, s.size)
	if err != nil {
		return err
	}
	first := me.Seq + 1
	for i, chunk := range chunks {
		if _, err := s.writeSnapshot(me, k, chunk, i+1); err != nil {
			return err
		}
	}
	me.Compacted, me.CompactedAt, me.Removed = first, s.now().UTC(), false
	b := batch{}
	b.put(keySelf, me)
	if err := s.v.SyncPut(b); err != nil {
		return err
	}
	// The snapshot is on disk and recorded: the segments before it go.
	dir := filepath.Join(root(me.Folder), me.Device)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if n, ok := seqOf(e.Name()); ok && n < first {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
	}
	r.Compacted = true
	return nil
}

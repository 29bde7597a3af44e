package devsync

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/engram-app/engram/vault"
)

// changeActions are the audit actions of changes to a memory that a
// segment carries.
var changeActions = map[vault.Action]bool{
	vault.ActionWrite: true, vault.ActionUpdate: true, vault.ActionRollback: true,
	vault.ActionDelete: true, vault.ActionPurge: true,
}

// send writes this device's changes since its last segment (and extra
// entries) as its next segment, with the sync state in b; nothing when
// there is nothing to send.
func (s *Syncer) send(ctx context.Context, me *self, k keys, r *Report, extra []entry, b batch) error {
	if b == nil {
		b = batch{}
	}
	entries, last, err := s.collect(ctx, me, k, b)
	if err != nil {
		return err
	}
	entries = append(entries, extra...)
	if len(entries) == 0 && me.Seq > 0 {
		me.AuditSeq, me.Full = last, false
		return nil
	}
	me.AuditSeq, me.Full = last, false
	chunks, err := pack(entries, s.size)
	if err != nil {
		return err
	}
	for i, chunk := range chunks {
		state := batch{}
		if i == len(chunks)-1 {
			state = b // the memories' states once every segment is out
		}
		path, err := s.writeSegment(me, k, chunk, state)
		if err != nil {
			return err
		}
		r.Sent, r.Segment = r.Sent+len(chunk), path
	}
	return nil
}

// pack splits entries into runs whose JSON is at most size bytes (an
// entry larger than size on its own gets a segment of its own); no
// entries make one empty run.
func pack(entries []entry, size int) ([][]entry, error) {
	var out [][]entry
	var cur []entry
	n := 0
	for _, e := range entries {
		raw, err := json.Marshal(e)
		if err != nil {
			return nil, err
		}
		if len(cur) > 0 && n+len(raw) > size {
			out, cur, n = append(out, cur), nil, 0
		}
		cur, n = append(cur, e), n+len(raw)+1
	}
	return append(out, cur), nil
}

// collect returns the entries for the memories this device's writers
// changed since me.AuditSeq (every memory when me.Full), the last audit
// sequence number read, and the new sync state of those memories in b.
func (s *Syncer) collect(ctx context.Context, me *self, k keys, b batch) ([]entry, uint64, error) {
	log, err := s.v.AuditLog(vault.AuditFilter{AfterSeq: me.AuditSeq})
	if err != nil {
		return nil, 0, err
	}
	last, full := me.AuditSeq, me.Full
	if len(log) > 0 {
		if me.AuditSeq > 0 && log[0].Seq > me.AuditSeq+1 {
			full = true // retention pruned entries never exported
		}
		last = log[len(log)-1].Seq
	}
	var ids []string
	seen := map[string]bool{}
	add := func(id string) {
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	// forgot are memories whose older versions a forget removed (a purge
	// audited of a memory that stays).
	forgot := map[string]bool{}
	for _, e := range log {
		if e.Action == vault.ActionImport {
			full = true // an import audits no memory by id
		}
		if e.MemoryID != "" && e.Result == vault.ResultOK && changeActions[e.Action] && !isSyncAgent(e.Agent) {
			add(e.MemoryID)
			if e.Action == vault.ActionPurge {
				forgot[e.MemoryID] = true
			}
		}
	}
	tombs := map[string]vault.Action{}
	if full {
		all := vault.AllPartitions
		if _, err := s.v.Each(vault.ListFilter{Partitions: all, OnDamaged: func(string, error) {}}, func(m *vault.Memory) error {
			add(m.ID)
			return nil
		}); err != nil {
			return nil, 0, err
		}
		if err := s.v.SyncEach(prefixMem, func(key string, _ []byte) error {
			add(key[len(prefixMem):])
			return nil
		}); err != nil {
			return nil, 0, err
		}
	}
	ts, err := s.v.Tombstones()
	if err != nil {
		return nil, 0, err
	}
	for _, t := range ts {
		tombs[t.ID] = t.Action
		if full && me.Seq == 0 {
			add(t.ID) // the first segment carries every tombstone
		}
	}
	var out []entry
	for _, id := range ids {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		e, ok, err := s.entryFor(id, me, k, tombs, forgot[id], b)
		if err != nil {
			return nil, 0, err
		}
		if ok {
			out = append(out, e)
		}
	}
	return out, last, nil
}

// entryFor is the entry that carries memory id's state now: a put, a
// tomb, or nothing when the other devices have it already.
func (s *Syncer) entryFor(id string, me *self, k keys, tombs map[string]vault.Action, forgot bool, b batch) (entry, bool, error) {
	ms, err := s.loadMem(id)
	if err != nil {
		return entry{}, false, err
	}
	m, vers, err := s.v.Replica(id)
	if errors.Is(err, vault.ErrNotFound) {
		action, gone := tombs[id]
		if !gone {
			return entry{}, false, nil // damaged or never here
		}
		b[prefixMem+id] = nil
		if ms != nil {
			me.Removed = true // it was sent: it leaves the folder at the next compaction
		}
		if err := dropConflicts(s.v, id, vault.AgentOperator, "the memory was removed"); err != nil {
			return entry{}, false, err
		}
		var base uint64
		if ms != nil {
			base = ms.HLC
		}
		return entry{Type: typeTomb, ID: id, HLC: hlcFor(s.now(), base), Action: action}, true, nil
	}
	if err != nil {
		return entry{}, false, fmt.Errorf("send %s: %w", id, err)
	}
	rid := k.rid(&m)
	if ms != nil && ms.RID == rid && !forgot {
		return entry{}, false, nil
	}
	e := entry{Type: typePut, ID: id, Memory: &m, RID: rid}
	if forgot {
		for _, ver := range vers {
			e.Keep = append(e.Keep, k.content(ver.Memory.Content))
		}
	}
	next := memState{Origin: me.Device}
	if ms == nil {
		e.Versions = vers
		e.HLC = hlcFor(m.Updated, 0)
	} else {
		e.HLC, e.Base = hlcFor(m.Updated, ms.HLC), ms.RID
		next.Seen = ms.Seen
		next.saw(ms.RID)
	}
	next.RID, next.HLC = rid, e.HLC
	next.saw(rid)
	b.put(prefixMem+id, &next)
	return e, true, nil
}

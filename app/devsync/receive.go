package devsync

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"

	"github.com/engram-app/engram/quarantine"
	"github.com/engram-app/engram/vault"
	"github.com/engram-app/engram/vault/segment"
	"github.com/google/uuid"
)

// receive applies the other devices' segments that follow the last one
// applied of each, in order, stopping at a device's first missing or
// refused segment.
func (s *Syncer) receive(ctx context.Context, me *self, k keys, r *Report) error {
	peers, err := s.loadPeers()
	if err != nil {
		return err
	}
	dirs, err := deviceDirs(me.Folder, me.Device)
	if err != nil {
		return err
	}
	var changed, removed []string
	defer func() {
		if len(changed) > 0 && s.hooks.Changed != nil {
			s.hooks.Changed(changed)
		}
		if len(removed) > 0 && s.hooks.Removed != nil {
			s.hooks.Removed(removed)
		}
	}()
	for _, d := range dirs {
		if peers[d] == nil {
			peers[d] = &peer{Device: d, FirstSeen: s.now().UTC()}
		}
	}
	s.learnRevocations(me, k, peers, dirs)
	for _, d := range dirs {
		p := peers[d]
		for !me.Revoked {
			if err := ctx.Err(); err != nil {
				return err
			}
			next := p.Seq + 1
			raw, err := readLimited(segPath(me.Folder, d, next), maxSegmentFile)
			jump := false
			if errors.Is(err, fs.ErrNotExist) {
				// Its segments from next on may have been replaced by a
				// snapshot: the first one present after them.
				n := lowestSeqAfter(me.Folder, d, next)
				if n == 0 {
					break
				}
				next, jump = n, true
				raw, err = readLimited(segPath(me.Folder, d, next), maxSegmentFile)
			}
			if err == nil && p.Revoked && next > p.Upto {
				err = errors.New("the device was revoked")
			}
			var pl *payload
			if err == nil {
				pl, err = s.open(raw, d, next, p, k, jump)
			}
			if errors.Is(err, errGap) {
				break // a missing segment is waited for, not refused
			}
			if err != nil {
				if err := s.refuse(p, next, raw, err, r); err != nil {
					return err
				}
				break
			}
			ap := applier{s: s, me: me, k: k, from: d, peers: peers, r: r, states: batch{}, snapshot: pl.Snapshot}
			if err := ap.apply(pl); err != nil {
				return fmt.Errorf("apply segment %d of device %s: %w", next, shortID(d), err)
			}
			changed, removed = append(changed, ap.changed...), append(removed, ap.removed...)
			p.Seq, p.Hash, p.LastSeen = next, fileHash(raw), s.now().UTC()
			p.Refusal, p.RefusedHash = "", ""
			b := ap.states // the segment's memory states with its progress
			for _, q := range peers {
				b.put(prefixPeer+q.Device, q)
			}
			b.put(keySelf, me)
			if err := s.v.SyncPut(b); err != nil {
				return err
			}
			r.Applied++
		}
	}
	b := batch{}
	for _, q := range peers {
		b.put(prefixPeer+q.Device, q)
	}
	return s.v.SyncPut(b)
}

// learnRevocations reads the revocations in every device's segments not
// applied yet, before any is applied, so that no segment of a revoked
// device past its revocation is applied because its directory was read
// before the revoker's. What fails to open here is left to the apply
// pass, which refuses it.
func (s *Syncer) learnRevocations(me *self, k keys, peers map[string]*peer, dirs []string) {
	for _, d := range dirs {
		p := *peers[d] // a copy: open records the device's key in it
		for {
			next := p.Seq + 1
			raw, err := readLimited(segPath(me.Folder, d, next), maxSegmentFile)
			jump := false
			if errors.Is(err, fs.ErrNotExist) {
				if next = lowestSeqAfter(me.Folder, d, p.Seq+1); next == 0 {
					break
				}
				jump = true
				raw, err = readLimited(segPath(me.Folder, d, next), maxSegmentFile)
			}
			if err != nil {
				break
			}
			pl, err := s.open(raw, d, next, &p, k, jump)
			if err != nil {
				break
			}
			for _, e := range pl.Entries {
				if e.Type != typeRevoke || e.Device == me.Device {
					continue
				}
				q := peers[e.Device]
				if q == nil {
					q = &peer{Device: e.Device, FirstSeen: s.now().UTC()}
					peers[e.Device] = q
				}
				if !q.Revoked || e.Upto < q.Upto {
					q.Upto = e.Upto
				}
				q.Revoked = true
			}
			p.Seq, p.Hash = next, fileHash(raw)
		}
	}
}

// errGap: a device's next segment is missing and what follows is no
// snapshot that replaces it.
var errGap = errors.New("a segment is missing")

// open authenticates segment next of device d and checks that it is the
// one that follows the last applied.
//
// jump says segments before next are missing: then only a snapshot is
// accepted, and in place of the chain's link (the hash of the segment
// before it, which this device never had) its authenticity suffices: a
// snapshot holds the device's whole state, so nothing it replaced is
// needed.
func (s *Syncer) open(raw []byte, d string, next uint64, p *peer, k keys, jump bool) (*payload, error) {
	h, err := segment.ReadHead(raw)
	if err != nil {
		return nil, err
	}
	if h.Device != d || h.Seq != next {
		return nil, fmt.Errorf("it says it is segment %d of device %s, not segment %d of %s (replayed or moved)", h.Seq, shortID(h.Device), next, shortID(d))
	}
	pub := p.Pub // nil until the device's announcement was read
	plain, err := segment.Open(raw, k.segment, s.v.ID(), pub)
	if err != nil {
		return nil, err
	}
	pl, err := decodePayload(plain)
	if err != nil {
		return nil, err
	}
	if pl.Device != d || pl.Seq != next {
		return nil, errors.New("its payload names another device or number")
	}
	switch {
	case jump && (!pl.Snapshot || pl.Part > 1):
		return nil, errGap
	case !jump && pl.Prev != p.Hash:
		return nil, fmt.Errorf("it does not follow segment %d applied before it (reordered, or the device's history was rewritten)", p.Seq)
	}
	if pub == nil {
		if len(pl.Entries) == 0 || pl.Entries[0].Type != typeDevice {
			return nil, errors.New("the device's first segment without its announcement")
		}
		pub = pl.Entries[0].Pub
		if err := segment.Verify(raw, s.v.ID(), pub); err != nil {
			return nil, err
		}
		p.Pub, p.Name = pub, pl.Entries[0].Name
	}
	return pl, nil
}

// refuse records a refused segment: counted once per file content.
func (s *Syncer) refuse(p *peer, seq uint64, raw []byte, why error, r *Report) error {
	msg := fmt.Sprintf("%s/%s: %v", shortID(p.Device), segName(seq), why)
	h := fileHash(raw)
	if p.RefusedHash != h {
		p.Refused++
		p.RefusedHash = h
		s.log.Warn("sync: refused a segment", "device", p.Device, "seq", seq, "why", why.Error())
	}
	p.Refusal = msg
	r.Refused = append(r.Refused, msg)
	b := batch{}
	b.put(prefixPeer+p.Device, p)
	return s.v.SyncPut(b)
}

// applier applies one segment's entries. New memories are stored
// together (insertBatch at a time), and the memories' sync states are
// kept in states, which the caller stores with the segment's progress.
type applier struct {
	s                *Syncer
	me               *self
	k                keys
	from             string
	peers            map[string]*peer
	r                *Report
	changed, removed []string
	states           batch
	pending          []vault.Replicated
	// snapshot: the segment is a compaction, whose states are no new
	// edits (no conflict is reported for them).
	snapshot bool
}

// originOf is the device whose write a put's state is.
func (a *applier) originOf(e *entry) string {
	if e.Origin != "" {
		return e.Origin
	}
	return a.from
}

// insertBatch is how many new memories one transaction stores.
const insertBatch = 1000

// mem is memory id's sync state, as this segment left it so far.
func (a *applier) mem(id string) (*memState, error) {
	if raw, ok := a.states[prefixMem+id]; ok {
		if raw == nil {
			return nil, nil
		}
		var ms memState
		if err := json.Unmarshal(raw, &ms); err != nil {
			return nil, err
		}
		return &ms, nil
	}
	return a.s.loadMem(id)
}

// flush stores the new memories waiting.
func (a *applier) flush() error {
	if len(a.pending) == 0 {
		return nil
	}
	res, err := a.s.v.InsertReplicas(a.pending, actor(a.from, ""))
	if err != nil {
		return err
	}
	for i, err := range res {
		id := a.pending[i].Memory.ID
		if errors.Is(err, vault.ErrForgotten) {
			a.r.Dropped++
			a.states[prefixMem+id] = nil
			continue
		}
		a.changed = append(a.changed, id)
		a.r.Changed++
	}
	a.pending = a.pending[:0]
	return nil
}

func (a *applier) apply(pl *payload) error {
	defer func() { a.pending = nil }()
	if err := a.applyEntries(pl); err != nil {
		return err
	}
	return a.flush()
}

func (a *applier) applyEntries(pl *payload) error {
	for i := range pl.Entries {
		e := &pl.Entries[i]
		var err error
		switch e.Type {
		case typeDevice:
			if p := a.peers[a.from]; p != nil && e.Name != "" {
				p.Name = e.Name
			}
		case typePut:
			err = a.put(e)
		case typeTomb:
			err = a.tomb(e)
		case typeRevoke:
			if e.Device == a.me.Device {
				a.me.Revoked = true
				continue
			}
			p := a.peers[e.Device]
			if p == nil {
				p = &peer{Device: e.Device, FirstSeen: a.s.now().UTC()}
				a.peers[e.Device] = p
			}
			if !p.Revoked || e.Upto < p.Upto {
				p.Upto = e.Upto
			}
			p.Revoked = true
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// put applies a memory's state from another device (DESIGN.md, "Merge
// rules").
func (a *applier) put(e *entry) error {
	v := a.s.v
	if gone, err := v.Tombstoned(e.ID); err != nil {
		return err
	} else if gone {
		a.r.Dropped++
		return nil
	}
	if len(e.Keep) > 0 {
		if err := a.forgetVersions(e); err != nil {
			return err
		}
	}
	ms, err := a.mem(e.ID)
	if err != nil {
		return err
	}
	rid := a.k.rid(e.Memory)
	// A state seen before is news only when it comes back later than the
	// live one (a rollback, a settled conflict).
	if ms != nil && (rid == ms.RID || (ms.seen(rid) && !ms.later(e.HLC, a.originOf(e)))) {
		return nil
	}
	cur, err := v.Peek(e.ID)
	if errors.Is(err, vault.ErrNotFound) {
		vers := e.Versions
		if len(vers) == 0 {
			vers = []vault.Version{versionOf(e.Memory)}
		}
		for _, p := range a.pending {
			if p.Memory.ID == e.ID {
				return fmt.Errorf("memory %s twice in one segment", e.ID)
			}
		}
		a.pending = append(a.pending, vault.Replicated{Memory: *e.Memory, Versions: vers})
		next := &memState{RID: rid, HLC: e.HLC, Origin: a.originOf(e)}
		next.saw(e.Base)
		a.states.put(prefixMem+e.ID, next)
		if len(a.pending) >= insertBatch {
			return a.flush()
		}
		return nil
	}
	if err != nil {
		return err
	}
	if ms == nil {
		ms = &memState{RID: a.k.rid(&cur), HLC: hlcFor(cur.Updated, 0), Origin: a.me.Device}
	}
	next := &memState{Seen: ms.Seen}
	next.saw(ms.RID, e.Base, rid)
	var loser *vault.Memory
	origin := a.originOf(e)
	if ms.later(e.HLC, origin) {
		// The later state: it becomes live, the state before a version.
		if _, err := v.Update(e.ID, vault.OpSync, actor(a.from, ""), keepSealed(&cur, e.Memory)); err != nil {
			return err
		}
		next.RID, next.HLC, next.Origin = rid, e.HLC, origin
		if ms.Origin == a.me.Device && e.Base != ms.RID && !a.snapshot {
			loser = &cur
		}
	} else {
		// An earlier state this device had not seen: kept as a version,
		// and the live state written again over it.
		if _, err := v.Update(e.ID, vault.OpSync, actor(a.from, "conflict: kept as a version"), keepSealed(&cur, e.Memory)); err != nil {
			return err
		}
		if _, err := v.Update(e.ID, vault.OpSync, actor(a.from, "conflict: the later state stays live"), keepSealed(&cur, &cur)); err != nil {
			return err
		}
		next.RID, next.HLC, next.Origin = ms.RID, ms.HLC, ms.Origin
		if ms.Origin == a.me.Device && !a.snapshot {
			loser = e.Memory
		}
	}
	if loser != nil {
		if err := a.conflict(loser); err != nil {
			return err
		}
	}
	a.changed = append(a.changed, e.ID)
	a.r.Changed++
	a.states.put(prefixMem+e.ID, next)
	return nil
}

// keepSealed copies from's syncable state, keeping a sensitive memory
// sensitive: a sensitive memory never moves down (the vault refuses it),
// so a concurrent state that is not sensitive is applied sealed.
func keepSealed(cur, from *vault.Memory) func(m *vault.Memory) error {
	cp := copySyncable(from)
	return func(m *vault.Memory) error {
		if err := cp(m); err != nil {
			return err
		}
		if cur.Sensitive() && !m.Sensitive() {
			if m.Partition == vault.Archive && m.Archive != nil {
				a := *m.Archive
				a.From = vault.Sensitive
				m.Archive = &a
			} else {
				m.Partition = vault.Sensitive
			}
		}
		return nil
	}
}

// versionOf is the one version a memory's state makes when it arrives
// without its history.
func versionOf(m *vault.Memory) vault.Version {
	snap := *m
	snap.Provenance = vault.Provenance{}
	return vault.Version{Version: m.Version, Time: m.Updated.UTC().Format("2006-01-02T15:04:05.999999999Z07:00"), Agent: m.Owner,
		Operation: vault.OpSync, ContentHash: m.ContentHash, StateHash: m.StateHash(), Pinned: m.Pinned, Memory: snap}
}

// conflict puts a state that lost to a concurrent edit into the
// quarantine for the user.
func (a *applier) conflict(state *vault.Memory) error {
	it := quarantine.Item{
		ID: uuid.NewString(), State: quarantine.Pending, Kind: quarantine.KindSyncConflict, Memory: *state,
		Agent:    actor(a.from, "").Agent,
		Reason:   "edited on two devices at the same time: the later edit is live, this one is kept as a version",
		Proposal: quarantine.ProposeSuspicious, Created: a.s.now().UTC(),
	}
	data, err := it.Encode()
	if err != nil {
		return err
	}
	a.r.Conflicts++
	return a.s.v.QueuePut(it.ID, data, it.Sensitive(), vault.AuditEntry{
		Action: vault.ActionQuarantine, Agent: it.Agent, MemoryID: state.ID, Field: state.Field, Partition: state.Partition,
		Result: vault.ResultOK, Reason: "sync conflict",
	})
}

// tomb applies a removal from another device: it wins over any
// concurrent edit, and its conflict items go with the memory.
func (a *applier) tomb(e *entry) error {
	v := a.s.v
	reason := "SYNC: deleted on another device"
	if e.Action == vault.ActionPurge {
		reason = "SYNC: forgotten or purged on another device"
	}
	removed, err := v.Bury(e.ID, e.Action, reason, actor(a.from, ""))
	if errors.Is(err, vault.ErrConflict) {
		removed, err = v.Bury(e.ID, e.Action, reason, actor(a.from, ""))
	}
	if err != nil {
		return err
	}
	if err := dropConflicts(a.s.v, e.ID, actor(a.from, "").Agent, "the memory was removed on another device"); err != nil {
		return err
	}
	if removed {
		a.removed = append(a.removed, e.ID)
		a.r.Removed++
	}
	a.states[prefixMem+e.ID] = nil
	return nil
}

// dropConflicts removes the sync-conflict items that hold a state of
// memory id, which was removed: no copy of it stays in the quarantine.
func dropConflicts(v *vault.Vault, id, agent, reason string) error {
	recs, _, err := v.QueueList()
	if err != nil {
		return err
	}
	for _, rec := range recs {
		it, err := quarantine.Decode(rec.Data)
		if err != nil || it.Kind != quarantine.KindSyncConflict || it.Memory.ID != id {
			continue
		}
		if err := v.QueueDelete(rec.ID, vault.AuditEntry{Action: vault.ActionDiscard, Agent: agent, MemoryID: id, Result: vault.ResultOK, Reason: reason}); err != nil && !errors.Is(err, vault.ErrNotFound) {
			return err
		}
	}
	return nil
}

// forgetVersions removes the versions of a memory whose content the
// sending device no longer keeps after a forget there: a forget leaves
// no byte of what it removed on any device. The live state stays.
func (a *applier) forgetVersions(e *entry) error {
	cur, vers, err := a.s.v.Replica(e.ID)
	if errors.Is(err, vault.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	keep := map[string]bool{}
	for _, c := range e.Keep {
		keep[c] = true
	}
	var drop []int
	for _, ver := range vers {
		if ver.Version != cur.Version && !keep[a.k.content(ver.Memory.Content)] {
			drop = append(drop, ver.Version)
		}
	}
	if len(drop) == 0 {
		return nil
	}
	_, err = a.s.v.DropVersions(e.ID, drop, "SYNC: forgotten on another device", actor(a.from, ""))
	return err
}

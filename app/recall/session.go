package recall

import (
	"slices"
	"strings"
	"time"
)

// A memory written in a conversation often makes sense only beside the
// ones written before and after it in the same session: "Yes, we went
// last weekend!" answers the turn before it. Recall therefore scores each
// candidate with some of its neighbours' scores (Config.Context): the
// memories the same writer wrote just before and just after it in the
// same session (Source.SessionID), among those the query may see. On
// LoCoMo's conversations this lifted recall_any@5 from 66.7 to 70.9 on
// the seven never tuned on (see cmd/engram-bench/internal/eval).
//
// A writer can link only its own memories so: the session is the
// writer's report, and a memory of another writer is never a neighbour.

// DefaultContext is the weight of a candidate's neighbours' scores
// (Config.Context), chosen on LoCoMo's three dev conversations.
const DefaultContext = 0.3

// sessionKey is a writer's session.
type sessionKey struct{ owner, session string }

// sessionEntry is a memory in its session's order.
type sessionEntry struct {
	created time.Time
	id      string
}

func compareEntries(a, b sessionEntry) int {
	if c := a.created.Compare(b.created); c != 0 {
		return c
	}
	return strings.Compare(a.id, b.id)
}

func sessionOf(d *Doc) (sessionKey, bool) {
	return sessionKey{d.Owner, d.Source.SessionID}, d.Source.SessionID != ""
}

// sessionAdd puts en, in slot, in its session's order and links it to
// its neighbours there. The caller holds the lock.
func (e *Engine) sessionAdd(en *entry, slot uint32) {
	d := &en.doc
	k, ok := sessionOf(d)
	if !ok {
		return
	}
	if e.sessions == nil {
		e.sessions = map[sessionKey][]sessionEntry{}
	}
	list := e.sessions[k]
	i, found := slices.BinarySearchFunc(list, sessionEntry{d.Created, d.ID}, compareEntries)
	if found {
		return
	}
	en.before, en.after = 0, 0
	if i > 0 {
		p := e.slots[list[i-1].id]
		en.before = p + 1
		e.docs[p].after = slot + 1
	}
	if i < len(list) {
		n := e.slots[list[i].id]
		en.after = n + 1
		e.docs[n].before = slot + 1
	}
	e.sessions[k] = slices.Insert(list, i, sessionEntry{d.Created, d.ID})
}

// sessionRemove takes en out of its session and links its neighbours to
// each other. The caller holds the lock.
func (e *Engine) sessionRemove(en *entry) {
	d := &en.doc
	k, ok := sessionOf(d)
	if !ok {
		return
	}
	list := e.sessions[k]
	if i, found := slices.BinarySearchFunc(list, sessionEntry{d.Created, d.ID}, compareEntries); found {
		if en.before != 0 {
			e.docs[en.before-1].after = en.after
		}
		if en.after != 0 {
			e.docs[en.after-1].before = en.before
		}
		en.before, en.after = 0, 0
		list = slices.Delete(list, i, i+1)
		if len(list) == 0 {
			delete(e.sessions, k)
			return
		}
		e.sessions[k] = list
	}
}

// linkSessions links every document to its neighbours in its session's
// order, after a bulk load (sessionsOf). The caller holds the lock.
func (e *Engine) linkSessions() {
	for _, list := range e.sessions {
		prev := uint32(0)
		for _, se := range list {
			s := e.slots[se.id]
			en := e.docs[s]
			en.before, en.after = prev, 0
			if prev != 0 {
				e.docs[prev-1].after = s + 1
			}
			prev = s + 1
		}
	}
}

// remapLink is a session link (slot + 1, 0 for none) after the engine
// renumbers its slots: the linked document is live.
func remapLink(l uint32, newSlot []int32) uint32 {
	if l == 0 {
		return 0
	}
	return uint32(newSlot[l-1]) + 1
}

// sessionsOf builds the session orders of docs at once (a bulk load).
func sessionsOf(docs []*entry) map[sessionKey][]sessionEntry {
	var out map[sessionKey][]sessionEntry
	for _, en := range docs {
		if en == nil {
			continue
		}
		if k, ok := sessionOf(&en.doc); ok {
			if out == nil {
				out = map[sessionKey][]sessionEntry{}
			}
			out[k] = append(out[k], sessionEntry{en.doc.Created, en.doc.ID})
		}
	}
	for k, list := range out {
		slices.SortFunc(list, compareEntries)
		out[k] = slices.CompactFunc(list, func(a, b sessionEntry) bool { return compareEntries(a, b) == 0 })
	}
	return out
}

// linkNeighbours sets each hit's neighbours among hits: the memories
// keep accepts written just before and after it in its session, when
// they are hits too. Memories keep refuses are passed over, so what the
// query may not see changes nothing. The caller holds the read lock.
func (e *Engine) linkNeighbours(hits map[uint32]*Hit, keep func(uint32) bool) {
	if len(e.sessions) == 0 {
		return
	}
	for s, h := range hits {
		if _, ok := sessionOf(h.Doc); !ok {
			continue
		}
		// The session's order, followed by the links of its documents
		// (sessionAdd): every live document with a session is in it.
		near := func(l func(*entry) uint32) *Hit {
			for j := l(e.docs[s]); j != 0; j = l(e.docs[j-1]) {
				if keep(j - 1) {
					return hits[j-1] // nil when the neighbour is no candidate
				}
			}
			return nil
		}
		h.prev, h.next = near(entryBefore), near(entryAfter)
	}
}

func entryBefore(en *entry) uint32 { return en.before }
func entryAfter(en *entry) uint32  { return en.after }

// withContext adds to each hit's score Context times its neighbours'
// scores before this (base, by hit).
func withContext(hits map[uint32]*Hit, weight float64) {
	if weight == 0 {
		return
	}
	base := make(map[*Hit]float64, len(hits))
	for _, h := range hits {
		base[h] = h.Score
	}
	for _, h := range hits {
		if h.prev != nil {
			h.Score += weight * base[h.prev]
		}
		if h.next != nil {
			h.Score += weight * base[h.next]
		}
	}
}

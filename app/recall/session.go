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

// sessionAdd puts d in its session's order. The caller holds the lock.
func (e *Engine) sessionAdd(d *Doc) {
	k, ok := sessionOf(d)
	if !ok {
		return
	}
	if e.sessions == nil {
		e.sessions = map[sessionKey][]sessionEntry{}
	}
	list := e.sessions[k]
	en := sessionEntry{d.Created, d.ID}
	i, found := slices.BinarySearchFunc(list, en, compareEntries)
	if !found {
		e.sessions[k] = slices.Insert(list, i, en)
	}
}

// sessionRemove takes d out of its session. The caller holds the lock.
func (e *Engine) sessionRemove(d *Doc) {
	k, ok := sessionOf(d)
	if !ok {
		return
	}
	list := e.sessions[k]
	if i, found := slices.BinarySearchFunc(list, sessionEntry{d.Created, d.ID}, compareEntries); found {
		list = slices.Delete(list, i, i+1)
		if len(list) == 0 {
			delete(e.sessions, k)
			return
		}
		e.sessions[k] = list
	}
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
	for _, h := range hits {
		k, ok := sessionOf(h.Doc)
		if !ok {
			continue
		}
		list := e.sessions[k]
		i, found := slices.BinarySearchFunc(list, sessionEntry{h.Doc.Created, h.Doc.ID}, compareEntries)
		if !found {
			continue
		}
		near := func(step int) *Hit {
			for j := i + step; j >= 0 && j < len(list); j += step {
				s, ok := e.slots[list[j].id]
				if !ok || !keep(s) {
					continue
				}
				return hits[s] // nil when the neighbour is no candidate
			}
			return nil
		}
		h.prev, h.next = near(-1), near(1)
	}
}

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

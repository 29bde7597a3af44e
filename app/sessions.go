package app

import (
	"slices"
	"sync"
	"time"
)

// sessionKey names a caller's session: its agent and its session id.
func sessionKey(c Caller) string { return c.Name() + "\x00" + c.Session }

// session is one agent session's state. It lives in memory only: working
// memory is never persisted.
type session struct {
	rejected []string      // why each rejected write was refused
	working  []workingNote // the session's working memory, never persisted
}

// sessions holds the sessions' state under its own lock.
type sessions struct {
	mu sync.Mutex
	m  map[string]*session
}

// update calls fn with c's session, made if it has none, under the lock.
func (t *sessions) update(c Caller, fn func(st *session)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	k := sessionKey(c)
	st := t.m[k]
	if st == nil {
		if t.m == nil {
			t.m = map[string]*session{}
		}
		st = &session{}
		t.m[k] = st
	}
	fn(st)
}

// read calls fn with c's session under the lock, if it has one.
func (t *sessions) read(c Caller, fn func(st *session)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if st := t.m[sessionKey(c)]; st != nil {
		fn(st)
	}
}

// end forgets c's session.
func (t *sessions) end(c Caller) {
	t.mu.Lock()
	delete(t.m, sessionKey(c))
	t.mu.Unlock()
}

// recentWrites holds each agent's last accepted writes for the split-order
// check (split.go), under its own lock.
type recentWrites struct {
	mu sync.Mutex
	m  map[string][]recentWrite
}

// within returns the writes under key k still within window of now, the
// newest first.
func (r *recentWrites) within(k string, now time.Time, window time.Duration) []recentWrite {
	r.mu.Lock()
	defer r.mu.Unlock()
	recent := r.m[k]
	out := make([]recentWrite, 0, len(recent))
	for i := len(recent) - 1; i >= 0; i-- {
		if now.Sub(recent[i].at) <= window {
			out = append(out, recent[i])
		}
	}
	return out
}

// add keeps w under k, dropping the oldest beyond keep.
func (r *recentWrites) add(k string, w recentWrite, keep int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil {
		r.m = map[string][]recentWrite{}
	}
	recent := r.m[k]
	if len(recent) >= keep {
		recent = slices.Delete(recent, 0, 1)
	}
	r.m[k] = append(recent, w)
}

// forget drops the writes under k.
func (r *recentWrites) forget(k string) {
	r.mu.Lock()
	delete(r.m, k)
	r.mu.Unlock()
}

// rewrote updates the text (and, for a stored write, the version) of
// memory id among the writes under k after it was rewritten.
func (r *recentWrites) rewrote(k, id, content string, version int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, w := range r.m[k] {
		if w.id == id {
			r.m[k][i].content = content
			if w.version > 0 {
				r.m[k][i].version = version
			}
		}
	}
}

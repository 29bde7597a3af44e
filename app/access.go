package app

import (
	"errors"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/engram-app/engram/vault"
)

// accessFlushDelay is how long access times wait in memory before they are
// written: every recall within it shares a few transactions (see
// bookkeepingChunk) instead of each paying for its own.
// A crash loses at most this much access bookkeeping, which only delays
// decay a little.
const accessFlushDelay = 5 * time.Second

// accessLog holds the access times of recalled memories until they are
// written to the vault (see recordAccess).
type accessLog struct {
	mu        sync.Mutex
	pending   map[string]time.Time
	scheduled bool          // a flush is waiting
	closed    bool          // Close ran: no more flushes are scheduled
	stop      chan struct{} // closed by Close: a waiting flush runs at once
	wg        sync.WaitGroup
}

// recordAccess notes that memories ids were recalled at now. The vault's
// Accessed times, which decay counts as use, are written together
// accessFlushDelay after the first unwritten recall (or at Close), so
// recall never waits for the disk. Access is not audited per
// memory: the recall that used the memories is audited with their count,
// and an entry per result would flood the log.
func (s *Service) recordAccess(ids []string, now time.Time) {
	if len(ids) == 0 || s.v.ReadOnly() {
		return
	}
	a := &s.access
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return
	}
	if a.pending == nil {
		a.pending = make(map[string]time.Time, len(ids))
	}
	for _, id := range ids {
		if now.After(a.pending[id]) {
			a.pending[id] = now
		}
	}
	if a.scheduled {
		return
	}
	a.scheduled = true
	if a.stop == nil {
		a.stop = make(chan struct{})
	}
	stop := a.stop
	a.wg.Go(func() {
		t := time.NewTimer(accessFlushDelay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-stop:
		}
		s.flushAccess()
	})
}

// flushAccess writes the pending access times.
func (s *Service) flushAccess() {
	a := &s.access
	a.mu.Lock()
	batch := a.pending
	a.pending, a.scheduled = nil, false
	a.mu.Unlock()
	if len(batch) == 0 {
		return
	}
	for _, part := range chunked(batch, bookkeepingChunk) {
		if _, err := s.v.Touch(part); err != nil {
			if !errors.Is(err, vault.ErrReadOnly) {
				s.log.Error("recall: record access times", "err", err)
			}
			return // the rest would fail alike (a full disk, a read-only vault)
		}
	}
}

// bookkeepingChunk is the most memories one transaction of background
// bookkeeping (access times, stored vectors) rewrites. bbolt has one
// writer, so an agent's write waits for whatever commit is running: a
// flush of a thousand access times took 20-50 ms under the load
// benchmark, and a write arriving during it waited for the rest of it.
// In commits of 64 memories, taken in id order so that each rewrites
// neighbouring pages, the wait is a few milliseconds.
const bookkeepingChunk = 64

// chunked splits m into maps of at most n entries, by key order.
func chunked[V any](m map[string]V, n int) []map[string]V {
	keys := slices.Sorted(maps.Keys(m))
	out := make([]map[string]V, 0, (len(keys)+n-1)/n)
	for part := range slices.Chunk(keys, n) {
		c := make(map[string]V, len(part))
		for _, k := range part {
			c[k] = m[k]
		}
		out = append(out, c)
	}
	return out
}

// closeAccess writes the pending access times and schedules no more.
func (s *Service) closeAccess() {
	if s.v == nil {
		return
	}
	a := &s.access
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		return
	}
	a.closed = true
	if a.stop != nil {
		close(a.stop)
	}
	a.mu.Unlock()
	a.wg.Wait()
	s.flushAccess()
}

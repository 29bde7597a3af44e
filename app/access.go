package app

import (
	"errors"
	"sync"
	"time"

	"github.com/engram-app/engram/vault"
)

// accessFlushDelay is how long access times wait in memory before they are
// written: every recall within it shares one transaction and one fsync.
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
// Accessed times, which decay counts as use, are written in one
// transaction accessFlushDelay after the first unwritten recall (or at
// Close), so recall never waits for the disk. Access is not audited per
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
	if _, err := s.v.Touch(batch); err != nil && !errors.Is(err, vault.ErrReadOnly) {
		s.log.Error("recall: record access times", "err", err)
	}
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

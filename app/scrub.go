package app

import (
	"context"
	"sync"
	"time"
)

// scrubInterval is how often the scrubber looks for removed bytes to clear
// from the vault file. With scrubTimeout it bounds the removal guarantee:
// while Engram runs, a removal leaves no byte in the file within about
// scrubInterval plus one scrub (DESIGN.md, "Removal leaves no bytes").
const (
	scrubInterval = 5 * time.Second
	scrubTimeout  = 45 * time.Second
)

// scrubber clears the vault's free pages in the background after a
// removal (vault.Scrub), so a running Engram keeps the removal guarantee
// without a caller waiting for it. Closing the vault scrubs what is left.
type scrubber struct {
	stop chan struct{}
	wg   sync.WaitGroup
	once sync.Once
}

// startScrubber starts the scrubber of s's vault.
func (s *Service) startScrubber() {
	if s.v == nil || s.v.ReadOnly() {
		return
	}
	s.scrub.stop = make(chan struct{})
	s.scrub.wg.Go(func() {
		t := time.NewTicker(scrubInterval)
		defer t.Stop()
		for {
			select {
			case <-s.scrub.stop:
				return
			case <-t.C:
			}
			if !s.v.ScrubPending() {
				continue
			}
			ctx, cancel := context.WithTimeout(context.Background(), scrubTimeout)
			st, err := s.v.Scrub(ctx)
			cancel()
			if err != nil {
				s.log.Error("scrub removed bytes from the vault file", "err", err)
				continue
			}
			s.log.Debug("scrubbed the vault file", "zeroed_pages", st.ZeroedPages, "free_pages", st.FreePages, "pause", st.Pause)
		}
	})
}

// stopScrubber ends the scrubber's goroutine; the vault's Close scrubs
// what is still pending.
func (s *Service) stopScrubber() {
	if s.scrub.stop == nil {
		return
	}
	s.scrub.once.Do(func() { close(s.scrub.stop) })
	s.scrub.wg.Wait()
}

// scrubNow clears removed bytes from the file before a caller that was
// promised it (forget, clear) returns.
func (s *Service) scrubNow(ctx context.Context) error {
	if !s.v.ScrubPending() {
		return nil
	}
	_, err := s.v.Scrub(ctx)
	return err
}

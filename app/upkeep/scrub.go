package upkeep

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/engram-app/engram/vault"
)

// ScrubInterval is how often the scrubber looks for removed bytes to
// clear from the vault file. With scrubTimeout it bounds the removal
// guarantee: while Engram runs, a removal leaves no byte in the file
// within about ScrubInterval plus one scrub (DESIGN.md, "Removal leaves no
// bytes").
const (
	ScrubInterval = 5 * time.Second
	scrubTimeout  = 45 * time.Second
)

// Scrubber clears the vault's free pages in the background after a
// removal (vault.Scrub), so a running Engram keeps the removal guarantee
// without a caller waiting for it. Closing the vault scrubs what is left.
type Scrubber struct {
	v    *vault.Vault
	stop chan struct{}
	wg   sync.WaitGroup
	once sync.Once
}

// StartScrubber starts the scrubber of v; a read-only vault has none to
// start, and the returned scrubber's Close does nothing.
func StartScrubber(v *vault.Vault, log *slog.Logger) *Scrubber {
	s := &Scrubber{v: v, stop: make(chan struct{})}
	if v.ReadOnly() {
		return s
	}
	s.wg.Go(func() {
		t := time.NewTicker(ScrubInterval)
		defer t.Stop()
		for {
			select {
			case <-s.stop:
				return
			case <-t.C:
			}
			if !v.ScrubPending() {
				continue
			}
			ctx, cancel := context.WithTimeout(context.Background(), scrubTimeout)
			st, err := v.Scrub(ctx)
			cancel()
			if err != nil {
				log.Error("scrub removed bytes from the vault file", "err", err)
				continue
			}
			log.Debug("scrubbed the vault file", "zeroed_pages", st.ZeroedPages, "free_pages", st.FreePages, "pause", st.Pause)
		}
	})
	return s
}

// Now clears removed bytes from the file before a caller that was
// promised it (forget, clear) returns.
func (s *Scrubber) Now(ctx context.Context) error {
	if !s.v.ScrubPending() {
		return nil
	}
	_, err := s.v.Scrub(ctx)
	return err
}

// Close ends the scrubber's goroutine; the vault's Close scrubs what is
// still pending.
func (s *Scrubber) Close() {
	s.once.Do(func() { close(s.stop) })
	s.wg.Wait()
}

package devsync

import (
	"context"
	"errors"
	"time"
)

// WatchInterval is how often a running Engram looks for changes to sync
// (WatchTicker): this device's writes, or another device's segments
// arriving in the folder. Looking costs a stat of the folder's segment
// files and nothing when neither changed.
const WatchInterval = 2 * time.Second

// Watch exchanges with the folder at each tick when the vault changed
// since the last exchange or the folder's segments did, while the vault
// is unlocked and sync is set up; it returns when ctx ends. done, when
// set, is told the result of each exchange it ran. The caller owns the
// ticks (a time.Ticker's channel in a running Engram), so that a test
// drives it without waiting on a clock.
func (s *Syncer) Watch(ctx context.Context, tick <-chan time.Time, done func(Report, error)) {
	var lastChanges uint64
	var lastFolder string
	first := true
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick:
		}
		if s.v.Locked() {
			continue
		}
		folder, ok := s.Configured()
		if !ok {
			continue
		}
		changes, fp := s.v.Changes(), Fingerprint(folder)
		if !first && changes == lastChanges && fp == lastFolder {
			continue
		}
		first = false
		r, err := s.Now(ctx)
		if errors.Is(err, ErrRevoked) || errors.Is(err, ErrNotSetUp) {
			s.log.Warn("sync: stopped", "err", err)
		} else if err != nil {
			s.log.Error("sync", "err", err)
		}
		// What the exchange itself changed (its state, its segment) is
		// not a reason for the next one.
		lastChanges, lastFolder = s.v.Changes(), Fingerprint(folder)
		if done != nil {
			done(r, err)
		}
	}
}

package upkeep

import (
	"errors"
	"log/slog"
	"time"

	"github.com/engram-app/engram/vault"
)

// AccessFlushDelay is how long access times wait in memory before they
// are written: every recall within it shares a few transactions (see
// bookkeepingChunk) instead of each paying for its own. A crash loses at
// most this much access bookkeeping, which only delays decay a little.
const AccessFlushDelay = 5 * time.Second

// Access holds the access times of recalled memories until they are
// written to the vault. Its methods are safe for concurrent use.
type Access struct {
	v *vault.Vault
	b batch[time.Time]
}

// NewAccess returns the access log of v.
func NewAccess(v *vault.Vault, log *slog.Logger) *Access {
	a := &Access{v: v}
	a.b = batch[time.Time]{
		delay: AccessFlushDelay,
		merge: func(old time.Time, ok bool, t time.Time) time.Time {
			if ok && !t.After(old) {
				return old
			}
			return t
		},
		write: func(times map[string]time.Time) {
			for _, part := range chunked(times, bookkeepingChunk) {
				if _, err := v.Touch(part); err != nil {
					if !errors.Is(err, vault.ErrReadOnly) {
						log.Error("recall: record access times", "err", err)
					}
					return // the rest would fail alike (a full disk, a read-only vault)
				}
			}
		},
	}
	return a
}

// Record notes that memories ids were recalled at now. The vault's
// Accessed times, which decay counts as use, are written together
// AccessFlushDelay after the first unwritten recall (or at Close), so
// recall never waits for the disk. Access is not audited per memory: the
// recall that used the memories is audited with their count, and an entry
// per result would flood the log.
func (a *Access) Record(ids []string, now time.Time) {
	if len(ids) == 0 || a.v.ReadOnly() {
		return
	}
	m := make(map[string]time.Time, len(ids))
	for _, id := range ids {
		m[id] = now
	}
	a.b.add(m)
}

// Close writes the pending access times and takes no more.
func (a *Access) Close() { a.b.close() }

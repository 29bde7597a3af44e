package vault

import (
	"errors"
	"fmt"
	"time"

	"github.com/engram-app/engram/vault/internal/seal"
	bolt "go.etcd.io/bbolt"
)

// AccessStep is how far a memory's stored access time lags behind its
// real use at most. Like relatime on a file system, Touch moves Accessed
// only when the new time is at least AccessStep after the stored one, so
// a memory recalled over and over is rewritten once an hour, not on every
// recall. Access times only count toward decay and archiving, which run
// in days.
const AccessStep = time.Hour

// Touch records that memories were used (recalled): for each id it moves
// the memory's Accessed forward to the given time, all in one
// transaction. It returns how many memories it changed.
//
// Access is bookkeeping, not a change of the memory: Touch writes no
// version and no audit entry (the recall that used the memories is
// audited), and leaves Updated and the state hash alone. A time less than
// AccessStep after the stored one, an id that no longer exists, and a
// sealed memory while the vault is locked are skipped, not errors.
//
// The memories are first read in a read-only transaction, which does not
// hold up writers; the write transaction only rewrites those that are due.
func (v *Vault) Touch(times map[string]time.Time) (int, error) {
	if len(times) == 0 {
		return 0, nil
	}
	key, _ := v.key() // nil while locked: sealed memories are skipped
	defer seal.Wipe(key)
	due := func(m *Memory, t time.Time) bool { return t.Sub(m.Accessed) >= AccessStep }
	var todo []string
	err := v.view(func(tx *bolt.Tx) error {
		todo = todo[:0]
		for id, t := range times {
			m, err := getTx(tx, id, key)
			if errors.Is(err, ErrNotFound) || errors.Is(err, ErrLocked) {
				continue
			}
			if err != nil {
				return err
			}
			if due(m, t) {
				todo = append(todo, id)
			}
		}
		return nil
	})
	if err != nil || len(todo) == 0 {
		return 0, mapTouchErr(err)
	}
	var n int
	err = v.update(func(tx *bolt.Tx) error {
		n = 0 // update may run fn twice
		for _, id := range todo {
			t := times[id]
			m, err := getTx(tx, id, key) // again: it may have changed meanwhile
			if errors.Is(err, ErrNotFound) || errors.Is(err, ErrLocked) {
				continue
			}
			if err != nil {
				return err
			}
			if !due(m, t) {
				continue
			}
			m.Accessed = t.UTC()
			recKey := key
			if !m.sealed() {
				recKey = nil // plaintext stays plaintext
			}
			if err := putMemoryTx(tx, m, recKey); err != nil {
				return err
			}
			n++
		}
		return nil
	})
	if err != nil {
		return 0, mapTouchErr(err)
	}
	return n, nil
}

func mapTouchErr(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("touch memories: %w", mapBoltErr(err))
}

package vault

import (
	"errors"
	"fmt"
	"time"

	"github.com/engram-app/engram/vault/internal/seal"
	bolt "go.etcd.io/bbolt"
)

// Touch records that memories were used (recalled): for each id it moves
// the memory's Accessed forward to the given time, all in one
// transaction. It returns how many memories it changed.
//
// Access is bookkeeping, not a change of the memory: Touch writes no
// version and no audit entry (the recall that used the memories is
// audited), and leaves Updated and the state hash alone. A time not after
// the stored one, an id that no longer exists, and a sealed memory while
// the vault is locked are skipped, not errors.
func (v *Vault) Touch(times map[string]time.Time) (int, error) {
	if len(times) == 0 {
		return 0, nil
	}
	key, _ := v.key() // nil while locked: sealed memories are skipped
	defer seal.Wipe(key)
	var n int
	err := v.update(func(tx *bolt.Tx) error {
		n = 0 // update may run fn twice
		for id, t := range times {
			m, err := getTx(tx, id, key)
			if errors.Is(err, ErrNotFound) || errors.Is(err, ErrLocked) {
				continue
			}
			if err != nil {
				return err
			}
			if !t.After(m.Accessed) {
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
		return 0, fmt.Errorf("touch memories: %w", mapBoltErr(err))
	}
	return n, nil
}

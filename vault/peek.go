package vault

import (
	"github.com/engram-app/engram/vault/internal/seal"
	bolt "go.etcd.io/bbolt"
)

// Peek returns a memory without auditing a read, for the service's own
// decision about a change to it (the change itself is audited). It must
// not be used to hand a memory to a caller: that is Get, which audits.
// A sealed memory needs the vault unlocked (ErrLocked otherwise).
func (v *Vault) Peek(id string) (Memory, error) {
	key, _ := v.key()
	defer seal.Wipe(key)
	var m Memory
	err := v.view(func(tx *bolt.Tx) error {
		got, err := getTx(tx, id, key)
		if err != nil {
			return err
		}
		m = *got
		return nil
	})
	return m, err
}

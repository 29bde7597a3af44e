package vault

import (
	"fmt"

	"github.com/engram-app/engram/vault/internal/seal"
	bolt "go.etcd.io/bbolt"
)

// Adds is a batch of new memories that commit together: one bbolt
// transaction and one fsync for all of them (an import's group commit).
// Prepare fills each memory as Add does and returns it as it will be
// stored; Commit writes them, in the order they were prepared, each with
// its version and audit entries exactly as Add writes them, and returns
// once that transaction is durable, or writes none of them. Nothing
// prepared is stored, or acknowledged, before Commit returns nil.
//
// An Adds is used by one goroutine at a time.
type Adds struct {
	v     *Vault
	items []pendingAdd
}

type pendingAdd struct {
	m Memory
	a Actor
}

// NewAdds returns an empty batch of new memories for v.
func (v *Vault) NewAdds() *Adds { return &Adds{v: v} }

// Prepare checks m as Add does (ErrInvalid; ErrLocked for a sensitive
// memory while the vault is locked), fills its ID (when empty), version,
// times, content hash and provenance, and keeps it for Commit. It
// returns m as Commit will store it.
func (b *Adds) Prepare(m Memory, a Actor) (Memory, error) {
	if err := b.v.prepare(&m, a); err != nil {
		return Memory{}, fmt.Errorf("add memory: %w", err)
	}
	if m.sealed() {
		key, err := b.v.key()
		if err != nil {
			return Memory{}, fmt.Errorf("add memory: %w", err)
		}
		seal.Wipe(key)
	}
	for _, p := range b.items {
		if p.m.ID == m.ID {
			return Memory{}, fmt.Errorf("add memory: memory %s: %w", m.ID, ErrExists)
		}
	}
	b.items = append(b.items, pendingAdd{m, a})
	return m, nil
}

// Len is how many memories wait for Commit.
func (b *Adds) Len() int { return len(b.items) }

// Commit stores every prepared memory in one transaction, in the order
// prepared, and empties the batch. On error none of them is stored
// (the batch is emptied all the same).
func (b *Adds) Commit() error {
	items := b.items
	b.items = nil
	if len(items) == 0 {
		return nil
	}
	key, err := b.v.key()
	if err != nil {
		for _, p := range items {
			if p.m.sealed() {
				return fmt.Errorf("add memories: %w", err)
			}
		}
		key = nil
	}
	defer seal.Wipe(key)
	// The function may run more than once (the group commit, when other
	// writers are in flight): each run starts from a fresh transaction
	// and copies of the memories.
	err = b.v.update(func(tx *bolt.Tx) error {
		for _, p := range items {
			m := p.m
			if err := addTx(tx, &m, key, p.a, m.Created); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("add memories: %w", mapBoltErr(err))
	}
	return nil
}

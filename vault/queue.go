package vault

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/engram-app/engram/vault/internal/seal"
	bolt "go.etcd.io/bbolt"
)

// QueueRecord is one entry of the quarantine bucket. The vault stores its
// JSON without interpreting it; package quarantine defines what it means.
type QueueRecord struct {
	ID     string
	Data   json.RawMessage
	Sealed bool
	// Digest is the SHA-256 of the stored record: Promote takes it to
	// check that the entry is still the one that was read and judged.
	Digest [32]byte
}

// QueuePut stores a quarantine entry, sealed with the data key when
// sensitive (ErrLocked while locked), and appends e to the audit log in the
// same transaction. As for Audit, e's ContentHash must come from
// Fingerprint; any other is left out.
func (v *Vault) QueuePut(id string, data json.RawMessage, sensitive bool, e AuditEntry) error {
	var key []byte
	if sensitive {
		k, err := v.key()
		if err != nil {
			return fmt.Errorf("queue %s: %w", id, err)
		}
		key = k
		defer seal.Wipe(key)
	}
	err := v.update(func(tx *bolt.Tx) error {
		raw, err := encodeRecord(data, key, string(bucketQueue), id, 1)
		if err != nil {
			return err
		}
		if err := tx.Bucket(bucketQueue).Put([]byte(id), raw); err != nil {
			return err
		}
		return appendGivenTx(tx, v.now(), e)
	})
	if err != nil {
		return fmt.Errorf("queue %s: %w", id, mapBoltErr(err))
	}
	return nil
}

// QueueGet returns one quarantine entry.
func (v *Vault) QueueGet(id string) (QueueRecord, error) {
	key, _ := v.key()
	defer seal.Wipe(key)
	var rec QueueRecord
	err := v.view(func(tx *bolt.Tx) error {
		raw := tx.Bucket(bucketQueue).Get([]byte(id))
		if raw == nil {
			return fmt.Errorf("queue entry %s: %w", id, ErrNotFound)
		}
		var err error
		rec, err = decodeQueue(raw, key, id)
		return err
	})
	return rec, err
}

func decodeQueue(raw, key []byte, id string) (QueueRecord, error) {
	var data json.RawMessage
	if _, err := decodeRecord(raw, key, string(bucketQueue), id, &data); err != nil {
		return QueueRecord{}, err
	}
	return QueueRecord{ID: id, Data: data, Sealed: isSealedRecord(raw), Digest: sha256.Sum256(raw)}, nil
}

// QueueList returns every quarantine entry, and how many sealed ones were
// skipped because the vault is locked.
func (v *Vault) QueueList() ([]QueueRecord, int, error) {
	key, _ := v.key()
	defer seal.Wipe(key)
	var out []QueueRecord
	hidden := 0
	err := v.view(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketQueue).ForEach(func(k, raw []byte) error {
			rec, err := decodeQueue(raw, key, string(k))
			if errors.Is(err, ErrLocked) {
				hidden++
				return nil
			}
			if err != nil {
				return err
			}
			out = append(out, rec)
			return nil
		})
	})
	if err != nil {
		return nil, 0, fmt.Errorf("list queue: %w", err)
	}
	return out, hidden, nil
}

// QueueDelete removes a quarantine entry and audits e in the same
// transaction (a ContentHash not from Fingerprint is left out, as for
// Audit).
func (v *Vault) QueueDelete(id string, e AuditEntry) error {
	err := v.update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketQueue)
		if b.Get([]byte(id)) == nil {
			return fmt.Errorf("queue entry %s: %w", id, ErrNotFound)
		}
		if err := b.Delete([]byte(id)); err != nil {
			return err
		}
		v.markRemoved()
		return appendGivenTx(tx, v.now(), e)
	})
	if err != nil {
		return fmt.Errorf("delete queue entry: %w", mapBoltErr(err))
	}
	return nil
}

// Promote stores m as a new memory and removes quarantine entry id in one
// transaction, so an approved memory is never both queued and stored, or
// neither. judged is the Digest of the entry as the caller read and judged
// it: if the stored entry is another (rewritten meanwhile), Promote fails
// with ErrConflict and changes nothing.
func (v *Vault) Promote(id string, judged [32]byte, m Memory, a Actor) (Memory, error) {
	if err := v.prepare(&m, a); err != nil {
		return Memory{}, fmt.Errorf("promote: %w", err)
	}
	key, err := v.keyFor(&m)
	if err != nil {
		return Memory{}, fmt.Errorf("promote: %w", err)
	}
	defer seal.Wipe(key)
	err = v.update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketQueue)
		raw := b.Get([]byte(id))
		if raw == nil {
			return fmt.Errorf("queue entry %s: %w", id, ErrNotFound)
		}
		if sha256.Sum256(raw) != judged {
			return fmt.Errorf("queue entry %s changed since it was read: %w", id, ErrConflict)
		}
		if err := b.Delete([]byte(id)); err != nil {
			return err
		}
		v.markRemoved() // an edit on approval leaves the queued text behind
		return addTx(tx, &m, key, a, m.Created)
	})
	if err != nil {
		return Memory{}, fmt.Errorf("promote: %w", mapBoltErr(err))
	}
	return m, nil
}

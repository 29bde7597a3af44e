package vault

import (
	"encoding/json"
	"time"

	bolt "go.etcd.io/bbolt"
)

// bucketTombstones holds one tombstone per deleted or purged memory, so
// that importing an older backup does not bring it back. Created on first
// use.
var bucketTombstones = []byte("tombstones")

// Tombstone marks a memory that was deleted or purged. It holds the id and
// the keyed fingerprint of the content (Fingerprint; empty when the vault
// was locked), never the text.
type Tombstone struct {
	ID          string    `json:"id"`
	Time        time.Time `json:"time"`
	Action      Action    `json:"action"`
	Fingerprint string    `json:"fingerprint,omitempty"`
}

// putTombstoneTx records the removal of memory id.
func putTombstoneTx(tx *bolt.Tx, t Tombstone) error {
	b, err := tx.CreateBucketIfNotExists(bucketTombstones)
	if err != nil {
		return err
	}
	raw, err := json.Marshal(t)
	if err != nil {
		return err
	}
	return b.Put([]byte(t.ID), raw)
}

// tombstonesTx returns the tombstoned ids and fingerprints.
func tombstonesTx(tx *bolt.Tx) (ids, fingerprints map[string]bool) {
	ids, fingerprints = map[string]bool{}, map[string]bool{}
	b := tx.Bucket(bucketTombstones)
	if b == nil {
		return ids, fingerprints
	}
	_ = b.ForEach(func(k, raw []byte) error {
		ids[string(k)] = true
		var t Tombstone
		if json.Unmarshal(raw, &t) == nil && t.Fingerprint != "" {
			fingerprints[t.Fingerprint] = true
		}
		return nil
	})
	return ids, fingerprints
}

// Tombstones returns every tombstone, in id order.
func (v *Vault) Tombstones() ([]Tombstone, error) {
	var out []Tombstone
	err := v.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketTombstones)
		if b == nil {
			return nil
		}
		return b.ForEach(func(k, raw []byte) error {
			var t Tombstone
			if err := json.Unmarshal(raw, &t); err != nil {
				return err
			}
			out = append(out, t)
			return nil
		})
	})
	return out, err
}

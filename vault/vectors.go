package vault

import (
	"bytes"
	"fmt"
	"slices"

	bolt "go.etcd.io/bbolt"
)

// bucketVectors holds one opaque embedding blob per memory id. The bucket
// is created by the first PutVectors, so vaults made before it need no
// migration. See "Vectors" in DESIGN.md.
var bucketVectors = []byte("vectors")

// PutVectors stores each blob as the embedding of the memory whose id is
// its key, replacing earlier ones, in one transaction. The vault does not
// interpret a blob: its format (model name, content hash, numbers) belongs
// to the caller, which MUST check it still matches the memory before using
// it.
//
// Vectors are derived from plaintext, so PutVectors refuses a memory whose
// record is sealed (ErrInvalid): a sensitive memory MUST never have a
// stored vector. It fails with ErrNotFound for an unknown id. Either all
// blobs are stored or none.
func (v *Vault) PutVectors(blobs map[string][]byte) error {
	if len(blobs) == 0 {
		return nil
	}
	err := v.update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists(bucketVectors)
		if err != nil {
			return err
		}
		for id, blob := range blobs {
			_, raw, err := findTx(tx, id)
			if err != nil {
				return err
			}
			if isSealedRecord(raw) {
				return fmt.Errorf("memory %s: %w: sensitive memories have no vector", id, ErrInvalid)
			}
			if err := b.Put([]byte(id), blob); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("put vectors: %w", mapBoltErr(err))
	}
	return nil
}

// DeleteVectors removes the stored vectors of ids; ids without one are
// skipped.
func (v *Vault) DeleteVectors(ids ...string) error {
	if len(ids) == 0 {
		return nil
	}
	err := v.update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketVectors)
		if b == nil {
			return nil
		}
		for _, id := range ids {
			if err := b.Delete([]byte(id)); err != nil {
				return err
			}
		}
		v.markRemoved()
		return nil
	})
	if err != nil {
		return fmt.Errorf("delete vectors: %w", mapBoltErr(err))
	}
	return nil
}

// Vectors calls fn with every stored vector whose memory still exists in
// a plaintext record, in id order. Vectors of deleted memories, and of
// memories that have since become sensitive, are skipped and returned as
// stale, for the caller to remove with DeleteVectors. blob is a copy the
// caller may keep.
func (v *Vault) Vectors(fn func(id string, blob []byte) error) (stale []string, err error) {
	err = v.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketVectors)
		if b == nil {
			return nil
		}
		// The memories are found by walking each partition beside the
		// vectors, both in id order: one lookup per vector from the root
		// of each partition cost more than reading the vectors.
		type walk struct {
			c    *bolt.Cursor
			k, v []byte
		}
		parts := make([]walk, 0, len(partitionBuckets()))
		for _, name := range partitionBuckets() {
			c := tx.Bucket(name).Cursor()
			k, v := c.First()
			parts = append(parts, walk{c, k, v})
		}
		record := func(id []byte) []byte { // as findTx, or nil
			for i := range parts {
				p := &parts[i]
				for p.k != nil && bytes.Compare(p.k, id) < 0 {
					p.k, p.v = p.c.Next()
				}
				if p.k != nil && p.v != nil && bytes.Equal(p.k, id) {
					return p.v
				}
			}
			return nil
		}
		return b.ForEach(func(k, blob []byte) error {
			if raw := record(k); raw == nil || isSealedRecord(raw) {
				stale = append(stale, string(k))
				return nil
			}
			return fn(string(k), slices.Clone(blob))
		})
	})
	if err != nil {
		return nil, fmt.Errorf("read vectors: %w", mapBoltErr(err))
	}
	return stale, nil
}

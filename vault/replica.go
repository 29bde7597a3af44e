package vault

import (
	"bytes"
	"context"
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/engram-app/engram/vault/internal/kdf"
	"github.com/engram-app/engram/vault/internal/seal"
	bolt "go.etcd.io/bbolt"
)

// What the vault offers the sync between devices (DESIGN.md, "Sync
// across devices"): keys derived from the data key, the header for a
// joining device, a sealed key-value bucket for the sync's own state,
// and a memory's replica (its record and kept versions) read and written
// as a whole.

// OpSync is the operation of a change applied from another device.
const OpSync Operation = "SYNC"

// bucketSync holds the sync's state, every value sealed under the data
// key (additional data: bucket "sync", the key). Created on first use.
var bucketSync = []byte("sync")

// DeriveKey returns HKDF-SHA-256(data key, salt none, info, 32 bytes),
// for a purpose the caller names in info ("engram sync segment v1").
// info MUST start with "engram sync " so that no derived key equals one
// the vault derives for itself (the audit keys). ErrLocked while locked.
func (v *Vault) DeriveKey(info string) ([]byte, error) {
	if !strings.HasPrefix(info, "engram sync ") {
		return nil, fmt.Errorf("derive key: %w: info must start with \"engram sync \"", ErrInvalid)
	}
	key, err := v.key()
	if err != nil {
		return nil, fmt.Errorf("derive key: %w", err)
	}
	defer seal.Wipe(key)
	return hkdf.Key(sha256.New, key, nil, info, 32)
}

// Header returns the vault's header as stored: the KDF parameters, the
// salt and the data key wrapped under the passphrase's key. It holds no
// key in clear; it is what Join needs to make the same vault elsewhere.
func (v *Vault) Header() ([]byte, error) {
	var out []byte
	err := v.view(func(tx *bolt.Tx) error {
		out = bytes.Clone(tx.Bucket(bucketMeta).Get(keyHeader))
		return nil
	})
	if err == nil && out == nil {
		err = fmt.Errorf("%w: no header", ErrCorrupt)
	}
	return out, err
}

// HeaderVaultID returns the vault id a header (from Header) names, or an
// error when it does not parse as a header.
func HeaderVaultID(raw []byte) (string, error) {
	sum := sha256.Sum256(raw)
	h, err := decodeHeader(raw, sum[:])
	if err != nil {
		return "", err
	}
	return h.VaultID, nil
}

// Join creates a vault at path with the given header (from another
// device's Header): the same vault id and data key, unwrapped with
// passphrase, and no memories. It fails with ErrWrongPassphrase when the
// passphrase does not unwrap the key, ErrExists when path exists. The
// vault is returned unlocked.
func Join(ctx context.Context, path string, raw []byte, passphrase []byte, opts Options) (*Vault, error) {
	sum := sha256.Sum256(raw)
	h, err := decodeHeader(raw, sum[:])
	if err != nil {
		return nil, fmt.Errorf("join vault: %w", err)
	}
	if h.KDFAlg != "argon2id" {
		return nil, fmt.Errorf("join vault: %w: key derivation %q", ErrFormat, h.KDFAlg)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	kek, err := kdf.Derive(passphrase, h.KDF)
	if err != nil {
		return nil, fmt.Errorf("join vault: %w", err)
	}
	dek, err := seal.Open(kek, h.WrappedKey, h.wrapAAD())
	if err != nil {
		seal.Wipe(kek)
		return nil, fmt.Errorf("join vault: %w", ErrWrongPassphrase)
	}
	if _, err := os.Stat(path); err == nil {
		return nil, fmt.Errorf("join vault %s: %w", path, ErrExists)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("join vault: %w", err)
	}
	db, err := openBolt(path, opts)
	if err != nil {
		return nil, err
	}
	err = db.Update(func(tx *bolt.Tx) error {
		names := append(partitionBuckets(), bucketMeta, bucketVersions, bucketAudit, bucketAuditMeta, bucketAgents, bucketQueue)
		for _, name := range names {
			if _, err := tx.CreateBucket(name); err != nil {
				return err
			}
		}
		return putHeader(tx, h)
	})
	if err != nil {
		db.Close()
		os.Remove(path)
		return nil, fmt.Errorf("join vault: %w", err)
	}
	v := &Vault{db: db, path: path, now: clock(opts), hdr: *h, kek: kek, dek: dek, opts: opts}
	if err := v.appendAudit(AuditEntry{Action: ActionVaultCreate, Agent: AgentOperator, Result: ResultOK, Reason: "joined from a synced folder"}); err != nil {
		v.Close()
		return nil, err
	}
	return v, nil
}

// SyncGet returns the sync state stored under key, or ErrNotFound.
// ErrLocked while locked: every value is sealed.
func (v *Vault) SyncGet(key string) ([]byte, error) {
	dek, err := v.key()
	if err != nil {
		return nil, fmt.Errorf("sync state: %w", err)
	}
	defer seal.Wipe(dek)
	var out json.RawMessage
	err = v.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketSync)
		if b == nil {
			return ErrNotFound
		}
		raw := b.Get([]byte(key))
		if raw == nil {
			return ErrNotFound
		}
		_, err := decodeRecord(raw, dek, string(bucketSync), key, &out)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("sync state %s: %w", key, err)
	}
	return out, nil
}

// SyncPut stores each value (JSON) under its key in one transaction; a
// nil value deletes the key (and the deletion is scrubbed like any
// removal). ErrLocked while locked.
func (v *Vault) SyncPut(kv map[string][]byte) error {
	dek, err := v.key()
	if err != nil {
		return fmt.Errorf("sync state: %w", err)
	}
	defer seal.Wipe(dek)
	removed := false
	err = v.update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists(bucketSync)
		if err != nil {
			return err
		}
		// In key order: bbolt fills its pages in order, far cheaper than
		// a map's random order for a segment's thousands of states.
		for _, k := range slices.Sorted(maps.Keys(kv)) {
			val := kv[k]
			if val == nil {
				if b.Get([]byte(k)) != nil {
					removed = true
				}
				if err := b.Delete([]byte(k)); err != nil {
					return err
				}
				continue
			}
			if !json.Valid(val) {
				return fmt.Errorf("%w: sync state %s is not JSON", ErrInvalid, k)
			}
			raw, err := encodeRecord(json.RawMessage(val), dek, string(bucketSync), k, 0)
			if err != nil {
				return err
			}
			if err := b.Put([]byte(k), raw); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("sync state: %w", mapBoltErr(err))
	}
	if removed {
		v.markRemoved()
	}
	return nil
}

// SyncEach calls fn with every sync state whose key starts with prefix,
// in key order. A value that fails to open stops it with the error.
func (v *Vault) SyncEach(prefix string, fn func(key string, val []byte) error) error {
	dek, err := v.key()
	if err != nil {
		return fmt.Errorf("sync state: %w", err)
	}
	defer seal.Wipe(dek)
	return v.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketSync)
		if b == nil {
			return nil
		}
		c := b.Cursor()
		p := []byte(prefix)
		for k, raw := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, raw = c.Next() {
			var out json.RawMessage
			if _, err := decodeRecord(raw, dek, string(bucketSync), string(k), &out); err != nil {
				return fmt.Errorf("sync state %s: %w", k, err)
			}
			if err := fn(string(k), out); err != nil {
				return err
			}
		}
		return nil
	})
}

// Replica returns a memory and its kept versions, oldest first, without
// auditing a read: it is for the sync, which hands them only to the
// user's other devices, sealed. A sealed memory needs the vault unlocked.
func (v *Vault) Replica(id string) (Memory, []Version, error) {
	key, _ := v.key()
	defer seal.Wipe(key)
	var m Memory
	var vers []Version
	err := v.view(func(tx *bolt.Tx) error {
		got, err := getTx(tx, id, key)
		if err != nil {
			return err
		}
		m = *got
		k := key
		if !m.sealed() {
			k = nil
		}
		vb := tx.Bucket(bucketVersions).Bucket([]byte(id))
		if vb == nil {
			return fmt.Errorf("%w: no versions for %s", ErrCorrupt, id)
		}
		return vb.ForEach(func(vk, raw []byte) error {
			var ver Version
			if _, err := decodeRecord(raw, k, string(bucketVersions), versionName(id, vk), &ver); err != nil {
				return err
			}
			vers = append(vers, ver)
			return nil
		})
	})
	if err != nil {
		return Memory{}, nil, fmt.Errorf("replica of %s: %w", id, mapBoltErr(err))
	}
	return m, vers, nil
}

// Replicated is a memory with its kept versions, oldest first, as
// another device holds it.
type Replicated struct {
	Memory   Memory
	Versions []Version
}

// InsertReplica stores a memory that another device made, as it is, with
// its versions (checked as a backup's memory is: content hash, version
// order and state hashes). It fails with ErrExists when the id is here,
// ErrForgotten when the id has a tombstone (a removed memory never comes
// back), ErrLocked for a sealed memory while locked. The change is
// audited as a write (reason SYNC) with the memory's version and keyed
// fingerprints, so doctor checks it as any other.
func (v *Vault) InsertReplica(m Memory, versions []Version, a Actor) error {
	done, err := v.InsertReplicas([]Replicated{{m, versions}}, a)
	if err != nil {
		return err
	}
	if done[0] != nil {
		return fmt.Errorf("insert replica %s: %w", m.ID, done[0])
	}
	return nil
}

// InsertReplicas is InsertReplica for many memories in one transaction
// (one commit for a joining device's thousands). It returns, per item,
// nil when it was stored, ErrExists or ErrForgotten when it was left
// out; any other failure (an invalid item, a sealed one while locked, a
// failed commit) stores none and is returned as the error.
func (v *Vault) InsertReplicas(items []Replicated, a Actor) ([]error, error) {
	key, _ := v.key()
	defer seal.Wipe(key)
	for i := range items {
		it := &items[i]
		if err := checkItem(&backupItem{Memory: it.Memory, Versions: it.Versions}); err != nil {
			return nil, fmt.Errorf("insert replica: %w: %v", ErrInvalid, err)
		}
		if it.Memory.sealed() && key == nil {
			return nil, fmt.Errorf("insert replica: %w", ErrLocked)
		}
	}
	out := make([]error, len(items))
	err := v.update(func(tx *bolt.Tx) error {
		gone, _ := tombstonesTx(tx)
		now := v.now()
		for i := range items {
			m, versions := &items[i].Memory, items[i].Versions
			out[i] = nil
			if _, _, err := findTx(tx, m.ID); err == nil {
				out[i] = ErrExists
				continue
			}
			if gone[m.ID] {
				out[i] = ErrForgotten
				continue
			}
			k := key
			if !m.sealed() {
				k = nil
			}
			if err := putMemoryTx(tx, m, k); err != nil {
				return err
			}
			vb, err := tx.Bucket(bucketVersions).CreateBucketIfNotExists([]byte(m.ID))
			if err != nil {
				return err
			}
			for _, ver := range versions {
				vk := seqKey(uint64(ver.Version))
				raw, err := encodeRecord(ver, k, string(bucketVersions), versionName(m.ID, vk), uint64(ver.Version))
				if err != nil {
					return err
				}
				if err := vb.Put(vk, raw); err != nil {
					return err
				}
			}
			if err := appendAuditTx(tx, now, AuditEntry{
				Action: ActionWrite, Agent: a.agent(), Session: a.Session, Field: m.Field, Partition: m.Partition, MemoryID: m.ID,
				ContentHash: contentHashFor(m.Content, m.sealed(), key), StateFingerprint: stateFingerprint(m, key),
				Result: ResultOK, Reason: string(OpSync) + reasonSuffix(a.Reason), VersionAfter: m.Version, Size: len(m.Content),
			}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("insert replicas: %w", mapBoltErr(err))
	}
	return out, nil
}

// Tombstoned reports whether memory id has a tombstone.
func (v *Vault) Tombstoned(id string) (bool, error) {
	var gone bool
	err := v.view(func(tx *bolt.Tx) error {
		if b := tx.Bucket(bucketTombstones); b != nil {
			gone = b.Get([]byte(id)) != nil
		}
		return nil
	})
	return gone, err
}

// ErrForgotten is returned by InsertReplica for a memory whose id has a
// tombstone here. (Beside its only user, not in errors.go, so that the
// sync's vault surface stays in this file.)
var ErrForgotten = errors.New("removed here before (a tombstone names it)")

// Bury removes memory id as another device did (action ActionDelete or
// ActionPurge): with its versions and vector, leaving a tombstone, as
// Delete or Purge would. When the memory is not here (its removal
// arrived first), it records the tombstone alone, so that the memory
// never arrives later. It returns whether a memory was removed.
func (v *Vault) Bury(id string, action Action, reason string, a Actor) (bool, error) {
	if action != ActionDelete && action != ActionPurge {
		return false, fmt.Errorf("bury %s: %w: action %q", id, ErrInvalid, action)
	}
	err := v.remove(id, action, reason, a)
	if err == nil {
		return true, nil
	}
	if !errors.Is(err, ErrNotFound) {
		return false, err
	}
	err = v.update(func(tx *bolt.Tx) error {
		if _, _, err := findTx(tx, id); err == nil {
			return ErrConflict // it arrived meanwhile: the caller tries again
		}
		if gone, _ := tombstonesTx(tx); gone[id] {
			return nil
		}
		if err := putTombstoneTx(tx, Tombstone{ID: id, Time: v.now().UTC(), Action: action}); err != nil {
			return err
		}
		return appendAuditTx(tx, v.now(), AuditEntry{Action: action, Agent: a.agent(), Session: a.Session, MemoryID: id, Result: ResultOK, Reason: reason + " (not held here)"})
	})
	if err != nil {
		return false, fmt.Errorf("bury %s: %w", id, mapBoltErr(err))
	}
	return false, nil
}

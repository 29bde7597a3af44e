package vault

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/engram-app/engram/vault/internal/seal"
	bolt "go.etcd.io/bbolt"
)

// EachVersion calls fn with every kept version of every memory, memory
// by memory in id order, oldest version first, and returns how many
// sealed versions it skipped because the vault is locked. fn must not
// keep ver or call the vault: it runs inside a read transaction. A
// version that fails to decode ends the walk with its error.
func (v *Vault) EachVersion(fn func(id string, ver *Version) error) (hidden int, err error) {
	key, _ := v.key()
	defer seal.Wipe(key)
	err = v.view(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketVersions).ForEachBucket(func(id []byte) error {
			return tx.Bucket(bucketVersions).Bucket(id).ForEach(func(k, raw []byte) error {
				var ver Version
				if _, err := decodeRecord(raw, key, string(bucketVersions), versionName(string(id), k), &ver); err != nil {
					if errors.Is(err, ErrLocked) {
						hidden++
						return nil
					}
					return err
				}
				return fn(string(id), &ver)
			})
		})
	})
	if err != nil {
		return hidden, fmt.Errorf("list versions: %w", err)
	}
	return hidden, nil
}

// DropVersions removes kept versions of memory id (a forget request found
// the forgotten text in them), audited as one memory:purged entry with
// reason and the versions dropped. The newest version, the memory's
// current state, is never dropped. It returns how many it dropped.
//
// The state hash of a dropped version is derived from its text, and a
// plain one would confirm a guess of it: a plain memory's provenance
// forgets it too (the change that followed the version keeps no
// PrevHash; the record is rewritten in place at its version). A sealed
// memory's provenance is sealed and keeps it.
func (v *Vault) DropVersions(id string, versions []int, reason string, a Actor) (int, error) {
	n := 0
	err := v.update(func(tx *bolt.Tx) error {
		n = 0
		vb := tx.Bucket(bucketVersions).Bucket([]byte(id))
		if vb == nil {
			return fmt.Errorf("memory %s: %w", id, ErrNotFound)
		}
		last, _ := vb.Cursor().Last()
		var dropped []string
		for _, ver := range versions {
			k := seqKey(uint64(ver))
			if vb.Get(k) == nil || (last != nil && binary.BigEndian.Uint64(last) == uint64(ver)) {
				continue
			}
			if err := vb.Delete(k); err != nil {
				return err
			}
			dropped = append(dropped, strconv.Itoa(ver))
			n++
		}
		if n == 0 {
			return nil
		}
		v.markRemoved()
		if bucket, raw, err := findTx(tx, id); err == nil && !isSealedRecord(raw) {
			var m Memory
			if _, err := decodeRecord(raw, nil, bucket, id, &m); err != nil {
				return err
			}
			if forgetPrevStatesTx(tx, &m) {
				if err := putMemoryTx(tx, &m, nil); err != nil {
					return err
				}
			}
		}
		slices.Sort(dropped)
		return appendAuditTx(tx, v.now(), AuditEntry{Action: ActionPurge, Agent: a.agent(), Session: a.Session, MemoryID: id, Result: ResultOK,
			Reason: reason + ": versions " + strings.Join(dropped, ","), Count: n})
	})
	if err != nil {
		return 0, fmt.Errorf("drop versions of %s: %w", id, mapBoltErr(err))
	}
	return n, nil
}

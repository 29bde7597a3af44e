package vault

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/engram-app/engram/vault/internal/seal"
	"github.com/google/uuid"
	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// MaxVersions is how many content versions of a memory are kept: versions
// whose content differs from the kept version before them (the oldest kept
// version is one). Compaction drops the oldest unpinned ones beyond it,
// together with the metadata versions that follow them.
const MaxVersions = 10

// MaxMetadataVersions is how many metadata versions of a memory are kept:
// versions that changed its attributes (tags, partition, pinning, archive)
// but kept the content of the version before them. They are compacted
// among themselves, oldest unpinned first, so changes of attributes never
// push a content version out. Confirmations make no version at all (see
// Verify).
const MaxMetadataVersions = 10

// Actor says who performs an operation and why; it goes into provenance
// and the audit log.
type Actor struct {
	Agent   string // agent id, or AgentOperator for the local user
	Session string
	Reason  string
	// Score is the guard's validation score recorded on the new version.
	Score float64
	// IfVersion, when non-zero, makes an update fail with ErrConflict
	// unless the memory is at that version.
	IfVersion int
	// Audit are further entries decided outside the vault about this
	// change (a secret redacted from it), written in the change's
	// transaction (Add, Update, Promote) after its own entry, so that the
	// change and what is known about it commit together. As for Audit, a
	// ContentHash must come from Fingerprint; MemoryID is set to the new
	// memory's.
	Audit []AuditEntry
}

func (a Actor) agent() string {
	if a.Agent == "" {
		return AgentOperator
	}
	return a.Agent
}

// Version is one stored state of a memory.
type Version struct {
	Version         int       `json:"version"`
	Time            string    `json:"time"`
	Agent           string    `json:"agent"`
	Operation       Operation `json:"operation,omitempty"`
	ContentHash     string    `json:"content_hash"`
	StateHash       string    `json:"state_hash"`
	ValidationScore float64   `json:"validation_score"`
	Pinned          bool      `json:"pinned"`
	// Memory is the state at this version, without its provenance.
	Memory Memory `json:"memory"`
}

// Add stores a new memory. It fills ID (when empty), Version, times,
// ContentHash and the provenance genesis; it truncates over-long content.
// A sensitive memory needs the vault unlocked (ErrLocked otherwise).
func (v *Vault) Add(m Memory, a Actor) (Memory, error) {
	if err := v.prepare(&m, a); err != nil {
		return Memory{}, fmt.Errorf("add memory: %w", err)
	}
	now := m.Created
	dek, err := v.keyFor(&m)
	if err != nil {
		return Memory{}, fmt.Errorf("add memory: %w", err)
	}
	defer seal.Wipe(dek)
	err = v.update(func(tx *bolt.Tx) error { return addTx(tx, &m, dek, a, now) })
	if err != nil {
		return Memory{}, fmt.Errorf("add memory: %w", mapBoltErr(err))
	}
	return m, nil
}

// prepare fills the fields Add sets and validates m.
func (v *Vault) prepare(m *Memory, a Actor) error {
	if m.ID == "" {
		m.ID = uuid.NewString()
	} else if _, err := uuid.Parse(m.ID); err != nil {
		return fmt.Errorf("%w: id %q is not a UUID", ErrInvalid, m.ID)
	}
	m.Content, _ = Truncate(m.Content)
	if m.Owner == "" {
		m.Owner = a.agent()
	}
	now := v.now().UTC()
	m.Created, m.Updated, m.Accessed = now, now, now
	m.Version = 1
	m.ContentHash = HashContent(m.Content)
	m.Archive = nil
	m.Provenance = Provenance{Genesis: Genesis{Source: m.Source, Agent: a.agent(), Context: a.Reason, Time: now}}
	return m.Validate()
}

// addTx stores the new memory m. dek is the data key, nil while locked:
// it seals m when m is sealed and makes the audit entry's fingerprints.
func addTx(tx *bolt.Tx, m *Memory, dek []byte, a Actor, now time.Time) error {
	if _, _, err := findTx(tx, m.ID); err == nil {
		return fmt.Errorf("memory %s: %w", m.ID, ErrExists)
	}
	key := dek
	if !m.sealed() {
		key = nil
	}
	if err := putMemoryTx(tx, m, key); err != nil {
		return err
	}
	if err := putVersionTx(tx, m, key, a, ""); err != nil {
		return err
	}
	err := appendAuditTx(tx, now, AuditEntry{
		Action: ActionWrite, Agent: a.agent(), Session: a.Session, Field: m.Field, Partition: m.Partition,
		MemoryID: m.ID, ContentHash: contentHashFor(m.Content, m.sealed(), dek), StateFingerprint: stateFingerprint(m, dek),
		Result: ResultOK, Reason: a.Reason, VersionAfter: 1, Size: len(m.Content),
		SourceType: m.Source.Type, Tier: m.Tier, Trust: m.Trust,
	})
	for _, e := range a.Audit {
		if err != nil {
			break
		}
		e.MemoryID = m.ID
		err = appendGivenTx(tx, now, e)
	}
	return err
}

// keyFor returns the data key, nil while locked; a sealed m needs it
// (ErrLocked).
func (v *Vault) keyFor(m *Memory) ([]byte, error) {
	key, err := v.key()
	if err != nil && m.sealed() {
		return nil, err
	}
	return key, nil
}

// Get returns a memory. Reading a sensitive memory needs the vault unlocked
// and is audited as an L3 access, committed before Get returns; every read
// is audited, a read of a plain memory within ReadAuditDelay (see Audit).
func (v *Vault) Get(id string, a Actor) (Memory, error) {
	key, _ := v.key() // nil while locked; sealed records then give ErrLocked
	defer seal.Wipe(key)
	entry := func(got *Memory, err error) AuditEntry {
		action := ActionRead
		if got != nil && got.sealed() || errors.Is(err, ErrLocked) {
			action = ActionL3Access
		}
		e := AuditEntry{Action: action, Agent: a.agent(), Session: a.Session, MemoryID: id, Result: ResultOK, Reason: a.Reason}
		if err != nil {
			e.Result = ResultDenied
			if !errors.Is(err, ErrLocked) {
				e.Result, e.Reason = ResultError, errorReason(err)
			}
			return e
		}
		e.Field, e.Partition, e.VersionAfter = got.Field, got.Partition, got.Version
		return e
	}
	if !v.readOnly {
		// A plain memory is read in a read transaction, which waits for no
		// writer, and its audit entry joins the group commit of reads.
		var got *Memory
		err := v.view(func(tx *bolt.Tx) (err error) {
			got, err = getTx(tx, id, key)
			return err
		})
		if err == nil && !got.sealed() {
			if err := v.auditRead(entry(got, nil)); err != nil {
				return Memory{}, fmt.Errorf("get memory %s: %w", id, mapBoltErr(err))
			}
			return *got, nil
		}
	}
	// A sealed memory, or a failed read: read and audit in one transaction,
	// committed before the answer.
	var m Memory
	var readErr error // a failed read still commits its audit entry
	err := v.readAudited(func(tx *bolt.Tx, audit func(AuditEntry) error) error {
		got, err := getTx(tx, id, key)
		if err != nil {
			readErr = err
			return audit(entry(nil, err))
		}
		m = *got
		return audit(entry(got, nil))
	})
	if err == nil {
		err = readErr
	}
	if err != nil {
		return Memory{}, fmt.Errorf("get memory %s: %w", id, mapBoltErr(err))
	}
	return m, nil
}

// errorReason is the audit reason for a failed operation: the sentinel's
// text only, never a record's content.
func errorReason(err error) string {
	for _, s := range []error{ErrNotFound, ErrAuth, ErrCorrupt, ErrFormat, ErrLocked, ErrInvalid, ErrConflict} {
		if errors.Is(err, s) {
			return s.Error()
		}
	}
	return "error"
}

// Update applies fn to the memory and stores the result as a new version,
// adding a modification of kind op to its provenance with the hash of the
// state before. fn may change content, tags, field, kind, tier, partition,
// trust, confidence, expiry and pinning; Update recomputes the rest. A
// memory is never moved down from the sensitive partition (ErrInvalid).
func (v *Vault) Update(id string, op Operation, a Actor, fn func(m *Memory) error) (Memory, error) {
	key, _ := v.key()
	defer seal.Wipe(key)
	var out Memory
	err := v.update(func(tx *bolt.Tx) error {
		cur, err := getTx(tx, id, key)
		if err != nil {
			return err
		}
		if a.IfVersion != 0 && a.IfVersion != cur.Version {
			return fmt.Errorf("%w: memory is at version %d, not %d", ErrConflict, cur.Version, a.IfVersion)
		}
		next, err := v.apply(tx, *cur, op, a, key, fn)
		if err != nil {
			return err
		}
		out = next
		return nil
	})
	if err != nil {
		return Memory{}, fmt.Errorf("update memory %s: %w", id, mapBoltErr(err))
	}
	return out, nil
}

// apply is the body of every versioned change, inside tx.
func (v *Vault) apply(tx *bolt.Tx, cur Memory, op Operation, a Actor, key []byte, fn func(m *Memory) error) (Memory, error) {
	next := cur
	next.Tags = slices.Clone(cur.Tags)
	next.Provenance.Modifications = slices.Clone(cur.Provenance.Modifications)
	if err := fn(&next); err != nil {
		return Memory{}, err
	}
	next.ID, next.Created, next.Owner, next.Version = cur.ID, cur.Created, cur.Owner, cur.Version
	next.Content, _ = Truncate(next.Content)
	if cur.sealed() && !next.sealed() {
		return Memory{}, fmt.Errorf("%w: a sensitive memory cannot move to the %s partition", ErrInvalid, next.Partition)
	}
	if err := next.Validate(); err != nil {
		return Memory{}, err
	}
	if next.sealed() && key == nil {
		return Memory{}, ErrLocked
	}
	now := v.now().UTC()
	next.Version = cur.Version + 1
	next.Updated = now
	next.ContentHash = HashContent(next.Content)
	next.Provenance.Modifications = append(next.Provenance.Modifications, Modification{
		Agent: a.agent(), Operation: op, Reason: a.Reason, Time: now, PrevHash: cur.StateHash(), Version: next.Version,
	})
	if n := len(next.Provenance.Modifications) - MaxModifications; n > 0 {
		next.Provenance.Modifications = slices.Delete(next.Provenance.Modifications, 0, n)
		next.Provenance.Dropped += n
	}
	if cur.Partition != next.Partition {
		if err := tx.Bucket([]byte(cur.Partition)).Delete([]byte(cur.ID)); err != nil {
			return Memory{}, err
		}
	}
	k := key
	if !next.sealed() {
		k = nil
	}
	if err := putMemoryTx(tx, &next, k); err != nil {
		return Memory{}, err
	}
	if !cur.sealed() && next.sealed() {
		// Content that became sensitive: seal the versions kept in clear.
		if err := resealVersionsTx(tx, next.ID, key); err != nil {
			return Memory{}, err
		}
		v.markRemoved() // the plaintext copies are now free pages
	}
	if err := putVersionTx(tx, &next, k, a, op); err != nil {
		return Memory{}, err
	}
	dropped, err := compactVersionsTx(tx, next.ID, k)
	if err != nil {
		return Memory{}, err
	}
	if dropped > 0 {
		v.markRemoved()
	}
	// A plain memory's provenance keeps no state hash of a version no
	// longer kept (dropped now or before): it would confirm a guess of
	// its text.
	if !next.sealed() && forgetPrevStatesTx(tx, &next) {
		if err := putMemoryTx(tx, &next, nil); err != nil {
			return Memory{}, err
		}
	}
	action := ActionUpdate
	if op == OpRollback {
		action = ActionRollback
	}
	e := AuditEntry{
		Action: action, Agent: a.agent(), Session: a.Session, Field: next.Field, Partition: next.Partition,
		MemoryID: next.ID, ContentHash: contentHashFor(next.Content, next.sealed(), key), StateFingerprint: stateFingerprint(&next, key),
		Result: ResultOK, Reason: string(op) + reasonSuffix(a.Reason), VersionBefore: cur.Version, VersionAfter: next.Version, Size: len(next.Content),
	}
	if err := appendAuditTx(tx, now, e); err != nil {
		return Memory{}, err
	}
	for _, e := range a.Audit {
		e.MemoryID = next.ID
		if err := appendGivenTx(tx, now, e); err != nil {
			return Memory{}, err
		}
	}
	if dropped > 0 {
		return next, appendAuditTx(tx, now, AuditEntry{Action: ActionCompact, Agent: a.agent(), MemoryID: next.ID, Result: ResultOK, Count: dropped})
	}
	return next, nil
}

func reasonSuffix(r string) string {
	if r == "" {
		return ""
	}
	return ": " + r
}

// Rollback restores the state of version to as a new version. The restored
// state's hash is checked against the one recorded for that version. A
// sensitive memory stays in the sensitive partition even if the old version
// was not, so its state hash then differs in the partition only.
func (v *Vault) Rollback(id string, to int, a Actor) (Memory, error) {
	key, _ := v.key()
	defer seal.Wipe(key)
	var out Memory
	err := v.update(func(tx *bolt.Tx) error {
		cur, err := getTx(tx, id, key)
		if err != nil {
			return err
		}
		old, err := getVersionTx(tx, id, to, key)
		if err != nil {
			return err
		}
		if old.Memory.StateHash() != old.StateHash {
			return fmt.Errorf("version %d of %s: %w: state hash mismatch", to, id, ErrCorrupt)
		}
		if a.Reason == "" {
			a.Reason = "rollback to version " + strconv.Itoa(to)
		}
		next, err := v.apply(tx, *cur, OpRollback, a, key, func(m *Memory) error {
			s := old.Memory
			m.Content, m.Kind, m.Field, m.Tier = s.Content, s.Kind, s.Field, s.Tier
			m.Tags, m.Source, m.Trust, m.Confidence, m.Expires, m.Pinned = slices.Clone(s.Tags), s.Source, s.Trust, s.Confidence, s.Expires, s.Pinned
			if !(cur.sealed() && !s.sealed()) {
				m.Partition, m.Archive = s.Partition, s.Archive
			}
			return nil
		})
		out = next
		return err
	})
	if err != nil {
		return Memory{}, fmt.Errorf("rollback memory %s: %w", id, mapBoltErr(err))
	}
	return out, nil
}

// Delete removes a memory and all its versions at once.
func (v *Vault) Delete(id string, a Actor) error {
	return v.remove(id, ActionDelete, a.Reason, a)
}

// remove deletes memory id and its versions, and audits it as action with
// reason (the hash of the content, never the content), in one transaction.
// Delete and Purge differ only in what the audit log calls it.
func (v *Vault) remove(id string, action Action, reason string, a Actor) error {
	key, _ := v.key()
	defer seal.Wipe(key)
	err := v.update(func(tx *bolt.Tx) error {
		bucket, raw, err := findTx(tx, id)
		if err != nil {
			return err
		}
		e := AuditEntry{Action: action, Agent: a.agent(), Session: a.Session, Partition: Partition(bucket), MemoryID: id, Result: ResultOK, Reason: reason}
		var m Memory
		if _, err := decodeRecord(raw, key, bucket, id, &m); err == nil {
			e.Field, e.VersionBefore, e.ContentHash = m.Field, m.Version, contentHashFor(m.Content, m.sealed(), key)
		}
		if err := tx.Bucket([]byte(bucket)).Delete([]byte(id)); err != nil {
			return err
		}
		if err := tx.Bucket(bucketVersions).DeleteBucket([]byte(id)); err != nil && !errors.Is(err, berrors.ErrBucketNotFound) {
			return err
		}
		if vb := tx.Bucket(bucketVectors); vb != nil {
			if err := vb.Delete([]byte(id)); err != nil {
				return err
			}
		}
		v.markRemoved()
		t := Tombstone{ID: id, Time: v.now().UTC(), Action: action}
		if key != nil && m.ID == id {
			t.Fingerprint = keyedHash(m.Content, key)
		}
		if err := putTombstoneTx(tx, t); err != nil {
			return err
		}
		return appendAuditTx(tx, v.now(), e)
	})
	if err != nil {
		verb := "delete"
		if action == ActionPurge {
			verb = "purge"
		}
		return fmt.Errorf("%s memory %s: %w", verb, id, mapBoltErr(err))
	}
	return nil
}

// History returns the kept versions of a memory, oldest first. It is
// audited as a read: before it returns for a sealed memory, within
// ReadAuditDelay for a plain one (see Audit).
func (v *Vault) History(id string, a Actor) ([]Version, error) {
	key, _ := v.key()
	defer seal.Wipe(key)
	var out []Version
	read := func(tx *bolt.Tx) (sealed bool, err error) {
		out = out[:0]
		m, err := getTx(tx, id, key)
		if err != nil {
			return false, err
		}
		vb := tx.Bucket(bucketVersions).Bucket([]byte(id))
		if vb == nil {
			return false, fmt.Errorf("%w: no versions for %s", ErrCorrupt, id)
		}
		return m.sealed(), vb.ForEach(func(k, raw []byte) error {
			var ver Version
			if _, err := decodeRecord(raw, key, string(bucketVersions), versionName(id, k), &ver); err != nil {
				return err
			}
			if HashContent(ver.Memory.Content) != ver.ContentHash {
				return fmt.Errorf("record versions/%s: %w: the content does not match its hash", versionName(id, k), ErrCorrupt)
			}
			out = append(out, ver)
			return nil
		})
	}
	entry := func() AuditEntry {
		return AuditEntry{Action: ActionRead, Agent: a.agent(), Session: a.Session, MemoryID: id, Result: ResultOK, Reason: "history", Count: len(out)}
	}
	var err error
	sealed := true
	if !v.readOnly {
		// As Get: a plain memory's history is read in a read transaction
		// and its audit entry joins the group commit of reads.
		err = v.view(func(tx *bolt.Tx) (err error) {
			sealed, err = read(tx)
			return err
		})
		if err == nil && !sealed {
			err = v.auditRead(entry())
		}
	}
	if err == nil && sealed {
		err = v.readAudited(func(tx *bolt.Tx, audit func(AuditEntry) error) error {
			if _, err := read(tx); err != nil {
				return err
			}
			return audit(entry())
		})
	}
	if err != nil {
		return nil, fmt.Errorf("history of %s: %w", id, mapBoltErr(err))
	}
	return out, nil
}

// ListFilter selects memories. Zero fields match everything.
type ListFilter struct {
	Partitions []Partition // default: the live partitions (not the archive)
	Field      Field
	Agent      string // owner
	// OnDamaged, when set, is told about each record that fails to decode
	// or authenticate (err wraps ErrAuth, ErrCorrupt or ErrFormat), and the
	// listing goes on without it. When nil, such a record ends the listing
	// with its error. It runs inside the read transaction: it must not call
	// the vault.
	OnDamaged func(id string, err error)
}

// List returns matching memories, and how many sensitive ones were skipped
// because the vault is locked. A record that fails to decode is an error,
// unless the filter's OnDamaged takes it.
func (v *Vault) List(f ListFilter) ([]Memory, int, error) {
	var out []Memory
	hidden, err := v.Each(f, func(m *Memory) error {
		out = append(out, *m)
		return nil
	})
	return out, hidden, err
}

// Each calls fn for every matching memory, one at a time, without building
// a list (a sweep over a large vault), and returns how many sensitive ones
// it skipped because the vault is locked. fn must not keep m, and must not
// call the vault: it runs inside a read transaction.
func (v *Vault) Each(f ListFilter, fn func(m *Memory) error) (int, error) {
	key, _ := v.key()
	defer seal.Wipe(key)
	parts := f.Partitions
	if len(parts) == 0 {
		parts = LivePartitions
	}
	hidden := 0
	err := v.view(func(tx *bolt.Tx) error {
		for _, p := range parts {
			b := tx.Bucket([]byte(p))
			if b == nil {
				return fmt.Errorf("%w: unknown partition %q", ErrInvalid, p)
			}
			err := decodeMemories(b, key, string(p), func(k []byte, m *Memory, err error) error {
				if err != nil {
					switch {
					case errors.Is(err, ErrLocked):
						hidden++
						return nil
					case f.OnDamaged != nil && (errors.Is(err, ErrAuth) || errors.Is(err, ErrCorrupt) || errors.Is(err, ErrFormat)):
						f.OnDamaged(string(k), err)
						return nil
					}
					return err
				}
				if (f.Field == "" || m.Field == f.Field) && (f.Agent == "" || m.Owner == f.Agent) {
					return fn(m)
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("list memories: %w", err)
	}
	return hidden, nil
}

// findTx returns the partition bucket holding id and its raw record.
func findTx(tx *bolt.Tx, id string) (string, []byte, error) {
	for _, name := range partitionBuckets() {
		if raw := tx.Bucket(name).Get([]byte(id)); raw != nil {
			return string(name), raw, nil
		}
	}
	return "", nil, fmt.Errorf("memory %s: %w", id, ErrNotFound)
}

// getTx decodes memory id, checking that its sealed version matches the
// newest version kept, so an older sealed record copied over it is refused.
func getTx(tx *bolt.Tx, id string, key []byte) (*Memory, error) {
	bucket, raw, err := findTx(tx, id)
	if err != nil {
		return nil, err
	}
	var m Memory
	ver, err := decodeRecord(raw, key, bucket, id, &m)
	if err != nil {
		return nil, err
	}
	if err := checkMemory(&m, bucket, id); err != nil {
		return nil, err
	}
	if isSealedRecord(raw) && ver != uint64(m.Version) {
		return nil, fmt.Errorf("record %s/%s: %w", bucket, id, ErrAuth)
	}
	if vb := tx.Bucket(bucketVersions).Bucket([]byte(id)); vb != nil {
		if k, _ := vb.Cursor().Last(); k != nil && binary.BigEndian.Uint64(k) != uint64(m.Version) {
			return nil, fmt.Errorf("record %s/%s: %w: version %d but newest kept version is %d", bucket, id, ErrCorrupt, m.Version, binary.BigEndian.Uint64(k))
		}
	}
	return &m, nil
}

func putMemoryTx(tx *bolt.Tx, m *Memory, key []byte) error {
	raw, err := encodeRecord(m, key, string(m.Partition), m.ID, uint64(m.Version))
	if err != nil {
		return err
	}
	return tx.Bucket([]byte(m.Partition)).Put([]byte(m.ID), raw)
}

func versionName(id string, k []byte) string {
	if len(k) != 8 {
		return id + "@?"
	}
	return id + "@" + strconv.FormatUint(binary.BigEndian.Uint64(k), 10)
}

func putVersionTx(tx *bolt.Tx, m *Memory, key []byte, a Actor, op Operation) error {
	vb, err := tx.Bucket(bucketVersions).CreateBucketIfNotExists([]byte(m.ID))
	if err != nil {
		return err
	}
	snap := *m
	snap.Provenance = Provenance{}
	ver := Version{
		Version: m.Version, Time: m.Updated.Format("2006-01-02T15:04:05.000000000Z07:00"), Agent: a.agent(), Operation: op,
		ContentHash: m.ContentHash, StateHash: m.StateHash(), ValidationScore: a.Score, Pinned: m.Pinned, Memory: snap,
	}
	k := seqKey(uint64(m.Version))
	raw, err := encodeRecord(ver, key, string(bucketVersions), versionName(m.ID, k), uint64(m.Version))
	if err != nil {
		return err
	}
	return vb.Put(k, raw)
}

func getVersionTx(tx *bolt.Tx, id string, n int, key []byte) (*Version, error) {
	vb := tx.Bucket(bucketVersions).Bucket([]byte(id))
	if n < 1 || vb == nil {
		return nil, fmt.Errorf("version %d of %s: %w", n, id, ErrNotFound)
	}
	k := seqKey(uint64(n))
	raw := vb.Get(k)
	if raw == nil {
		return nil, fmt.Errorf("version %d of %s: %w", n, id, ErrNotFound)
	}
	var ver Version
	if _, err := decodeRecord(raw, key, string(bucketVersions), versionName(id, k), &ver); err != nil {
		return nil, err
	}
	if ver.Version != n || ver.Memory.ID != id {
		return nil, fmt.Errorf("version %d of %s: %w: stored under the wrong key", n, id, ErrCorrupt)
	}
	return &ver, nil
}

// resealVersionsTx rewrites every plaintext version of id sealed under key.
func resealVersionsTx(tx *bolt.Tx, id string, key []byte) error {
	vb := tx.Bucket(bucketVersions).Bucket([]byte(id))
	if vb == nil {
		return nil
	}
	type kv struct{ k, v []byte }
	var redo []kv
	err := vb.ForEach(func(k, raw []byte) error {
		if isSealedRecord(raw) {
			return nil
		}
		var ver Version
		if _, err := decodeRecord(raw, nil, string(bucketVersions), versionName(id, k), &ver); err != nil {
			return err
		}
		sealed, err := encodeRecord(ver, key, string(bucketVersions), versionName(id, k), binary.BigEndian.Uint64(k))
		if err != nil {
			return err
		}
		redo = append(redo, kv{slices.Clone(k), sealed})
		return nil
	})
	if err != nil {
		return err
	}
	for _, r := range redo {
		if err := vb.Put(r.k, r.v); err != nil {
			return err
		}
	}
	return nil
}

// compactVersionsTx drops the versions of id that versionsToDrop names.
// The newest version is never dropped. key opens sealed versions.
func compactVersionsTx(tx *bolt.Tx, id string, key []byte) (int, error) {
	vb := tx.Bucket(bucketVersions).Bucket([]byte(id))
	if vb == nil {
		return 0, nil
	}
	n, within := 0, min(MaxVersions, MaxMetadataVersions)
	c := vb.Cursor()
	for k, _ := c.First(); k != nil && n <= within; k, _ = c.Next() {
		n++
	}
	if n <= within {
		// Neither budget can be exceeded: spare the decoding.
		return 0, nil
	}
	var keys [][]byte
	var kept []keptVersion
	for k, raw := c.First(); k != nil; k, raw = c.Next() {
		var ver Version
		if _, err := decodeRecord(raw, key, string(bucketVersions), versionName(id, k), &ver); err != nil {
			return 0, err
		}
		keys = append(keys, slices.Clone(k))
		kept = append(kept, keptVersion{ver.ContentHash, ver.Pinned})
	}
	drop := versionsToDrop(kept)
	for _, i := range drop {
		if err := vb.Delete(keys[i]); err != nil {
			return 0, err
		}
	}
	return len(drop), nil
}

// forgetPrevStatesTx clears in m's provenance the PrevHash of every
// modification whose previous version (Version-1) is not among m's kept
// versions, and reports whether it cleared one. It reads only the
// versions' keys.
func forgetPrevStatesTx(tx *bolt.Tx, m *Memory) bool {
	vb := tx.Bucket(bucketVersions).Bucket([]byte(m.ID))
	changed := false
	for i, mod := range m.Provenance.Modifications {
		if mod.PrevHash == "" || mod.Version < 2 {
			continue
		}
		if vb == nil || vb.Get(seqKey(uint64(mod.Version-1))) == nil {
			m.Provenance.Modifications[i].PrevHash = ""
			changed = true
		}
	}
	return changed
}

// keptVersion is what compaction needs to know of a version.
type keptVersion struct {
	contentHash string
	pinned      bool
}

// versionsToDrop decides compaction. vs are a memory's kept versions,
// oldest first; it returns the indexes of those to drop, ascending.
//
// The versions fall into runs of consecutive versions with the same
// content: the first of a run is a content version, the others are
// metadata versions. While there are more than MaxVersions runs, the
// oldest run with an unpinned version loses its unpinned versions. Then,
// while there are more than MaxMetadataVersions metadata versions, the
// oldest unpinned one goes. Pinned versions and the newest version (the
// memory's current state) are never dropped, and the newest run is never
// dropped for the content budget.
func versionsToDrop(vs []keptVersion) []int {
	if len(vs) == 0 {
		return nil
	}
	last := len(vs) - 1
	dropped := make([]bool, len(vs))
	// runStarts reports, for each version left, whether it opens a run.
	runStarts := func() (starts []bool, runs int) {
		starts = make([]bool, len(vs))
		prev := -1
		for i := range vs {
			if dropped[i] {
				continue
			}
			if prev < 0 || vs[i].contentHash != vs[prev].contentHash {
				starts[i] = true
				runs++
			}
			prev = i
		}
		return starts, runs
	}
	for {
		starts, runs := runStarts()
		if runs <= MaxVersions {
			break
		}
		// The oldest run, short of the newest, with a version to drop.
		progress := false
		for i := 0; i < len(vs) && !progress; i++ {
			if dropped[i] || !starts[i] {
				continue
			}
			end := i + 1 // the run is vs[i:end] among the versions left
			for end < len(vs) && (dropped[end] || !starts[end]) {
				end++
			}
			if end > last {
				break // the newest run stays
			}
			for j := i; j < end; j++ {
				if !dropped[j] && !vs[j].pinned {
					dropped[j], progress = true, true
				}
			}
		}
		if !progress {
			break // every older run is pinned
		}
	}
	starts, _ := runStarts()
	meta := 0
	for i := range vs {
		if !dropped[i] && !starts[i] {
			meta++
		}
	}
	// Dropping a metadata version leaves the runs as they are: it has the
	// content of the version before it.
	for i := 0; i < last && meta > MaxMetadataVersions; i++ {
		if !dropped[i] && !starts[i] && !vs[i].pinned {
			dropped[i] = true
			meta--
		}
	}
	var out []int
	for i, d := range dropped {
		if d {
			out = append(out, i)
		}
	}
	return out
}

// Info is what authorization needs to know about a memory.
type Info struct {
	Partition Partition
	Sealed    bool
	Owner     string
	Field     Field
	Version   int
	Product   string
}

// Stat returns a memory's partition, owner, field and version without
// auditing a read: callers use it to decide whether to allow an operation,
// and audit that decision themselves. A sealed memory's owner needs the
// vault unlocked; while locked Stat returns the partition with ErrLocked.
func (v *Vault) Stat(id string) (Info, error) {
	key, _ := v.key()
	defer seal.Wipe(key)
	var info Info
	err := v.view(func(tx *bolt.Tx) error {
		bucket, raw, err := findTx(tx, id)
		if err != nil {
			return err
		}
		info.Partition, info.Sealed = Partition(bucket), isSealedRecord(raw)
		m, err := getTx(tx, id, key)
		if err != nil {
			return err
		}
		info.Owner, info.Field, info.Version, info.Product = m.Owner, m.Field, m.Version, m.Product
		return nil
	})
	if err != nil {
		return info, fmt.Errorf("stat memory %s: %w", id, err)
	}
	return info, nil
}

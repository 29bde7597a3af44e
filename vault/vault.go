package vault

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/engram-app/engram/vault/internal/kdf"
	"github.com/engram-app/engram/vault/internal/seal"
	"github.com/google/uuid"
	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// FormatVersion is the on-disk format this code writes (see DESIGN.md).
const FormatVersion = 1

// Bucket names. See DESIGN.md for what each holds.
var (
	bucketMeta      = []byte("meta")
	bucketVersions  = []byte("versions")
	bucketAudit     = []byte("audit")
	bucketAuditMeta = []byte("audit_meta")
	bucketAgents    = []byte("agents")
	bucketQueue     = []byte("quarantine")

	keyHeader    = []byte("header")
	keyHeaderSum = []byte("header_sum")

	// bucketHeaderCopy holds a second copy of the header and its sum in
	// its sub-bucket keyHeaderCopy. A bucket with a sub-bucket is never
	// inlined in its parent's page, so the copy lives on a page of its
	// own, away from the root page that holds the meta bucket: a damaged
	// page costs one copy, and salvage reads the other.
	bucketHeaderCopy = []byte("header_copy")
	keyHeaderCopy    = []byte("copy")
)

func partitionBuckets() [][]byte {
	return [][]byte{[]byte(Public), []byte(Internal), []byte(Sensitive), []byte(Archive)}
}

// KDFCost is the Argon2id cost of a new vault. The zero value means:
// calibrate on this machine to about 0.75 s with at least 64 MiB.
type KDFCost struct {
	Time      uint32 `json:"time"`
	MemoryKiB uint32 `json:"memory_kib"`
	Threads   uint8  `json:"threads"`
}

// Options tune how a vault file is opened.
type Options struct {
	// Timeout is how long Open waits for another process to release the
	// vault before it fails with ErrInUse. Default 1 s. Never zero: bbolt
	// would wait forever.
	Timeout time.Duration
	// NoSync skips fsync on commit. Only benchmarks set it.
	NoSync bool
	// ReadOnly opens the file without a write lock; writes fail with ErrReadOnly.
	ReadOnly bool
	// Now is the clock; default time.Now.
	Now func() time.Time
}

// CreateOptions are Options plus the cost of the key derivation.
type CreateOptions struct {
	Options
	KDF KDFCost
}

// header is the JSON stored under meta/header.
type header struct {
	Format     int        `json:"format"`
	VaultID    string     `json:"vault_id"`
	Created    time.Time  `json:"created"`
	KDF        kdf.Params `json:"kdf"`
	KDFAlg     string     `json:"kdf_alg"`
	WrappedKey []byte     `json:"wrapped_key"`
}

// wrapAAD binds the wrapped data key to the vault id and KDF parameters, so
// a header whose parameters were edited fails to unwrap.
func (h *header) wrapAAD() []byte {
	var b bytes.Buffer
	b.WriteString("engram/header/v1\x00")
	b.WriteString(h.VaultID)
	b.WriteByte(0)
	b.WriteString(h.KDFAlg)
	_ = binary.Write(&b, binary.BigEndian, [3]uint32{h.KDF.Time, h.KDF.MemoryKiB, uint32(h.KDF.Threads)})
	b.Write(h.KDF.Salt)
	return b.Bytes()
}

// Vault is an open vault file. Its methods are safe for concurrent use.
type Vault struct {
	// dbMu guards db itself: transactions hold it shared, Compact swaps
	// the file under it held exclusively.
	dbMu     sync.RWMutex
	db       *bolt.DB
	writers  atomic.Int32  // writes in flight; see update
	group    groupCommit   // concurrent writes sharing commits; see update
	changes  atomic.Uint64 // read-write transactions run to success; see Changes
	opts     Options
	path     string
	now      func() time.Time
	readOnly bool // reads are not audited: the file cannot be written

	readers     readers      // open read transactions' snapshots; see Scrub
	writeGate   sync.RWMutex // write transactions hold it shared, a Scrub chunk exclusively
	scrubMu     sync.Mutex   // one Scrub at a time
	scrubWanted atomic.Bool  // something was removed since the last Scrub
	reads       readAudit    // read audit entries waiting for their group commit

	mu  sync.RWMutex
	hdr header
	kek []byte // key-encryption key; nil while locked
	dek []byte // data key; nil while locked
}

// Create makes a new vault at path, protected by passphrase. It fails with
// ErrExists if the file exists. The file is created with mode 0600.
func Create(ctx context.Context, path string, passphrase []byte, opts CreateOptions) (*Vault, error) {
	if len(passphrase) == 0 {
		return nil, fmt.Errorf("create vault: %w: empty passphrase", ErrInvalid)
	}
	if _, err := os.Stat(path); err == nil {
		return nil, fmt.Errorf("create vault %s: %w", path, ErrExists)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create vault: %w", err)
	}
	var params kdf.Params
	if opts.KDF == (KDFCost{}) {
		p, err := kdf.Calibrate(ctx, 750*time.Millisecond, kdf.DefaultMinMemoryKiB)
		if err != nil {
			return nil, fmt.Errorf("create vault: calibrate key derivation: %w", err)
		}
		params = p
	} else {
		salt, err := kdf.NewSalt()
		if err != nil {
			return nil, err
		}
		params = kdf.Params{Time: opts.KDF.Time, MemoryKiB: opts.KDF.MemoryKiB, Threads: opts.KDF.Threads, Salt: salt}
	}
	kek, err := kdf.Derive(passphrase, params)
	if err != nil {
		return nil, fmt.Errorf("create vault: %w", err)
	}
	dek, err := seal.NewKey()
	if err != nil {
		return nil, err
	}
	now := clock(opts.Options)
	h := header{Format: FormatVersion, VaultID: uuid.NewString(), Created: now().UTC(), KDF: params, KDFAlg: "argon2id"}
	if h.WrappedKey, err = seal.Seal(kek, dek, h.wrapAAD()); err != nil {
		return nil, err
	}
	db, err := openBolt(path, opts.Options)
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
		return putHeader(tx, &h)
	})
	if err != nil {
		db.Close()
		os.Remove(path)
		return nil, fmt.Errorf("create vault: %w", err)
	}
	v := &Vault{db: db, path: path, now: now, hdr: h, kek: kek, dek: dek, opts: opts.Options}
	if err := v.appendAudit(AuditEntry{Action: ActionVaultCreate, Agent: AgentOperator, Result: ResultOK}); err != nil {
		v.Close()
		return nil, err
	}
	return v, nil
}

// Open opens an existing vault, locked. It fails with ErrNotFound if there
// is no vault at path, ErrInUse if another process holds it, ErrFormat for a
// newer format and ErrAuth for a damaged header.
func Open(path string, opts Options) (*Vault, error) {
	if _, err := os.Stat(path); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("open vault %s: %w", path, ErrNotFound)
		}
		return nil, fmt.Errorf("open vault: %w", err)
	}
	db, err := openBolt(path, opts)
	if err != nil {
		return nil, err
	}
	v := &Vault{db: db, path: path, now: clock(opts), readOnly: opts.ReadOnly, opts: opts}
	err = v.view(func(tx *bolt.Tx) error {
		h, err := readHeader(tx)
		if err != nil {
			return err
		}
		v.hdr = *h
		return nil
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open vault %s: %w", path, err)
	}
	if !v.readOnly {
		// A vault made before the header copy gets one.
		err = v.update(func(tx *bolt.Tx) error {
			if headerCopyTx(tx) != nil {
				return nil
			}
			h := v.hdr
			return putHeader(tx, &h)
		})
		if err != nil {
			db.Close()
			return nil, fmt.Errorf("open vault %s: %w", path, err)
		}
	}
	return v, nil
}

func clock(o Options) func() time.Time {
	if o.Now != nil {
		return o.Now
	}
	return time.Now
}

func openBolt(path string, o Options) (db *bolt.DB, err error) {
	// bbolt can panic or fault while loading a damaged freelist or meta
	// page. Turn that into ErrCorrupt; bbolt then leaks the descriptor it
	// opened, which only matters to this process reopening the same file.
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer recoverDamage(&err)
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = time.Second
	}
	db, err = bolt.Open(path, 0o600, &bolt.Options{Timeout: timeout, NoSync: o.NoSync, ReadOnly: o.ReadOnly, FreelistType: bolt.FreelistMapType, PreLoadFreelist: true})
	switch {
	case errors.Is(err, bolterrors.ErrTimeout):
		return nil, fmt.Errorf("open vault %s: %w", path, ErrInUse)
	case errors.Is(err, bolterrors.ErrInvalid), errors.Is(err, bolterrors.ErrChecksum), errors.Is(err, bolterrors.ErrVersionMismatch):
		return nil, fmt.Errorf("open vault %s: %w: %v", path, ErrCorrupt, err)
	case err != nil:
		return nil, fmt.Errorf("open vault %s: %w", path, err)
	}
	return db, nil
}

func putHeader(tx *bolt.Tx, h *header) error {
	b, err := json.Marshal(h)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(b)
	meta := tx.Bucket(bucketMeta)
	if err := meta.Put(keyHeader, b); err != nil {
		return err
	}
	if err := meta.Put(keyHeaderSum, sum[:]); err != nil {
		return err
	}
	hc, err := tx.CreateBucketIfNotExists(bucketHeaderCopy)
	if err != nil {
		return err
	}
	c, err := hc.CreateBucketIfNotExists(keyHeaderCopy)
	if err != nil {
		return err
	}
	if err := c.Put(keyHeader, b); err != nil {
		return err
	}
	return c.Put(keyHeaderSum, sum[:])
}

// headerCopyTx returns the header copy's bucket, or nil when the vault
// has none (made before the copy existed).
func headerCopyTx(tx *bolt.Tx) *bolt.Bucket {
	if hc := tx.Bucket(bucketHeaderCopy); hc != nil {
		return hc.Bucket(keyHeaderCopy)
	}
	return nil
}

// readHeader decodes and checks the header. The checksum catches damage and
// naive edits; a deliberate edit of the parameters fails at unwrap.
func readHeader(tx *bolt.Tx) (*header, error) {
	meta := tx.Bucket(bucketMeta)
	if meta == nil {
		return nil, fmt.Errorf("%w: no header (not an Engram vault?)", ErrCorrupt)
	}
	return decodeHeader(meta.Get(keyHeader), meta.Get(keyHeaderSum))
}

func decodeHeader(raw, sum []byte) (*header, error) {
	if raw == nil {
		return nil, fmt.Errorf("%w: no header (not an Engram vault?)", ErrCorrupt)
	}
	got := sha256.Sum256(raw)
	if !bytes.Equal(got[:], sum) {
		return nil, fmt.Errorf("vault header: %w", ErrAuth)
	}
	var h header
	if err := json.Unmarshal(raw, &h); err != nil {
		return nil, fmt.Errorf("%w: header: %v", ErrCorrupt, err)
	}
	if h.Format > FormatVersion {
		return nil, fmt.Errorf("%w: vault format %d is newer than this Engram (%d)", ErrFormat, h.Format, FormatVersion)
	}
	if h.Format < 1 || h.KDFAlg != "argon2id" || h.VaultID == "" {
		return nil, fmt.Errorf("%w: header fields", ErrCorrupt)
	}
	if err := h.KDF.Validate(); err != nil {
		return nil, fmt.Errorf("%w: header: %v", ErrCorrupt, err)
	}
	return &h, nil
}

// ID is the vault's random identifier; the keyring entry is named after it.
func (v *Vault) ID() string { return v.hdr.VaultID }

// ReadOnly reports whether the vault was opened read-only.
func (v *Vault) ReadOnly() bool { return v.readOnly }

// readAudited runs fn in a read-write transaction, or a read-only one when the
// vault is read-only and fn only reads: audit appends are skipped there.
func (v *Vault) readAudited(fn func(tx *bolt.Tx, audit func(AuditEntry) error) error) error {
	if v.readOnly {
		return v.view(func(tx *bolt.Tx) error {
			return fn(tx, func(AuditEntry) error { return nil })
		})
	}
	return v.update(func(tx *bolt.Tx) error {
		return fn(tx, func(e AuditEntry) error { return appendAuditTx(tx, v.now(), e) })
	})
}

// view and update run bbolt transactions so that a damaged file cannot
// crash the process: bbolt reads pages straight from its memory map, and a
// damaged page can make it fault or panic. With SetPanicOnFault the fault
// becomes a panic in this goroutine, and recoverDamage turns any panic into
// ErrCorrupt. bbolt rolls back a read-write transaction that panics.
func (v *Vault) view(fn func(tx *bolt.Tx) error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer recoverDamage(&err)
	v.dbMu.RLock()
	defer v.dbMu.RUnlock()
	v.readers.enter()
	begun, snap := false, 0
	defer func() { v.readers.leave(snap, begun) }()
	return v.db.View(func(tx *bolt.Tx) error {
		snap, begun = tx.ID(), true
		v.readers.begun(snap)
		return fn(tx)
	})
}

// update runs fn in a read-write transaction, after appending the audit
// entries of reads that wait for a commit (see ReadAuditDelay), and
// returns once it is committed. A lone writer commits at once; when other
// writes are in flight (agents storing at once), fn joins the group
// commit (groupCommit), which runs concurrent writers in one transaction
// with one fsync. fn must be safe to run twice: when any function of a
// group fails, the group is rolled back and run again without it, and it
// alone. The group may run fn on another goroutine and turns a panic there
// into an error, so fn sets SetPanicOnFault for whichever goroutine runs
// it.
func (v *Vault) update(fn func(tx *bolt.Tx) error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	var last *bolt.Tx // the transaction fn last ran in
	defer func() {    // after recoverDamage, which sets err on a panic
		v.reads.done(last, err == nil)
		if err == nil {
			v.changes.Add(1)
		}
	}()
	defer recoverDamage(&err)
	v.dbMu.RLock()
	defer v.dbMu.RUnlock()
	wrapped := func(tx *bolt.Tx) error {
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		last = tx
		// The audit entries of reads that wait for a commit go first.
		if err := v.reads.appendTx(tx); err != nil {
			return err
		}
		return fn(tx)
	}
	v.writeGate.RLock()
	defer v.writeGate.RUnlock()
	if v.writers.Add(1) == 1 {
		defer v.writers.Add(-1)
		return v.db.Update(wrapped)
	}
	defer v.writers.Add(-1)
	return v.groupUpdate(wrapped)
}

// Changes counts the read-write transactions this Vault ran to success
// since it was opened: each is one commit when alone (Batch may commit
// several together). Benchmarks report it per operation.
func (v *Vault) Changes() uint64 { return v.changes.Load() }

// CommitStats counts what the vault's file has committed: Commits is
// the file's transaction id (every commit since the file was created
// adds one, whatever ran it), Pages the pages written by the commits of
// this Vault since it was opened (bbolt's allocations: every page a
// commit changes is written anew). A benchmark takes the difference of
// two readings to learn the pages of an average commit.
type CommitStats struct {
	Commits uint64
	Pages   uint64
}

// CommitStats reads the vault's commit counters (see CommitStats).
func (v *Vault) CommitStats() (CommitStats, error) {
	v.dbMu.RLock()
	defer v.dbMu.RUnlock()
	var st CommitStats
	err := v.db.View(func(tx *bolt.Tx) error {
		st.Commits = uint64(tx.ID())
		return nil
	})
	stats := v.db.Stats()
	st.Pages = uint64(stats.TxStats.GetPageAlloc()) / uint64(v.db.Info().PageSize)
	return st, err
}

// recoverDamage turns a panic in a transaction (a damaged page) into
// ErrCorrupt in *err; it must be deferred directly.
func recoverDamage(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("%w: the file is damaged (%v)", ErrCorrupt, r)
	}
}

// Path is the vault file's path.
func (v *Vault) Path() string { return v.path }

// Close locks the vault, commits the audit entries of reads still
// waiting (see ReadAuditDelay), scrubs its free pages when something was removed
// since the last Scrub (so a command that removes leaves no byte of it in
// the file once it returns), and closes the file.
func (v *Vault) Close() error {
	v.Lock()
	auditErr := v.closeReads()
	var scrubErr error
	if v.ScrubPending() && !v.readOnly {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		_, scrubErr = v.Scrub(ctx)
		cancel()
	}
	v.dbMu.Lock()
	defer v.dbMu.Unlock()
	return errors.Join(auditErr, scrubErr, v.db.Close())
}

// Locked reports whether the data key is absent.
func (v *Vault) Locked() bool {
	v.mu.RLock()
	defer v.mu.RUnlock()
	return v.dek == nil
}

// Lock wipes the keys from memory. Sensitive records stay unreadable until
// the next Unlock.
func (v *Vault) Lock() {
	v.mu.Lock()
	defer v.mu.Unlock()
	seal.Wipe(v.kek)
	seal.Wipe(v.dek)
	v.kek, v.dek = nil, nil
}

// Unlock derives the key-encryption key from passphrase and unwraps the data
// key. A wrong passphrase returns ErrWrongPassphrase and writes nothing.
func (v *Vault) Unlock(ctx context.Context, passphrase []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	v.mu.RLock()
	params := v.hdr.KDF
	v.mu.RUnlock()
	kek, err := kdf.Derive(passphrase, params)
	if err != nil {
		return fmt.Errorf("unlock: %w", err)
	}
	return v.UnlockWithKey(kek)
}

// UnlockWithKey unlocks with a key-encryption key saved earlier from
// UnlockKey (the OS keyring holds it). A stale key returns ErrWrongPassphrase.
func (v *Vault) UnlockWithKey(kek []byte) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if len(kek) != kdf.KeySize {
		return fmt.Errorf("unlock: %w", ErrWrongPassphrase)
	}
	dek, err := seal.Open(kek, v.hdr.WrappedKey, v.hdr.wrapAAD())
	if err != nil {
		return fmt.Errorf("unlock: %w", ErrWrongPassphrase)
	}
	v.kek = bytes.Clone(kek)
	v.dek = dek
	return nil
}

// UnlockKey returns a copy of the key-encryption key, for the OS keyring.
func (v *Vault) UnlockKey() ([]byte, error) {
	v.mu.RLock()
	defer v.mu.RUnlock()
	if v.kek == nil {
		return nil, ErrLocked
	}
	return bytes.Clone(v.kek), nil
}

// ChangePassphrase re-wraps the data key under a key derived from newPass
// with fresh salt and the same cost. Records are not re-encrypted. The old
// passphrase must be right; the vault ends unlocked under the new one.
func (v *Vault) ChangePassphrase(ctx context.Context, oldPass, newPass []byte) error {
	if len(newPass) == 0 {
		return fmt.Errorf("change passphrase: %w: empty passphrase", ErrInvalid)
	}
	if err := v.Unlock(ctx, oldPass); err != nil {
		return fmt.Errorf("change passphrase: %w", err)
	}
	salt, err := kdf.NewSalt()
	if err != nil {
		return err
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	h := v.hdr
	h.KDF.Salt = salt
	kek, err := kdf.Derive(newPass, h.KDF)
	if err != nil {
		return err
	}
	if h.WrappedKey, err = seal.Seal(kek, v.dek, h.wrapAAD()); err != nil {
		return err
	}
	err = v.update(func(tx *bolt.Tx) error {
		if err := putHeader(tx, &h); err != nil {
			return err
		}
		v.markRemoved() // the data key wrapped under the old passphrase
		return appendAuditTx(tx, v.now(), AuditEntry{Action: ActionPassphraseChange, Agent: AgentOperator, Result: ResultOK})
	})
	if err != nil {
		return fmt.Errorf("change passphrase: %w", mapBoltErr(err))
	}
	v.hdr = h
	seal.Wipe(v.kek)
	v.kek = kek
	return nil
}

func mapBoltErr(err error) error {
	if errors.Is(err, bolterrors.ErrDatabaseReadOnly) || errors.Is(err, bolterrors.ErrTxNotWritable) {
		return fmt.Errorf("%w: %v", ErrReadOnly, err)
	}
	return err
}

// key returns a copy of the data key, or ErrLocked. A copy, so a concurrent
// Lock cannot zero it under a running transaction; callers wipe it after use.
func (v *Vault) key() ([]byte, error) {
	v.mu.RLock()
	defer v.mu.RUnlock()
	if v.dek == nil {
		return nil, ErrLocked
	}
	return bytes.Clone(v.dek), nil
}

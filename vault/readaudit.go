package vault

import (
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
)

// ReadAuditDelay is how long the audit entry of a read of non-sensitive
// memories may wait before it is committed. Such entries go into the next
// write transaction, whatever it is for, or into one of their own when
// none comes within ReadAuditDelay (group commit): a read does not wait
// for a commit and an fsync of its own, and reads do not take turns with
// writes for bbolt's one writer. See DESIGN.md, "Write ordering".
const ReadAuditDelay = 50 * time.Millisecond

// readAuditBatch is how many waiting entries make a commit at once,
// before ReadAuditDelay has passed.
const readAuditBatch = 512

// deferrable reports whether e is the audit entry of a successful read
// of non-sensitive memories, which may be committed after the read is
// answered. Everything else (writes, denials, failures, L3 access, any
// entry naming the sensitive partition) is committed before the
// operation returns.
func deferrable(e AuditEntry) bool {
	return (e.Action == ActionRead || e.Action == ActionList) &&
		e.Result == ResultOK && e.Partition != Sensitive
}

// readAudit holds the deferrable audit entries not yet committed.
//
// Entries wait in pending. The next write transaction appends them ahead
// of its own entries (appendTx) and moves them to claimed; they are done
// when that transaction commits. bbolt gives a write transaction the id
// of the last committed one plus one, so a rolled-back transaction's id
// is given again: a later transaction with a higher id knows the claim
// committed, one with the same id knows it was rolled back and appends
// the entries again. update settles its own transaction's claim as soon
// as it returns.
type readAudit struct {
	mu      sync.Mutex
	pending []pendingAudit
	claimed []pendingAudit
	claimTx *bolt.Tx // the transaction that appended claimed
	claimID int      // its id
	timer   *time.Timer
	failed  bool // the last commit of waiting entries failed: reads are audited synchronously until one succeeds
	closed  bool // the vault is closing: every read commits its own entry
}

type pendingAudit struct {
	at time.Time // when the read happened: the entry's time
	e  AuditEntry
}

// settleLocked resolves the claim of a transaction other than tx, given
// the id of the last committed transaction: committed, the entries are
// done; rolled back, they wait again, first.
func (r *readAudit) settleLocked(tx *bolt.Tx, committed int) {
	if len(r.claimed) == 0 || r.claimTx == tx {
		return
	}
	if r.claimID > committed {
		r.pending = append(r.claimed, r.pending...)
	}
	r.claimed, r.claimTx = nil, nil
}

// settle resolves a claim given the id of the last committed transaction.
func (r *readAudit) settle(committed int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.settleLocked(nil, committed)
}

// appendTx appends the waiting entries in tx, a write transaction,
// before anything else of it. update calls it in every write transaction.
func (r *readAudit) appendTx(tx *bolt.Tx) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.settleLocked(tx, tx.ID()-1)
	if len(r.pending) == 0 {
		return nil
	}
	batch := r.pending
	r.pending = nil
	r.claimed, r.claimTx, r.claimID = append(r.claimed, batch...), tx, tx.ID()
	for _, p := range batch {
		if err := appendGivenTx(tx, p.at, p.e); err != nil {
			return err
		}
	}
	return nil
}

// done settles tx's claim once update knows the outcome of tx, the last
// transaction its function ran in.
func (r *readAudit) done(tx *bolt.Tx, committed bool) {
	if tx == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.claimTx != tx {
		return // settled by a later transaction
	}
	if !committed {
		r.pending = append(r.claimed, r.pending...)
	}
	r.claimed, r.claimTx = nil, nil
}

// auditRead appends the audit entry of a read. A deferrable entry waits
// at most ReadAuditDelay for a commit to share, and auditRead returns at
// once. When the last commit of waiting entries failed, or the vault is
// closing, it commits the waiting entries and then this one before it
// returns, and reports the error, so that a read is not answered while
// its audit cannot be written. Other entries are committed at once.
func (v *Vault) auditRead(e AuditEntry) error {
	if !deferrable(e) || v.readOnly {
		return v.update(func(tx *bolt.Tx) error { return appendGivenTx(tx, v.now(), e) })
	}
	r := &v.reads
	r.mu.Lock()
	if r.failed || r.closed {
		r.mu.Unlock()
		if err := v.flushReads(); err != nil {
			return err // this read's entry is not kept: the read fails
		}
		return v.update(func(tx *bolt.Tx) error { return appendGivenTx(tx, v.now(), e) })
	}
	r.pending = append(r.pending, pendingAudit{v.now(), e})
	switch {
	case len(r.pending) >= readAuditBatch:
		go v.flushReads() // an error leaves the entries waiting and sets r.failed
	case r.timer == nil:
		r.timer = time.AfterFunc(ReadAuditDelay, func() { v.flushReads() })
	}
	r.mu.Unlock()
	return nil
}

// flushReads commits the waiting read audit entries, in a transaction of
// their own, and returns once every entry waiting when it was called is
// committed (those a running transaction holds included). On failure they wait again,
// ahead of later ones, and reads are audited synchronously until a
// commit succeeds.
func (v *Vault) flushReads() error {
	r := &v.reads
	r.mu.Lock()
	if r.timer != nil {
		r.timer.Stop()
		r.timer = nil
	}
	// Entries claimed by a running transaction are not committed yet:
	// the update below waits for it (bbolt has one writer) and appends
	// them again if it rolled back.
	empty := len(r.pending) == 0 && len(r.claimed) == 0
	r.mu.Unlock()
	if empty {
		return nil
	}
	err := v.update(func(*bolt.Tx) error { return nil }) // update appends them
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failed = err != nil
	if err != nil {
		if r.timer == nil && !r.closed {
			r.timer = time.AfterFunc(ReadAuditDelay, func() { v.flushReads() })
		}
		return mapBoltErr(err)
	}
	return nil
}

// closeReads commits the waiting read audit entries and makes every
// later read commit its own.
func (v *Vault) closeReads() error {
	v.reads.mu.Lock()
	v.reads.closed = true
	v.reads.mu.Unlock()
	return v.flushReads()
}

package vault

import (
	"fmt"
	"runtime/debug"
	"sync"

	bolt "go.etcd.io/bbolt"
)

// maxGroup is how many concurrent writes one group commit takes at most.
const maxGroup = 1000

// groupCommit coalesces concurrent writes into shared transactions (group
// commit). A write that finds no commit under way leads one: once it
// holds bbolt's writer lock it takes every write queued by then (itself
// first among them), runs them in order in one transaction, and commits
// it with one fsync. Writes that arrive meanwhile queue, and the first of
// them leads the next commit as soon as this one is done, with all that
// queued behind it: no timer, and no write waits for more than the commit
// in flight and its own.
//
// Unlike bbolt's Batch, which starts a new batch with its own timer while
// an earlier one waits for the writer lock, so that batches formed under
// load commit one after another, every write queued when the lock frees
// shares the next commit.
//
// A write whose function fails rolls its group's transaction back; the
// others are run again without it, in a new transaction, and then the
// failed one alone, so one failing write fails no other and gets its own
// error. A function may therefore run more than once, each time in a new
// transaction: it must be safe to run twice (see update).
type groupCommit struct {
	mu      sync.Mutex
	queue   []*groupCall
	leading bool // a write leads a commit now
}

type groupCall struct {
	fn   func(*bolt.Tx) error
	err  error
	done chan struct{} // closed once err is known (committed or failed)
	lead chan struct{} // closed when this write is to lead the next commit
}

// groupUpdate runs fn in a transaction shared with the writes in flight
// and returns once that transaction is committed (durable, unless the
// vault was opened with NoSync) or fn has failed.
func (v *Vault) groupUpdate(fn func(*bolt.Tx) error) error {
	g := &v.group
	c := &groupCall{fn: fn, done: make(chan struct{}), lead: make(chan struct{})}
	g.mu.Lock()
	g.queue = append(g.queue, c)
	if g.leading {
		g.mu.Unlock()
		select {
		case <-c.done:
			return c.err
		case <-c.lead:
		}
	} else {
		g.leading = true
		g.mu.Unlock()
	}
	v.leadGroup()
	<-c.done
	return c.err
}

// leadGroup commits the writes queued when bbolt's writer lock is taken,
// then hands the lead to the first write queued after them, if any.
func (v *Vault) leadGroup() {
	g := &v.group
	var batch []*groupCall
	take := func() {
		g.mu.Lock()
		n := min(len(g.queue), maxGroup)
		batch = g.queue[:n:n]
		g.queue = g.queue[n:]
		g.mu.Unlock()
	}
	failed := -1
	err := v.db.Update(func(tx *bolt.Tx) error {
		take()
		return runGroup(tx, batch, &failed)
	})
	var settled []*groupCall
	for err != nil && failed >= 0 {
		// The write at failed fails the transaction: the others go again
		// without it, then it alone, for its own error.
		bad := batch[failed]
		batch = append(batch[:failed:failed], batch[failed+1:]...)
		failed = -1
		if len(batch) > 0 {
			err = v.db.Update(func(tx *bolt.Tx) error { return runGroup(tx, batch, &failed) })
		} else {
			err = nil
		}
		solo := -1
		bad.err = v.db.Update(func(tx *bolt.Tx) error { return runGroup(tx, []*groupCall{bad}, &solo) })
		settled = append(settled, bad)
	}
	for _, c := range batch {
		c.err = err // nil, or the commit's own failure, which is every write's
	}
	g.mu.Lock()
	if len(g.queue) > 0 {
		close(g.queue[0].lead)
	} else {
		g.leading = false
	}
	g.mu.Unlock()
	for _, c := range append(batch, settled...) {
		close(c.done)
	}
}

// runGroup runs the writes of a group in tx, in order; on the first that
// fails (or panics: a damaged page) it sets *failed to its index and
// returns its error, which rolls tx back.
func runGroup(tx *bolt.Tx, batch []*groupCall, failed *int) error {
	for i, c := range batch {
		if err := runSafely(tx, c.fn); err != nil {
			*failed = i
			return err
		}
	}
	return nil
}

// runSafely runs fn, turning a panic (a fault on a damaged page, with
// SetPanicOnFault) into ErrCorrupt, as recoverDamage does for a write of
// its own.
func runSafely(tx *bolt.Tx, fn func(*bolt.Tx) error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: the file is damaged (%v)", ErrCorrupt, r)
		}
	}()
	return fn(tx)
}

package vault

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"testing"

	bolt "go.etcd.io/bbolt"
)

func newGroupVault(t *testing.T) *Vault {
	t.Helper()
	v, err := Create(context.Background(), t.TempDir()+"/v.db", []byte("pw"), CreateOptions{KDF: KDFCost{Time: 1, MemoryKiB: 64, Threads: 1}, Options: Options{NoSync: true}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	return v
}

// holdWriter starts a write that holds bbolt's writer lock until release
// is called, and returns once it holds it.
func holdWriter(t *testing.T, v *Vault) (release func()) {
	t.Helper()
	held, free, done := make(chan struct{}), make(chan struct{}), make(chan error)
	go func() {
		done <- v.update(func(tx *bolt.Tx) error {
			close(held)
			<-free
			return nil
		})
	}()
	<-held
	return func() {
		close(free)
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

// waitQueued returns once n writes wait in the group commit's queue.
func waitQueued(v *Vault, n int) {
	for {
		v.group.mu.Lock()
		q := len(v.group.queue)
		v.group.mu.Unlock()
		if q >= n {
			return
		}
		runtime.Gosched()
	}
}

// TestGroupCommitShares: writes that arrive while a commit is under way
// share the next transaction, however they are spread in time: all that
// queued by the time the writer lock frees commit together.
func TestGroupCommitShares(t *testing.T) {
	v := newGroupVault(t)
	release := holdWriter(t, v)
	const n = 50
	var mu sync.Mutex
	var ids []int
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			err := v.update(func(tx *bolt.Tx) error {
				mu.Lock()
				ids = append(ids, tx.ID())
				mu.Unlock()
				return appendAuditTx(tx, v.now(), AuditEntry{Action: ActionReject, Agent: "group", Result: ResultDenied, Reason: fmt.Sprint("write ", i)})
			})
			if err != nil {
				t.Error(err)
			}
		})
		if i == n/2 {
			// The first half waits before the second comes.
			waitQueued(v, n/2+1)
		}
	}
	waitQueued(v, n)
	release()
	wg.Wait()
	slices.Sort(ids)
	if ids = slices.Compact(ids); len(ids) != 1 {
		t.Errorf("%d writes queued behind one commit made %d transactions, want 1", n, len(ids))
	}
	if r, err := v.VerifyAudit(); err != nil || !r.OK() || r.Entries < n {
		t.Errorf("VerifyAudit = %+v, %v", r, err)
	}
}

// TestGroupCommitFailureIsolated: a write of a group that fails, or
// panics, fails alone, with its own error, and none of what it wrote is
// kept; the others commit.
func TestGroupCommitFailureIsolated(t *testing.T) {
	v := newGroupVault(t)
	errBad := errors.New("bad write")
	release := holdWriter(t, v)
	const n = 12
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			errs[i] = v.update(func(tx *bolt.Tx) error {
				b, err := tx.CreateBucketIfNotExists([]byte("group-test"))
				if err != nil {
					return err
				}
				if err := b.Put(fmt.Appendf(nil, "%02d", i), []byte("x")); err != nil {
					return err
				}
				switch i {
				case 3:
					return errBad
				case 7:
					panic("a damaged page")
				}
				return nil
			})
		})
		waitQueued(v, i+1)
	}
	release()
	wg.Wait()
	for i, err := range errs {
		switch i {
		case 3:
			if !errors.Is(err, errBad) {
				t.Errorf("write 3: %v, want its own error", err)
			}
		case 7:
			if !errors.Is(err, ErrCorrupt) {
				t.Errorf("write 7 (panics): %v, want ErrCorrupt", err)
			}
		default:
			if err != nil {
				t.Errorf("write %d: %v", i, err)
			}
		}
	}
	err := v.view(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte("group-test"))
		for i := range n {
			got := b.Get(fmt.Appendf(nil, "%02d", i)) != nil
			if want := i != 3 && i != 7; got != want {
				t.Errorf("key %02d stored: %v, want %v", i, got, want)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

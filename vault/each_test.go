package vault_test

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/engram-app/engram/vault"
	"github.com/engram-app/engram/vault/vaulttest"
)

// TestEachOrderAndStop checks the parallel decoding behind Each: every
// memory exactly once in key order, the same as one CPU gives, sealed
// records among them; and a callback error stops the walk at once and
// leaves no goroutine behind.
func TestEachOrderAndStop(t *testing.T) {
	v, _ := vaulttest.New(t, vaulttest.NoSync)
	const n = 700 // several batches per worker
	var want []string
	for i := range n {
		p := vault.Internal
		if i%9 == 0 {
			p = vault.Sensitive
		}
		m := mustAdd(t, v, p, fmt.Sprintf("note %d", i))
		if p == vault.Internal {
			want = append(want, m.ID)
		}
	}
	slices.Sort(want)
	list := func() []string {
		var got []string
		hidden, err := v.Each(vault.ListFilter{Partitions: []vault.Partition{vault.Internal}}, func(m *vault.Memory) error {
			got = append(got, m.ID)
			return nil
		})
		if err != nil || hidden != 0 {
			t.Fatalf("Each = %d hidden, %v", hidden, err)
		}
		return got
	}
	if got := list(); !slices.Equal(got, want) {
		t.Errorf("Each gave %d ids (sorted: %v), want the %d in key order", len(got), slices.IsSorted(got), len(want))
	}
	prev := runtime.GOMAXPROCS(1)
	got := list()
	runtime.GOMAXPROCS(prev)
	if !slices.Equal(got, want) {
		t.Errorf("on one CPU Each gave %d ids, want the %d in key order", len(got), len(want))
	}

	// Sealed records decode on the workers too.
	sealed := 0
	if _, err := v.Each(vault.ListFilter{Partitions: []vault.Partition{vault.Sensitive}}, func(m *vault.Memory) error {
		sealed++
		return nil
	}); err != nil || sealed != (n+8)/9 {
		t.Errorf("sensitive Each = %d memories, %v; want %d", sealed, err, (n+8)/9)
	}

	before := runtime.NumGoroutine()
	errStop := errors.New("enough")
	calls := 0
	_, err := v.Each(vault.ListFilter{Partitions: []vault.Partition{vault.Internal}}, func(m *vault.Memory) error {
		calls++
		if calls == 300 {
			return errStop
		}
		return nil
	})
	if !errors.Is(err, errStop) || calls != 300 {
		t.Errorf("Each with a failing callback = %v after %d calls, want %v after 300", err, calls, errStop)
	}
	for deadline := time.Now().Add(2 * time.Second); runtime.NumGoroutine() > before && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if g := runtime.NumGoroutine(); g > before {
		t.Errorf("%d goroutines after a stopped Each, %d before", g, before)
	}
}

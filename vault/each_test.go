package vault_test

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"testing/synctest"

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

	// The stopped walk runs in a synctest bubble, so that its goroutines
	// are the bubble's: synctest.Wait returns once each has exited or is
	// blocked for good, and one left blocked is counted below (and fails
	// synctest.Test too).
	synctest.Test(t, func(t *testing.T) {
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
		synctest.Wait()
		if n := goroutinesIn("vault.decodeMemories"); n > 0 {
			t.Errorf("%d goroutines of Each's walk remain after it stopped", n)
		}
	})
}

// goroutinesIn counts the goroutines with fn on their stack. (Counting all
// of them would count the vault's timers and the test framework's too.)
func goroutinesIn(fn string) int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	count := 0
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, fn) {
			count++
		}
	}
	return count
}

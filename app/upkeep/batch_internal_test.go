package upkeep

import (
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

func TestChunked(t *testing.T) {
	for _, n := range []int{0, 1, 63, 64, 65, 200} {
		m := map[string]int{}
		for i := range n {
			m[fmt.Sprintf("id-%03d", (i*37)%n)] = i
		}
		parts := chunked(m, 64)
		if want := (n + 63) / 64; len(parts) != want {
			t.Fatalf("%d entries: %d parts, want %d", n, len(parts), want)
		}
		joined := map[string]int{}
		last := ""
		for _, p := range parts {
			if len(p) == 0 || len(p) > 64 {
				t.Fatalf("%d entries: a part of %d", n, len(p))
			}
			keys := slices.Sorted(maps.Keys(p))
			if keys[0] <= last {
				t.Fatalf("%d entries: part starting at %s follows %s: not in key order", n, keys[0], last)
			}
			last = keys[len(keys)-1]
			maps.Copy(joined, p)
		}
		if !maps.Equal(joined, m) {
			t.Fatalf("%d entries: the parts hold %v", n, joined)
		}
	}
}

// TestBatchWrites: a batch writes what waits once, delay after its first
// entry, at once when full, and at close; it keeps the merged entry per
// id and takes nothing after close.
func TestBatchWrites(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var writes []map[string]int
		b := &batch[int]{
			delay: time.Second, full: 3,
			merge: func(old int, ok bool, v int) int { return max(old, v) },
			write: func(m map[string]int) { mu.Lock(); writes = append(writes, m); mu.Unlock() },
		}
		got := func() []map[string]int { mu.Lock(); defer mu.Unlock(); return slices.Clone(writes) }

		b.add(map[string]int{"a": 2})
		b.add(map[string]int{"a": 1, "b": 5})
		time.Sleep(time.Second - time.Millisecond) // the bubble's clock
		synctest.Wait()
		if w := got(); len(w) != 0 {
			t.Fatalf("before the delay: %v written, want nothing", w)
		}
		time.Sleep(time.Millisecond)
		synctest.Wait()
		if w := got(); len(w) != 1 || !maps.Equal(w[0], map[string]int{"a": 2, "b": 5}) {
			t.Fatalf("after the delay: %v, want one write of a=2 b=5", w)
		}

		b.add(map[string]int{"c": 1, "d": 1, "e": 1}) // full: written at once
		if w := got(); len(w) != 2 || len(w[1]) != 3 {
			t.Fatalf("a full batch: %v, want a second write of 3", w)
		}
		b.add(map[string]int{"f": 1})
		b.close()
		b.add(map[string]int{"g": 1})
		time.Sleep(time.Hour)
		synctest.Wait()
		if w := got(); len(w) != 3 || !maps.Equal(w[2], map[string]int{"f": 1}) {
			t.Fatalf("close: %v, want a third write of f only", w)
		}
	})
}

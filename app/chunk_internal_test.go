package app

import (
	"fmt"
	"maps"
	"slices"
	"testing"
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

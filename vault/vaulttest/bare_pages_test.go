package vaulttest

import (
	"math"
	"testing"
)

// TestBareCommitsOfPages checks that a bare commit of k pages writes k
// leaf pages and the two every commit writes (its parent's and the
// freelist's), as a benchmark setting it beside a vault's commits needs.
func TestBareCommitsOfPages(t *testing.T) {
	for _, pages := range []int{1, 4, 10} {
		ds, got := BareCommitsOf(t, t.TempDir(), 20, 0, pages)
		if len(ds) != 20 {
			t.Fatalf("pages %d: %d times, want 20", pages, len(ds))
		}
		if want := float64(pages + 2); math.Abs(got-want) > 0.5 {
			t.Errorf("pages %d: %.2f pages written per commit, want %.0f", pages, got, want)
		}
	}
}

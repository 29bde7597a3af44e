package guard

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestStringSetMatchesContains: for random dictionaries over a small
// alphabet (so strings overlap, nest and share suffixes) and random texts,
// the set reports exactly the strings strings.Contains finds.
func TestStringSetMatchesContains(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	word := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString([]string{"a", "b", "c", "é"}[rng.IntN(4)])
		}
		return b.String()
	}
	found := 0
	for round := 0; round < 200; round++ {
		var dict []string
		for range 1 + rng.IntN(30) {
			dict = append(dict, word(1+rng.IntN(6)))
		}
		set := newStringSet(dict)
		for range 20 {
			text := word(rng.IntN(60))
			has := set.scan(text)
			for _, d := range dict {
				want := strings.Contains(text, d)
				if got := has[set.id(d)]; got != want {
					t.Fatalf("dictionary %q, text %q: %q found %v, want %v", dict, text, d, got, want)
				}
				if want {
					found++
				}
			}
		}
	}
	if found == 0 {
		t.Fatal("no dictionary string ever occurred: the test proves nothing")
	}
	if set := newStringSet([]string{"", "x"}); set.id("") != -1 || set.id("x") != 0 {
		t.Errorf("empty strings must be dropped: ids %v", set.ids)
	}
}

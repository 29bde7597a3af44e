package recall

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestTopPruned: the k best documents of a keyword search that skips
// what cannot reach them (keywordIndex.top) are exactly those of scoring
// every document (score, then topSlots): the same slots, scores and
// order, ties included, over random indexes with common and rare words,
// repeated documents (equal scores), classes outside the scope, a read
// rule, a word in most documents, and MaxTerms. Some searches must have been pruned, or the test
// compares nothing.
func TestTopPruned(t *testing.T) {
	pruned := 0
	for seed := range uint64(400) {
		rng := rand.New(rand.NewPCG(seed, 39))
		word := func() string { // a few common words, many rare ones
			u := rng.Float64()
			return fmt.Sprintf("w%d", int(40*u*u*u))
		}
		text := func(n int) string {
			ws := make([]string, n)
			for i := range ws {
				ws[i] = word()
			}
			return strings.Join(ws, " ")
		}
		x := newKeywordIndex(DefaultK1, DefaultB)
		nDocs := 20 + rng.IntN(600)
		of := make([]uint32, nDocs)
		var texts []string
		for slot := range nDocs {
			s := text(1 + rng.IntN(10))
			if rng.IntN(10) > 0 {
				s += " often" // in most documents, as "rule" in the import benchmark's
			}
			if len(texts) > 0 && rng.IntN(4) == 0 {
				s = texts[rng.IntN(len(texts))]
			}
			texts = append(texts, s)
			of[slot] = uint32(1 + rng.IntN(3))
			x.add(uint32(slot), of[slot], s)
		}
		sc := scope{admitted: []bool{false, true, rng.IntN(2) == 0, rng.IntN(3) > 0}, of: of}
		for slot := range nDocs {
			if sc.admitted[of[slot]] {
				sc.n++
				sc.length += int(x.docLen[slot])
			}
		}
		sc.all = sc.n == nDocs
		m := 1 + rng.IntN(5)
		keep := func(s uint32) bool { return sc.has(s) && (m == 1 || int(s)%m != 0) }
		q := text(1 + rng.IntN(12))
		if rng.IntN(2) == 0 {
			q += " often"
		}
		qt := x.query(Terms(nil, q), &sc)
		if rng.IntN(2) == 0 {
			qt = rarest(qt, 1+rng.IntN(8))
		}
		k := 1 + rng.IntN(40)

		acc := make([]float32, nDocs)
		touched := x.score(qt, &sc, acc, nil)
		want := topSlots(acc, touched, k, keep, nil)
		acc2 := make([]float32, nDocs)
		at := make([]int32, nDocs)
		touched2, got := x.top(qt, &sc, k, keep, acc2, nil, nil, at)
		if slices.ContainsFunc(at, func(i int32) bool { return i != 0 }) {
			t.Fatalf("seed %d: top left its scratch space set", seed)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("seed %d, k %d: pruned top %v, want %v", seed, k, got, want)
		}
		if !slices.Equal(touched2, touched[:len(touched2)]) {
			t.Fatalf("seed %d: touched %v, want a start of %v", seed, touched2, touched)
		}
		if len(touched2) < len(touched) {
			pruned++
		}
	}
	t.Logf("pruned %d", pruned)
	if pruned < 40 {
		t.Fatalf("%d of 400 searches pruned: the test hardly compares the pruned path", pruned)
	}
}

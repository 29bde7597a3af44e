package recall

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
)

// clustered returns n unit vectors of dim around 50 centroids, as
// embeddings of notes on a few topics are, and a query near a centroid.
func clustered(r *rand.Rand, n, dim int) (vecs [][]float32, query func() []float32) {
	cents := make([][]float32, 50)
	for i := range cents {
		cents[i] = randUnit(r, dim)
	}
	near := func(spread float32) []float32 {
		c, z := cents[r.IntN(len(cents))], randUnit(r, dim)
		v := make([]float32, dim)
		for j := range v {
			v[j] = c[j] + spread*z[j]
		}
		normalise(v)
		return v
	}
	for range n {
		vecs = append(vecs, near(1))
	}
	return vecs, func() []float32 { return near(0.8) }
}

// TestCoarseSearch checks the sign-bit first pass of a large index
// against the int8 scan over the same codes: the same scores for what
// both find, and at least 95% of the int8 scan's ten best found, with
// chunked documents, a filter, and the bits built both at once (a bulk
// load past the threshold) and row by row (adds past it).
func TestCoarseSearch(t *testing.T) {
	const dim, n = 128, 20_000
	r := rand.New(rand.NewPCG(11, 12))
	vecs, query := clustered(r, n, dim)
	exact := newVectorIndex(dim, -1)
	bulk := newVectorIndex(dim, 1000)
	byRow := newVectorIndex(dim, 1000)
	slots := make([]uint32, 0, n)
	chunked := make([]Quantised, 0, n)
	for s := range n {
		v := slices.Clone(vecs[s])
		if s%4 == 0 { // a second chunk
			v = append(v, vecs[(s*7)%n]...)
		}
		exact.add(uint32(s), slices.Clone(v))
		byRow.add(uint32(s), slices.Clone(v))
		slots, chunked = append(slots, uint32(s)), append(chunked, quantiseRows(v, dim))
	}
	bulk.addAll(slots, chunked)
	if bulk.bits == nil || byRow.bits == nil || exact.bits != nil {
		t.Fatal("the sign bits are not where the thresholds say")
	}
	if !slices.Equal(bulk.bits, byRow.bits) {
		t.Fatal("the sign bits built at once differ from those built row by row")
	}
	keep := func(s uint32) bool { return s%3 != 1 }
	found, total := 0, 0
	for range 40 {
		q := query()
		want := exact.search(q, 10, keep)
		got := bulk.search(q, 10, keep)
		if len(got) != len(want) {
			t.Fatalf("%d results, want %d", len(got), len(want))
		}
		score := map[uint32]float64{}
		for _, m := range want {
			score[m.slot] = m.score
		}
		for _, m := range got {
			if !keep(m.slot) {
				t.Fatalf("slot %d found, which keep rejects", m.slot)
			}
			if s, ok := score[m.slot]; ok {
				found++
				if s != m.score {
					t.Fatalf("slot %d scores %v, %v by the int8 scan", m.slot, m.score, s)
				}
			}
		}
		total += len(want)
	}
	if found*100 < 95*total {
		t.Errorf("the coarse pass found %d of the int8 scan's %d best", found, total)
	}
}

// TestCoarseIgnoresRejected: what the coarse search answers depends only
// on the slots keep accepts: indexes that differ only in the vectors of
// rejected slots answer alike, whether or not the scan is split over the
// cores, and keep is asked at most once per slot.
func TestCoarseIgnoresRejected(t *testing.T) {
	const dim = 64
	for _, n := range []int{3000, 3 * scanParallelRows} {
		r := rand.New(rand.NewPCG(13, uint64(n)))
		vecs, query := clustered(r, n, dim)
		keep := func(s uint32) bool { return s%5 == 2 } // an agent reading its own
		a, b := newVectorIndex(dim, 1), newVectorIndex(dim, 1)
		for s := range n {
			a.add(uint32(s), slices.Clone(vecs[s]))
			other := vecs[s]
			if !keep(uint32(s)) {
				other = randUnit(r, dim) // what the caller may not read
			}
			b.add(uint32(s), slices.Clone(other))
		}
		for i := range 20 {
			q := query()
			var mu sync.Mutex
			calls := 0
			counting := func(s uint32) bool {
				mu.Lock()
				calls++
				mu.Unlock()
				return keep(s)
			}
			ga, gb := a.search(q, 10, counting), b.search(q, 10, keep)
			if fmt.Sprint(ga) != fmt.Sprint(gb) {
				t.Fatalf("n %d, query %d: %v, and %v with other rejected vectors", n, i, ga, gb)
			}
			if len(ga) != 10 {
				t.Fatalf("n %d: %d results, want 10", n, len(ga))
			}
			if calls > n {
				t.Errorf("n %d: keep asked %d times for %d slots", n, calls, n)
			}
		}
	}
}

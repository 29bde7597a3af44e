package recall

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
)

func TestDotsInt8(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, dim := range []int{16, 32, 64, 512, 1536} {
		const n = 7
		q := make([]int16, dim)
		codes := make([]int8, n*dim)
		for i := range q {
			q[i] = int16(r.IntN(4095) - 2047)
		}
		for i := range codes {
			codes[i] = int8(r.IntN(255) - 127)
		}
		codes[0], q[0] = -127, -2047 // the extremes
		got, want := make([]int32, n), make([]int32, n)
		dotsInt8(q, codes, dim, got)
		dotsInt8Go(q, codes, dim, want)
		if !slices.Equal(got, want) {
			t.Errorf("dim %d: dotsInt8 = %v, want %v", dim, got, want)
		}
	}
}

// TestDot checks the float32 inner product against float64 arithmetic,
// for lengths that are and are not multiples of its four running sums.
func TestDot(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{0, 1, 3, 4, 7, 512, 1023} {
		a, b := make([]float32, n), make([]float32, n+5) // b may be longer
		var want float64
		for i := range b {
			b[i] = r.Float32()*2 - 1
		}
		for i := range a {
			a[i] = r.Float32()*2 - 1
			want += float64(a[i]) * float64(b[i])
		}
		if got := float64(dot(a, b)); math.Abs(got-want) > 1e-5*(1+math.Abs(want)) {
			t.Errorf("dot of length %d = %v, want %v", n, got, want)
		}
	}
}

// TestVectorSearchExact checks that the int8 scan with float re-ranking
// finds the same slots, with the same scores, as a float32 brute force
// over the vectors the index keeps (the dequantised codes), with chunked
// documents and a filter; and that those scores are within the
// quantisation's error of the vectors given.
func TestVectorSearchExact(t *testing.T) {
	const dim = 64
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{10, 3000, 40_000} { // the last scans in parallel
		x := newVectorIndex(dim, -1)
		vecs := make([][]float32, n)
		for s := range n {
			chunks := 1 + s%3
			for range chunks {
				vecs[s] = append(vecs[s], randUnit(r, dim)...)
			}
			x.add(uint32(s), vecs[s])
		}
		filters := map[string]func(uint32) bool{
			"most": func(s uint32) bool { return s%5 != 0 },
			"few":  func(s uint32) bool { return s%97 == 3 }, // an agent that reads only its own
		}
		for name, accept := range filters {
			calls := 0
			var mu sync.Mutex // the parallel scan asks from several goroutines
			keep := func(s uint32) bool {
				mu.Lock()
				calls++
				mu.Unlock()
				return accept(s)
			}
			for range 5 {
				q := randUnit(r, dim)
				var want []match
				for s, v := range vecs {
					if accept(uint32(s)) {
						want = append(want, match{uint32(s), float64(bestDot(q, dequantisedChunks(v, dim)))})
					}
				}
				slices.SortFunc(want, func(a, b match) int { return cmp.Compare(b.score, a.score) })
				k := min(20, len(want))
				calls = 0
				got := x.search(q, k, keep)
				if len(got) != k {
					t.Fatalf("n %d, %s: %d results, want %d", n, name, len(got), k)
				}
				for i := range got {
					if got[i].slot != want[i].slot || math.Abs(got[i].score-want[i].score) > 1e-6 {
						t.Errorf("n %d, %s: result %d = %v, want %v", n, name, i, got[i], want[i])
						break
					}
					if exact := float64(bestDot(q, vecs[got[i].slot])); math.Abs(got[i].score-exact) > 0.02 {
						t.Errorf("n %d, %s: result %d scores %v, %v before quantisation", n, name, i, got[i].score, exact)
					}
				}
				// One pass over the slots, however few keep accepts: at most
				// one question per slot, after the small index's first k.
				if calls > n+k {
					t.Errorf("n %d, %s: keep asked %d times for %d slots", n, name, calls, n)
				}
			}
		}
	}
}

// TestChunkVectors checks that a memory is found by its best chunk, and
// that vectors of the wrong length are refused.
func TestChunkVectors(t *testing.T) {
	emb := &bagEmbedder{dim: 64}
	e := New(Config{Embedder: emb})
	two := append(emb.vec("alpha beta"), emb.vec("gamma delta")...)
	if err := e.Put(doc("two", "alpha beta. gamma delta."), two); err != nil {
		t.Fatal(err)
	}
	if err := e.Put(doc("one", "epsilon zeta"), emb.vec("epsilon zeta")); err != nil {
		t.Fatal(err)
	}
	r, err := e.Search(ctx, Query{Text: "gamma delta", Mode: Semantic, Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Hits) == 0 || r.Hits[0].Doc.ID != "two" || math.Abs(r.Hits[0].Relevance-1) > 1e-5 {
		t.Errorf("Search(gamma delta) = %v, want two first with relevance 1", r.Hits)
	}
	if err := e.Put(doc("bad", "x"), make([]float32, 128)); err != nil {
		t.Errorf("Put(zero vector) = %v, want the vector dropped", err)
	}
	if err := e.Put(doc("bad", "x"), randUnit(rand.New(rand.NewPCG(1, 1)), 96)); !errors.Is(err, ErrVector) {
		t.Errorf("Put(96 floats) = %v, want ErrVector", err)
	}
	if _, err := e.Search(ctx, Query{Text: "x", Vector: randUnit(rand.New(rand.NewPCG(1, 1)), 32)}); !errors.Is(err, ErrVector) {
		t.Errorf("Search(32-d vector) = %v, want ErrVector", err)
	}
	// A memory's chunk vectors as the query (the duplicate check): their
	// mean is compared, and the query is left as it was.
	q := slices.Clone(two)
	r, err = e.Search(ctx, Query{Text: "alpha beta. gamma delta.", Vector: q, Mode: Semantic, Now: t0})
	if err != nil || len(r.Hits) == 0 || r.Hits[0].Doc.ID != "two" {
		t.Errorf("Search(two's chunk vectors) = %v, %v; want two first", r.Hits, err)
	}
	if !slices.Equal(q, two) {
		t.Error("Search changed the query vector")
	}
}

// TestScanTiesBySlot: the int8 scan's shortlist is the m accepted slots
// best by quantised similarity, of equal ones the first slots, whatever
// the parts the scan is split into: among many equal vectors (memories
// with the same text), which ones are shortlisted depends only on the
// slots keep accepts, not on how many rows the index holds.
func TestScanTiesBySlot(t *testing.T) {
	const dim = 32
	r := rand.New(rand.NewPCG(9, 10))
	distinct := [][]float32{randUnit(r, dim), randUnit(r, dim), randUnit(r, dim)}
	q := randUnit(r, dim)
	qc := make([]int16, dim)
	quantiseQuery(qc, q)
	for _, n := range []int{1000, 3 * scanParallelRows} { // one part; as many as the CPUs
		x := newVectorIndex(dim, -1)
		for i := range n {
			x.add(uint32(i), slices.Clone(distinct[r.IntN(len(distinct))]))
		}
		keep := func(slot uint32) bool { return slot%3 != 0 }
		dots := make([]int32, n)
		dotsInt8Go(qc, x.codes, dim, dots)
		var want []candidate
		for i := range n {
			if keep(uint32(i)) {
				want = append(want, candidate{float32(dots[i]) * x.scale[i], uint32(i), i})
			}
		}
		slices.SortStableFunc(want, func(a, b candidate) int { return cmp.Compare(b.approx, a.approx) })
		for _, m := range []int{10, 216} {
			got := x.scan(qc, m, keep)
			slotsOf := func(cs []candidate) []uint32 {
				out := make([]uint32, len(cs))
				for i, c := range cs {
					out[i] = c.slot
				}
				slices.Sort(out)
				return out
			}
			if g, w := slotsOf(got), slotsOf(want[:m]); !slices.Equal(g, w) {
				t.Errorf("%d rows, shortlist of %d: %v, want %v", n, m, g, w)
			}
		}
	}
}

// TestReserveVectorsOnce: a bulk load that reserves its rows allocates the
// index's code array once, whether the engine knows its dimension from an
// embedder or learns it from the first vector (an engine without one):
// the later slices are copied into the same array.
func TestReserveVectorsOnce(t *testing.T) {
	const dim, docs, slice = 16, 1000, 64
	for _, emb := range []Embedder{nil, &bagEmbedder{dim: dim}} {
		e := New(Config{Embedder: emb})
		for i := range docs {
			if err := e.Put(Doc{ID: fmt.Sprint(i), Content: fmt.Sprint("memory ", i)}, nil); err != nil {
				t.Fatal(err)
			}
		}
		e.ReserveVectors(docs)
		r := rand.New(rand.NewPCG(1, 2))
		var first *int8
		for lo := 0; lo < docs; lo += slice {
			var vs []DocVector
			for i := lo; i < min(lo+slice, docs); i++ {
				v := make([]float32, dim)
				for j := range v {
					v[j] = float32(r.NormFloat64())
				}
				q, ok := Quantise(v, dim)
				if !ok {
					t.Fatal("vector not quantised")
				}
				vs = append(vs, DocVector{ID: fmt.Sprint(i), Content: fmt.Sprint("memory ", i), Q: q})
			}
			if n := e.SetVectors(vs); n != len(vs) {
				t.Fatalf("embedder %v: %d of %d vectors set", emb != nil, n, len(vs))
			}
			if first == nil {
				first = &e.vec.codes[0]
			} else if &e.vec.codes[0] != first {
				t.Fatalf("embedder %v: the code array moved after %d vectors: reserved %d rows, capacity %d codes", emb != nil, lo+slice, docs, cap(e.vec.codes))
			}
		}
		if got := len(e.vec.rows); got != docs {
			t.Fatalf("embedder %v: %d rows, want %d", emb != nil, got, docs)
		}
	}
}

package recall

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/engram-app/engram/app/embed"
	"github.com/engram-app/engram/app/internal/cputime"
	"github.com/engram-app/engram/vault"
	"github.com/kelindar/search"
)

const (
	benchDocs = 100_000
	benchDim  = 512
)

var bench struct {
	once    sync.Once
	e       *Engine
	queries []string
	vecs    [][]float32
}

// benchWords is a vocabulary drawn with a Zipf law, like words in notes.
func benchWords(r *rand.Rand) func() string {
	z := rand.NewZipf(r, 1.1, 2, 20_000)
	return func() string { return fmt.Sprintf("w%x", z.Uint64()) }
}

func randUnit(r *rand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	var ss float64
	for i := range v {
		v[i] = float32(r.NormFloat64())
		ss += float64(v[i] * v[i])
	}
	for i := range v {
		v[i] /= float32(math.Sqrt(ss))
	}
	return v
}

// benchEngine builds 100,000 synthetic memories of 30 words with random
// 512-d unit vectors, and 200 queries of 6 words with their vectors.
func benchEngine(b *testing.B) *Engine {
	bench.once.Do(func() {
		r := rand.New(rand.NewPCG(1, 2))
		word := benchWords(r)
		e := New(Config{Recency: 0.3})
		words := make([]string, 30)
		for i := range benchDocs {
			for j := range words {
				words[j] = word()
			}
			d := Doc{
				ID: fmt.Sprintf("m%06d", i), Content: strings.Join(words, " "), Kind: vault.Fact, Field: vault.Learnings,
				Tier: []vault.Tier{vault.Episodic, vault.Semantic}[i%2], Partition: vault.Internal, Owner: benchOwner(i),
				Source: vault.Source{Type: vault.SourceExplicitSave, SessionID: benchSession(i)}, Trust: vault.TrustOperator, Confidence: 0.95,
				Created: t0.Add(-time.Duration(i) * time.Minute),
			}
			if err := e.Put(d, randUnit(r, benchDim)); err != nil {
				panic(err)
			}
		}
		for range 200 {
			for j := range 6 {
				words[j] = word()
			}
			bench.queries = append(bench.queries, strings.Join(words[:6], " "))
			bench.vecs = append(bench.vecs, randUnit(r, benchDim))
		}
		bench.e = e
	})
	return bench.e
}

// benchOwner spreads the memories over twenty agents, as a vault shared
// by several agents holds them.
func benchOwner(i int) string { return fmt.Sprintf("agent-%02d", i%20) }

// benchSession puts each agent's memories in sessions of fifty, as an
// agent's connection writes them (neighbouring context).
func benchSession(i int) string { return fmt.Sprintf("session-%d", i/1000) }

// reportLatency adds p50 and p99 of ds to b's metrics.
func reportLatency(b *testing.B, ds []time.Duration) {
	slices.Sort(ds)
	pct := func(p float64) time.Duration { return ds[min(len(ds)-1, int(p*float64(len(ds))))] }
	b.ReportMetric(float64(pct(0.50).Microseconds()), "p50-µs")
	b.ReportMetric(float64(pct(0.99).Microseconds()), "p99-µs")
}

// BenchmarkRecall100k measures one recall over 100,000 memories with the
// query vector given (embedding excluded). The semantic mode's scan reads
// every vector's int8 codes: SetBytes makes the MB/s column its scan
// bandwidth.
func BenchmarkRecall100k(b *testing.B) {
	e := benchEngine(b)
	for _, mode := range []Mode{Exact, Semantic, Hybrid} {
		b.Run(string(mode), func(b *testing.B) {
			if mode != Exact {
				b.SetBytes(benchDocs * benchDim)
			}
			var lat []time.Duration
			i := 0
			for b.Loop() {
				q := Query{Text: bench.queries[i%len(bench.queries)], Mode: mode, Now: t0}
				if mode != Exact {
					q.Vector = bench.vecs[i%len(bench.vecs)]
				}
				start := time.Now()
				if _, err := e.Search(ctx, q); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(start))
				i++
			}
			reportLatency(b, lat)
		})
	}
}

// BenchmarkRecall100kOneAgent is BenchmarkRecall100k for an agent that
// may read only its own memories, a twentieth of them, as the access rules
// have it for agents in groups of their own: the read rule then refuses
// most of the documents a search looks at.
func BenchmarkRecall100kOneAgent(b *testing.B) {
	e := benchEngine(b)
	me := benchOwner(7)
	allow := func(d *Doc) bool { return d.Partition == vault.Public || d.Owner == me }
	for _, mode := range []Mode{Exact, Hybrid} {
		b.Run(string(mode), func(b *testing.B) {
			var lat []time.Duration
			i := 0
			for b.Loop() {
				q := Query{Text: bench.queries[i%len(bench.queries)], Mode: mode, Now: t0, Allow: allow}
				if mode != Exact {
					q.Vector = bench.vecs[i%len(bench.vecs)]
				}
				start := time.Now()
				res, err := e.Search(ctx, q)
				if err != nil {
					b.Fatal(err)
				}
				for _, h := range res.Hits {
					if h.Doc.Owner != me {
						b.Fatalf("hit %s belongs to %s", h.Doc.ID, h.Doc.Owner)
					}
				}
				lat = append(lat, time.Since(start))
				i++
			}
			reportLatency(b, lat)
		})
	}
}

// BenchmarkRecall100kMostAgents is BenchmarkRecall100kOneAgent for an
// agent that may read the memories of nineteen owners of twenty, asking
// for the relevance floor: the keyword statistics then count most of the
// documents but not all, class by class, and the search scores most of
// each posting list.
func BenchmarkRecall100kMostAgents(b *testing.B) {
	e := benchEngine(b)
	other := benchOwner(7)
	allow := func(d *Doc) bool { return d.Owner != other }
	for _, mode := range []Mode{Exact, Hybrid} {
		b.Run(string(mode), func(b *testing.B) {
			var lat []time.Duration
			i := 0
			for b.Loop() {
				q := Query{Text: bench.queries[i%len(bench.queries)], Mode: mode, Now: t0, Allow: allow, Floor: true}
				if mode != Exact {
					q.Vector = bench.vecs[i%len(bench.vecs)]
				}
				start := time.Now()
				res, err := e.Search(ctx, q)
				if err != nil {
					b.Fatal(err)
				}
				for _, h := range res.Hits {
					if h.Doc.Owner == other {
						b.Fatalf("hit %s belongs to %s", h.Doc.ID, other)
					}
				}
				lat = append(lat, time.Since(start))
				i++
			}
			reportLatency(b, lat)
		})
	}
}

// BenchmarkRecall100kName is hybrid recall over 100,000 memories, with
// the floor and the query vector given, of queries that name someone no
// memory mentions ("What did Qwrtzk say about …"): the name is looked up
// as a misspelling of every index term about as long that begins with
// its sound (Engine.respell), which a query without names never does.
func BenchmarkRecall100kName(b *testing.B) {
	e := benchEngine(b)
	var lat []time.Duration
	i := 0
	for b.Loop() {
		q := Query{Text: "What did Qwrtzk say about " + bench.queries[i%len(bench.queries)], Mode: Hybrid, Now: t0, Floor: true, Vector: bench.vecs[i%len(bench.vecs)]}
		start := time.Now()
		res, err := e.Search(ctx, q)
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Unheard) != 1 {
			b.Fatalf("unheard %q, want Qwrtzk", res.Unheard)
		}
		lat = append(lat, time.Since(start))
		i++
	}
	reportLatency(b, lat)
}

// BenchmarkVectorScan compares the two exact vector scans at sizes
// around smallRows, 100 results of 512-d vectors: kelindar/search's
// float32 scan, and the int8 scan with float32 re-ranking.
func BenchmarkVectorScan(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1000, 2000, 4000, 8000, 16000} {
		x := newVectorIndex(benchDim, -1)
		x.small = nil
		idx := search.NewIndex[uint32]()
		for i := range n {
			v := randUnit(r, benchDim)
			x.add(uint32(i), v)
			idx.Add(slices.Clone(v), uint32(i))
		}
		x.small = nil
		q := randUnit(r, benchDim)
		b.Run(fmt.Sprintf("kelindar/%d", n), func(b *testing.B) {
			for b.Loop() {
				idx.Search(slices.Clone(q), 100)
			}
		})
		b.Run(fmt.Sprintf("int8/%d", n), func(b *testing.B) {
			for b.Loop() {
				x.search(q, 100, func(uint32) bool { return true })
			}
		})
	}
}

// BenchmarkRecall100kEmbedded is hybrid recall over 100,000 memories with
// the query embedded by USE Lite (skipped without the model).
func BenchmarkRecall100kEmbedded(b *testing.B) {
	dir := os.Getenv("ENGRAM_MODEL_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", ".cache", "model", "use-lite")
	}
	u, err := embed.LoadUSE(dir)
	if err != nil {
		b.Skipf("no USE Lite model: %v", err)
	}
	base := benchEngine(b)
	e := &Engine{cfg: base.cfg, slots: base.slots, docs: base.docs, cls: base.cls, kw: base.kw, vec: base.vec}
	e.cfg.Embedder = u
	b.SetBytes(benchDocs * benchDim)
	var lat []time.Duration
	i := 0
	for b.Loop() {
		start := time.Now()
		if _, err := e.Search(ctx, Query{Text: bench.queries[i%len(bench.queries)], Mode: Hybrid, Now: t0, Floor: true}); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
		i++
	}
	reportLatency(b, lat)
}

// BenchmarkMemoryBandwidth copies 50 MB (the size of the 100,000 vectors'
// int8 codes) with the runtime's memmove, the reference for the vector
// scan's bandwidth. MB/s counts the bytes read; the copy writes as many.
func BenchmarkMemoryBandwidth(b *testing.B) {
	src := make([]byte, benchDocs*benchDim)
	dst := make([]byte, len(src))
	for i := range src {
		src[i] = byte(i)
	}
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		copy(dst, src)
	}
}

// BenchmarkLoad100k measures building the index of 100,000 memories of
// 30 words at start-up, without vectors (their loading is separate):
// tokenising and counting on all the CPUs, then the posting lists.
// cpu-ms is the CPU time of all cores, the figure start-up on two cores
// is bound by.
//
//	go test ./app/recall -run '^$' -bench Load100k
func BenchmarkLoad100k(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	word := benchWords(r)
	docs := make([]Doc, benchDocs)
	words := make([]string, 30)
	for i := range docs {
		for j := range words {
			words[j] = word()
		}
		docs[i] = Doc{ID: fmt.Sprintf("m%06d", i), Content: strings.Join(words, " "), Kind: vault.Fact, Tier: vault.Semantic, Partition: vault.Internal, Confidence: 0.95, Created: t0}
	}
	var cpu time.Duration
	for b.Loop() {
		e := New(Config{})
		start := cputime.Used()
		if err := e.Load(docs, nil); err != nil {
			b.Fatal(err)
		}
		cpu += cputime.Used() - start
		if e.Len() != benchDocs {
			b.Fatalf("Len = %d, want %d", e.Len(), benchDocs)
		}
	}
	b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms")
}

package recall

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/engram-app/engram/vault"
)

// BenchmarkVectorHeap100k measures the heap the engine keeps for the
// vectors of 100,000 memories of one 512-d chunk each, loaded as at
// start-up: the live heap after a GC with the vectors loaded, less the
// same engine's without them (vec-heap-MiB). The caller keeps no
// reference to the vectors it passed.
//
//	go test ./app/recall -run '^$' -bench VectorHeap100k -benchtime 3x
func BenchmarkVectorHeap100k(b *testing.B) {
	docs := make([]Doc, benchDocs)
	for i := range docs {
		docs[i] = Doc{ID: fmt.Sprintf("m%06d", i), Content: "w1 w2 w3", Kind: vault.Fact, Tier: vault.Semantic, Partition: vault.Internal, Confidence: 0.95, Created: t0}
	}
	live := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	var vecHeap float64
	for b.Loop() {
		base := live()
		e := New(Config{})
		if err := e.Load(docs, nil); err != nil {
			b.Fatal(err)
		}
		without := live() - base
		runtime.KeepAlive(e)
		e = nil
		base = live()
		r := rand.New(rand.NewPCG(1, 2))
		vecs := make([][]float32, benchDocs)
		for i := range vecs {
			vecs[i] = randUnit(r, benchDim)
		}
		e = New(Config{})
		if err := e.Load(docs, vecs); err != nil {
			b.Fatal(err)
		}
		vecs = nil
		with := live() - base
		runtime.KeepAlive(e)
		vecHeap = float64(with-without) / (1 << 20)
	}
	b.ReportMetric(vecHeap, "vec-heap-MiB")
}

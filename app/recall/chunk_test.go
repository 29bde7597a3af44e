package recall

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
)

func TestChunks(t *testing.T) {
	sentence := func(n int) string { return strings.TrimSpace(strings.Repeat("word ", n-1)) + " end." }
	tests := []struct {
		name  string
		text  string
		sizes []int // words per chunk
	}{
		{"short", "one sentence.", []int{2}},
		{"exactly the limit", sentence(80), []int{80}},
		{"two sentences over the limit", sentence(50) + " " + sentence(50), []int{50, 50}},
		{"sentences packed", sentence(30) + " " + sentence(30) + " " + sentence(30), []int{60, 30}},
		{"long sentence split", sentence(170), []int{80, 80, 10}},
		{"no sentence end", strings.Repeat("w ", 100), []int{80, 20}},
	}
	for _, tc := range tests {
		got := Chunks(tc.text)
		var sizes []int
		for _, c := range got {
			sizes = append(sizes, len(strings.Fields(c)))
		}
		if fmt.Sprint(sizes) != fmt.Sprint(tc.sizes) {
			t.Errorf("%s: chunk sizes %v, want %v", tc.name, sizes, tc.sizes)
		}
	}
}

func TestEmbedDocs(t *testing.T) {
	emb := &bagEmbedder{dim: 64}
	e := New(Config{Embedder: emb})
	long := strings.Repeat("alpha beta. ", 50) + strings.Repeat("gamma delta. ", 50)
	vs, err := e.EmbedDocs(context.Background(), []string{"alpha beta", long})
	if err != nil {
		t.Fatal(err)
	}
	if n := emb.calls.Load(); n < 3 {
		t.Errorf("embedded %d texts, want the short one and at least two chunks", n)
	}
	dim := emb.Dim()
	if len(vs[0]) != dim || len(vs[1]) < 2*dim || len(vs[1])%dim != 0 {
		t.Fatalf("vector lengths %d and %d, want %d and a larger multiple of it", len(vs[0]), len(vs[1]), dim)
	}
	for i, v := range vs {
		for off := 0; off < len(v); off += dim {
			var ss float64
			for _, x := range v[off : off+dim] {
				ss += float64(x * x)
			}
			if math.Abs(ss-1) > 1e-5 {
				t.Errorf("text %d, chunk %d has norm² %v, want 1", i, off/dim, ss)
			}
		}
	}
	// The long text has a chunk like each of its halves.
	a, g := unit(emb.vec("alpha beta")), unit(emb.vec("gamma delta"))
	if bestDot(a, vs[1]) < 0.9 || bestDot(g, vs[1]) < 0.9 {
		t.Errorf("best chunk similarity %v and %v, want both above 0.9", bestDot(a, vs[1]), bestDot(g, vs[1]))
	}
}

func TestEmbedDocsManyChunks(t *testing.T) {
	// 1,000 dimensions leave room for 65 chunks in a vector blob.
	emb := &bagEmbedder{dim: 1000}
	e := New(Config{Embedder: emb})
	long := strings.Repeat("alpha beta gamma delta epsilon zeta eta theta iota kappa. ", 8*80)
	vs, err := e.EmbedDocs(context.Background(), []string{long})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(Chunks(long)); n <= 65 {
		t.Fatalf("test text has %d chunks, want more than 65", n)
	}
	if got := len(vs[0]); got != 65*1000 {
		t.Errorf("vector length %d, want 65 chunks of 1000", got)
	}
	if err := e.Put(doc("long", long), vs[0]); err != nil {
		t.Errorf("Put(65 chunks) = %v", err)
	}
	if blob := EncodeVector(e.Model(), "h", 1000, vs[0]); len(blob) == 0 {
		t.Error("no blob")
	} else if q, ok, err := DecodeVector(blob, e.Model(), "h", 1000); !ok || err != nil || len(q.Scales) != 65 {
		t.Errorf("blob round trip: %d chunks, %v, %v", len(q.Scales), ok, err)
	}
}

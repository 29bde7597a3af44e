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
	for i, v := range vs {
		var ss float64
		for _, x := range v {
			ss += float64(x * x)
		}
		if math.Abs(ss-1) > 1e-5 {
			t.Errorf("vector %d has norm² %v, want 1", i, ss)
		}
	}
	// The long text's vector is between its halves: similar to both.
	a, g := emb.vec("alpha beta"), emb.vec("gamma delta")
	if dot(vs[1], a) < 0.5 || dot(vs[1], g) < 0.5 {
		t.Errorf("mean vector similarity %v and %v, want both above 0.5", dot(vs[1], a), dot(vs[1], g))
	}
}

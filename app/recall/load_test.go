package recall

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestLoadMatchesPut checks that Load builds the index Put builds one
// document at a time: same results for every mode, on both vector index
// sizes (kelindar/search below smallRows, the int8 scan above).
func TestLoadMatchesPut(t *testing.T) {
	for _, tc := range []struct{ n, replaced int }{{300, 20}, {smallRows + 500, 20}, {smallRows + 500, 0}} {
		n := tc.n
		t.Run(fmt.Sprintf("%d-replacing-%d", n, tc.replaced), func(t *testing.T) {
			emb := &bagEmbedder{dim: 16}
			r := rand.New(rand.NewPCG(7, 8))
			words := []string{"deploy", "staging", "tabs", "spaces", "coffee", "release", "kiwi", "vines", "rust", "go", "café", "IL-6", "pipeline"}
			var docs []Doc
			for i := range n {
				text := ""
				for range 3 + r.IntN(6) {
					text += words[r.IntN(len(words))] + " "
				}
				d := doc(fmt.Sprintf("m%05d", i%(n-tc.replaced)), text) // the last ones replace earlier ids
				d.Sensitive = i%50 == 0
				docs = append(docs, d)
			}
			vecsOf := func() [][]float32 {
				vs := make([][]float32, len(docs))
				for i, d := range docs {
					if i%7 != 0 { // some documents have no vector
						vs[i] = emb.vec(d.Content)
					}
				}
				return vs
			}
			put := New(DefaultConfig(emb))
			for i, v := range vecsOf() {
				if err := put.Put(docs[i], v); err != nil {
					t.Fatal(err)
				}
			}
			load := New(DefaultConfig(emb))
			if err := load.Load(docs, vecsOf()); err != nil {
				t.Fatal(err)
			}
			if put.Len() != load.Len() {
				t.Fatalf("Len: Put %d, Load %d", put.Len(), load.Len())
			}
			for _, mode := range []Mode{Exact, Semantic, Hybrid} {
				for _, q := range []string{"deploy staging", "café kiwi", "IL6 release pipeline"} {
					want, err1 := put.Search(ctx, Query{Text: q, Mode: mode, Now: t0, Limit: 50})
					got, err2 := load.Search(ctx, Query{Text: q, Mode: mode, Now: t0, Limit: 50})
					if err1 != nil || err2 != nil {
						t.Fatal(err1, err2)
					}
					if !reflect.DeepEqual(scored(got.Hits), scored(want.Hits)) {
						t.Errorf("%s %q: Load gives %v, Put %v", mode, q, scored(got.Hits), scored(want.Hits))
					}
				}
			}
		})
	}
}

func scored(hs []Hit) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = fmt.Sprintf("%s:%.5f", h.Doc.ID, h.Score)
	}
	return out
}

func TestSetVector(t *testing.T) {
	emb := &bagEmbedder{dim: 16}
	e := New(DefaultConfig(emb))
	sens := doc("s", "secret kiwi")
	sens.Sensitive = true
	for _, d := range []Doc{doc("a", "kiwi vines"), doc("b", "kiwi grows"), sens} {
		if err := e.Put(d, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Put(doc("c", "kiwi with vector"), emb.vec("kiwi with vector")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, id, content string
		want              bool
	}{
		{"unchanged text", "a", "kiwi vines", true},
		{"text changed meanwhile", "b", "kiwi grew", false},
		{"sensitive", "s", "secret kiwi", false},
		{"already has a vector", "c", "kiwi with vector", false},
		{"unknown", "x", "kiwi", false},
	}
	for _, tc := range tests {
		if got := e.SetVector(tc.id, tc.content, emb.vec(tc.content)); got != tc.want {
			t.Errorf("%s: SetVector(%q) = %v, want %v", tc.name, tc.id, got, tc.want)
		}
	}
	if !e.HasVector("a") || e.HasVector("b") || e.HasVector("s") {
		t.Errorf("HasVector a, b, s = %v %v %v; want true false false", e.HasVector("a"), e.HasVector("b"), e.HasVector("s"))
	}
	res, err := e.Search(ctx, Query{Text: "kiwi vines", Mode: Semantic, Now: t0})
	if err != nil || len(res.Hits) == 0 || res.Hits[0].Doc.ID != "a" {
		t.Errorf("semantic search after SetVector = %v, %v; want a first", scored(res.Hits), err)
	}
}

// TestScoresRepeat checks that a query scores the same every time. The
// keyword scores once summed terms in map order, so a many-word query
// could differ in its last bits from call to call.
func TestScoresRepeat(t *testing.T) {
	e := New(DefaultConfig(nil))
	words := []string{"deploy", "staging", "tabs", "spaces", "coffee", "release", "kiwi", "vines", "rust", "pipeline", "alpha", "beta"}
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 400 {
		text := ""
		for range 4 + r.IntN(12) {
			text += words[r.IntN(len(words))] + " "
		}
		if err := e.Put(doc(fmt.Sprintf("m%03d", i), text), nil); err != nil {
			t.Fatal(err)
		}
	}
	q := Query{Text: "deploy staging tabs spaces coffee release kiwi vines rust pipeline alpha beta", Mode: Exact, Now: t0, Limit: 400}
	first, err := e.Search(ctx, q)
	if err != nil || len(first.Hits) == 0 {
		t.Fatalf("Search = %d hits, %v", len(first.Hits), err)
	}
	for range 30 {
		again, err := e.Search(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		for i := range first.Hits {
			if again.Hits[i].Doc.ID != first.Hits[i].Doc.ID || again.Hits[i].Score != first.Hits[i].Score {
				t.Fatalf("hit %d: %s %v, first time %s %v", i, again.Hits[i].Doc.ID, again.Hits[i].Score, first.Hits[i].Doc.ID, first.Hits[i].Score)
			}
		}
	}
}

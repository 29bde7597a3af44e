package recall

import (
	"context"
	"testing"
)

// TestFloorGate: with the default floors, a hybrid query about what the
// vault never heard of returns nothing, although one memory shares a
// word with it and every memory has some similarity; an answered query
// keeps a weaker relevant memory beside the best one.
func TestFloorGate(t *testing.T) {
	emb := &bagEmbedder{dim: 64}
	e := New(DefaultConfig(emb))
	docs := []Doc{
		doc("rotation", "The on-call rotation changes every Monday at nine."),
		doc("tabs", "Use tabs for indentation in Go files, spaces in YAML."),
		doc("pager", "The pager escalates to the second on-call after ten minutes."),
		doc("gateway", "The payment gateway retries a failed charge three times."),
	}
	for _, d := range docs {
		vs, _ := emb.Embed(context.Background(), []string{d.Content})
		if err := e.Put(d, vs[0]); err != nil {
			t.Fatal(err)
		}
	}
	search := func(q string) Result {
		t.Helper()
		r, err := e.Search(context.Background(), Query{Text: q, Mode: Hybrid, Now: t0, Floor: true})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	r := search("which timeouts does the billing service use for its database?")
	if len(r.Hits) != 0 {
		var got []string
		for _, h := range r.Hits {
			got = append(got, h.Doc.ID)
		}
		t.Errorf("a query about nothing the vault holds returned %v, want nothing", got)
	}
	if r.BelowFloor == 0 {
		t.Errorf("BelowFloor = 0: the answer does not say the floor left matches out")
	}

	r = search("when does the on-call rotation change?")
	ids := map[string]bool{}
	for _, h := range r.Hits {
		ids[h.Doc.ID] = true
	}
	if !ids["rotation"] || !ids["pager"] {
		t.Errorf("on-call query returned %v, want the rotation and the pager memory", ids)
	}
	if ids["gateway"] {
		t.Errorf("on-call query returned the unrelated gateway memory")
	}
}

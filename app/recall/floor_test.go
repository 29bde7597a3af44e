package recall

import (
	"context"
	"slices"
	"testing"

	"github.com/engram-app/engram/vault"
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

// TestFloorUnheard: a query whose every name is one no memory the reader
// may see contains is answered only if some memory clears the stricter
// Unheard gate; a query naming someone the vault knows, even by the
// beginning of their name, is judged by the ordinary gate.
func TestFloorUnheard(t *testing.T) {
	emb := &bagEmbedder{dim: 64}
	cfg := DefaultConfig(emb)
	cfg.Floors = map[Mode]Floor{Hybrid: {Gate: &Floor{Keyword: 0.15, Vector: 0.45}, Unheard: &Floor{Keyword: 0.9, Vector: 0.95}}}
	e := New(cfg)
	secret := doc("secret", "Caroline keeps the spare key under the blue pot.")
	secret.Partition = vault.Public
	put(t, e, emb,
		doc("sunset", "Jon: I painted a sunset over the lake last weekend."),
		doc("store", "Gina: The clothing store opens in February."),
		doc("pottery", "Melanie: The kids made bowls at the pottery workshop."),
		secret,
	)
	allow := func(d *Doc) bool { return d.Partition != vault.Public }
	for _, tc := range []struct {
		query   string
		want    bool // answered
		unheard []string
	}{
		{"What did Caroline paint at the lake?", false, []string{"Caroline"}},
		{"What did Jon paint at the lake?", true, nil},
		{"Did Jon and Caroline paint the lake?", true, []string{"Caroline"}},
		{"what did caroline paint at the lake?", true, nil},       // no name written as one
		{"What did Mel make at the pottery workshop?", true, nil}, // short for Melanie
		{"What did Car make at the pottery workshop?", false, []string{"Car"}},
	} {
		r, err := e.Search(context.Background(), Query{Text: tc.query, Mode: Hybrid, Now: t0, Floor: true, Allow: allow})
		if err != nil {
			t.Fatal(err)
		}
		if got := len(r.Hits) > 0; got != tc.want {
			t.Errorf("Search(%q) answered = %v (%v), want %v", tc.query, got, ids(r.Hits), tc.want)
		}
		if !slices.Equal(r.Unheard, tc.unheard) {
			t.Errorf("Search(%q).Unheard = %q, want %q", tc.query, r.Unheard, tc.unheard)
		}
	}
}

// TestUnheardOnlyWithFloor: an internal search (the duplicate check,
// which passes a whole memory) does not look for unheard names.
func TestUnheardOnlyWithFloor(t *testing.T) {
	e := New(DefaultConfig(nil))
	put(t, e, nil, doc("sunset", "Jon: I painted a sunset over the lake last weekend."))
	r, err := e.Search(context.Background(), Query{Text: "What did Caroline paint at the lake?", Mode: Exact, Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	if r.Unheard != nil || len(r.Hits) != 1 {
		t.Errorf("Search without the floor: Unheard %q, %d hits; want none and 1 hit", r.Unheard, len(r.Hits))
	}
}

func TestNames(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"What did Caroline research?", []string{"Caroline"}},
		{"Caroline went where?", nil},
		{"When did Jon and Gina meet in June? Gina was there.", []string{"Jon", "Gina"}},
		{"Did I see the IL-6 results on Monday?", []string{"IL"}},
		{"Would Caroline like Dr. Seuss?", []string{"Caroline", "Dr"}},
		{`Has Mel read "The Lean Startup"?`, []string{"Mel", "Lean", "Startup"}},
		{"Était-ce à Zürich?", []string{"Zürich"}},
	} {
		var got []string
		for _, n := range names(tc.text) {
			got = append(got, n.word)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("names(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

// TestDefaultFloorsUnheard: with the default floors, a question about
// someone the vault never heard of that shares a word with a memory
// returns nothing in every mode, and the same question about someone it
// knows returns the memory.
func TestDefaultFloorsUnheard(t *testing.T) {
	emb := &bagEmbedder{dim: 64}
	e := New(DefaultConfig(emb))
	put(t, e, emb,
		doc("trip", "Jon: The trip to the coast was windy, we came back early."),
		doc("store", "Gina: The clothing store opens in February."),
		doc("dance", "Jon: I used to dance every weekend before the studio closed."),
		doc("intern", "Gina: My internship at the fashion company starts next week."),
	)
	for _, mode := range []Mode{Hybrid, Semantic, Exact} {
		for _, tc := range []struct {
			query string
			want  []string
		}{
			{"What did Caroline buy on her trip to the coast last summer?", nil},
			{"What did Jon say about the trip?", []string{"trip"}},
		} {
			r, err := e.Search(context.Background(), Query{Text: tc.query, Mode: mode, Now: t0, Floor: true, Limit: 1})
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(r.Hits); !slices.Equal(got, tc.want) && !(len(got) == 0 && len(tc.want) == 0) {
				t.Errorf("%s Search(%q) = %q, want %q", mode, tc.query, got, tc.want)
			}
		}
	}
}

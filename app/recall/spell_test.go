package recall

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/engram-app/engram/vault"
)

func TestSoundKey(t *testing.T) {
	for _, group := range [][]string{
		{"Muhammad", "Mohammed", "Muhhamed", "Mohamad"},
		{"Nicholas", "Nikolas", "Nickolas"},
		{"Caroline", "Carolyne", "Karoline", "Carolline"},
		{"Philip", "Filip", "Phillip"},
		{"Zürich", "Zurich", "Surich"},
	} {
		for _, w := range group[1:] {
			if a, b := soundKey(group[0]), soundKey(w); a != b {
				t.Errorf("soundKey(%q) = %q, soundKey(%q) = %q; want the same", group[0], a, w, b)
			}
		}
	}
	for _, pair := range [][2]string{{"Melanie", "Maria"}, {"John", "Joanna"}, {"Gina", "Jon"}} {
		if soundKey(pair[0]) == soundKey(pair[1]) {
			t.Errorf("soundKey(%q) = soundKey(%q) = %q; want different", pair[0], pair[1], soundKey(pair[0]))
		}
	}
}

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"caroline", "caroline", 0}, {"caroline", "carolne", 1}, {"caroline", "carolien", 1},
		{"melanie", "melany", 2}, {"jon", "john", 1}, {"abc", "xyz", 2}, {"zürich", "zurich", 1},
	} {
		if got := editDistance(tc.a, tc.b, 1); min(got, 2) != min(tc.want, 2) {
			t.Errorf("editDistance(%q, %q, 1) = %d, want %d (capped at 2)", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestFloorMisspelledName is issue 35: a name spelled otherwise than the
// memories spell it ("Muhhamed" for "Muhammad") counts as heard, and the
// query finds the memories as they spell it; a name only memories the
// reader may not see spell so, or that they hold only as an ordinary
// word, stays unheard.
func TestFloorMisspelledName(t *testing.T) {
	emb := &bagEmbedder{dim: 64}
	cfg := DefaultConfig(emb)
	cfg.Floors = map[Mode]Floor{Hybrid: {Gate: &Floor{Keyword: 0.15, Vector: 0.45}, Unheard: &Floor{Keyword: 0.9, Vector: 0.95}},
		Exact: {Unheard: &Floor{Keyword: 0.9}}}
	e := New(cfg)
	hidden := doc("hidden", "We met Nicholas at the harbour market.")
	hidden.Partition = vault.Public
	put(t, e, emb,
		doc("trip", "Last spring Muhammad drove to the coast with his sister."),
		doc("cook", "Caroline cooks lentil soup on Sundays."),
		doc("gain", "The team saw a gain in speed after the upgrade. Speed matters."),
		doc("other", "The harbour market opens at dawn."),
		doc("read", "Tim read Dune and two books by Le Guin last winter."),
		doc("boiler", "John fixed the boiler on Friday."),
		hidden,
	)
	allow := func(d *Doc) bool { return d.Partition != vault.Public }
	for _, mode := range []Mode{Hybrid, Exact} {
		for _, tc := range []struct {
			query   string
			want    []string // the first hits
			unheard []string
		}{
			{"Where did Muhhamed drive with his sister?", []string{"trip"}, nil},
			{"Where did Mohammed drive?", []string{"trip"}, nil},
			{"What does Carolyne cook?", []string{"cook"}, nil},
			{"What does Karoline cook on Sundays?", []string{"cook"}, nil},
			{"Where did we meet Nikolas?", nil, []string{"Nikolas"}},          // only a memory the reader may not see
			{"What did Spead see after the upgrade?", nil, []string{"Spead"}}, // "speed" is no name
			{"What books has Tam read?", []string{"read"}, nil},               // a short name, as long and alike
			{"What did Jon fix on Friday?", nil, []string{"Jon"}},             // "Jon" and "John" are two names
		} {
			r, err := e.Search(context.Background(), Query{Text: tc.query, Mode: mode, Now: t0, Floor: true, Allow: allow})
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(r.Hits); len(got) < len(tc.want) || !slices.Equal(got[:len(tc.want)], tc.want) || len(tc.want) == 0 && len(got) > 0 {
				t.Errorf("%s Search(%q) = %q, want %q first", mode, tc.query, got, tc.want)
			}
			if !slices.Equal(r.Unheard, tc.unheard) {
				t.Errorf("%s Search(%q).Unheard = %q, want %q", mode, tc.query, r.Unheard, tc.unheard)
			}
		}
	}
}

// TestFirstSound: the shortcut for two ASCII letters gives the first
// letter of soundKey.
func TestFirstSound(t *testing.T) {
	for _, w := range []string{"Muhammad", "phil", "Cecil", "cyan", "Carl", "quinn", "Zoe", "Walt", "Xavier", "ida", "Yves", "42nd", "ab", "Zürich", "élan", "ph", "ck", "hh"} {
		if k := soundKey(w); firstSound(w) != k[0] {
			t.Errorf("firstSound(%q) = %q, soundKey = %q", w, firstSound(w), k)
		}
	}
}

// recordingEmbedder is a bagEmbedder that records the texts it embeds.
type recordingEmbedder struct {
	*bagEmbedder
	mu    sync.Mutex
	texts []string
}

func (r *recordingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	r.mu.Lock()
	r.texts = append(r.texts, texts...)
	r.mu.Unlock()
	return r.bagEmbedder.Embed(ctx, texts)
}

// TestMisspelledNameEmbeddedAsSpelled: a query whose name is respelled is
// embedded again as the memories spell the name, and its similarities
// are those of that text: with the built-in model a misspelled name
// moves the query's vector as far as another name, and a misspelled
// question came back empty where the right spelling was answered.
func TestMisspelledNameEmbeddedAsSpelled(t *testing.T) {
	bag := &bagEmbedder{dim: 64}
	emb := &recordingEmbedder{bagEmbedder: bag}
	e := New(DefaultConfig(emb))
	put(t, e, bag,
		doc("cook", "Caroline cooks lentil soup on Sundays."),
		doc("walk", "Melanie walks the dog at dawn."),
	)
	r, err := e.Search(context.Background(), Query{Text: "What does Carolyne cook?", Mode: Hybrid, Now: t0, Floor: true})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(emb.texts, "What does Caroline cook?") {
		t.Fatalf("embedded %q, want the query with Caroline as the memories spell her", emb.texts)
	}
	if len(r.Hits) == 0 || r.Hits[0].Doc.ID != "cook" {
		t.Fatalf("hits %q, want cook first", ids(r.Hits))
	}
	want := float64(dot(unit(bag.vec("What does Caroline cook?")), unit(bag.vec("Caroline cooks lentil soup on Sundays."))))
	if got := r.Hits[0].Similarity; math.Abs(got-want) > 0.02 {
		t.Errorf("similarity %.4f, want %.4f (the respelled query's)", got, want)
	}
	// The spelling is the one most memories the caller may read use: two
	// write Caroline, one Karoline; three hidden ones writing Karoline
	// do not change it.
	put(t, e, bag, doc("tea", "Caroline drinks green tea."), doc("knit", "Karoline knits scarves."))
	for i := range 3 {
		h := doc(fmt.Sprint("hidden", i), "Karoline bakes bread on Sundays.")
		h.Partition = vault.Public
		put(t, e, bag, h)
	}
	emb.texts = nil
	allow := func(d *Doc) bool { return d.Partition != vault.Public }
	if _, err := e.Search(context.Background(), Query{Text: "What does Carolyne cook?", Mode: Hybrid, Now: t0, Floor: true, Allow: allow}); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(emb.texts, "What does Caroline cook?") || slices.ContainsFunc(emb.texts, func(s string) bool { return strings.Contains(s, "Karoline") }) {
		t.Errorf("embedded %q for a reader of the internal memories, want Caroline's spelling only", emb.texts)
	}
	// A name spelled right is embedded once.
	emb.texts = nil
	if _, err := e.Search(context.Background(), Query{Text: "What does Caroline cook?", Mode: Hybrid, Now: t0, Floor: true}); err != nil {
		t.Fatal(err)
	}
	if len(emb.texts) != 1 {
		t.Errorf("embedded %q for a name spelled right, want it once", emb.texts)
	}
}

// TestRespelledNameCountsOnce: a misspelled name searched as two
// spellings counts once in the most a memory could score, so a memory's
// keyword share (which the floor compares) is what it is for the right
// spelling.
func TestRespelledNameCountsOnce(t *testing.T) {
	cfg := DefaultConfig(nil)
	cfg.Floors = map[Mode]Floor{Exact: {}}
	e := New(cfg)
	put(t, e, nil,
		doc("feed", "Nate feeds the turtles every morning."),
		doc("paint", "Nath paints the fence."),
		doc("sing", "Nath sings in the choir."),
	)
	share := func(q string) float64 {
		r, err := e.Search(context.Background(), Query{Text: q, Mode: Exact, Now: t0, Floor: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range r.Hits {
			if h.Doc.ID == "feed" {
				return h.KeywordShare
			}
		}
		t.Fatalf("Search(%q) = %q, want feed among them", q, ids(r.Hits))
		return 0
	}
	right, wrong := share("When does Nate feed the turtles?"), share("When does Nete feed the turtles?")
	if math.Abs(right-wrong) > 1e-9 {
		t.Errorf("keyword share %.4f with the name misspelled, %.4f spelled right: want the same", wrong, right)
	}
}

// TestRespellText: whole words only, wherever they stand.
func TestRespellText(t *testing.T) {
	sp := map[string]string{"Tam": "Tim", "Carolyne": "Caroline"}
	for in, want := range map[string]string{
		"What books has Tam read?":      "What books has Tim read?",
		"Tam's books, and Tam.":         "Tim's books, and Tim.",
		"Tamara met Carolyne (and Tam)": "Tamara met Caroline (and Tim)",
		"nothing to change here":        "nothing to change here",
		"Ask Tam":                       "Ask Tim",
	} {
		if got := respellText(in, sp); got != want {
			t.Errorf("respellText(%q) = %q, want %q", in, got, want)
		}
	}
}

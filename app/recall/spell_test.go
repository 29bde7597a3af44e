package recall

import (
	"context"
	"slices"
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

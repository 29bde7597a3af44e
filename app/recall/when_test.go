package recall

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

func TestWhen(t *testing.T) {
	now := time.Date(2026, 11, 26, 15, 0, 0, 0, time.UTC)
	day := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }
	tests := []struct {
		query      string
		ok         bool
		start, end time.Time
		month      time.Month
	}{
		{"What painting did Melanie show on October 13, 2023?", true, day(2023, 10, 13), day(2023, 10, 14), 0},
		{"What did Gina find on 1 February, 2023?", true, day(2023, 2, 1), day(2023, 2, 2), 0},
		{"What did they paint in July 2023?", true, day(2023, 7, 1), day(2023, 8, 1), 0},
		{"When did Melanie go camping in June?", true, time.Time{}, time.Time{}, time.June},
		{"Which tools did we adopt in May?", true, time.Time{}, time.Time{}, time.May},
		{"how many times in 2023?", true, day(2023, 1, 1), day(2024, 1, 1), 0},
		{"what did we decide last week", true, day(2026, 11, 12), day(2026, 11, 26), 0},
		{"what broke yesterday", true, day(2026, 11, 25), day(2026, 11, 26), 0},
		{"What did Gina find on 01.02.2023?", true, day(2023, 2, 1), day(2023, 2, 2), 0},
		{"what broke on 7.3.2024", true, day(2024, 3, 7), day(2024, 3, 8), 0},
		{"what happened on 2023-10-13", true, day(2023, 10, 13), day(2023, 10, 14), 0},
		{"the release of 13/10/2023", true, day(2023, 10, 13), day(2023, 10, 14), 0},
		{"the release of 10/13/2023", true, day(2023, 10, 13), day(2023, 10, 14), 0},
		{"What did she do in mid-August 2023?", true, day(2023, 8, 1), day(2023, 9, 1), 0},
		{"What did she plant mid-August?", true, time.Time{}, time.Time{}, time.August},
		{"the outage in Aug 2023", true, day(2023, 8, 1), day(2023, 9, 1), 0},
		{"the outage on Oct. 13, 2023", true, day(2023, 10, 13), day(2023, 10, 14), 0},
		{"the outage on 13 Oct 2023", true, day(2023, 10, 13), day(2023, 10, 14), 0},
		{"you may deploy on Fridays", false, time.Time{}, time.Time{}, 0},
		{"the mar on the table", false, time.Time{}, time.Time{}, 0},
		{"how do we deploy?", false, time.Time{}, time.Time{}, 0},
	}
	for _, tc := range tests {
		w, ok := when(tc.query, now)
		if ok != tc.ok || !w.start.Equal(tc.start) || !w.end.Equal(tc.end) || w.month != tc.month {
			t.Errorf("when(%q) = %v %v %v, %v; want %v %v %v, %v", tc.query, w.start, w.end, w.month, ok, tc.start, tc.end, tc.month, tc.ok)
		}
	}
	june := window{month: time.June}
	if !june.holds(day(2023, 6, 30), 0) || june.holds(day(2023, 7, 1), 0) || !june.holds(day(2023, 7, 3), 7*24*time.Hour) {
		t.Error("a month window: June 30 in, July 1 out, July 3 in with a week's slack")
	}
}

// TestWhenShortcut checks that the word check before the expressions
// (mayNameTime) never changes what when reads: on texts built from pieces
// of time expressions, in any case, with and without letters outside
// ASCII that case-insensitive matching folds ("ſ", the Kelvin sign).
func TestWhenShortcut(t *testing.T) {
	now := time.Date(2026, 11, 26, 15, 0, 0, 0, time.UTC)
	pieces := []string{"in", "during", "of", "since", "for", "early", "last", "week", "weekend", "month", "year",
		"yesterday", "May", "may", "JUNE", "octoBER", "Auguſt", "ſeptember", "13", "1st", "2023", "1999", "2100", ",",
		"deploy", "the", "on", "Friday", "we", "ticket", "OPS-2023", "\u212a", "café"}
	r := rand.New(rand.NewPCG(9, 10))
	texts := 0
	for range 20000 {
		words := make([]string, 1+r.IntN(7))
		for i := range words {
			words[i] = pieces[r.IntN(len(pieces))]
			if r.IntN(4) == 0 {
				words[i] = strings.ToUpper(words[i])
			}
		}
		q := strings.Join(words, " ")
		got, gotOK := when(q, now)
		want, wantOK := whenRe(q, now)
		if gotOK != wantOK || got != want {
			t.Fatalf("when(%q) = %v, %v; the expressions alone read %v, %v", q, got, gotOK, want, wantOK)
		}
		if wantOK {
			texts++
		}
	}
	if texts < 1000 {
		t.Fatalf("only %d of 20000 texts name a time: the test does not exercise the expressions", texts)
	}
}

// TestTimeBoost: a query that names a time ranks the memory from then
// above an equal one from another time.
func TestTimeBoost(t *testing.T) {
	e := New(DefaultConfig(nil))
	june, july := doc("june", "we went camping by the lake"), doc("july", "we went camping in the hills")
	june.Created, july.Created = time.Date(2023, 6, 20, 0, 0, 0, 0, time.UTC), time.Date(2023, 7, 20, 0, 0, 0, 0, time.UTC)
	put(t, e, nil, june, july)
	now := time.Date(2023, 8, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct{ query, first string }{{"when did we go camping in June?", "june"}, {"when did we go camping in July?", "july"}} {
		r, err := e.Search(context.Background(), Query{Text: tc.query, Now: now})
		if err != nil || len(r.Hits) != 2 || r.Hits[0].Doc.ID != tc.first {
			t.Errorf("Search(%q) = %q, %v; want %s first", tc.query, ids(r.Hits), err, tc.first)
		}
	}
}

// TestFloorDatedQuestion is issue 35: a question naming a day or month,
// in any common way of writing it, is judged by the floor on its other
// words (the time is matched against the memories' dates), so it is
// answered as the same question without the date is.
func TestFloorDatedQuestion(t *testing.T) {
	emb := &bagEmbedder{dim: 64}
	cfg := DefaultConfig(emb)
	cfg.Floors = map[Mode]Floor{Hybrid: {Gate: &Floor{Keyword: 0.4, Vector: 0.99}}, Exact: {Gate: &Floor{Keyword: 0.4}}}
	e := New(cfg)
	paint := doc("paint", "Melanie showed her painting of the lake.")
	paint.Created = time.Date(2023, 10, 13, 15, 0, 0, 0, time.UTC)
	put(t, e, emb, paint, doc("store", "Gina opened the clothing store."), doc("dance", "Jon teaches dance at the studio."))
	for _, mode := range []Mode{Hybrid, Exact} {
		for _, q := range []string{
			"Which painting did Melanie show?",
			"Which painting did Melanie show on October 13, 2023?",
			"Which painting did Melanie show on 13.10.2023?",
			"Which painting did Melanie show on 2023-10-13?",
			"Which painting did Melanie show in mid-October 2023?",
			"Which painting did Melanie show in Oct 2023?",
		} {
			r, err := e.Search(context.Background(), Query{Text: q, Mode: mode, Now: t0, Floor: true})
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(r.Hits); len(got) == 0 || got[0] != "paint" {
				t.Errorf("%s Search(%q) = %q, want paint first", mode, q, got)
			}
		}
	}
}

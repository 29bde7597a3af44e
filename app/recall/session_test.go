package recall

import (
	"context"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/engram-app/engram/vault"
)

// turn is a memory of owner written in session at t0 plus sec seconds.
func turn(id, owner, session string, sec int, content string) Doc {
	d := doc(id, content)
	d.Owner, d.Source.SessionID, d.Created = owner, session, t0.Add(time.Duration(sec)*time.Second)
	return d
}

// bakeryTurns are a question about the bakery and its answer in session
// s1, and the same answer to another question in session s2; bakeryQuery
// asks about the bakery.
func bakeryTurns() []Doc {
	return []Doc{
		turn("q-bakery", "agent", "s1", 0, "Did you like the new bakery on Main Street?"),
		turn("z-answer", "agent", "s1", 2, "Yes, it was lovely there."),
		turn("a-other", "agent", "s2", 1, "Yes, it was lovely there."),
	}
}

const bakeryQuery = "was the bakery on Main Street lovely"

func scores(t *testing.T, e *Engine, q Query) map[string]float64 {
	t.Helper()
	q.Now = t0.Add(time.Hour)
	r, err := e.Search(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, h := range r.Hits {
		out[h.Doc.ID] = h.Score
	}
	return out
}

// TestSessionContext: an answer that repeats none of the question's words
// is found beside the turn that asked it. "Yes, it was lovely there"
// written after a question about the bakery ranks above the same words
// written after a question about the dentist, for a query about the
// bakery; without the context the two tie and the other comes first.
func TestSessionContext(t *testing.T) {
	docs := append(bakeryTurns(),
		turn("q-dentist", "agent", "s2", 0, "Did you like the new dentist on Oak Street?"),
		turn("filler", "agent", "s3", 0, "The lovely weather held all week."))
	q := Query{Text: bakeryQuery, Mode: Exact}
	for _, cfg := range []Config{DefaultConfig(nil), {Recency: 0.3}} {
		e := New(cfg)
		put(t, e, nil, docs...)
		s := scores(t, e, q)
		switch {
		case cfg.Context != 0 && !(s["z-answer"] > s["a-other"]):
			t.Errorf("with context %.1f: the bakery's answer scores %.4f, the dentist's %.4f; want it above", cfg.Context, s["z-answer"], s["a-other"])
		case cfg.Context == 0 && math.Abs(s["z-answer"]-s["a-other"]) > 1e-6: // their recency differs by a second
			t.Errorf("without context: %.4f and %.4f, want a tie", s["z-answer"], s["a-other"])
		}
	}
}

// TestSessionContextReadRule: the neighbours are those the query may see:
// a memory the reader may not see written between the question and its
// answer changes neither's score, and a memory of another writer that
// claims the session is no neighbour.
func TestSessionContextReadRule(t *testing.T) {
	base := bakeryTurns()
	hidden := turn("hidden", "agent", "s1", 1, "The bakery on Main Street is lovely, said nobody.")
	hidden.Partition = vault.Public
	intruder := turn("m-intruder", "mallory", "s1", 1, "Yes, it was lovely there.")
	allow := func(d *Doc) bool { return d.Partition != vault.Public }
	q := Query{Text: bakeryQuery, Mode: Exact, Allow: allow}

	plain := New(DefaultConfig(nil))
	put(t, plain, nil, append(base, intruder)...)
	want := scores(t, plain, q)

	e := New(DefaultConfig(nil))
	put(t, e, nil, append(base, intruder, hidden)...)
	got := scores(t, e, q)
	for _, id := range []string{"q-bakery", "z-answer", "a-other", "m-intruder"} {
		if got[id] != want[id] {
			t.Errorf("%s: score %.6f beside a hidden memory and another writer's, %.6f without: want the same", id, got[id], want[id])
		}
	}
	if math.Abs(got["m-intruder"]-got["a-other"]) > 1e-6 {
		t.Errorf("another writer's memory in the session scores %.6f, the same words elsewhere %.6f: want no neighbour", got["m-intruder"], got["a-other"])
	}
}

// TestSessionContextBulkLoad: a bulk load orders the sessions as puts one
// by one do, and a removed memory leaves its session.
func TestSessionContextBulkLoad(t *testing.T) {
	docs := append(bakeryTurns(), turn("gone", "agent", "s1", 3, "The bakery on Main Street closed."))
	slices.Reverse(docs) // loaded out of their order
	q := Query{Text: bakeryQuery, Mode: Exact}
	one := New(DefaultConfig(nil))
	put(t, one, nil, docs...)
	bulk := New(DefaultConfig(nil))
	if err := bulk.Load(docs, nil); err != nil {
		t.Fatal(err)
	}
	a, b := scores(t, one, q), scores(t, bulk, q)
	for id, s := range a {
		if b[id] != s {
			t.Errorf("%s: %.6f loaded in bulk, %.6f put one by one", id, b[id], s)
		}
	}
	// Removing "gone" leaves the answer with one neighbour: its score
	// falls to what it is without "gone" ever written.
	one.Remove("gone")
	never := New(DefaultConfig(nil))
	put(t, never, nil, bakeryTurns()...)
	if got, want := scores(t, one, q)["z-answer"], scores(t, never, q)["z-answer"]; got != want {
		t.Errorf("after removal: %.6f, want %.6f", got, want)
	}
}

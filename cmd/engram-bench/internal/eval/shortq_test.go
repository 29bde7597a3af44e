package eval

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/engram-app/engram/app/recall"
)

// TestShortTallies counts a hand-made run: each query's first relevant
// memory's rank, empty answers, and the halves and kinds apart.
func TestShortTallies(t *testing.T) {
	run := filepath.Join(t.TempDir(), "run")
	lines := []string{
		"q1 Q0 a 1 0.9 hybrid", // short, dev: top 1
		"q2 Q0 x 1 0.9 hybrid", // short, dev: top 3
		"q2 Q0 y 2 0.8 hybrid",
		"q2 Q0 b 3 0.7 hybrid",
		"q3 Q0 x 1 0.9 hybrid", // question, dev: not in the top 10
		// q4, short, heldout: empty
		"q5 Q0 z 1 0.5 hybrid", // short, heldout: rank 4, top 10
		"q5 Q0 z2 2 0.5 hybrid",
		"q5 Q0 z3 3 0.5 hybrid",
		"q5 Q0 c 4 0.4 hybrid",
	}
	if err := os.WriteFile(run, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	queries := map[string]string{"q1": "tabs", "q2": "money format", "q3": "what did we decide about retries", "q4": "vpn", "q5": "ulimit"}
	rel := Qrels{"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 1}, "q4": {"d": 1}, "q5": {"c": 1, "e": 1}}
	halves := map[string][]string{"dev": {"q1", "q2", "q3"}, "heldout": {"q4", "q5"}}
	got, err := ShortTallies(run, queries, rel, halves, []recall.Mode{recall.Hybrid})
	if err != nil {
		t.Fatal(err)
	}
	want := []ShortTally{
		{Half: "dev", Kind: "short", N: 2, Top1: 1, Top3: 2, Top10: 2, Mode: recall.Hybrid},
		{Half: "dev", Kind: "question", N: 1, Mode: recall.Hybrid},
		{Half: "heldout", Kind: "short", N: 2, Top10: 1, Empty: 1, Mode: recall.Hybrid},
		{Half: "heldout", Kind: "question", N: 0, Mode: recall.Hybrid},
	}
	if len(got) != len(want) {
		t.Fatalf("ShortTallies = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("tally %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if _, err := ShortTallies(run, queries, rel, map[string][]string{"dev": {"q9"}}, []recall.Mode{recall.Hybrid}); err == nil {
		t.Error("a split naming a query the set lacks was accepted")
	}
}

// TestShortReport runs the short-query set through a vault (the model
// from ENGRAM_MODEL_DIR) and prints the section make report adds.
//
//	ENGRAM_EVAL=1 ENGRAM_MODEL_DIR=… go test ./cmd/engram-bench/internal/eval -run TestShortReport -v
func TestShortReport(t *testing.T) {
	if os.Getenv("ENGRAM_EVAL") == "" {
		t.Skip("set ENGRAM_EVAL=1 (and ENGRAM_MODEL_DIR) to run the short-query set")
	}
	md, err := ShortReport(context.Background(), filepath.Join("testdata", "agentvault"), os.Getenv("ENGRAM_MODEL_DIR"), t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md, "| hybrid | heldout | short | 78 |") {
		t.Fatalf("the report lacks the held-out short queries:\n%s", md)
	}
	t.Log("\n" + md)
}

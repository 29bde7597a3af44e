package eval

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/engram-app/engram/app/recall"
)

// AgentVault is the short-query set, relative to the repository's root:
// one person's coding-agent vault (402 memories), 156 queries of one or
// two words and 53 questions, written blind, with split.json dividing the
// queries at random into a dev and a held-out half (its README.md).
var AgentVault = filepath.Join("cmd", "engram-bench", "internal", "eval", "testdata", "agentvault")

// ShortTally is how often the answers of one mode to one kind of query
// in one half of the set had a relevant memory in their top 1, 3 and 10,
// and were empty.
type ShortTally struct {
	Half, Kind        string // dev or heldout; short (at most two words) or question
	N                 int
	Top1, Top3, Top10 int
	Empty             int
	Mode              recall.Mode
}

// ShortTallies scores a TREC run (as Retrieval writes it) by half, kind
// and mode. queries maps a query id to its text, rel a query id to its
// relevant memories, halves a half's name to its query ids.
func ShortTallies(run string, queries map[string]string, rel Qrels, halves map[string][]string, modes []recall.Mode) ([]ShortTally, error) {
	type key struct {
		q    string
		mode recall.Mode
	}
	ranked := map[key][]string{}
	f, err := os.Open(run)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		p := strings.Fields(sc.Text())
		if len(p) != 6 {
			return nil, fmt.Errorf("%s: %q is not a run line", run, sc.Text())
		}
		rank, err := strconv.Atoi(p[3])
		if err != nil || rank != len(ranked[key{p[0], recall.Mode(p[5])}])+1 {
			return nil, fmt.Errorf("%s: %q is out of order", run, sc.Text())
		}
		k := key{p[0], recall.Mode(p[5])}
		ranked[k] = append(ranked[k], p[2])
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	var out []ShortTally
	for _, mode := range modes {
		for _, half := range []string{"dev", "heldout"} {
			for _, kind := range []string{"short", "question"} {
				t := ShortTally{Half: half, Kind: kind, Mode: mode}
				for _, q := range halves[half] {
					text, ok := queries[q]
					if !ok {
						return nil, fmt.Errorf("split names query %s, which the set lacks", q)
					}
					if (len(strings.Fields(text)) <= 2) != (kind == "short") {
						continue
					}
					t.N++
					got := ranked[key{q, mode}]
					if len(got) == 0 {
						t.Empty++
					}
					for i, id := range got {
						if rel[q][id] > 0 {
							if i < 1 {
								t.Top1++
							}
							if i < 3 {
								t.Top3++
							}
							if i < 10 {
								t.Top10++
							}
							break
						}
					}
				}
				out = append(out, t)
			}
		}
	}
	return out, nil
}

// ShortReport runs the short-query set dir (AgentVault) in exact and
// hybrid mode through a fresh vault, as Retrieval does, and returns a
// Markdown section of its tallies.
func ShortReport(ctx context.Context, dir, modelDir string, log func(string, ...any)) (string, error) {
	tmp, err := os.MkdirTemp("", "engram-shortq-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	modes := []recall.Mode{recall.Exact, recall.Hybrid}
	run := filepath.Join(tmp, "run")
	log("short queries (%s)", dir)
	if _, err := Retrieval(ctx, Options{Corpus: filepath.Join(dir, "corpus.jsonl"), Queries: filepath.Join(dir, "queries.jsonl"),
		Qrels: filepath.Join(dir, "qrels", "test.tsv"), Modes: modes, K: 10, Recency: 0.3, Run: run, ModelDir: modelDir}); err != nil {
		return "", err
	}
	qs, err := ReadJSONL[query](filepath.Join(dir, "queries.jsonl"))
	if err != nil {
		return "", err
	}
	queries := map[string]string{}
	for _, q := range qs {
		queries[q.ID] = q.Text
	}
	rel, err := readQrels(filepath.Join(dir, "qrels", "test.tsv"))
	if err != nil {
		return "", err
	}
	b, err := os.ReadFile(filepath.Join(dir, "split.json"))
	if err != nil {
		return "", err
	}
	var halves map[string][]string
	if err := json.Unmarshal(b, &halves); err != nil {
		return "", fmt.Errorf("%s: %w", filepath.Join(dir, "split.json"), err)
	}
	ts, err := ShortTallies(run, queries, rel, halves, modes)
	if err != nil {
		return "", err
	}
	var md strings.Builder
	md.WriteString("## Short queries in a coding agent's vault (agentvault, written blind)\n\n")
	md.WriteString("402 memories of one person's projects; 156 queries of one or two words (half name their memory in words it does not hold) and 53 questions; dev and held-out halves drawn at random. A relevant memory in the top 1 / 3 / 10, with the floor; empty answers.\n\n")
	md.WriteString("| mode | half | queries | n | top 1 | top 3 | top 10 | empty |\n|---|---|---|---|---|---|---|---|\n")
	pct := func(k, n int) string { return fmt.Sprintf("%.1f%%", 100*float64(k)/float64(max(n, 1))) }
	for _, t := range ts {
		fmt.Fprintf(&md, "| %s | %s | %s | %d | %s | %s | %s | %s |\n", t.Mode, t.Half, t.Kind, t.N, pct(t.Top1, t.N), pct(t.Top3, t.N), pct(t.Top10, t.N), pct(t.Empty, t.N))
	}
	md.WriteString("\nThe goal is nine in ten short queries with their memory in the top 3, on held-out data.\n")
	return md.String(), nil
}

package guard

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestEvalPoison prints the guard's figures on planted instructions and on
// the benign texts they must not be confused with; it asserts nothing.
//
//	ENGRAM_EVAL=1 go test ./quarantine/guard -run TestEvalPoison -v
//
// Caught means a verdict of suspicious or hostile, with no source given
// (as `engram guard` screens). The rules-file lines of poison-dev.jsonl,
// LoCoMo's conversation turns and observations, and the benign texts of
// injection-dev.jsonl are the false-alarm measures. -evalmisses lists the
// misses and false alarms.
//
// The shipped model is trained on both corpora, so their figures here are
// in-sample: they show what the guard does on texts it has seen, not how
// it generalises. TestEvalLearned gives the held-out figures (each source
// scored by models trained without it); LoCoMo is held out either way.
func TestEvalPoison(t *testing.T) {
	dir := evalEnabled(t)
	g, err := New(Policy{})
	if err != nil {
		t.Fatal(err)
	}
	type row struct{ Text, Label, Source string }
	flagged := func(text string) bool { return g.Check(Input{Text: text}).Verdict != Safe }

	bySource := map[string][2]int{} // caught, total
	var misses, alarms []string
	report := func(name string, rows []row) {
		var pos, tp, neg, fp int
		for _, r := range rows {
			f := flagged(r.Text)
			src := r.Source
			if i := strings.IndexByte(src, ':'); i > 0 && r.Label == "benign" {
				src = "rules" // a repository's lines: one benign family
			}
			c := bySource[name+" "+r.Label+" "+src]
			c[1]++
			if r.Label == "injection" {
				pos++
				if f {
					tp++
					c[0]++
				} else {
					misses = append(misses, r.Source+" | "+r.Text)
				}
			} else {
				neg++
				if f {
					fp++
					c[0]++
					alarms = append(alarms, r.Source+" | "+strings.Join(g.Check(Input{Text: r.Text}).Reasons, "; ")+" | "+r.Text)
				}
			}
			bySource[name+" "+r.Label+" "+src] = c
		}
		t.Logf("%s: caught %s; benign flagged %s", name, pct(tp, pos), pct(fp, neg))
	}
	poison := readJSONL[row](t, filepath.Join(dir, "guard", "poison-dev.jsonl"))
	inj := readJSONL[row](t, filepath.Join(dir, "guard", "injection-dev.jsonl"))
	report("poison-dev", poison)
	report("injection-dev", inj)
	report("both", append(append([]row{}, poison...), inj...))

	// LoCoMo: conversation turns and observations, benign by construction.
	var convo []row
	for _, kind := range []string{"turns", "observations"} {
		paths, _ := filepath.Glob(filepath.Join(dir, "search", "locomo-dev", kind, "*", "corpus.jsonl"))
		for _, p := range paths {
			for _, d := range readJSONL[struct{ Text string }](t, p) {
				convo = append(convo, row{Text: d.Text, Label: "benign", Source: "locomo-" + kind})
			}
		}
	}
	if len(convo) > 0 {
		report("locomo", convo)
	}

	keys := make([]string, 0, len(bySource))
	for k := range bySource {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		c := bySource[k]
		t.Logf("  %-60s flagged %s", k, pct(c[0], c[1]))
	}
	if *evalMisses || os.Getenv("ENGRAM_EVAL_MISSES") != "" {
		for _, m := range misses {
			t.Logf("MISS  %.220s", m)
		}
		for _, a := range alarms {
			t.Logf("ALARM %.220s", a)
		}
	}
}

package guard

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// learnedCorpus is every labelled text of the guard corpora: injection-dev
// and poison-dev. Each row's group is what leave-one-source-out holds out
// together: a benchmark's source ("asb:system_admin_agent"), or a
// repository for the rules-file lines ("rules:owner/repo"), since lines of
// one file resemble each other more than any other text.
func learnedCorpus(t testing.TB, dir string) (rows []injectionRow, groups []string) {
	for _, name := range []string{"injection-dev.jsonl", "poison-dev.jsonl"} {
		for _, r := range readJSONL[injectionRow](t, filepath.Join(dir, "guard", name)) {
			g := r.Source
			if i := strings.IndexByte(g, ':'); i > 0 && r.Label == "benign" {
				g = "rules:" + g[:i]
			}
			rows = append(rows, r)
			groups = append(groups, g)
		}
	}
	return rows, groups
}

// family is a group's benchmark: the coarser unit of leave-one-out, which
// holds out every agent of ASB or both AgentDojo suites at once.
func family(group string) string {
	if strings.HasPrefix(group, "rules:") {
		return group
	}
	for _, sep := range []string{":", "-"} {
		if i := strings.Index(group, sep); i > 0 {
			return group[:i]
		}
	}
	return group
}

// heldOutVerdict is one held-out row under each configuration.
type heldOutVerdict struct {
	group string
	isInj bool
	risk  []float64 // per learnedConfig
}

type learnedConfig struct {
	name string
	// both trains on injection-dev and poison-dev; otherwise on the
	// injection-dev rows of the training groups only (the shipped recipe
	// before).
	both bool
	// vector feeds the vector model's probability.
	vector bool
	// noModel screens with rules alone.
	noModel bool
}

var learnedConfigs = []learnedConfig{
	{name: "rules and heuristics only", noModel: true},
	{name: "n-gram model, injection-dev only"},
	{name: "n-gram model, both corpora", both: true},
	{name: "n-gram + vector, both corpora", both: true, vector: true},
}

// TestEvalLearned measures the whole guard (rules, intent, normalisation,
// heuristics and the learned layer) with the learned models retrained
// without the held-out group, for every group of both corpora, and pools
// the held-out verdicts. Rules are fixed, not retrained: they were written
// with poison-dev in view, so its figures for them are not held out; the
// rows of injection-dev's sources and the held-out families are the fairer
// reading. It asserts nothing.
//
//	ENGRAM_EVAL=1 go test ./quarantine/guard -run TestEvalLearned -v
//	ENGRAM_EVAL=1 go test ./quarantine/guard -run TestEvalLearned -v -variants   # leave one family out too
func TestEvalLearned(t *testing.T) {
	dir := evalEnabled(t)
	rows, groups := learnedCorpus(t, dir)
	extras := benignExtras(t, dir, 1600)
	texts := make([]string, 0, len(rows)+len(extras))
	for _, r := range rows {
		texts = append(texts, r.Text)
	}
	vecs := corpusVectors(t, append(texts, extras...))
	rowVecs, extraVecs := vecs[:len(rows)], vecs[len(rows):]

	units := map[string]func(string) string{"source": func(g string) string { return g }}
	if *variantsFlag {
		units["family"] = family
	}
	for _, unitName := range []string{"source", "family"} {
		unit, ok := units[unitName]
		if !ok {
			continue
		}
		var held []string
		for _, g := range groups {
			if !slices.Contains(held, unit(g)) {
				held = append(held, unit(g))
			}
		}
		var all []heldOutVerdict
		for _, h := range held {
			all = append(all, learnedHeldOut(rows, groups, rowVecs, extras, extraVecs, func(g string) bool { return unit(g) == h })...)
		}
		reportLearned(t, "leave one "+unitName+" out", all)
	}
}

// learnedHeldOut trains each configuration's models without the rows whose
// group isOut selects and returns those rows' held-out risks.
func learnedHeldOut(rows []injectionRow, groups []string, rowVecs [][]float32, extras []string, extraVecs [][]float32, isOut func(string) bool) []heldOutVerdict {
	var trainInj, trainAll []int
	var test []int
	for i, r := range rows {
		switch {
		case isOut(groups[i]):
			test = append(test, i)
		case !strings.Contains(r.Source, ":"): // injection-dev's sources
			trainInj = append(trainInj, i)
			trainAll = append(trainAll, i)
		default:
			trainAll = append(trainAll, i)
		}
	}
	pick := func(idx []int) ([]injectionRow, [][]float32) {
		var rs []injectionRow
		var vs [][]float32
		for _, i := range idx {
			rs = append(rs, rows[i])
			vs = append(vs, rowVecs[i])
		}
		return rs, vs
	}
	type trained struct {
		lex *model
		vec *vecModel
	}
	models := map[bool]trained{}
	for _, both := range []bool{false, true} {
		idx := trainInj
		if both {
			idx = trainAll
		}
		rs, vs := pick(idx)
		tr := trained{lex: trainModel(rs, extras, defaultTrain)}
		if both { // the only configuration with a vector: its training is the slow part
			tr.vec = trainVecModel(vecDocs(rs, vs, extraVecs, defaultTrain.extraWeight), vecL2)
		}
		models[both] = tr
	}
	out := make([]heldOutVerdict, len(test))
	for k, i := range test {
		out[k] = heldOutVerdict{group: groups[i], isInj: rows[i].Label == "injection"}
	}
	for _, c := range learnedConfigs {
		g, _ := New(Policy{})
		if c.noModel {
			g.model = &model{w: make([]float32, hashDim+denseDim), bias: -20}
		} else {
			g.model, g.vec = models[c.both].lex, models[c.both].vec
		}
		for k, i := range test {
			in := Input{Text: rows[i].Text}
			if c.vector {
				in.Vector, in.VectorModel = rowVecs[i], VectorModel
			}
			out[k].risk = append(out[k].risk, g.Check(in).Risk)
		}
	}
	return out
}

func reportLearned(t *testing.T, label string, hs []heldOutVerdict) {
	t.Logf("%s (caught: suspicious or hostile; a row counts once, when its group was held out)", label)
	kinds := []struct {
		name string
		in   func(h heldOutVerdict) bool
	}{
		{"poison-dev attacks", func(h heldOutVerdict) bool { return h.isInj && strings.Contains(h.group, ":") }},
		{"injection-dev attacks", func(h heldOutVerdict) bool { return h.isInj && !strings.Contains(h.group, ":") }},
		{"rules-file lines", func(h heldOutVerdict) bool { return !h.isInj && strings.HasPrefix(h.group, "rules:") }},
		{"injection-dev benign", func(h heldOutVerdict) bool { return !h.isInj && !strings.HasPrefix(h.group, "rules:") }},
	}
	for k, c := range learnedConfigs {
		var parts []string
		for _, kind := range kinds {
			n, hit := 0, 0
			for _, h := range hs {
				if kind.in(h) {
					n++
					if h.risk[k] >= suspiciousAt {
						hit++
					}
				}
			}
			parts = append(parts, fmt.Sprintf("%s %s", kind.name, pct(hit, n)))
		}
		t.Logf("  %-38s %s", c.name, strings.Join(parts, "; "))
	}
	if !*evalMisses {
		return
	}
	bySrc := map[string][2]int{}
	var names []string
	for _, h := range hs {
		c, ok := bySrc[h.group]
		if !ok {
			names = append(names, h.group)
		}
		c[1]++
		if h.risk[len(learnedConfigs)-1] >= suspiciousAt {
			c[0]++
		}
		bySrc[h.group] = c
	}
	slices.Sort(names)
	for _, n := range names {
		t.Logf("    %-44s flagged %s", n, pct(bySrc[n][0], bySrc[n][1]))
	}
}

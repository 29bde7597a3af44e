package guard

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The learned judgement of secrets_learned.go: its trainer and its
// evaluation.

type tokExample struct {
	fs    []int32
	label bool
	row   int
}

type tokRow struct {
	text   string
	secret bool
	values []string
	src    string
}

// tokExamples labels the candidates of each row: a candidate overlapping
// a value is a credential, every other candidate is not.
func tokExamples(rows []tokRow) []tokExample {
	var out []tokExample
	for i, r := range rows {
		for _, c := range candidates(r.text) {
			pos := false
			for _, v := range r.values {
				for off := 0; ; {
					k := strings.Index(r.text[off:], v)
					if k < 0 {
						break
					}
					k += off
					if c.a < k+len(v) && k < c.b {
						pos = true
					}
					off = k + 1
				}
			}
			fs, _ := tokFeatures(r.text, c.a, c.b)
			out = append(out, tokExample{fs: fs, label: pos, row: i})
		}
	}
	return out
}

func trainTok(ex []tokExample, epochs int, seed uint64) []float32 {
	w := make([]float32, tokHashDim)
	rng := rand.New(rand.NewPCG(seed, 1))
	var npos int
	for _, e := range ex {
		if e.label {
			npos++
		}
	}
	wpos := float64(len(ex)-npos) / float64(max(npos, 1))
	idx := make([]int, len(ex))
	for i := range idx {
		idx[i] = i
	}
	lr := 0.2
	for ep := 0; ep < epochs; ep++ {
		rng.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
		for _, i := range idx {
			e := ex[i]
			z := 0.0
			for _, f := range e.fs {
				z += float64(w[f])
			}
			p := 1 / (1 + math.Exp(-z))
			y, cw := 0.0, 1.0
			if e.label {
				y, cw = 1, wpos
			}
			g := (p - y) * cw * lr
			for _, f := range e.fs {
				w[f] -= float32(g + 1e-5*float64(w[f]))
			}
		}
		lr *= 0.85
	}
	return w
}

func scoreTok(w []float32, text string, c candTok) (p, ctx float64) {
	fs, from := tokFeatures(text, c.a, c.b)
	return (&tokModel{w: w}).score(fs, from)
}

func loadTokRows(t *testing.T, dir string) (train map[string][]tokRow, held map[string][]tokRow, ordinary map[string][]tokRow) {
	train, held, ordinary = map[string][]tokRow{}, map[string][]tokRow{}, map[string][]tokRow{}
	// The rules alone derive prose-dev's values: the model must not
	// shape its own training data.
	g := newTestGuard(t, Policy{})
	g.secretModel = nil
	// secrets-prose-dev has no values: a credential row's values are what
	// the guard redacts there (all of them, in sample).
	for _, r := range readJSONL[proseRow](t, filepath.Join(dir, "guard", "secrets-prose-dev.jsonl")) {
		tr := tokRow{text: r.Text, secret: r.Label == "secret", src: "prose-dev"}
		if tr.secret {
			res := g.Check(Input{Text: r.Text})
			for _, f := range res.Findings {
				if f.Kind == KindSecret && f.Level != LevelPossible {
					tr.values = append(tr.values, r.Text[f.Start:f.End])
				}
			}
		}
		train["prose-dev"] = append(train["prose-dev"], tr)
	}
	for _, r := range readJSONL[sentenceRow](t, filepath.Join("testdata", "secrets-sentences.jsonl")) {
		tr := tokRow{text: r.Text, secret: r.Label == "secret", src: "sentences"}
		if tr.secret && r.Value != "" {
			tr.values = []string{r.Value}
		}
		train["sentences"] = append(train["sentences"], tr)
	}
	for _, name := range append([]string{"batch5", "batch7", "batch8"}, append(readBatches, heldBatches...)...) {
		file := "secrets-" + name + ".jsonl"
		if _, err := os.Stat(filepath.Join("testdata", file)); err != nil {
			continue
		}
		for _, r := range readJSONL[heldRow](t, filepath.Join("testdata", file)) {
			tr := tokRow{text: r.Text, secret: r.Label == "secret", values: r.Values, src: name}
			if slices.Contains(heldBatches, name) {
				held[name] = append(held[name], tr)
			} else {
				train[name] = append(train[name], tr)
			}
		}
	}
	// Ordinary text: nothing in it is a credential.
	for _, name := range []string{"benign-memories.txt", "benign-requests.txt"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
				ordinary[name] = append(ordinary[name], tokRow{text: line, src: name})
			}
		}
	}
	for _, r := range readJSONL[proseRow](t, filepath.Join(dir, "guard", "poison-dev.jsonl")) {
		if r.Label == "benign" {
			ordinary["poison-benign"] = append(ordinary["poison-benign"], tokRow{text: r.Text})
		}
	}
	paths, _ := filepath.Glob(filepath.Join(dir, "search", "locomo-dev", "turns", "*", "corpus.jsonl"))
	for _, p := range paths {
		for _, d := range readJSONL[struct{ Text string }](t, p) {
			ordinary["locomo"] = append(ordinary["locomo"], tokRow{text: d.Text})
		}
	}
	for _, r := range readJSONL[proseRow](t, filepath.Join(dir, "guard", "conventions-dev.jsonl")) {
		if r.Label == "benign" {
			ordinary["conventions-benign"] = append(ordinary["conventions-benign"], tokRow{text: r.Text})
		}
	}
	return
}

// trainingSources are the sentence sets the model learns from; the
// held-out batches (secrets-heldout*.jsonl) are never among them. Half
// of the rules-file lines of poison-dev (the even rows) are its ordinary
// text; the other half measures it.
var trainingSources = append([]string{"prose-dev", "sentences", "batch5", "batch7", "batch8"}, readBatches...)

// readBatches are the blind batches whose rows were listed to make the
// rules (development data, see testdata/secrets-heldout.md); heldBatches
// were never listed.
var (
	readBatches = []string{"heldout", "heldout8", "heldout9", "heldout10", "heldout11", "heldout12", "heldout13", "heldout14", "heldout15", "heldout16", "heldout17", "heldout18", "heldout19", "heldout20", "heldout21", "heldout22", "heldout23", "heldout24", "heldout25", "heldout26", "heldout27", "heldout28", "heldout29"}
	heldBatches = []string{"heldout30", "heldout31"}
)

const (
	trainEpochs = 12
	trainSeed   = 7
)

func evenRows(rows []tokRow) []tokRow {
	var out []tokRow
	for i := 0; i < len(rows); i += 2 {
		out = append(out, rows[i])
	}
	return out
}

func oddRows(rows []tokRow) []tokRow {
	var out []tokRow
	for i := 1; i < len(rows); i += 2 {
		out = append(out, rows[i])
	}
	return out
}

// TestEvalSecretsLearned measures the learned judgement
// (secrets_learned.go) the way it was chosen: leave-one-source-out over
// the training sources (each source judged by a model trained on the
// others; the rules were written with every one of them in view, so the
// rules' own figure there is in sample) for a range of thresholds, then
// the model trained on all of them, with the rules, on the batches never
// read (heldBatches) and on ordinary text it never saw. On 2026-11-28,
// trained on ten read batches: heldout17, rules alone 76.0% of 150
// credentials redacted, with the model at 0.95 83.3% (82.0% when the
// context must speak for the string), look-alikes touched 2.0% both;
// rules-file lines 0.1% -> 0.4% of 749. Shipped with the context gate and
// the sentence's non-secret names (learnedSecrets), which keep random
// strings nothing names held for confirmation, as the rules hold them.
//
//	ENGRAM_EVAL=1 go test ./quarantine/guard -run TestEvalSecretsLearned -v
func TestEvalSecretsLearned(t *testing.T) {
	train, held, ordinary := loadTokRows(t, evalEnabled(t))
	train["rules-even"] = evenRows(ordinary["poison-benign"])
	ordinary["poison-benign-odd"] = oddRows(ordinary["poison-benign"])
	delete(ordinary, "poison-benign")
	srcs := append(append([]string{}, trainingSources...), "rules-even")
	rules := newTestGuard(t, Policy{})
	rules.secretModel = nil

	// outcome scores rows: a credential row counts when every value is
	// gone from what a store keeps, a non-secret row when anything is
	// redacted or held. judge, when set, adds the model's candidates at
	// theta to the rules' findings.
	outcome := func(g *Guard, w []float32, theta, ctxMin float64, rows []tokRow) (sec, secN, neg, negN int) {
		for _, r := range rows {
			res := g.Check(Input{Text: r.text})
			var extra []candTok
			if w != nil {
				for _, c := range candidates(r.text) {
					if p, ctx := scoreTok(w, r.text, c); p >= theta && ctx >= ctxMin {
						extra = append(extra, c)
					}
				}
			}
			if !r.secret {
				negN++
				if res.HasSecret || res.NeedsConfirm || len(extra) > 0 {
					neg++
				}
				continue
			}
			secN++
			gone := len(r.values) > 0
			for _, v := range r.values {
				if strings.Count(res.Redacted, v) < strings.Count(r.text, v) {
					continue
				}
				k := strings.Index(r.text, v)
				covered := false
				for _, c := range extra {
					if c.a < k+len(v) && k < c.b {
						covered = true
					}
				}
				gone = gone && covered
			}
			if gone && (res.HasSecret || len(extra) > 0) {
				sec++
			}
		}
		return
	}
	models := map[string][]float32{}
	for _, out := range srcs {
		var tr []tokRow
		for _, src := range srcs {
			if src != out {
				tr = append(tr, train[src]...)
			}
		}
		models[out] = trainTok(tokExamples(tr), trainEpochs, trainSeed)
	}
	for _, theta := range []float64{0.9, 0.95, 0.98, 2} {
		for _, ctxMin := range []float64{-100, 0, 1, 2, 3, 4} {
			if theta > 1 && ctxMin > -100 {
				continue
			}
			var s, sn, n, nn int
			for _, out := range srcs {
				a, b, c, d := outcome(rules, models[out], theta, ctxMin, train[out])
				s, sn, n, nn = s+a, sn+b, n+c, nn+d
			}
			name := fmt.Sprintf("threshold %.2f, context %+.0f", theta, ctxMin)
			if theta > 1 {
				name = "rules alone"
			}
			t.Logf("leave-one-source-out, %s: credentials redacted %s; look-alikes and ordinary lines touched %s", name, pct(s, sn), pct(n, nn))
		}
	}
	// The model trained on every training source, with the rules, on the
	// held-out batches and on ordinary text none of it was trained on.
	var all []tokRow
	for _, src := range srcs {
		all = append(all, train[src]...)
	}
	w := trainTok(tokExamples(all), trainEpochs, trainSeed)
	for _, cfg := range []struct{ theta, ctx float64 }{{2, 0}, {0.95, -100}, {0.95, 2}} {
		line := fmt.Sprintf("rules and model at %.2f, context %+.0f:", cfg.theta, cfg.ctx)
		if cfg.theta > 1 {
			line = "rules alone:"
		}
		for _, set := range heldBatches {
			if len(held[set]) == 0 {
				continue
			}
			s, sn, n, nn := outcome(rules, w, cfg.theta, cfg.ctx, held[set])
			line += fmt.Sprintf(" %s credentials %s, look-alikes touched %s;", set, pct(s, sn), pct(n, nn))
		}
		for _, set := range []string{"benign-memories.txt", "benign-requests.txt", "conventions-benign", "poison-benign-odd", "locomo"} {
			_, _, n, nn := outcome(rules, w, cfg.theta, cfg.ctx, ordinary[set])
			line += fmt.Sprintf(" %s %s;", set, pct(n, nn))
		}
		t.Log(line)
	}
}

var trainSecretsFlag = flag.Bool("trainsecrets", false, "retrain the secret model and rewrite secretmodel.bin")

// trainSecretModel trains the shipped model: every training source, and
// the even rows of the rules-file lines as ordinary text.
func trainSecretModel(t *testing.T, dir string) []float32 {
	train, _, ordinary := loadTokRows(t, dir)
	var all []tokRow
	for _, src := range trainingSources {
		all = append(all, train[src]...)
	}
	all = append(all, evenRows(ordinary["poison-benign"])...)
	return trainTok(tokExamples(all), trainEpochs, trainSeed)
}

// TestTrainSecretModel rewrites secretmodel.bin.
//
//	go test ./quarantine/guard -run TestTrainSecretModel -trainsecrets
func TestTrainSecretModel(t *testing.T) {
	if !*trainSecretsFlag {
		t.Skip("run with -trainsecrets to rebuild secretmodel.bin")
	}
	dir := evalDir()
	if dir == "" {
		t.Skip("corpus not found; set ENGRAM_EVAL_DIR")
	}
	data := encodeSecretModel(trainSecretModel(t, dir))
	if err := os.WriteFile("secretmodel.bin", data, 0o644); err != nil {
		t.Fatalf("write secret model: %v", err)
	}
	t.Logf("wrote secretmodel.bin (%d bytes)", len(data))
}

// TestShippedSecretModelReproduces checks that the embedded
// secretmodel.bin is what TestTrainSecretModel builds from the data and
// the current features.
func TestShippedSecretModelReproduces(t *testing.T) {
	if testing.Short() {
		t.Skip("trains the model; skipped with -short")
	}
	dir := evalDir()
	if dir == "" {
		t.Skip("corpus not found; set ENGRAM_EVAL_DIR")
	}
	if data := encodeSecretModel(trainSecretModel(t, dir)); !bytes.Equal(data, secretModelBin) {
		t.Errorf("secretmodel.bin (%d bytes) differs from what its trainer builds (%d bytes); run go test ./quarantine/guard -run TestTrainSecretModel -trainsecrets", len(secretModelBin), len(data))
	}
}

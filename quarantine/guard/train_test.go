package guard

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Reproduce model.bin from the corpus (injection-dev.jsonl and
// poison-dev.jsonl, with the benign extras; see learnedCorpus):
//
//	go test ./quarantine/guard -run TestTrain -train
//
// The corpus lives outside the repository, in ../shared/eval relative to the
// repository root; ENGRAM_EVAL_DIR overrides that.
var trainFlag = flag.Bool("train", false, "retrain the injection model and rewrite model.bin")

// evalDir returns the directory of the labelled corpora, or "" if absent.
func evalDir() string {
	if d := os.Getenv("ENGRAM_EVAL_DIR"); d != "" {
		return d
	}
	d := filepath.Join("..", "..", "..", "shared", "eval")
	if _, err := os.Stat(d); err != nil {
		return ""
	}
	return d
}

func readJSONL[T any](t testing.TB, path string) []T {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("open corpus: %v", err)
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("decode %s: %v", path, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	return out
}

type injectionRow struct {
	Text   string `json:"text"`
	Label  string `json:"label"`
	Source string `json:"source"`
}

// trainDoc is one training example with its precomputed features.
type trainDoc struct {
	fs     []feature
	y      float64
	weight float64
}

// benignExtras returns ordinary text that is not an injection, from the
// other corpora in the evaluation directory: scientific abstracts and the
// PII sentences. They teach the model what plain prose and plain facts look
// like, which keeps it from flagging every imperative.
func benignExtras(t testing.TB, dir string, n int) []string {
	// The memories count three times: they are few and closest to what
	// Engram actually stores.
	mem := benignLines(t, "benign-memories.txt")
	// Ordinary requests to an assistant count four times: they teach both
	// models that an imperative sentence, or a word such as "ignore" or
	// "password", is not an injection by itself. (Four rather than two:
	// leave-one-source-out false alarms 2.6% to 0.5% at equal recall.)
	req := benignLines(t, "benign-requests.txt")
	out := slices.Concat(mem, mem, mem, req, req, req, req)
	head := len(out) - len(mem)*3
	type abs struct {
		Title string `json:"title"`
		Text  string `json:"text"`
	}
	corpus := filepath.Join(dir, "search", "scifact", "corpus.jsonl")
	if _, err := os.Stat(corpus); err == nil {
		rows := readJSONL[abs](t, corpus)
		for i := 0; i < len(rows) && len(out) < n/2+len(mem)*3+head; i += len(rows) / (n / 2) {
			s := rows[i].Text
			if len(s) > 600 {
				s = s[:600]
			}
			out = append(out, s)
		}
	}
	type piiRow struct {
		Text string `json:"text"`
	}
	pii := filepath.Join(dir, "guard", "pii-dev.jsonl")
	if _, err := os.Stat(pii); err == nil {
		rows := readJSONL[piiRow](t, pii)
		for i := 0; i < len(rows) && len(out) < n+head; i += 2 {
			out = append(out, rows[i].Text)
		}
	}
	return out
}

// benignLines reads a file of testdata, one text per line, skipping blank
// lines and # comments. benign-memories.txt holds memories of the kind
// Engram stores, written for this package, so that the models do not take
// ordinary preferences and conventions (often imperative) for injections;
// benign-requests.txt holds ordinary requests to an assistant.
func benignLines(t testing.TB, name string) []string {
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatalf("read benign memories: %v", err)
	}
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line != "" && !strings.HasPrefix(line, "#") {
			out = append(out, line)
		}
	}
	return out
}

type trainOptions struct {
	epochs int
	l2     float64
	lr     float64
	// extraWeight is the sample weight of each extra benign text.
	extraWeight float64
	features    featureSet
	// noExtras trains without the benign extras.
	noExtras bool
}

var defaultTrain = trainOptions{epochs: 12, l2: 1e-3, lr: 0.5, extraWeight: 0.5}

// trainModel fits the logistic regression with AdaGrad on the given
// injection rows plus extra benign texts. Classes are balanced by weight.
// balance returns the weights that make the two classes weigh the same in
// training: of an injection row, of a benign row, and of each of nExtras
// benign extra texts counted extraWeight times. Both trainers use it.
func balance(rows []injectionRow, nExtras int, extraWeight float64) (posW, negW, extraW float64) {
	var pos, neg float64
	for _, r := range rows {
		if r.Label == "injection" {
			pos++
		} else {
			neg++
		}
	}
	for i := 0; i < nExtras; i++ {
		neg += extraWeight
	}
	return 1 * ((pos + neg) / (2 * pos)), 1 * ((pos + neg) / (2 * neg)), extraWeight * ((pos + neg) / (2 * neg))
}

// Training is deterministic: a fixed seed orders the examples.
func trainModel(rows []injectionRow, extras []string, o trainOptions) *model {
	if o.noExtras {
		extras = nil
	}
	var docs []trainDoc
	posW, negW, extraW := balance(rows, len(extras), o.extraWeight)
	for _, r := range rows {
		d := trainDoc{fs: featurize(r.Text, observe(r.Text), o.features), weight: negW}
		if r.Label == "injection" {
			d.y, d.weight = 1, posW
		}
		docs = append(docs, d)
	}
	for _, e := range extras {
		docs = append(docs, trainDoc{fs: featurize(e, observe(e), o.features), y: 0, weight: extraW})
	}
	n := hashDim + denseDim
	w := make([]float64, n)
	g2 := make([]float64, n)
	var bias, gb float64
	rng := rand.New(rand.NewPCG(1, 2))
	order := make([]int, len(docs))
	for i := range order {
		order[i] = i
	}
	for ep := 0; ep < o.epochs; ep++ {
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for _, k := range order {
			d := docs[k]
			z := bias
			for _, f := range d.fs {
				z += w[f.i] * float64(f.v)
			}
			g := (sigmoid(z) - d.y) * d.weight
			gb += g * g
			bias -= o.lr * g / (math.Sqrt(gb) + 1e-8)
			for _, f := range d.fs {
				gi := g*float64(f.v) + o.l2*w[f.i]
				g2[f.i] += gi * gi
				w[f.i] -= o.lr * gi / (math.Sqrt(g2[f.i]) + 1e-8)
			}
		}
	}
	m := &model{bias: float32(bias), w: make([]float32, n), cfg: o.features}
	for i, x := range w {
		m.w[i] = float32(x)
	}
	return m
}

func TestTrain(t *testing.T) {
	if !*trainFlag {
		t.Skip("run with -train to rebuild model.bin")
	}
	dir := evalDir()
	if dir == "" {
		t.Skip("corpus not found; set ENGRAM_EVAL_DIR")
	}
	rows, _ := learnedCorpus(t, dir)
	m := trainModel(rows, benignExtras(t, dir, 1600), defaultTrain)
	data := encodeModel(m.bias, m.w)
	if err := os.WriteFile("model.bin", data, 0o644); err != nil {
		t.Fatalf("write model: %v", err)
	}
	t.Logf("wrote model.bin (%d bytes) from %d rows", len(data), len(rows))
}

// TestShippedModelReproduces checks that the embedded model.bin is what
// TestTrain builds from the corpus and the current features: every
// injection pattern is a model feature, so a pattern added without
// retraining leaves the shipped weights out of step with the code.
func TestShippedModelReproduces(t *testing.T) {
	if testing.Short() {
		t.Skip("trains the model; skipped with -short")
	}
	dir := evalDir()
	if dir == "" {
		t.Skip("corpus not found; set ENGRAM_EVAL_DIR")
	}
	rows, _ := learnedCorpus(t, dir)
	m := trainModel(rows, benignExtras(t, dir, 1600), defaultTrain)
	if data := encodeModel(m.bias, m.w); !bytes.Equal(data, modelBin) {
		t.Errorf("model.bin (%d bytes) differs from what its trainer builds (%d bytes); run go test ./quarantine/guard -run TestTrain -train", len(modelBin), len(data))
	}
}

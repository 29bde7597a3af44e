package guard

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"slices"
	"testing"
)

// Reproduce vecmodel.bin from the corpus (needs the USE Lite model, see
// app/embed/fetch-model.sh; ENGRAM_MODEL_DIR overrides its location):
//
//	go test ./quarantine/guard -run TestTrainVector -train
//
// The same corpus and benign extras as the n-gram model, embedded with
// VectorModel; the vectors are cached (embedcache_test.go).

// vecL2 is the L2 penalty of the vector model, on the sum of the weighted
// log-losses. 10 rather than 1: the stronger penalty keeps the model from
// trusting directions of the embedding that only separate the training
// sources (TestEvalVector -variants compares 0.03 to 30).
const vecL2 = 10.0

// vecDoc is one training example of the vector model.
type vecDoc struct {
	x      []float32
	y      float64
	weight float64
}

// vecDocs pairs rows and extras with their vectors and balances the classes
// as trainModel does.
func vecDocs(rows []injectionRow, rowVecs [][]float32, extraVecs [][]float32, extraWeight float64) []vecDoc {
	var docs []vecDoc
	posW, negW, extraW := balance(rows, len(extraVecs), extraWeight)
	for i, r := range rows {
		d := vecDoc{x: rowVecs[i], weight: negW}
		if r.Label == "injection" {
			d.y, d.weight = 1, posW
		}
		docs = append(docs, d)
	}
	for _, v := range extraVecs {
		docs = append(docs, vecDoc{x: v, weight: extraW})
	}
	return docs
}

// trainVecModel fits an L2-regularised logistic regression by Newton's
// method (iteratively reweighted least squares). The optimum is unique and
// the arithmetic runs in a fixed order, so the result is the same bytes on
// every run on the same platform.
func trainVecModel(docs []vecDoc, l2 float64) *vecModel {
	const d = vecDim + 1 // weights, then the bias
	w := make([]float64, d)
	h := make([]float64, d*d)
	g := make([]float64, d)
	x := make([]float64, d)
	for iter := 0; iter < 30; iter++ {
		clear(h)
		clear(g)
		for _, doc := range docs {
			for i, v := range doc.x {
				x[i] = float64(v)
			}
			x[vecDim] = 1
			z := 0.0
			for i := range x {
				z += w[i] * x[i]
			}
			p := sigmoid(z)
			r := (p - doc.y) * doc.weight
			s := p * (1 - p) * doc.weight
			for i := range x {
				g[i] += r * x[i]
				si := s * x[i]
				row := h[i*d : i*d+i+1]
				for j := range row {
					row[j] += si * x[j]
				}
			}
		}
		for i := 0; i < vecDim; i++ {
			g[i] += l2 * w[i]
			h[i*d+i] += l2
		}
		h[vecDim*d+vecDim] += 1e-9
		step := choleskySolve(h, g, d)
		maxStep := 0.0
		for i := range w {
			w[i] -= step[i]
			maxStep = math.Max(maxStep, math.Abs(step[i]))
		}
		if maxStep < 1e-7 {
			break
		}
	}
	m := &vecModel{bias: float32(w[vecDim]), w: make([]float32, vecDim)}
	for i := range m.w {
		m.w[i] = float32(w[i])
	}
	return m
}

// choleskySolve solves a·x = b for a symmetric positive-definite a of
// which only the lower triangle (row-major, n×n) is filled. It overwrites a.
func choleskySolve(a, b []float64, n int) []float64 {
	for j := 0; j < n; j++ {
		s := a[j*n+j]
		for k := 0; k < j; k++ {
			s -= a[j*n+k] * a[j*n+k]
		}
		l := math.Sqrt(math.Max(s, 1e-12))
		a[j*n+j] = l
		for i := j + 1; i < n; i++ {
			s := a[i*n+j]
			for k := 0; k < j; k++ {
				s -= a[i*n+k] * a[j*n+k]
			}
			a[i*n+j] = s / l
		}
	}
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		s := b[i]
		for k := 0; k < i; k++ {
			s -= a[i*n+k] * y[k]
		}
		y[i] = s / a[i*n+i]
	}
	for i := n - 1; i >= 0; i-- {
		s := y[i]
		for k := i + 1; k < n; k++ {
			s -= a[k*n+i] * y[k]
		}
		y[i] = s / a[i*n+i]
	}
	return y
}

// vectorCorpus loads the injection rows, the benign extras and the vectors
// of both.
func vectorCorpus(t *testing.T, dir string) (rows []injectionRow, rowVecs [][]float32, extras []string, extraVecs [][]float32) {
	rows, _ = learnedCorpus(t, dir)
	extras = benignExtras(t, dir, 1600)
	texts := make([]string, 0, len(rows)+len(extras))
	for _, r := range rows {
		texts = append(texts, r.Text)
	}
	texts = append(texts, extras...)
	vs := corpusVectors(t, texts)
	return rows, vs[:len(rows)], extras, vs[len(rows):]
}

func TestTrainVector(t *testing.T) {
	if !*trainFlag {
		t.Skip("run with -train to rebuild vecmodel.bin")
	}
	dir := evalDir()
	if dir == "" {
		t.Skip("corpus not found; set ENGRAM_EVAL_DIR")
	}
	rows, rowVecs, _, extraVecs := vectorCorpus(t, dir)
	m := trainVecModel(vecDocs(rows, rowVecs, extraVecs, defaultTrain.extraWeight), vecL2)
	data := encodeVecModel(m.bias, m.w)
	if old, err := os.ReadFile("vecmodel.bin"); err == nil && bytes.Equal(old, data) {
		t.Logf("vecmodel.bin unchanged")
		return
	}
	if err := os.WriteFile("vecmodel.bin", data, 0o644); err != nil {
		t.Fatalf("write vector model: %v", err)
	}
	t.Logf("wrote vecmodel.bin (%d bytes) from %d rows and %d extras", len(data), len(rows), len(extraVecs))
}

// mixVariant is one way of combining the two models, for the evaluation.
type mixVariant struct {
	name string
	mix  mixRule
	// lexical ignores the vector (the guard without one).
	lexical bool
}

var mixVariants = func() []mixVariant {
	vs := []mixVariant{
		{name: "lexical only (no vector)", lexical: true},
		{name: "vector only", mix: mixRule{vecWeight: 1, vecThreshold: 0.5}},
		{name: "combined max", mix: mixRule{max: true, vecThreshold: 0.5}},
		{name: "combined max thr 0.9", mix: mixRule{max: true, vecThreshold: 0.9}},
	}
	for _, w := range []float64{0.2, 0.3, 0.5, 0.7} {
		for _, thr := range []float64{0.5, 0.7, 0.8, 0.9} {
			vs = append(vs, mixVariant{name: fmt.Sprintf("combined logit w=%.1f thr %.1f", w, thr), mix: mixRule{vecWeight: w, vecThreshold: thr}})
		}
	}
	return append(vs, mixVariant{name: "shipped mix", mix: shippedMix})
}()

// heldOut is the score of one held-out row under every mix variant.
type heldOut struct {
	source string
	isInj  bool
	risk   []float64 // per mixVariant: full pipeline risk
	lexP   float64   // n-gram model probability alone
	vecP   float64   // vector model probability alone
}

// scoreHeldOut trains both models on train and scores test.
func scoreHeldOut(train []int, test []int, rows []injectionRow, rowVecs [][]float32, extras []string, extraVecs [][]float32, l2 float64) []heldOut {
	var trRows []injectionRow
	var trVecs [][]float32
	for _, i := range train {
		trRows = append(trRows, rows[i])
		trVecs = append(trVecs, rowVecs[i])
	}
	lm := trainModel(trRows, extras, defaultTrain)
	vm := trainVecModel(vecDocs(trRows, trVecs, extraVecs, defaultTrain.extraWeight), l2)
	g, _ := New(Policy{})
	g.model = lm
	var out []heldOut
	for _, i := range test {
		r := rows[i]
		h := heldOut{source: r.Source, isInj: r.Label == "injection", vecP: -1}
		if vectorReadable(r.Text) {
			h.vecP = vm.predict(rowVecs[i])
		}
		for _, v := range mixVariants {
			g.mix = v.mix
			vp := h.vecP
			if v.lexical {
				vp = -1
			}
			sc := g.screen(r.Text, "", vp)
			h.risk = append(h.risk, sc.risk)
			h.lexP = sc.model
		}
		out = append(out, h)
	}
	return out
}

func reportHeldOut(t *testing.T, label string, hs []heldOut) {
	for k, v := range mixVariants {
		var c confusion
		var inj, ben []float64
		for _, h := range hs {
			c.add(h.isInj, h.risk[k], suspiciousAt)
			if h.isInj {
				inj = append(inj, h.risk[k])
			} else {
				ben = append(ben, h.risk[k])
			}
		}
		r5, r1 := math.NaN(), math.NaN()
		if len(inj) > 0 && len(ben) > 0 {
			r5, _ = recallAtFPR(inj, ben, 0.05)
			r1, _ = recallAtFPR(inj, ben, 0.01)
		}
		t.Logf("%s %-30s at risk>=0.5: %v; recall at FPR<=5%%: %5.1f%%, at FPR<=1%%: %5.1f%%", label, v.name, c, 100*r5, 100*r1)
	}
	// The two classifiers alone, without patterns or heuristics.
	for _, which := range []string{"n-gram model alone", "vector model alone"} {
		var c confusion
		var inj, ben []float64
		for _, h := range hs {
			p := h.lexP
			if which == "vector model alone" {
				p = max(h.vecP, 0)
			}
			c.add(h.isInj, p, 0.5)
			if h.isInj {
				inj = append(inj, p)
			} else {
				ben = append(ben, p)
			}
		}
		r5 := math.NaN()
		if len(inj) > 0 && len(ben) > 0 {
			r5, _ = recallAtFPR(inj, ben, 0.05)
		}
		t.Logf("%s %-30s at p>=0.5: %v; recall at FPR<=5%%: %5.1f%%", label, which, c, 100*r5)
	}
}

// TestEvalVector compares the n-gram model, the vector model and their
// combinations on held-out data: leave-one-source-out (the figure that
// predicts behaviour on other corpora) and 5-fold cross-validation.
//
//	ENGRAM_EVAL=1 go test ./quarantine/guard -run TestEvalVector -v
func TestEvalVector(t *testing.T) {
	dir := evalEnabled(t)
	rows, rowVecs, extras, extraVecs := vectorCorpus(t, dir)
	l2s := []float64{vecL2}
	if *variantsFlag {
		l2s = []float64{1, 3, 10, 30}
	}
	var sources []string
	for _, r := range rows {
		if !slices.Contains(sources, r.Source) {
			sources = append(sources, r.Source)
		}
	}
	for _, l2 := range l2s {
		t.Logf("vector model L2 %g", l2)
		var all []heldOut
		for _, s := range sources {
			var train, test []int
			for i, r := range rows {
				if r.Source == s {
					test = append(test, i)
				} else {
					train = append(train, i)
				}
			}
			hs := scoreHeldOut(train, test, rows, rowVecs, extras, extraVecs, l2)
			if *evalMisses {
				reportHeldOut(t, "LOSO "+s, hs)
			}
			all = append(all, hs...)
		}
		reportHeldOut(t, "LOSO pooled", all)
		var cv []heldOut
		for fold := 0; fold < 5; fold++ {
			var train, test []int
			for i := range rows {
				if i%5 == fold {
					test = append(test, i)
				} else {
					train = append(train, i)
				}
			}
			cv = append(cv, scoreHeldOut(train, test, rows, rowVecs, extras, extraVecs, l2)...)
		}
		reportHeldOut(t, "5-fold CV", cv)
	}
}

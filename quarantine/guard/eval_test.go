package guard

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"
)

// The evaluation prints figures on the labelled corpora; it asserts nothing.
//
//	ENGRAM_EVAL=1 go test ./quarantine/guard -run TestEval -v
//
// (or -eval). -evalmisses also lists the misses.
var (
	evalFlag   = flag.Bool("eval", false, "print figures on the labelled corpora")
	evalMisses = flag.Bool("evalmisses", false, "with -eval, list misses and false alarms")
)

func evalEnabled(t *testing.T) string {
	if !*evalFlag && os.Getenv("ENGRAM_EVAL") == "" {
		t.Skip("set ENGRAM_EVAL=1 or -eval")
	}
	dir := evalDir()
	if dir == "" {
		t.Skip("corpus not found; set ENGRAM_EVAL_DIR")
	}
	return dir
}

func pct(a, b int) string {
	if b == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%5.1f%% (%d/%d)", 100*float64(a)/float64(b), a, b)
}

type secretRow struct {
	Text  string `json:"text"`
	Label string `json:"label"`
	Rule  string `json:"rule"`
}

// identifierRules are Nosey Parker rules whose matches are resource names
// or public identifiers rather than credentials (bucket names, ARNs, account
// IDs, user names, OAuth client IDs, age public keys). Engram deliberately
// does not redact them; recall is reported with and without them.
var identifierRules = map[string]bool{
	"np.s3.1": true, "np.s3.2": true, "np.arn.1": true, "np.gcs.1": true, "np.gcs.2": true,
	"np.shopify.1": true, "np.aws.3": true, "np.reactapp.1": true, "np.age.1": true,
	"np.google.1": true, "np.linkedin.1": true,
}

func TestEvalSecrets(t *testing.T) {
	dir := evalEnabled(t)
	rows := readJSONL[secretRow](t, filepath.Join(dir, "guard", "secrets-dev.jsonl"))
	g, err := New(Policy{})
	if err != nil {
		t.Fatal(err)
	}
	posTexts := map[string]bool{}
	for _, r := range rows {
		if r.Label == "secret" {
			posTexts[r.Text] = true
		}
	}
	var pos, neg, tp, tpPossible, fp, fpPossible int
	var posNI, tpNI, negClean, fpClean, negValueClean, fpValueClean int
	levels := map[string]int{}
	// ENGRAM_EVAL_DUMP names a file that receives one line per row, 1 when
	// flagged: used to compare with other scanners' output row by row.
	var dump []string
	for _, r := range rows {
		res := g.Check(Input{Text: r.Text})
		best := ""
		for _, f := range res.Findings {
			if f.Kind == KindSecret && (best == "" || levelRank(f.Level) > levelRank(best)) {
				best = f.Level
			}
		}
		flagged := best == LevelDefinite || best == LevelProbable
		if flagged {
			dump = append(dump, "1")
		} else {
			dump = append(dump, "0")
		}
		if r.Label == "secret" {
			pos++
			levels[best]++
			if flagged {
				tp++
			} else if best == LevelPossible {
				tpPossible++
			}
			if !identifierRules[r.Rule] {
				posNI++
				if flagged {
					tpNI++
				}
			}
			if !flagged && *evalMisses {
				t.Logf("MISS %s %q", r.Rule, truncate(r.Text, 160))
			}
			continue
		}
		neg++
		if flagged {
			fp++
		} else if best == LevelPossible {
			fpPossible++
		}
		if !posTexts[r.Text] {
			negClean++
			if flagged {
				fpClean++
			}
			// The stricter exclusion: every value flagged in this negative
			// also occurs in a row labelled secret (the same credential,
			// labelled both ways, as with "password=secret").
			if !flagged || !valuesLabelledSecret(r.Text, res.Findings, rows) {
				negValueClean++
				if flagged {
					fpValueClean++
				}
			}
		}
		if flagged && *evalMisses {
			t.Logf("FALSE %s %q", r.Rule, truncate(r.Text, 160))
		}
	}
	if p := os.Getenv("ENGRAM_EVAL_DUMP"); p != "" {
		if err := os.WriteFile(p, []byte(strings.Join(dump, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("secrets-dev: recall (definite|probable) %s", pct(tp, pos))
	t.Logf("secrets-dev: recall excluding identifier rules %s", pct(tpNI, posNI))
	t.Logf("secrets-dev: positives only 'possible' %s", pct(tpPossible, pos))
	t.Logf("secrets-dev: positives by strongest level: definite %d, probable %d, possible %d, none %d", levels[LevelDefinite], levels[LevelProbable], levels[LevelPossible], levels[""])
	t.Logf("secrets-dev: negatives flagged %s; 'possible' only %s", pct(fp, neg), pct(fpPossible, neg))
	t.Logf("secrets-dev: negatives flagged, excluding texts also labelled secret %s", pct(fpClean, negClean))
	t.Logf("secrets-dev: negatives flagged, excluding also negatives whose flagged values all occur in rows labelled secret %s", pct(fpValueClean, negValueClean))
}

// valuesLabelledSecret reports whether every definite or probable secret
// found in text also occurs verbatim in a row labelled secret.
func valuesLabelledSecret(text string, fs []Finding, rows []secretRow) bool {
	n := 0
	for _, f := range fs {
		if f.Kind != KindSecret || f.Level == LevelPossible {
			continue
		}
		n++
		v := text[f.Start:f.End]
		found := false
		for _, r := range rows {
			if r.Label == "secret" && strings.Contains(r.Text, v) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return n > 0
}

type piiRow struct {
	Text  string `json:"text"`
	Spans []struct {
		Type  string `json:"type"`
		Start int    `json:"start"`
		End   int    `json:"end"`
	} `json:"spans"`
}

// runeOffsets converts a byte offset into a character offset.
func runeOffset(s string, b int) int { return utf8.RuneCountInString(s[:b]) }

func TestEvalPII(t *testing.T) {
	dir := evalEnabled(t)
	rows := readJSONL[piiRow](t, filepath.Join(dir, "guard", "pii-dev.jsonl"))
	types := []string{PIIEmail, PIIPhone, PIICard, PIISSN, PIIIP, PIIIBAN, PIIAddress}
	gold, goldHit, pred, predHit := map[string]int{}, map[string]int{}, map[string]int{}, map[string]int{}
	for _, r := range rows {
		fs := scanPII(r.Text)
		for _, s := range r.Spans {
			gold[s.Type]++
			hit := false
			for _, f := range fs {
				a, b := runeOffset(r.Text, f.Start), runeOffset(r.Text, f.End)
				if f.Type == s.Type && a < s.End && s.Start < b {
					hit = true
				}
			}
			if hit {
				goldHit[s.Type]++
			} else if *evalMisses && slices.Contains(types, s.Type) && s.Type != PIIAddress {
				t.Logf("MISS %s %q in %q", s.Type, []rune(r.Text)[s.Start:s.End], truncate(r.Text, 120))
			}
		}
		for _, f := range fs {
			pred[f.Type]++
			a, b := runeOffset(r.Text, f.Start), runeOffset(r.Text, f.End)
			hit, other := false, ""
			for _, s := range r.Spans {
				if a < s.End && s.Start < b {
					if f.Type == s.Type {
						hit = true
					} else {
						other = s.Type
					}
				}
			}
			if hit {
				predHit[f.Type]++
			} else if *evalMisses && f.Type != PIIAddress {
				t.Logf("FALSE %s %q (gold %s) in %q", f.Type, r.Text[f.Start:f.End], other, truncate(r.Text, 120))
			}
		}
	}
	for _, ty := range types {
		t.Logf("pii-dev %-15s recall %s  precision %s", ty, pct(goldHit[ty], gold[ty]), pct(predHit[ty], pred[ty]))
	}
}

// injectionEval scores rows with a guard whose model is m and returns the
// risk of each row (full pipeline: model, patterns, heuristics).
func injectionRisks(m *model, rows []injectionRow) []float64 {
	g, _ := New(Policy{})
	g.model = m
	out := make([]float64, len(rows))
	for i, r := range rows {
		out[i] = g.screen(r.Text, "", -1).risk
	}
	return out
}

type confusion struct{ tp, fn, fp, tn int }

func (c *confusion) add(isInj bool, risk, thr float64) {
	switch {
	case isInj && risk >= thr:
		c.tp++
	case isInj:
		c.fn++
	case risk >= thr:
		c.fp++
	default:
		c.tn++
	}
}

func (c confusion) String() string {
	return fmt.Sprintf("recall %s  FPR %s", pct(c.tp, c.tp+c.fn), pct(c.fp, c.fp+c.tn))
}

// recallAtFPR returns the recall at the lowest threshold whose false
// positive rate on the benign rows is at most maxFPR.
func recallAtFPR(inj, ben []float64, maxFPR float64) (float64, float64) {
	b := slices.Clone(ben)
	sort.Float64s(b)
	k := int(float64(len(b)) * (1 - maxFPR))
	if k >= len(b) {
		k = len(b) - 1
	}
	thr := b[k] + 1e-9
	n := 0
	for _, r := range inj {
		if r >= thr {
			n++
		}
	}
	return float64(n) / float64(len(inj)), thr
}

type looResult struct {
	// model and pattern scores of the held-out rows, for operating curves
	modelP, patternP []float64
	isInj            []bool

	pooled    confusion
	perSource map[string]confusion
	sources   []string
	r5, thr   float64 // pooled recall at FPR<=5% and its threshold
	injR      []float64
	benR      []float64
}

// leaveOneSourceOut trains on all sources but one and scores the held-out
// source, for each source in turn.
func leaveOneSourceOut(t *testing.T, rows []injectionRow, extras []string, o trainOptions) looResult {
	res := looResult{perSource: map[string]confusion{}}
	for _, r := range rows {
		if !slices.Contains(res.sources, r.Source) {
			res.sources = append(res.sources, r.Source)
		}
	}
	for _, s := range res.sources {
		train, test := splitRows(rows, func(_ int, r injectionRow) bool { return r.Source == s })
		m := trainModel(train, extras, o)
		g, _ := New(Policy{})
		g.model = m
		for _, r := range test {
			sc := g.screen(r.Text, "", -1)
			res.modelP = append(res.modelP, sc.model)
			res.patternP = append(res.patternP, sc.patterns)
			res.isInj = append(res.isInj, r.Label == "injection")
		}
		var c confusion
		for i, risk := range injectionRisks(m, test) {
			isInj := test[i].Label == "injection"
			c.add(isInj, risk, suspiciousAt)
			res.pooled.add(isInj, risk, suspiciousAt)
			if isInj {
				res.injR = append(res.injR, risk)
			} else {
				res.benR = append(res.benR, risk)
			}
			if *evalMisses && (isInj != (risk >= suspiciousAt)) {
				t.Logf("LOSO %s %v risk %.2f %q", s, isInj, risk, truncate(test[i].Text, 140))
			}
		}
		res.perSource[s] = c
	}
	res.r5, res.thr = recallAtFPR(res.injR, res.benR, 0.05)
	return res
}

// crossValidate runs stratified-by-position 5-fold cross-validation.
func crossValidate(rows []injectionRow, extras []string, o trainOptions) (confusion, float64, float64) {
	cv, r5, thr, _ := crossValidateCurve(rows, extras, o)
	return cv, r5, thr
}

// crossValidateCurve also returns, per model threshold, the confusion of
// "pattern floor >= 0.5 or model probability >= threshold".
func crossValidateCurve(rows []injectionRow, extras []string, o trainOptions) (confusion, float64, float64, map[float64]confusion) {
	curve := map[float64]confusion{}
	var cv confusion
	var inj, ben []float64
	for fold := 0; fold < 5; fold++ {
		train, test := splitRows(rows, func(i int, _ injectionRow) bool { return i%5 == fold })
		m := trainModel(train, extras, o)
		g, _ := New(Policy{})
		g.model = m
		for _, r := range test {
			sc := g.screen(r.Text, "", -1)
			for _, thr := range curveThresholds {
				v := 0.0
				if sc.patterns >= suspiciousAt || sc.model >= thr {
					v = 1
				}
				c := curve[thr]
				c.add(r.Label == "injection", v, 0.5)
				curve[thr] = c
			}
		}
		for i, risk := range injectionRisks(m, test) {
			isInj := test[i].Label == "injection"
			cv.add(isInj, risk, suspiciousAt)
			if isInj {
				inj = append(inj, risk)
			} else {
				ben = append(ben, risk)
			}
		}
	}
	r5, thr := recallAtFPR(inj, ben, 0.05)
	return cv, r5, thr, curve
}

var curveThresholds = []float64{0.5, 0.6, 0.7, 0.8, 0.9, 1.01}

func TestEvalInjection(t *testing.T) {
	dir := evalEnabled(t)
	rows := readJSONL[injectionRow](t, filepath.Join(dir, "guard", "injection-dev.jsonl"))
	extras := benignExtras(t, dir, 1600)

	// Patterns alone (a model that always says no): what layers 1 and 2
	// catch by themselves.
	zero := &model{w: make([]float32, hashDim+denseDim), bias: -20}
	var pc confusion
	perSrc := map[string]confusion{}
	for i, risk := range injectionRisks(zero, rows) {
		pc.add(rows[i].Label == "injection", risk, suspiciousAt)
		c := perSrc[rows[i].Source]
		c.add(rows[i].Label == "injection", risk, suspiciousAt)
		perSrc[rows[i].Source] = c
	}
	t.Logf("injection-dev patterns+heuristics only: %v", pc)
	for s, c := range perSrc {
		t.Logf("  patterns only, %-26s %v", s, c)
	}

	lo := leaveOneSourceOut(t, rows, extras, defaultTrain)
	for _, s := range lo.sources {
		t.Logf("LOSO held-out %-26s %v", s, lo.perSource[s])
	}
	t.Logf("LOSO pooled at risk>=%.2f: %v", suspiciousAt, lo.pooled)
	t.Logf("LOSO pooled recall at FPR<=5%%: %.1f%% (threshold %.3f)", 100*lo.r5, lo.thr)
	// Operating curve: flag when a pattern floor reaches 0.5 or the model's
	// probability reaches a threshold.
	for _, thr := range curveThresholds {
		var c confusion
		for i := range lo.isInj {
			hit := lo.patternP[i] >= suspiciousAt || lo.modelP[i] >= thr
			v := 0.0
			if hit {
				v = 1
			}
			c.add(lo.isInj[i], v, 0.5)
		}
		t.Logf("LOSO pooled, patterns or model>=%.2f: %v", thr, c)
	}

	cv, r5, thr, curve := crossValidateCurve(rows, extras, defaultTrain)
	t.Logf("5-fold CV: %v; recall at FPR<=5%%: %.1f%% (threshold %.3f)", cv, 100*r5, thr)
	for _, thr := range curveThresholds {
		t.Logf("5-fold CV, patterns or model>=%.2f: %v", thr, curve[thr])
	}

	// Extra benign texts through the shipped model: false alarms on prose.
	g, _ := New(Policy{})
	fpx := 0
	for _, e := range extras {
		if g.screen(e, "", -1).risk >= suspiciousAt {
			fpx++
		}
	}
	t.Logf("shipped model on its benign extras (training data, not a result): FPR %s", pct(fpx, len(extras)))
}

var variantsFlag = flag.Bool("variants", false, "with -eval, compare model variants (slow)")

// TestInjectionVariants compares training choices on held-out figures.
func TestInjectionVariants(t *testing.T) {
	dir := evalEnabled(t)
	if !*variantsFlag {
		t.Skip("run with -variants")
	}
	rows := readJSONL[injectionRow](t, filepath.Join(dir, "guard", "injection-dev.jsonl"))
	extras := benignExtras(t, dir, 1600)
	variants := []struct {
		name string
		o    trainOptions
	}{
		{"shipped defaults (l2 1e-3)", defaultTrain},
		{"l2 1e-5", func() trainOptions { o := defaultTrain; o.l2 = 1e-5; return o }()},
		{"l2 1e-4", func() trainOptions { o := defaultTrain; o.l2 = 1e-4; return o }()},
		{"l2 3e-4", func() trainOptions { o := defaultTrain; o.l2 = 3e-4; return o }()},
		{"no benign extras", func() trainOptions { o := defaultTrain; o.noExtras = true; return o }()},
		{"words+dense only", func() trainOptions { o := defaultTrain; o.features.noChars = true; return o }()},
		{"chars+dense only", func() trainOptions { o := defaultTrain; o.features.noWords = true; return o }()},
		{"no dense (pattern) features", func() trainOptions { o := defaultTrain; o.features.noDense = true; return o }()},
		{"4 epochs", func() trainOptions { o := defaultTrain; o.epochs = 4; return o }()},
	}
	for _, v := range variants {
		lo := leaveOneSourceOut(t, rows, extras, v.o)
		cv, r5, _ := crossValidate(rows, extras, v.o)
		t.Logf("%-38s LOSO %v, r@5%%FPR %.1f%% | CV %v, r@5%%FPR %.1f%%", v.name, lo.pooled, 100*lo.r5, cv, 100*r5)
		for _, s := range lo.sources {
			t.Logf("    %-26s %v", s, lo.perSource[s])
		}
	}
}

// TestEvalProse runs the detectors over unlabelled prose that should hold
// no secrets and (almost) no personal data: the SciFact abstracts and the
// benign rows of the injection corpus. Every hit is a likely false alarm.
func TestEvalProse(t *testing.T) {
	dir := evalEnabled(t)
	type abs struct {
		Text string `json:"text"`
	}
	var texts []string
	corpus := filepath.Join(dir, "search", "scifact", "corpus.jsonl")
	if _, err := os.Stat(corpus); err == nil {
		for _, a := range readJSONL[abs](t, corpus) {
			texts = append(texts, a.Text)
		}
	}
	nAbs := len(texts)
	for _, r := range readJSONL[injectionRow](t, filepath.Join(dir, "guard", "injection-dev.jsonl")) {
		if r.Label == "benign" {
			texts = append(texts, r.Text)
		}
	}
	g := newTestGuard(t, Policy{})
	// Abstracts the model was not trained on measure its false alarms on
	// unseen prose.
	trained := map[string]bool{}
	for _, e := range benignExtras(t, dir, 1600) {
		trained[e] = true
	}
	heldOut, injFP := 0, 0
	secretDocs, possibleDocs, credDocs, transcriptDocs := 0, 0, 0, 0
	piiHits := map[string]int{}
	bytes := 0
	for i, s := range texts {
		bytes += len(s)
		res := g.Check(Input{Text: s})
		if i < nAbs && !trained[truncate(s, 600)] {
			heldOut++
			if res.Verdict != Safe {
				injFP++
				if *evalMisses {
					t.Logf("PROSE INJECTION %.2f %q", res.Risk, truncate(s, 120))
				}
			}
		}
		if res.HasSecret {
			secretDocs++
			if *evalMisses {
				for _, f := range res.Findings {
					if f.Kind == KindSecret && f.Level != LevelPossible {
						t.Logf("PROSE SECRET %d %s %q (%s)", i, f.Type, s[max(0, f.Start-50):f.End], f.Reason)
					}
				}
			}
		}
		if res.NeedsConfirm {
			possibleDocs++
		}
		if res.CredentialLike {
			credDocs++
		}
		if res.Transcript {
			transcriptDocs++
		}
		for _, f := range res.Findings {
			if f.Kind == KindPII {
				piiHits[f.Type]++
				if *evalMisses && f.Type != PIIAddress {
					t.Logf("PROSE PII %s %q", f.Type, s[f.Start:f.End])
				}
			}
		}
	}
	t.Logf("prose: %d texts (%d SciFact abstracts, %d benign prompts/emails), %d bytes", len(texts), nAbs, len(texts)-nAbs, bytes)
	t.Logf("prose: texts with a definite/probable secret %s; needing confirmation (possible) %s", pct(secretDocs, len(texts)), pct(possibleDocs, len(texts)))
	t.Logf("prose: credential-like %s; transcript %s", pct(credDocs, len(texts)), pct(transcriptDocs, len(texts)))
	t.Logf("prose: PII findings by type %v", piiHits)
	t.Logf("prose: SciFact abstracts not used in training flagged as injection (suspicious or hostile) %s", pct(injFP, heldOut))
}

// splitRows divides rows into training and held-out rows.
func splitRows(rows []injectionRow, heldOut func(i int, r injectionRow) bool) (train, test []injectionRow) {
	for i, r := range rows {
		if heldOut(i, r) {
			test = append(test, r)
		} else {
			train = append(train, r)
		}
	}
	return train, test
}

package guard

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
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

func loadTokRows(t *testing.T) (train map[string][]tokRow, held map[string][]tokRow, ordinary map[string][]tokRow) {
	train, held, ordinary = map[string][]tokRow{}, map[string][]tokRow{}, map[string][]tokRow{}
	g := newTestGuard(t, Policy{})
	dir := evalEnabled(t)
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
	for _, name := range []string{"batch5", "batch7", "batch8", "heldout", "heldout8"} {
		file := "secrets-" + name + ".jsonl"
		for _, r := range readJSONL[heldRow](t, filepath.Join("testdata", file)) {
			tr := tokRow{text: r.Text, secret: r.Label == "secret", values: r.Values, src: name}
			if strings.HasPrefix(name, "heldout") {
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
var trainingSources = []string{"prose-dev", "sentences", "batch5", "batch7", "batch8"}

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

// TestEvalSecretsLearned is an experiment, not shipped: a learned
// judgement of "is this string a credential, given its sentence" (a
// logistic regression over each candidate's shape and the words around
// it, as words and character 4-grams, in any language) added to the
// rules. It prints leave-one-source-out over the training sources (each
// source judged by a model trained on the others) for a range of
// thresholds, then the model trained on all of them on the held-out
// batches and on ordinary text it never saw. On 2026-11-28: held-out
// credentials 98 of 117 redacted by the rules alone, 103 with the model
// at 0.95 (101 when the context must speak for the string), for one more
// touched look-alike (5 to 6 of 119) and one more rules-file line (1 to
// 2 of 749); leave-one-source-out, look-alikes and ordinary lines touched
// rose from 0.3% to 1.2-1.9%, and it redacted random strings that the
// guard holds for confirmation when nothing names them (four unit tests
// of the guard's levels failed). Not shipped: see the closing
// note.
//
//	ENGRAM_EVAL=1 go test ./quarantine/guard -run TestEvalSecretsLearned -v
func TestEvalSecretsLearned(t *testing.T) {
	train, held, ordinary := loadTokRows(t)
	train["rules-even"] = evenRows(ordinary["poison-benign"])
	ordinary["poison-benign-odd"] = oddRows(ordinary["poison-benign"])
	delete(ordinary, "poison-benign")
	srcs := append(append([]string{}, trainingSources...), "rules-even")
	rules := newTestGuard(t, Policy{})

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
		for _, set := range []string{"heldout", "heldout8"} {
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

// tokModel is a trained judgement: weights over hashed features.
type tokModel struct {
	w []float32
}

// score returns the model's probability for the features fs and the part
// of its log-odds that the candidate's context gives (the features from
// ctxFrom on): the shipped rules judge a string by its shape, so the
// experiment can ask the context to speak for it.
func (m *tokModel) score(fs []int32, ctxFrom int) (p, ctx float64) {
	z := 0.0
	for i, f := range fs {
		z += float64(m.w[f])
		if i >= ctxFrom {
			ctx += float64(m.w[f])
		}
	}
	return 1 / (1 + math.Exp(-z)), ctx
}

const (
	tokHashBits = 16
	tokHashDim  = 1 << tokHashBits
)

// candTok is a candidate's span.
type candTok struct {
	a, b int
}

// candidates returns the strings of text that could be a credential:
// runs of printable ASCII without blanks, quotes or brackets, cut after
// the last "=", six bytes or more, with a digit, a symbol or both cases,
// and not what cannot be a credential whatever its sentence
// (learnedCandidate).
func candidates(text string) []candTok {
	var out []candTok
	sep := func(c byte) bool {
		return c <= ' ' || c >= 0x7f || strings.IndexByte("\"'`()[]{}<>,;|", c) >= 0
	}
	for i := 0; i < len(text); {
		if sep(text[i]) {
			i++
			continue
		}
		j := i
		for j < len(text) && !sep(text[j]) {
			j++
		}
		a, b := i, j
		i = j
		for b > a && strings.IndexByte(".:!?", text[b-1]) >= 0 {
			b--
		}
		if k := strings.LastIndexByte(text[a:b], '='); k >= 0 && k < b-a-1 && !strings.HasSuffix(text[a:b], "=") {
			a += k + 1
		}
		v := text[a:b]
		if len(v) < 6 || strings.Contains(v, "://") {
			continue
		}
		if lo, up, dg, sy := charClasses(v); (dg || sy || lo && up) && learnedCandidate(v) {
			out = append(out, candTok{a, b})
		}
	}
	return out
}

// learnedCandidate leaves out what cannot be a credential whatever its
// sentence: identifiers of code and prose ("context.Background",
// "Uint8Array", "VOYAGE_API_KEY", "**Mem0**"), and the values the rules
// reject (placeholders, versions, dates, hosts, paths, e-mail addresses).
func learnedCandidate(v string) bool {
	if strings.HasPrefix(v, "*") || strings.HasPrefix(v, "#") || strings.HasPrefix(v, "-") {
		return false
	}
	if wordIdentifier(v) || rejectValue(v) {
		return false
	}
	// A dotted or slashed name of words: "table.columns.fieldName".
	if strings.Trim(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ._/") == "" && strings.ContainsAny(v, "./") {
		return false
	}
	// Capitals, digits and underscores: a variable's name.
	if strings.Trim(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789") == "" && strings.Contains(v, "_") {
		return false
	}
	return true
}

// hashTok hashes a feature of namespace ns into the model's weights, as
// the injection model hashes its features.
func hashTok(ns byte, s string) int32 {
	return hashFeature(ns, []byte(s)) & (tokHashDim - 1)
}

// charClasses reports which of lower-case letters, capitals, digits and
// other bytes v holds.
func charClasses(v string) (lo, up, dg, sy bool) {
	for k := 0; k < len(v); k++ {
		switch c := v[k]; {
		case c >= 'a' && c <= 'z':
			lo = true
		case c >= 'A' && c <= 'Z':
			up = true
		case c >= '0' && c <= '9':
			dg = true
		default:
			sy = true
		}
	}
	return
}

// tokFeatures are the hashed features of text[a:b] in its sentence: its
// shape (length and character classes, entropy, hex or digits, its first
// characters, its symbols, what the rules make of it) and its context
// (up to eight words before it, by distance, with their character
// 4-grams; the last word before it; up to four words after it; the
// character right before it).
func tokFeatures(text string, a, b int) (fs []int32, ctxFrom int) {
	v := text[a:b]
	fs = make([]int32, 0, 96)
	add := func(ns byte, s string) { fs = append(fs, hashTok(ns, s)) }
	add('b', "bias")
	lo, up, dg, sy := charClasses(v)
	lb := 0
	for _, t := range []int{8, 12, 16, 24, 32, 48, 64} {
		if len(v) >= t {
			lb++
		}
	}
	cls := string([]byte{bit(lo), bit(up), bit(dg), bit(sy)})
	add('s', "len"+strconv.Itoa(lb))
	add('s', "cls"+cls)
	add('s', "cls"+cls+"-len"+strconv.Itoa(lb))
	add('s', "ent"+strconv.Itoa(int(shannon(v)*2)))
	if isHex(v) {
		add('s', "hex")
	}
	if allDigits(strings.NewReplacer("-", "", " ", "").Replace(v)) {
		add('s', "digits")
	}
	add('s', "dash"+strconv.Itoa(min(strings.Count(v, "-"), 4)))
	add('p', strings.ToLower(v[:4]))
	add('p', strings.ToLower(v[:3]))
	for _, c := range []byte("_-.+/$@#!%^&*~:") {
		if strings.IndexByte(v, c) >= 0 {
			add('y', string(c))
		}
	}
	if looksLikePassword(v) {
		add('s', "pwlike")
	}
	if generatedLooking(v) {
		add('s', "generated")
	}
	ctxFrom = len(fs)
	lw := ctxWords(strings.ToLower(text[max(0, a-120):a]))
	if len(lw) > 8 {
		lw = lw[len(lw)-8:]
	}
	for i, w := range lw {
		band := "far"
		if len(lw)-i <= 3 {
			band = "near"
		}
		add('l', w)
		add('L', band+w)
		for _, g := range ngramsOf(w, 4) {
			add('g', g)
		}
	}
	if len(lw) > 0 {
		add('1', lw[len(lw)-1])
	}
	rw := ctxWords(strings.ToLower(text[b:min(len(text), b+60)]))
	if len(rw) > 4 {
		rw = rw[:4]
	}
	for _, w := range rw {
		add('r', w)
		for _, g := range ngramsOf(w, 4) {
			add('h', g)
		}
	}
	if tl := strings.TrimRight(text[max(0, a-120):a], " \t\"'`("); tl != "" {
		r, _ := utf8.DecodeLastRuneInString(tl)
		add('c', string(unicode.ToLower(r)))
	}
	return fs, ctxFrom
}

func bit(b bool) byte {
	if b {
		return '1'
	}
	return '0'
}

// cjk reports the scripts written without spaces, read as pairs of
// characters.
func cjk(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// ctxWords splits s into words: runs of letters of one kind, Han, Kana
// and Hangul as pairs of characters; words of one letter are dropped.
func ctxWords(s string) []string {
	var out []string
	var cur []rune
	flush := func() {
		switch {
		case len(cur) == 0:
		case cjk(cur[0]) && len(cur) == 1:
			out = append(out, string(cur))
		case cjk(cur[0]):
			for i := 0; i+1 < len(cur); i++ {
				out = append(out, string(cur[i:i+2]))
			}
		case len(cur) >= 2:
			out = append(out, string(cur))
		}
		cur = cur[:0]
	}
	for _, r := range s {
		if !unicode.IsLetter(r) {
			flush()
			continue
		}
		if len(cur) > 0 && cjk(r) != cjk(cur[0]) {
			flush()
		}
		cur = append(cur, r)
	}
	flush()
	return out
}

// ngramsOf returns the character n-grams of w between "<" and ">".
func ngramsOf(w string, n int) []string {
	r := []rune("<" + w + ">")
	if len(r) <= n {
		return []string{string(r)}
	}
	out := make([]string, 0, len(r)-n+1)
	for i := 0; i+n <= len(r); i++ {
		out = append(out, string(r[i:i+n]))
	}
	return out
}

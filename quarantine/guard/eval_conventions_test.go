package guard

import (
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// TestEvalConventions measures the guard on conventions-dev.jsonl: harm
// written the way an agent stores memories (conventions, preferences,
// gotchas, decisions), in families, with benign look-alikes, in ten
// languages, and split pairs (a definition and its invocation, judged
// joined as app/split.go joins them). It asserts nothing.
//
//	ENGRAM_EVAL=1 go test ./quarantine/guard -run TestEvalConventions -v
//	ENGRAM_EVAL=1 go test ./quarantine/guard -run TestEvalConventions -v -variants   # leave one family out for the learned layers
//	ENGRAM_EVAL=1 go test ./quarantine/guard -run TestEvalConventions -v -evalmisses # list misses and false alarms
//
// Caught means a verdict of suspicious or hostile, the memory's field
// given and no source (trust 1), as an agent's write is screened. The
// shipped models were trained without conventions-dev, so their figures
// here are held out; the rules were written with conventions-dev in view,
// so theirs are not (the held-out sets written by other people are the
// fair test). -variants retrains the n-gram and the vector model with
// conventions-dev, one family held out at a time, and reports the held-out
// rows only: leave one family out.
//
// The vector columns need the USE Lite weights (ENGRAM_MODEL_DIR); without
// them the test skips.
func TestEvalConventions(t *testing.T) {
	dir := evalEnabled(t)
	items := conventionItems(t, dir)
	texts := make([]string, len(items))
	for i, it := range items {
		texts[i] = it.text
	}
	vecs := corpusVectors(t, texts)
	for i := range items {
		items[i].vec = vecs[i]
	}
	g, err := New(Policy{})
	if err != nil {
		t.Fatal(err)
	}
	scored := make([]convScore, len(items))
	for i, it := range items {
		scored[i] = convScore{item: it, layers: layerScores(g, it.text, it.field, it.vec)}
	}
	t.Logf("shipped guard (models trained without conventions-dev; rules written with it in view)")
	reportLayers(t, scored, convLayerNames)
	reportConventions(t, "guard without vector", scored, "guard")
	reportConventions(t, "guard with vector", scored, "guard+vector")
	if *evalMisses {
		for _, s := range scored {
			caught := s.layers["guard"] >= suspiciousAt
			if caught != s.item.attack() {
				kind := "MISS "
				if caught {
					kind = "ALARM"
				}
				res := g.Check(Input{Text: s.item.text, Field: s.item.field})
				t.Logf("%s %-20s %s %.2f %v | %.200q", kind, s.item.family, s.item.lang, res.Risk, res.Reasons, s.item.text)
			}
		}
	}
	// The canonical installers' list, measured apart: held-out sets will
	// have other installers, which the guard sends to review.
	saved := officialInstallers
	officialInstallers = nil
	var inst, instN, ben, benN int
	for _, it := range items {
		if it.attack() || it.joined {
			continue
		}
		hit := g.Check(Input{Text: it.text, Field: it.field}).Verdict != Safe
		benN++
		if hit {
			ben++
		}
		if it.note == "official installer" {
			instN++
			if hit {
				inst++
			}
		}
	}
	officialInstallers = saved
	t.Logf("without the list of canonical installers: official installers flagged %s; all benign flagged %s", pct(inst, instN), pct(ben, benN))
	otherCorpora(t, dir, g)
	if *variantsFlag {
		conventionsLOFO(t, dir, items)
	}
}

// convItem is one scored text of conventions-dev: a row, or a split pair's
// halves joined.
type convItem struct {
	id, text, label, family, lang, field, note string
	pair                                       string
	joined                                     bool
	vec                                        []float32
}

func (it convItem) attack() bool { return it.label == "attack" }

// conventionRow is one row of conventions-dev.jsonl.
type conventionRow struct {
	ID     string `json:"id"`
	Text   string `json:"text"`
	Label  string `json:"label"`
	Family string `json:"family"`
	Field  string `json:"field"`
	Lang   string `json:"lang"`
	Pair   string `json:"pair"`
	Note   string `json:"note"`
}

// conventionItems returns conventions-dev's rows, then each split pair
// joined (definition first), as family "split-joined".
func conventionItems(t testing.TB, dir string) []convItem {
	rows := readJSONL[conventionRow](t, filepath.Join(dir, "guard", "conventions-dev.jsonl"))
	var items []convItem
	halves := map[string][]conventionRow{}
	for _, r := range rows {
		items = append(items, convItem{id: r.ID, text: r.Text, label: r.Label, family: r.Family, lang: r.Lang, field: r.Field, note: r.Note, pair: r.Pair})
		if r.Pair != "" {
			halves[r.Pair] = append(halves[r.Pair], r)
		}
	}
	pairs := make([]string, 0, len(halves))
	for p := range halves {
		pairs = append(pairs, p)
	}
	sort.Strings(pairs)
	for _, p := range pairs {
		h := halves[p]
		sort.Slice(h, func(i, j int) bool { return h[i].ID < h[j].ID }) // -a, the definition, first
		if len(h) != 2 {
			t.Fatalf("split pair %s has %d halves", p, len(h))
		}
		items = append(items, convItem{id: p, text: joinedPair(h[0].Text, h[1].Text), label: h[0].Label, family: "split-joined", lang: h[0].Lang, field: h[1].Field, pair: p, joined: true})
	}
	return items
}

// joinedPair joins two writes as app/split.go does.
func joinedPair(a, b string) string {
	return strings.TrimRight(a, " \t\n") + " " + strings.TrimLeft(b, " \t\n")
}

type convScore struct {
	item   convItem
	layers map[string]float64
}

// convLayerNames are the layers reported, each alone on the risk scale
// (0.5 and above is caught), then the whole guard.
var convLayerNames = []string{"patterns", "intent", "effects", "decoders", "n-gram model", "vector model", "rules only", "guard", "guard+vector"}

// layerScores returns each layer's risk for text alone, over the text as
// given and as normalised (the larger), and the whole guard's risk with and
// without the vector.
func layerScores(g *Guard, text, field string, vec []float32) map[string]float64 {
	out := map[string]float64{}
	in := Input{Text: text, Field: field}
	vecP := -1.0
	if vec != nil && vectorReadable(text) {
		vecP = g.vec.predict(vec)
	}
	texts := []string{text}
	norm, found := normaliseText(text)
	if norm != text {
		texts = append(texts, norm)
	}
	for _, d := range found {
		out["decoders"] = math.Max(out["decoders"], d.floor)
	}
	for _, s := range texts {
		sc := g.screen(s, field, -1)
		out["patterns"] = math.Max(out["patterns"], sc.patterns)
		out["intent"] = math.Max(out["intent"], sc.intent)
		out["effects"] = math.Max(out["effects"], sc.effects)
		out["decoders"] = math.Max(out["decoders"], sc.decoders)
		out["n-gram model"] = math.Max(out["n-gram model"], math.Min(sigmoid(logit(sc.model)-logit(modelThreshold)), modelCap))
	}
	if vecP >= 0 {
		out["vector model"] = sigmoid(logit(vecP) - logit(g.mix.vecThreshold))
	}
	rules := *g
	rules.model = &model{w: make([]float32, hashDim+denseDim), bias: -20}
	out["rules only"] = rules.Check(in).Risk
	out["guard"] = g.Check(in).Risk
	if vec != nil {
		in.Vector, in.VectorModel = vec, VectorModel
	}
	out["guard+vector"] = g.Check(in).Risk
	return out
}

// reportLayers prints, for each layer alone, the attacks it catches and the
// benign rows it flags, over the rows (halves of split pairs included) and
// the joined pairs.
func reportLayers(t *testing.T, ss []convScore, layers []string) {
	t.Logf("  %-22s %-22s %-22s %-22s", "layer", "attacks caught", "benign flagged", "split pairs joined")
	for _, l := range layers {
		var att, attN, ben, benN, pj, pjN int
		for _, s := range ss {
			hit := s.layers[l] >= suspiciousAt
			switch {
			case s.item.joined:
				pjN++
				if hit {
					pj++
				}
			case s.item.attack():
				attN++
				if hit {
					att++
				}
			default:
				benN++
				if hit {
					ben++
				}
			}
		}
		t.Logf("  %-22s %-22s %-22s %-22s", l, pct(att, attN), pct(ben, benN), pct(pj, pjN))
	}
}

// reportConventions prints the catch and false-alarm rates of one score
// per family and per language.
func reportConventions(t *testing.T, label string, ss []convScore, layer string) {
	t.Logf("%s, by family (attacks caught / benign flagged):", label)
	type count struct{ att, attN, ben, benN int }
	tally := func(key func(convItem) string) (map[string]*count, []string) {
		m := map[string]*count{}
		var keys []string
		for _, s := range ss {
			k := key(s.item)
			if k == "" {
				continue
			}
			c := m[k]
			if c == nil {
				c = &count{}
				m[k] = c
				keys = append(keys, k)
			}
			hit := s.layers[layer] >= suspiciousAt
			if s.item.attack() {
				c.attN++
				if hit {
					c.att++
				}
			} else {
				c.benN++
				if hit {
					c.ben++
				}
			}
		}
		sort.Strings(keys)
		return m, keys
	}
	fams, keys := tally(func(it convItem) string { return it.family })
	for _, k := range keys {
		c := fams[k]
		var parts []string
		if c.attN > 0 {
			parts = append(parts, "attacks "+pct(c.att, c.attN))
		}
		if c.benN > 0 {
			parts = append(parts, "benign "+pct(c.ben, c.benN))
		}
		t.Logf("    %-22s %s", k, strings.Join(parts, "; "))
	}
	langs, keys := tally(func(it convItem) string {
		if it.joined {
			return ""
		}
		return it.lang
	})
	t.Logf("%s, by language:", label)
	for _, k := range keys {
		c := langs[k]
		t.Logf("    %-4s attacks %-18s benign %s", k, pct(c.att, c.attN), pct(c.ben, c.benN))
	}
	all, _ := tally(func(it convItem) string {
		if it.joined {
			return ""
		}
		return "all"
	})
	c := all["all"]
	inst := 0
	instN := 0
	for _, s := range ss {
		if s.item.note == "official installer" {
			instN++
			if s.layers[layer] >= suspiciousAt {
				inst++
			}
		}
	}
	t.Logf("%s, all rows: attacks caught %s; benign flagged %s (official installers flagged %s)", label, pct(c.att, c.attN), pct(c.ben, c.benN), pct(inst, instN))
}

// otherCorpora prints what the guard flags of the benign texts it must not
// be confused with, and catches of the attack benchmarks: the shipped
// models were trained on these, so the attacks' figures are in-sample
// (TestEvalLearned has the held-out ones).
func otherCorpora(t *testing.T, dir string, g *Guard) {
	for _, name := range []string{"poison-dev.jsonl", "injection-dev.jsonl"} {
		var pos, tp, neg, fp int
		for _, r := range readJSONL[injectionRow](t, filepath.Join(dir, "guard", name)) {
			hit := g.Check(Input{Text: r.Text}).Verdict != Safe
			if r.Label == "injection" {
				pos++
				if hit {
					tp++
				}
				continue
			}
			neg++
			if hit {
				fp++
				if *evalMisses {
					t.Logf("ALARM %s %s | %.200q", name, r.Source, r.Text)
				}
			}
		}
		benign := "benign flagged"
		if name == "poison-dev.jsonl" {
			benign = "rules-file lines flagged"
		}
		t.Logf("%s: attacks caught %s (in-sample for the models); %s %s", name, pct(tp, pos), benign, pct(fp, neg))
	}
	// LoCoMo: conversation turns and observations, benign by construction
	// and never trained on.
	var n, fp int
	for _, kind := range []string{"turns", "observations"} {
		paths, _ := filepath.Glob(filepath.Join(dir, "search", "locomo-dev", kind, "*", "corpus.jsonl"))
		for _, p := range paths {
			for _, d := range readJSONL[struct{ Text string }](t, p) {
				n++
				if res := g.Check(Input{Text: d.Text}); res.Verdict != Safe {
					fp++
					if *evalMisses {
						t.Logf("ALARM locomo-%s %v | %.200q", kind, res.Reasons, d.Text)
					}
				}
			}
		}
	}
	if n > 0 {
		t.Logf("locomo-dev turns and observations flagged %s", pct(fp, n))
	}
}

// conventionsLOFO retrains the learned layers with conventions-dev, one
// family held out at a time, and reports the held-out rows under each
// configuration.
func conventionsLOFO(t *testing.T, dir string, items []convItem) {
	base, _ := learnedCorpus(t, dir)
	extras := benignExtras(t, dir, 1600)
	texts := make([]string, 0, len(base)+len(extras))
	for _, r := range base {
		texts = append(texts, r.Text)
	}
	vs := corpusVectors(t, append(texts, extras...))
	baseVecs, extraVecs := vs[:len(base)], vs[len(base):]

	unit := func(it convItem) string {
		if it.joined {
			return "split"
		}
		return it.family
	}
	var fams []string
	for _, it := range items {
		if !slices.Contains(fams, unit(it)) {
			fams = append(fams, unit(it))
		}
	}
	configs := []struct {
		name string
		vec  bool
		mix  mixRule
	}{
		{"n-gram retrained, no vector", false, shippedMix},
		{"n-gram + vector retrained (shipped mix)", true, shippedMix},
		{"n-gram + vector retrained, w=0.5 thr 0.5", true, mixRule{vecWeight: 0.5, vecThreshold: 0.5}},
		{"n-gram + vector retrained, max thr 0.8", true, mixRule{max: true, vecThreshold: 0.8}},
	}
	var scored []convScore
	// The full model's weights start each fold's Newton iterations: the
	// optimum is the same, it is reached in fewer steps.
	for _, f := range fams {
		var rows []injectionRow
		var rowVecs [][]float32
		rows = append(rows, base...)
		rowVecs = append(rowVecs, baseVecs...)
		var test []convItem
		for _, it := range items {
			if unit(it) == f {
				test = append(test, it)
				continue
			}
			if it.joined {
				continue // the halves are rows already
			}
			rows = append(rows, it.injectionRow())
			rowVecs = append(rowVecs, it.vec)
		}
		lm := trainModel(rows, extras, defaultTrain)
		vm := trainVecModel(vecDocs(rows, rowVecs, extraVecs, defaultTrain.extraWeight), vecL2)
		g, _ := New(Policy{})
		g.model, g.vec = lm, vm
		for _, it := range test {
			s := convScore{item: it, layers: map[string]float64{}}
			in := Input{Text: it.text, Field: it.field}
			sc := g.screen(it.text, it.field, -1)
			s.layers["n-gram model (retrained)"] = math.Min(sigmoid(logit(sc.model)-logit(modelThreshold)), modelCap)
			// Every text, readable or not: the figures show what the
			// vector is worth in each language.
			s.layers["vector model (retrained, p)"] = vm.predict(it.vec)
			for _, c := range configs {
				g.mix = c.mix
				in.Vector, in.VectorModel = nil, ""
				if c.vec {
					in.Vector, in.VectorModel = it.vec, VectorModel
				}
				s.layers[c.name] = g.Check(in).Risk
			}
			scored = append(scored, s)
		}
	}
	t.Logf("leave one family out: the learned layers retrained with conventions-dev without the held-out family")
	names := []string{"n-gram model (retrained)", "vector model (retrained, p)"}
	for _, c := range configs {
		names = append(names, c.name)
	}
	reportLayers(t, scored, names)
	// USE Lite's vocabulary is English: does its vector say anything in
	// the other languages? (The guard reads it only for Latin-script text.)
	reportConventions(t, "LOFO vector model alone, p >= 0.5", scored, "vector model (retrained, p)")
	for _, c := range configs {
		reportConventions(t, "LOFO "+c.name, scored, c.name)
	}
}

// injectionRow is the item as a training row: attacks are injections.
func (it convItem) injectionRow() injectionRow {
	label := "benign"
	if it.attack() {
		label = "injection"
	}
	return injectionRow{Text: it.text, Label: label, Source: "conventions:" + it.family}
}

package guard

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestEvalSecretsProse prints what the guard does with credentials and
// look-alikes written in prose (secrets-prose-dev): per kind and per
// language, how many rows are redacted (a definite or probable finding),
// held for confirmation (possible only) or untouched. It asserts nothing.
//
//	ENGRAM_EVAL=1 go test ./quarantine/guard -run TestEvalSecretsProse -v [-evalmisses]
//
// "left" counts redacted secret rows whose redacted text still holds a
// random-looking run of the original (16 characters or more, letters and
// digits alternating often, as generated strings do and words do not): a
// credential only partly redacted, such as an access key id redacted and
// its secret key left.
func TestEvalSecretsProse(t *testing.T) {
	dir := evalEnabled(t)
	rows := readJSONL[proseRow](t, filepath.Join(dir, "guard", "secrets-prose-dev.jsonl"))
	g := newTestGuard(t, Policy{})
	tabs := map[string]map[string]*proseTally{"kind": {}, "lang": {}}
	var sec, neg proseTally
	for _, r := range rows {
		res := g.Check(Input{Text: r.Text})
		out := proseOutcome(res)
		left := ""
		if out == outRedacted && r.Label == "secret" {
			left = leftInClear(r.Text, res.Redacted)
		}
		kind := r.Kind
		if i := strings.IndexByte(kind, ':'); i >= 0 && (strings.HasPrefix(kind, "prefix") || strings.HasPrefix(kind, "split") || strings.HasPrefix(kind, "url")) {
			kind = kind[:i] // prefix:ghp and the like, by family
		}
		for name, key := range map[string]string{"kind": r.Label + " " + kind, "lang": r.Label + " " + r.Lang} {
			if tabs[name][key] == nil {
				tabs[name][key] = &proseTally{}
			}
			tabs[name][key].add(out, left != "")
		}
		if r.Label == "secret" {
			sec.add(out, left != "")
		} else {
			neg.add(out, false)
		}
		if *evalMisses {
			switch {
			case r.Label == "secret" && out != outRedacted:
				t.Logf("MISS %s %s %s %q", r.ID, r.Kind, out, truncate(r.Text, 200))
			case r.Label == "secret" && left != "":
				t.Logf("LEFT %s %s %q in %q", r.ID, r.Kind, left, truncate(res.Redacted, 200))
			case r.Label != "secret" && out != outUntouched:
				t.Logf("FALSE %s %s %s %q %s", r.ID, r.Kind, out, truncate(r.Text, 200), findingSummary(r.Text, res.Findings))
			}
		}
	}
	for _, name := range []string{"kind", "lang"} {
		keys := make([]string, 0, len(tabs[name]))
		for k := range tabs[name] {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			t.Logf("by %s %-28s %s", name, k, tabs[name][k])
		}
	}
	t.Logf("secrets-prose-dev secrets:   %s", sec)
	t.Logf("secrets-prose-dev negatives: %s", neg)
	t.Logf("secrets-prose-dev: secrets redacted %s; negatives touched %s", pct(sec.redacted, sec.n), pct(neg.n-neg.untouched, neg.n))
}

type proseRow struct {
	ID    string `json:"id"`
	Text  string `json:"text"`
	Label string `json:"label"`
	Kind  string `json:"kind"`
	Lang  string `json:"lang"`
}

const (
	outRedacted  = "redacted"
	outHeld      = "held"
	outUntouched = "untouched"
)

// proseOutcome says what a store would do with a checked text's secrets.
func proseOutcome(res Result) string {
	best := ""
	for _, f := range res.Findings {
		if f.Kind == KindSecret && (best == "" || levelRank(f.Level) > levelRank(best)) {
			best = f.Level
		}
	}
	switch best {
	case LevelDefinite, LevelProbable:
		return outRedacted
	case LevelPossible:
		return outHeld
	}
	return outUntouched
}

type proseTally struct{ n, redacted, held, untouched, left int }

func (p *proseTally) add(out string, left bool) {
	p.n++
	switch out {
	case outRedacted:
		p.redacted++
	case outHeld:
		p.held++
	default:
		p.untouched++
	}
	if left {
		p.left++
	}
}

func (p proseTally) String() string {
	return fmt.Sprintf("n %3d  redacted %s  held %s  untouched %s  left %d", p.n, pct(p.redacted, p.n), pct(p.held, p.n), pct(p.untouched, p.n), p.left)
}

// leftInClear returns a random-looking run of original still present in
// redacted, or "".
func leftInClear(original, redacted string) string {
	isTok := func(c byte) bool { return isAlnum(c) || c == '_' || c == '-' || c == '+' || c == '=' }
	for i := 0; i < len(original); {
		if !isTok(original[i]) {
			i++
			continue
		}
		j := i
		for j < len(original) && isTok(original[j]) {
			j++
		}
		run := original[i:j]
		i = j
		if len(run) >= 16 && mixedToken(run) && classChanges(run)*4 >= len(run) && strings.Contains(redacted, run) {
			return run
		}
	}
	return ""
}

func findingSummary(text string, fs []Finding) string {
	var parts []string
	for _, f := range fs {
		if f.Kind == KindSecret {
			parts = append(parts, fmt.Sprintf("%s/%s %q (%s)", f.Level, f.Type, truncate(text[f.Start:f.End], 40), f.Reason))
		}
	}
	return strings.Join(parts, "; ")
}

// classChanges counts the places where s changes between lower case, upper
// case, digits and other characters.
func classChanges(s string) int {
	class := func(c byte) int {
		switch {
		case c >= 'a' && c <= 'z':
			return 0
		case c >= 'A' && c <= 'Z':
			return 1
		case c >= '0' && c <= '9':
			return 2
		}
		return 3
	}
	n := 0
	for i := 1; i < len(s); i++ {
		if class(s[i]) != class(s[i-1]) {
			n++
		}
	}
	return n
}

// TestEvalSecretsOrdinaryProse prints how often the secret detectors touch
// ordinary prose with no credential in it: the benign rows of the
// conventions, poisoning and injection corpora (agent rules, memories,
// e-mails, requests, many of them about tokens, keys and passwords) and
// the package's benign memories. It asserts nothing.
//
//	ENGRAM_EVAL=1 go test ./quarantine/guard -run TestEvalSecretsOrdinaryProse -v [-evalmisses]
func TestEvalSecretsOrdinaryProse(t *testing.T) {
	dir := evalEnabled(t)
	g := newTestGuard(t, Policy{})
	type row struct {
		Text  string `json:"text"`
		Label string `json:"label"`
	}
	sets := map[string][]string{}
	for _, name := range []string{"conventions-dev", "poison-dev", "injection-dev"} {
		for _, r := range readJSONL[row](t, filepath.Join(dir, "guard", name+".jsonl")) {
			if r.Label == "benign" {
				sets[name] = append(sets[name], r.Text)
			}
		}
	}
	sets["benign-memories"] = benignLines(t, "benign-memories.txt")
	sets["benign-requests"] = benignLines(t, "benign-requests.txt")
	names := make([]string, 0, len(sets))
	for n := range sets {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		var tally proseTally
		for _, text := range sets[name] {
			res := g.Check(Input{Text: text})
			out := proseOutcome(res)
			tally.add(out, false)
			if out != outUntouched && *evalMisses {
				t.Logf("FALSE %s %s %q %s", name, out, truncate(text, 160), findingSummary(text, res.Findings))
			}
		}
		t.Logf("%-16s %s", name, tally)
	}
}

// TestEvalSecretsProseLOKO estimates, on secrets-prose-dev, how the
// sentence reading does on kinds of sentence, and on languages, it was
// not tuned on. Its four
// limits (sentenceOptions) are chosen on all kinds but one, from a grid
// around the shipped values, by redacted share of secrets minus touched
// share of negatives (ties to the shipped values); the held-out kind is
// then scored with that choice; the same again leaving out each language.
// The kinds are the families of the per-kind table (every vendor prefix
// is one kind). It asserts nothing.
//
//	ENGRAM_EVAL=1 go test ./quarantine/guard -run TestEvalSecretsProseLOKO -v
//
// The word lists were written with the corpus in view and are not
// re-chosen per fold; TestSecretsNamedBySentence and
// TestSecretsNotNamedSecret hold sentences written apart from it.
func TestEvalSecretsProseLOKO(t *testing.T) {
	dir := evalEnabled(t)
	rows := readJSONL[proseRow](t, filepath.Join(dir, "guard", "secrets-prose-dev.jsonl"))
	g := newTestGuard(t, Policy{})
	grid := []sentenceOptions{defaultSentence}
	for _, gw := range []int{2, 4, 6, 8, 10, 12, 14} {
		for _, am := range []int{6, 8, 10, 12} {
			for _, lm := range []int{6, 8, 10, 12} {
				for _, mg := range []int{2, 3, 4} {
					o := sentenceOptions{gapWords: gw, appMin: am, linkedMin: lm, minGroups: mg}
					if o != defaultSentence {
						grid = append(grid, o)
					}
				}
			}
		}
	}
	byKind := func(r proseRow) string {
		k := r.Kind
		if i := strings.IndexByte(k, ':'); i >= 0 {
			k = k[:i]
		}
		return r.Label + " " + k
	}
	byLang := func(r proseRow) string { return r.Lang }
	// out[c][i]: the outcome of row i under grid[c].
	out := make([][]string, len(grid))
	for c, o := range grid {
		g.secrets = newSecretScanner()
		g.secrets.sentence = o
		out[c] = make([]string, len(rows))
		for i, r := range rows {
			out[c][i] = secretOutcome(g.scanSecrets(r.Text))
		}
	}
	score := func(c int, keep func(i int) bool) (float64, int, int, int, int) {
		var pos, red, neg, touched int
		for i, r := range rows {
			if !keep(i) {
				continue
			}
			if r.Label == "secret" {
				pos++
				if out[c][i] == outRedacted {
					red++
				}
			} else {
				neg++
				if out[c][i] != outUntouched {
					touched++
				}
			}
		}
		s := 0.0
		if pos > 0 {
			s += float64(red) / float64(pos)
		}
		if neg > 0 {
			s -= float64(touched) / float64(neg)
		}
		return s, pos, red, neg, touched
	}
	for _, grouping := range []struct {
		name   string
		family func(proseRow) string
	}{{"kind", byKind}, {"language", byLang}} {
		leaveOneOut(t, rows, grid, out, score, grouping.name, grouping.family)
	}
}

// leaveOneOut chooses the grid's best limits on all groups but one and
// scores the group left out with them, for every group.
func leaveOneOut(t *testing.T, rows []proseRow, grid []sentenceOptions, out [][]string, score func(int, func(int) bool) (float64, int, int, int, int), grouping string, family func(proseRow) string) {
	fams := map[string]bool{}
	for _, r := range rows {
		fams[family(r)] = true
	}
	names := make([]string, 0, len(fams))
	for f := range fams {
		names = append(names, f)
	}
	sort.Strings(names)
	var pos, red, neg, touched, shipped int
	for _, f := range names {
		train := func(i int) bool { return family(rows[i]) != f }
		best, bestScore := 0, -2.0
		for c := range grid {
			if s, _, _, _, _ := score(c, train); s > bestScore+1e-12 {
				best, bestScore = c, s
			}
		}
		if best == 0 {
			shipped++
		}
		_, p, rd, n, tc := score(best, func(i int) bool { return !train(i) })
		pos, red, neg, touched = pos+p, red+rd, neg+n, touched+tc
		t.Logf("held out %-28s chosen %+v: redacted %d/%d, touched %d/%d", f, grid[best], rd, p, tc, n)
	}
	t.Logf("leave-one-%s-out: secrets redacted %s; negatives touched %s; shipped limits chosen in %d of %d folds", grouping, pct(red, pos), pct(touched, neg), shipped, len(names))
}

// secretOutcome is proseOutcome for a list of secret findings.
func secretOutcome(fs []Finding) string {
	return proseOutcome(Result{Findings: fs})
}

package guard

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// heldRow is one line of testdata/secrets-heldout.jsonl or
// secrets-batch5.jsonl: a sentence written for Engram (see
// testdata/secrets-heldout.md), its label, its language and, for a
// secret, the values that must not be stored.
type heldRow struct {
	Label  string   `json:"label"`
	Lang   string   `json:"lang"`
	Text   string   `json:"text"`
	Values []string `json:"values"`
}

// storeOutcome says what a store by an agent (unconfirmed) does with
// text, from the guard's answer, as app's admission does: "redacted"
// when every value in values is gone from the stored text (a definite or
// probable finding covers it; the store may also ask first), "held" when
// the store asks the user before storing the text with a value in clear
// (a possible finding), "untouched" otherwise. For a text without
// values (a non-secret), any secret finding touches it: "redacted" when
// something is redacted, "held" when the store asks.
func storeOutcome(res Result, text string, values []string) string {
	if len(values) == 0 {
		switch {
		case res.HasSecret:
			return outRedacted
		case res.NeedsConfirm:
			return outHeld
		}
		return outUntouched
	}
	gone := res.HasSecret
	for _, v := range values {
		if strings.Count(res.Redacted, v) >= strings.Count(text, v) {
			gone = false
		}
	}
	switch {
	case gone:
		return outRedacted
	case res.NeedsConfirm:
		return outHeld
	}
	return outUntouched
}

// TestEvalSecretsHeldout prints what a store does with the sentences of
// testdata/secrets-heldout.jsonl: credentials and non-secrets written
// before the changes of batch 5 and never used to choose them (see
// testdata/secrets-heldout.md; every run of this test is a look at the
// held-out set and is counted there). It asserts nothing and lists no
// row unless -evalmisses is given.
//
//	ENGRAM_EVAL=1 go test ./quarantine/guard -run TestEvalSecretsHeldout -v
func TestEvalSecretsHeldout(t *testing.T) {
	evalSentenceFile(t, "secrets-heldout.jsonl")
}

// TestEvalSecretsBatch5 prints the same for testdata/secrets-batch5.jsonl,
// the half of the same writing that the batch-5 changes were made on.
//
//	ENGRAM_EVAL=1 go test ./quarantine/guard -run TestEvalSecretsBatch5 -v [-evalmisses]
func TestEvalSecretsBatch5(t *testing.T) {
	evalSentenceFile(t, "secrets-batch5.jsonl")
}

// TestEvalSecretsBatch7 prints the same for testdata/secrets-batch7.jsonl,
// written after the batch-5 and batch-6 changes in other registers
// (tables, INI and shell lines, chat notes, long paragraphs).
//
//	ENGRAM_EVAL=1 go test ./quarantine/guard -run TestEvalSecretsBatch7 -v [-evalmisses]
func TestEvalSecretsBatch7(t *testing.T) {
	evalSentenceFile(t, "secrets-batch7.jsonl")
}

// TestEvalSecretsBatch8 prints the same for testdata/secrets-batch8.jsonl,
// half of a batch written blind (by a session that read neither the
// guard nor its test data; see testdata/secrets-heldout.md): the half
// later changes may be made on.
//
//	ENGRAM_EVAL=1 go test ./quarantine/guard -run TestEvalSecretsBatch8 -v [-evalmisses]
func TestEvalSecretsBatch8(t *testing.T) {
	evalSentenceFile(t, "secrets-batch8.jsonl")
}

// TestEvalSecretsHeldout8 prints the same for testdata/secrets-heldout8.jsonl,
// the other half of the blind batch: never used to choose a change, and
// it lists no row unless asked.
//
//	ENGRAM_EVAL=1 go test ./quarantine/guard -run TestEvalSecretsHeldout8 -v
func TestEvalSecretsHeldout8(t *testing.T) {
	evalSentenceFile(t, "secrets-heldout8.jsonl")
}

// TestSecretBatchFiles checks every row of secrets-batch5.jsonl and
// secrets-batch7.jsonl as a store would see it: a credential's values are
// gone from the stored text, a non-secret is neither redacted nor held
// for confirmation.
func TestSecretBatchFiles(t *testing.T) {
	var rows []heldRow
	for _, name := range []string{"secrets-batch5.jsonl", "secrets-batch7.jsonl"} {
		rs := readJSONL[heldRow](t, filepath.Join("testdata", name))
		if len(rs) < 70 {
			t.Fatalf("%s has %d rows, want 70 or more", name, len(rs))
		}
		rows = append(rows, rs...)
	}
	g := newTestGuard(t, Policy{})
	for _, r := range rows {
		res := g.Check(Input{Text: r.Text})
		out := storeOutcome(res, r.Text, r.Values)
		switch {
		case r.Label == "secret" && len(r.Values) == 0:
			t.Errorf("row %q: a secret row without values", r.Text)
		case r.Label == "secret" && out != outRedacted:
			t.Errorf("Check(%q): store would leave %q (%s), want it redacted (findings %s)", r.Text, r.Values, out, findingSummary(r.Text, res.Findings))
		case r.Label != "secret" && out != outUntouched:
			t.Errorf("Check(%q): store would have it %s, want it untouched (findings %s)", r.Text, out, findingSummary(r.Text, res.Findings))
		}
	}
}

func evalSentenceFile(t *testing.T, name string) {
	if !*evalFlag && os.Getenv("ENGRAM_EVAL") == "" {
		t.Skip("set ENGRAM_EVAL=1 or -eval")
	}
	rows := readJSONL[heldRow](t, filepath.Join("testdata", name))
	g := newTestGuard(t, Policy{})
	if os.Getenv("ENGRAM_EVAL_RULES_ONLY") != "" {
		g.secretModel = nil // the rules without the learned judgement
	}
	var sec, neg proseTally
	byLang := map[string]*[2]proseTally{}
	for _, r := range rows {
		res := g.Check(Input{Text: r.Text})
		out := storeOutcome(res, r.Text, r.Values)
		if byLang[r.Lang] == nil {
			byLang[r.Lang] = &[2]proseTally{}
		}
		if r.Label == "secret" {
			sec.add(out, false)
			byLang[r.Lang][0].add(out, false)
			if out != outRedacted && *evalMisses {
				t.Logf("MISS %s %q %s", out, r.Text, findingSummary(r.Text, res.Findings))
			}
		} else {
			neg.add(out, false)
			byLang[r.Lang][1].add(out, false)
			if out != outUntouched && *evalMisses {
				t.Logf("FALSE %s %q %s", out, r.Text, findingSummary(r.Text, res.Findings))
			}
		}
	}
	langs := make([]string, 0, len(byLang))
	for l := range byLang {
		langs = append(langs, l)
	}
	sort.Strings(langs)
	for _, l := range langs {
		s, n := byLang[l][0], byLang[l][1]
		t.Logf("%s: secrets redacted %s; negatives touched %s", l, pct(s.redacted, s.n), pct(n.n-n.untouched, n.n))
	}
	t.Logf("%s secrets:   %s", name, sec)
	t.Logf("%s negatives: %s", name, neg)
	t.Logf("%s: secrets redacted %s; negatives touched %s", name, pct(sec.redacted, sec.n), pct(neg.n-neg.untouched, neg.n))
}

// TestEvalSecretsHeldout9 prints the same for testdata/secrets-heldout9.jsonl,
// a batch of 300 written blind by another session after the changes it
// measures (see testdata/secrets-heldout.md): never used to choose a
// change, and it lists no row unless asked.
//
//	ENGRAM_EVAL=1 go test ./quarantine/guard -run TestEvalSecretsHeldout9 -v
func TestEvalSecretsHeldout9(t *testing.T) {
	evalSentenceFile(t, "secrets-heldout9.jsonl")
}

// TestEvalSecretsHeldout10 prints the same for
// testdata/secrets-heldout10.jsonl, a second blind batch of 300 by a
// third session, in other registers (runbooks, hand-over notes, home IT).
//
//	ENGRAM_EVAL=1 go test ./quarantine/guard -run TestEvalSecretsHeldout10 -v
func TestEvalSecretsHeldout10(t *testing.T) {
	evalSentenceFile(t, "secrets-heldout10.jsonl")
}

// TestEvalSecretsHeldout11 prints the same for
// testdata/secrets-heldout11.jsonl, a blind batch of 300 written as a
// personal assistant's memories of its user (see secrets-heldout.md).
//
//	ENGRAM_EVAL=1 go test ./quarantine/guard -run TestEvalSecretsHeldout11 -v
func TestEvalSecretsHeldout11(t *testing.T) {
	evalSentenceFile(t, "secrets-heldout11.jsonl")
}

// TestEvalSecretsHeldout12 prints the same for
// testdata/secrets-heldout12.jsonl, a blind batch of 300 written as a
// coding agent's memories across many repositories and machines.
//
//	ENGRAM_EVAL=1 go test ./quarantine/guard -run TestEvalSecretsHeldout12 -v
func TestEvalSecretsHeldout12(t *testing.T) {
	evalSentenceFile(t, "secrets-heldout12.jsonl")
}

// TestEvalSecretsHeldout13 prints the same for
// testdata/secrets-heldout13.jsonl, a blind batch of 300 written as small
// companies' IT notes, 200 of them in the ten languages other than
// English.
//
//	ENGRAM_EVAL=1 go test ./quarantine/guard -run TestEvalSecretsHeldout13 -v
func TestEvalSecretsHeldout13(t *testing.T) {
	evalSentenceFile(t, "secrets-heldout13.jsonl")
}

// TestEvalSecretsHeldout14 and TestEvalSecretsHeldout15 print the same for
// the last two blind batches: 300 memories of many kinds of user, and
// 300 written mostly in the ten languages other than English (see
// secrets-heldout.md). Neither was used to choose a change.
//
//	ENGRAM_EVAL=1 go test ./quarantine/guard -run 'TestEvalSecretsHeldout1[45]' -v
func TestEvalSecretsHeldout14(t *testing.T) {
	evalSentenceFile(t, "secrets-heldout14.jsonl")
}

func TestEvalSecretsHeldout15(t *testing.T) {
	evalSentenceFile(t, "secrets-heldout15.jsonl")
}

// TestEvalSecretsHeldout16 prints the same for
// testdata/secrets-heldout16.jsonl, a blind batch written in an agent's
// voice for fourteen kinds of user.
func TestEvalSecretsHeldout16(t *testing.T) {
	evalSentenceFile(t, "secrets-heldout16.jsonl")
}

// TestEvalSecretsHeldout17 prints the same for
// testdata/secrets-heldout17.jsonl, the last blind batch: 270 of its 300
// memories in the ten languages other than English. Never used to choose
// a change.
func TestEvalSecretsHeldout17(t *testing.T) {
	evalSentenceFile(t, "secrets-heldout17.jsonl")
}

// TestEvalSecretsHeldout18 prints the same for
// testdata/secrets-heldout18.jsonl, the batch written blind after the
// learned judgement was built; never used to choose a change.
// ENGRAM_EVAL_RULES_ONLY=1 scores the rules alone.
func TestEvalSecretsHeldout18(t *testing.T) {
	evalSentenceFile(t, "secrets-heldout18.jsonl")
}

// TestEvalSecretsHeldout19 … 23 print the same for the batches written
// blind in the sixth session of 2026-11-28 (see testdata/secrets-heldout.md):
// 19 chat and e-mail excerpts, 20 structured fragments, 21 memories of
// non-technical people; 22 and 23, mixtures written while the rest was
// built and scored once at the end.
func TestEvalSecretsHeldout19(t *testing.T) { evalSentenceFile(t, "secrets-heldout19.jsonl") }
func TestEvalSecretsHeldout20(t *testing.T) { evalSentenceFile(t, "secrets-heldout20.jsonl") }
func TestEvalSecretsHeldout21(t *testing.T) { evalSentenceFile(t, "secrets-heldout21.jsonl") }
func TestEvalSecretsHeldout22(t *testing.T) { evalSentenceFile(t, "secrets-heldout22.jsonl") }
func TestEvalSecretsHeldout23(t *testing.T) { evalSentenceFile(t, "secrets-heldout23.jsonl") }

// TestEvalSecretsHeldout24 … 27 print the same for four batches written
// blind during the second round of that session and scored once at its
// end: 24 coding and ops agents, 25 a personal assistant in the person's
// own country and language, 26 "remember this" facts, 27 what reaches an
// agent from mail, documents and letters.
func TestEvalSecretsHeldout24(t *testing.T) { evalSentenceFile(t, "secrets-heldout24.jsonl") }
func TestEvalSecretsHeldout25(t *testing.T) { evalSentenceFile(t, "secrets-heldout25.jsonl") }
func TestEvalSecretsHeldout26(t *testing.T) { evalSentenceFile(t, "secrets-heldout26.jsonl") }
func TestEvalSecretsHeldout27(t *testing.T) { evalSentenceFile(t, "secrets-heldout27.jsonl") }

// TestEvalSecretsHeldout28 and 29 print the same for two batches written
// blind during the third round and scored once at its end: 28 people who
// live in two languages, 29 freelancers and small businesses.
func TestEvalSecretsHeldout28(t *testing.T) { evalSentenceFile(t, "secrets-heldout28.jsonl") }
func TestEvalSecretsHeldout29(t *testing.T) { evalSentenceFile(t, "secrets-heldout29.jsonl") }

// TestEvalSecretsHeldout30 and 31 print the same for two batches written
// blind during the fourth round and scored once at its end: 30 a
// household and its weekend shop, 31 a small software company's agents.
func TestEvalSecretsHeldout30(t *testing.T) { evalSentenceFile(t, "secrets-heldout30.jsonl") }
func TestEvalSecretsHeldout31(t *testing.T) { evalSentenceFile(t, "secrets-heldout31.jsonl") }

package eval

import (
	"context"
	"crypto/sha256"
	"encoding/gob"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/engram-app/engram/app/recall"
	"github.com/engram-app/engram/vault"
)

// AsWritten returns the session a LoCoMo memory was written in and when,
// as a hook capturing the conversation would store it: each turn of a
// session a second after the one before ("D1:3", the third turn of
// session D1; "session_1-o5", an observation made in session 1, the
// sixth of the conversation). Other ids have no session.
func AsWritten(id string, sessionTime time.Time) (string, time.Time) {
	if s, n, ok := strings.Cut(id, ":"); ok {
		if i, err := strconv.Atoi(n); err == nil {
			return s, sessionTime.Add(time.Duration(i) * time.Second)
		}
	}
	if s, n, ok := strings.Cut(id, "-o"); ok && strings.HasPrefix(s, "session_") {
		if i, err := strconv.Atoi(n); err == nil {
			return s, sessionTime.Add(time.Duration(i) * time.Second)
		}
	}
	return "", sessionTime
}

// Conv is one LoCoMo conversation: each dialogue turn a memory, and the
// questions with evidence.
type Conv struct {
	Name     string
	Docs     []recall.Doc
	Speakers []string // the names before the turns' colons
	Qs       []ConvQuestion
}

// ConvQuestion is a question with the memories that answer it.
type ConvQuestion struct {
	ID, Text string
	Gold     map[string]bool // memory IDs (conversation-prefixed)
}

// LoadConversations reads every conversation under dir (dir/CONV/corpus.jsonl,
// queries.jsonl, evidence.jsonl, as in ../shared/eval/search/locomo-dev/turns).
// Memory IDs are prefixed with the conversation's name, so that all of
// them fit one vault.
func LoadConversations(dir string) ([]*Conv, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []*Conv
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		d := filepath.Join(dir, e.Name())
		docs, err := ReadJSONL[doc](filepath.Join(d, "corpus.jsonl"))
		if err != nil {
			return nil, err
		}
		queries, err := ReadJSONL[query](filepath.Join(d, "queries.jsonl"))
		if err != nil {
			return nil, err
		}
		type evidence struct {
			ID          string              `json:"_id"`
			Evidence    []string            `json:"evidence"`
			DocsForTurn map[string][]string `json:"docs_for_turn"`
		}
		evs, err := ReadJSONL[evidence](filepath.Join(d, "evidence.jsonl"))
		if err != nil {
			return nil, err
		}
		c := &Conv{Name: e.Name()}
		pre := c.Name + "/"
		for _, x := range docs {
			session, created := AsWritten(x.ID, x.CreatedAt)
			c.Docs = append(c.Docs, recall.Doc{ID: pre + x.ID, Content: x.Text, Kind: vault.Knowledge, Tier: vault.Semantic, Partition: vault.Internal,
				Trust: vault.TrustOperator, Confidence: 0.9, Created: created, Source: vault.Source{SessionID: pre + session}})
			if i := strings.Index(x.Text, ":"); i > 0 && !slices.Contains(c.Speakers, x.Text[:i]) && !strings.ContainsAny(x.Text[:i], " \n") {
				c.Speakers = append(c.Speakers, x.Text[:i])
			}
		}
		text := map[string]string{}
		for _, q := range queries {
			text[q.ID] = q.Text
		}
		for _, ev := range evs {
			gold := map[string]bool{}
			for _, turn := range ev.Evidence {
				for _, id := range ev.DocsForTurn[turn] {
					gold[pre+id] = true
				}
			}
			if len(gold) == 0 {
				continue // as recall_any.py: questions without evidence do not count
			}
			c.Qs = append(c.Qs, ConvQuestion{ID: ev.ID, Text: text[ev.ID], Gold: gold})
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no conversations in %s", dir)
	}
	return out, nil
}

// ConvVectors embeds texts with emb, once: the vectors are kept in a
// file under the temporary directory named after the model and the
// texts.
type ConvVectors struct {
	emb  recall.Embedder
	vecs map[string][]float32
}

// NewConvVectors embeds docs' contents and texts with emb (or reads them
// from the cache).
func NewConvVectors(ctx context.Context, emb recall.Embedder, docs []recall.Doc, texts []string) (*ConvVectors, error) {
	eng := recall.New(recall.DefaultConfig(emb))
	var all []string
	for _, d := range docs {
		all = append(all, d.Content)
	}
	nDocs := len(all)
	all = append(all, texts...)
	sum := sha256.Sum256([]byte(eng.Model() + "\x00" + strings.Join(all, "\x00")))
	path := filepath.Join(os.TempDir(), fmt.Sprintf("engram-convs-vectors-%x.gob", sum[:8]))
	cv := &ConvVectors{emb: emb, vecs: map[string][]float32{}}
	if f, err := os.Open(path); err == nil {
		err = gob.NewDecoder(f).Decode(&cv.vecs)
		f.Close()
		if err == nil && len(cv.vecs) > 0 {
			return cv, nil
		}
		cv.vecs = map[string][]float32{}
	}
	dv, err := eng.EmbedDocs(ctx, all[:nDocs])
	if err != nil {
		return nil, err
	}
	for i, v := range dv {
		cv.vecs["d\x00"+all[i]] = v
	}
	uniq := slices.Compact(slices.Sorted(slices.Values(texts)))
	for i := 0; i < len(uniq); i += 64 {
		part := uniq[i:min(i+64, len(uniq))]
		qv, err := emb.Embed(ctx, part)
		if err != nil {
			return nil, err
		}
		for j, v := range qv {
			cv.vecs["q\x00"+part[j]] = v
		}
	}
	if f, err := os.Create(path); err == nil {
		_ = gob.NewEncoder(f).Encode(cv.vecs)
		f.Close()
	}
	return cv, nil
}

func (cv *ConvVectors) doc(text string) []float32 { return slices.Clone(cv.vecs["d\x00"+text]) }

// ConvVectors is the engines' embedder in ConvRun: the queries' vectors
// from the cache, any other text (a query embedded again with a name
// respelled) embedded by the model.
func (cv *ConvVectors) Dim() int     { return cv.emb.Dim() }
func (cv *ConvVectors) Name() string { return cv.emb.Name() }

func (cv *ConvVectors) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v, ok := cv.vecs["q\x00"+t]
		if !ok {
			vs, err := cv.emb.Embed(ctx, []string{t})
			if err != nil {
				return nil, err
			}
			v = vs[0]
			cv.vecs["q\x00"+t] = v
		}
		out[i] = slices.Clone(v)
	}
	return out, nil
}

// ConvCase is one query of an evaluation set: the text asked, the vault
// it is asked of (a conversation's name, or "" for the vault of all),
// and the memories that answer it (none: the right answer is nothing).
type ConvCase struct {
	Text  string
	Vault string
	Gold  map[string]bool
	Conv  int // the conversation the question comes from
}

// ConvSet is a named set of cases.
type ConvSet struct {
	Name, About string
	Cases       []ConvCase
}

// ConvFigures is what a set scores.
type ConvFigures struct {
	N                 int
	Any3, Any5, Any10 float64 // recall_any@k, %
	Empty             float64 // share answered with nothing, %
}

// ConvSets builds the evaluation sets from the conversations:
//
//   - real: each question asked of its own conversation's vault;
//   - one vault: each question asked of the vault of all conversations;
//   - no answer: each question asked of every other conversation's vault
//     (the right answer is nothing), and the same with the asked
//     conversation's speakers' names put for the question's (what is left
//     when names cannot tell);
//   - short: each question cut to its one and two rarest words (fewest
//     memories of its conversation contain them, but one does; names of
//     the speakers left out, ties by order), as an agent sends keywords,
//     also asked of the other conversations (no answer); and cut to
//     the two rarest of its words that no answering memory contains (the
//     words an asker uses that the memory does not: only meaning can
//     find it), also asked of the other conversations (no answer);
//   - misspelled names: each question naming a speaker, the name spelled
//     with one of the slips people make writing a name they heard (a
//     doubled or single consonant, c for k, a vowel for another, a
//     dropped vowel in a name of six letters or more), chosen by the
//     question's place;
//   - dated: each question naming a day or a month, as written and
//     rewritten ("October 13, 2023" as "13.10.2023", "July 2023" as
//     "mid-July 2023").
func ConvSets(convs []*Conv) []ConvSet {
	real := ConvSet{Name: "real questions", About: "each question of its own conversation's vault"}
	one := ConvSet{Name: "one vault of all conversations", About: "each question of the vault of all conversations"}
	none := ConvSet{Name: "no-answer questions", About: "each question of every other conversation's vault (empty is right)"}
	swapped := ConvSet{Name: "no-answer, names swapped", About: "as no-answer, the speakers' names replaced by the asked vault's"}
	short1 := ConvSet{Name: "short: 1 rarest word", About: "the question's rarest word (speakers aside)"}
	short2 := ConvSet{Name: "short: 2 rarest words", About: "the question's two rarest words (speakers aside)"}
	shortNone := ConvSet{Name: "short, no answer", About: "the two rarest words asked of every other conversation's vault (empty is right)"}
	shortMNone := ConvSet{Name: "short, lacking, no answer", About: "the words the memory lacks asked of every other conversation's vault (empty is right)"}
	shortM := ConvSet{Name: "short: 2 words the memory lacks", About: "the two rarest question words no answering memory holds"}
	typo := ConvSet{Name: "misspelled names", About: "a speaker's name with one slip"}
	dated := ConvSet{Name: "dated questions", About: "questions naming a day or month, as written"}
	redated := ConvSet{Name: "dated, rewritten", About: "dd.mm.yyyy and mid-Month yyyy"}
	for ci, c := range convs {
		df := map[string]int{}
		for _, d := range c.Docs {
			seen := map[string]bool{}
			for _, t := range recall.Terms(nil, d.Content) {
				if !seen[t] {
					seen[t] = true
					df[t]++
				}
			}
		}
		speakerTerms := map[string]bool{}
		for _, s := range c.Speakers {
			for _, t := range recall.Terms(nil, s) {
				speakerTerms[t] = true
			}
		}
		for qi, q := range c.Qs {
			real.Cases = append(real.Cases, ConvCase{q.Text, c.Name, q.Gold, ci})
			one.Cases = append(one.Cases, ConvCase{q.Text, "", q.Gold, ci})
			for _, o := range convs {
				if o != c {
					none.Cases = append(none.Cases, ConvCase{q.Text, o.Name, nil, ci})
					swapped.Cases = append(swapped.Cases, ConvCase{swapNames(q.Text, c.Speakers, o.Speakers), o.Name, nil, ci})
				}
			}
			goldTerms := map[string]bool{}
			for _, d := range c.Docs {
				if q.Gold[d.ID] {
					for _, t := range recall.Terms(nil, d.Content) {
						goldTerms[t] = true
					}
				}
			}
			words := rarestWords(q.Text, df, func(t string) bool { return !speakerTerms[t] && df[t] > 0 })
			if len(words) >= 1 {
				short1.Cases = append(short1.Cases, ConvCase{words[0], c.Name, q.Gold, ci})
			}
			if len(words) >= 2 {
				short2.Cases = append(short2.Cases, ConvCase{words[0] + " " + words[1], c.Name, q.Gold, ci})
				for _, o := range convs {
					if o != c {
						shortNone.Cases = append(shortNone.Cases, ConvCase{words[0] + " " + words[1], o.Name, nil, ci})
					}
				}
			}
			if m := rarestWords(q.Text, df, func(t string) bool { return !speakerTerms[t] && !goldTerms[t] }); len(m) >= 1 {
				text := strings.Join(m[:min(2, len(m))], " ")
				shortM.Cases = append(shortM.Cases, ConvCase{text, c.Name, q.Gold, ci})
				for _, o := range convs {
					if o != c {
						shortMNone.Cases = append(shortMNone.Cases, ConvCase{text, o.Name, nil, ci})
					}
				}
			}
			if t, ok := misspell(q.Text, c.Speakers, qi); ok {
				typo.Cases = append(typo.Cases, ConvCase{t, c.Name, q.Gold, ci})
			}
			if reDated.MatchString(q.Text) {
				dated.Cases = append(dated.Cases, ConvCase{q.Text, c.Name, q.Gold, ci})
				redated.Cases = append(redated.Cases, ConvCase{redate(q.Text), c.Name, q.Gold, ci})
			}
		}
	}
	return []ConvSet{real, one, none, swapped, short1, short2, shortM, shortNone, shortMNone, typo, dated, redated}
}

// rarestWords returns the words of text whose term ok accepts, rarest
// first by df (ties in the text's order), each term once.
func rarestWords(text string, df map[string]int, ok func(string) bool) []string {
	type w struct {
		word string
		df   int
	}
	var ws []w
	seen := map[string]bool{}
	for _, f := range strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' && r != '\'' }) {
		ts := recall.Terms(nil, f)
		if len(ts) != 1 || seen[ts[0]] || !ok(ts[0]) {
			continue
		}
		seen[ts[0]] = true
		ws = append(ws, w{f, df[ts[0]]})
	}
	slices.SortStableFunc(ws, func(a, b w) int { return a.df - b.df })
	out := make([]string, len(ws))
	for i, x := range ws {
		out[i] = x.word
	}
	return out
}

// swapNames replaces each of from's names in text by to's name in the
// same place (cycling when to has fewer).
func swapNames(text string, from, to []string) string {
	for i, f := range from {
		if len(to) > 0 {
			text = regexp.MustCompile(`\b`+regexp.QuoteMeta(f)+`\b`).ReplaceAllString(text, to[i%len(to)])
		}
	}
	return text
}

// misspell spells the first speaker name in text with a slip chosen by
// i among those that apply to it: a consonant doubled or made single, c
// and k swapped, a vowel for another, an inner vowel dropped.
func misspell(text string, speakers []string, i int) (string, bool) {
	for _, s := range speakers {
		re := regexp.MustCompile(`\b` + regexp.QuoteMeta(s) + `\b`)
		if !re.MatchString(text) || len(s) < 3 {
			continue
		}
		var vs []string
		lower := strings.ToLower(s)
		for j := 1; j < len(s); j++ {
			ch := lower[j]
			vowel := strings.IndexByte("aeiou", ch) >= 0
			switch {
			case j+1 < len(s) && lower[j+1] == ch:
				vs = append(vs, s[:j]+s[j+1:]) // single for double
			case !vowel && j < len(s)-1:
				vs = append(vs, s[:j+1]+s[j:]) // doubled
			}
			switch ch {
			case 'c':
				vs = append(vs, s[:j]+"k"+s[j+1:])
			case 'k':
				vs = append(vs, s[:j]+"c"+s[j+1:])
			}
			if vowel {
				for _, o := range "aeiy" {
					if byte(o) != ch {
						vs = append(vs, s[:j]+string(o)+s[j+1:])
						break
					}
				}
				if j < len(s)-1 && len(s) >= 6 {
					vs = append(vs, s[:j]+s[j+1:])
				}
			}
		}
		if len(vs) == 0 {
			continue
		}
		v := vs[i%len(vs)]
		return re.ReplaceAllString(text, v), true
	}
	return "", false
}

var (
	reDated   = regexp.MustCompile(`(?i)\b(january|february|march|april|may|june|july|august|september|october|november|december)\b`)
	reMDY     = regexp.MustCompile(`\b(January|February|March|April|May|June|July|August|September|October|November|December) (\d{1,2}),? (\d{4})\b`)
	reDMY     = regexp.MustCompile(`\b(\d{1,2}) (January|February|March|April|May|June|July|August|September|October|November|December),? (\d{4})\b`)
	reMY      = regexp.MustCompile(`\b(January|February|March|April|May|June|July|August|September|October|November|December) (\d{4})\b`)
	monthList = []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
)

// redate writes a question's day as dd.mm.yyyy and its month and year as
// "mid-Month yyyy".
func redate(text string) string {
	num := func(m string) int { return slices.Index(monthList, m) + 1 }
	text = reMDY.ReplaceAllStringFunc(text, func(s string) string {
		m := reMDY.FindStringSubmatch(s)
		d, _ := strconv.Atoi(m[2])
		return fmt.Sprintf("%02d.%02d.%s", d, num(m[1]), m[3])
	})
	text = reDMY.ReplaceAllStringFunc(text, func(s string) string {
		m := reDMY.FindStringSubmatch(s)
		d, _ := strconv.Atoi(m[1])
		return fmt.Sprintf("%02d.%02d.%s", d, num(m[2]), m[3])
	})
	return reMY.ReplaceAllString(text, "mid-$1 $2")
}

// ConvRun asks every case of sets in mode, with the floor, of engines
// built with cfg (one per conversation and one of all), and scores them.
// Questions are asked as of now (long after the conversations, when
// decay and recency no longer tell memories apart).
// Each case answered with nothing is passed to empty, when not nil.
func ConvRun(ctx context.Context, convs []*Conv, sets []ConvSet, cv *ConvVectors, mode recall.Mode, cfg recall.Config, now time.Time, empty func(set string, c ConvCase, r recall.Result)) ([][]ConvFigures, error) {
	cfg.MaxEpisodic, cfg.MaxSemantic, cfg.MaxTokens = -1, -1, -1
	if cfg.Embedder != nil {
		cfg.Embedder = cv
	}
	engines := map[string]*recall.Engine{}
	all := recall.New(cfg)
	for _, c := range convs {
		e := recall.New(cfg)
		for _, d := range c.Docs {
			if err := e.Put(d, cv.doc(d.Content)); err != nil {
				return nil, err
			}
			if err := all.Put(d, cv.doc(d.Content)); err != nil {
				return nil, err
			}
		}
		engines[c.Name] = e
	}
	engines[""] = all
	// out[set][conversation]
	out := make([][]ConvFigures, len(sets))
	for si, s := range sets {
		out[si] = make([]ConvFigures, len(convs))
		for _, k := range s.Cases {
			r, err := engines[k.Vault].Search(ctx, recall.Query{Text: k.Text, Mode: mode, Limit: 10, Now: now, Floor: true})
			if err != nil {
				return nil, err
			}
			f := &out[si][k.Conv]
			f.N++
			if len(r.Hits) == 0 {
				f.Empty++
				if empty != nil {
					empty(s.Name, k, r)
				}
			}
			for j, h := range r.Hits {
				if k.Gold[h.Doc.ID] {
					if j < 3 {
						f.Any3++
					}
					if j < 5 {
						f.Any5++
					}
					f.Any10++
					break
				}
			}
		}
	}
	return out, nil
}

// Sum adds up figures (counts, as ConvRun leaves them) and makes them
// shares of the cases, in %; in picks the conversations (nil: all).
func Sum(per []ConvFigures, in func(int) bool) ConvFigures {
	var s ConvFigures
	for c, f := range per {
		if in != nil && !in(c) {
			continue
		}
		s.N += f.N
		s.Any3 += f.Any3
		s.Any5 += f.Any5
		s.Any10 += f.Any10
		s.Empty += f.Empty
	}
	if s.N > 0 {
		n := float64(s.N) / 100
		s.Any3, s.Any5, s.Any10, s.Empty = s.Any3/n, s.Any5/n, s.Any10/n, s.Empty/n
	}
	return s
}

// ConvTexts returns every text the sets ask, as a search asked at now
// embeds it (recall.EmbeddedText).
func ConvTexts(sets []ConvSet, now time.Time) []string {
	var out []string
	for _, s := range sets {
		for _, k := range s.Cases {
			out = append(out, recall.EmbeddedText(k.Text, now))
		}
	}
	return out
}

// shortFloors are the floors for short queries a held-out run chooses
// among (recall.Floor.Short in hybrid mode): none (the floor of longer
// queries), and vector gates and floors of 0.4, 0.35 (the default) and
// 0.3.
var shortFloors = []struct {
	name string
	vec  float64 // 0: none
}{{"none", 0}, {"0.40", 0.40}, {"0.35", 0.35}, {"0.30", 0.30}}

// withShortFloor returns cfg with hybrid mode's short floor at vec (0:
// none).
func withShortFloor(cfg recall.Config, vec float64) recall.Config {
	cfg.Floors = recall.DefaultFloors()
	h := cfg.Floors[recall.Hybrid]
	if vec == 0 {
		h.Short = nil
	} else {
		s := *h.Short
		s.Vector, s.Gate = vec, &recall.Floor{Keyword: s.Gate.Keyword, Vector: vec}
		h.Short = &s
	}
	cfg.Floors[recall.Hybrid] = h
	return cfg
}

// rightShare is what a held-out run maximises on the training
// conversations: the mean over the sets of the share of cases answered
// right (recall_any@5 for a set with answers, the empty share for a set
// without).
func rightShare(sets []ConvSet, figs [][]ConvFigures, in func(int) bool) float64 {
	var sum float64
	for i, s := range sets {
		f := Sum(figs[i], in)
		if isNoAnswer(s) {
			sum += f.Empty
		} else {
			sum += f.Any5
		}
	}
	return sum / float64(len(sets))
}

func isNoAnswer(s ConvSet) bool {
	return len(s.Cases) > 0 && s.Cases[0].Gold == nil
}

// ConvReport measures the conversation sets (ConvSets) of the
// conversations under dir in hybrid mode with emb and returns them as a
// Markdown section: dev figures with the shipped defaults (chosen on
// these conversations), and held-out ones, where each conversation is
// scored with the short-query floor that the other conversations choose
// (rightShare), the one setting this evaluation selects.
func ConvReport(ctx context.Context, dir string, emb recall.Embedder, log func(string, ...any)) (string, error) {
	convs, err := LoadConversations(dir)
	if err != nil {
		return "", err
	}
	sets := ConvSets(convs)
	var docs []recall.Doc
	for _, c := range convs {
		docs = append(docs, c.Docs...)
	}
	now := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	cv, err := NewConvVectors(ctx, emb, docs, ConvTexts(sets, now))
	if err != nil {
		return "", err
	}
	runs := make([][][]ConvFigures, len(shortFloors))
	def := -1
	for i, sf := range shortFloors {
		log("conversations: hybrid, short-query floor %s", sf.name)
		if runs[i], err = ConvRun(ctx, convs, sets, cv, recall.Hybrid, withShortFloor(recall.DefaultConfig(emb), sf.vec), now, nil); err != nil {
			return "", err
		}
		if sf.vec == recall.DefaultFloors()[recall.Hybrid].Short.Vector {
			def = i
		}
	}
	log("conversations: exact")
	exact, err := ConvRun(ctx, convs, sets, cv, recall.Exact, recall.DefaultConfig(emb), now, nil)
	if err != nil {
		return "", err
	}
	// held[set][conversation]: each conversation's figures with the floor
	// chosen on the others.
	held := make([][]ConvFigures, len(sets))
	var picks []string
	for c := range convs {
		others := func(x int) bool { return x != c }
		best := 0
		for i := range runs {
			if rightShare(sets, runs[i], others) > rightShare(sets, runs[best], others) {
				best = i
			}
		}
		picks = append(picks, convs[c].Name+": "+shortFloors[best].name)
		for s := range sets {
			if held[s] == nil {
				held[s] = make([]ConvFigures, len(convs))
			}
			held[s][c] = runs[best][s][c]
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "## Recall on conversations (LoCoMo dev: %d conversations, %d turns, each turn a memory)\n\n", len(convs), len(docs))
	b.WriteString("Each set is built from the dev conversations' questions by a fixed rule (`cmd/engram-bench/internal/eval/convs.go`, ConvSets): no question was written or picked by hand. Answers are cut at 10, with the relevance floor, asked long after the conversations (decay and recency tell no memory apart). recall_any@k: the share of questions with an evidence turn in the top k; empty: the share answered with nothing (right for the no-answer sets).\n\n")
	b.WriteString("| set | questions | what is asked | hybrid @3 | @5 | @10 | empty | held out @5 | @10 | empty | exact @5 | exact empty |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for i, s := range sets {
		d, h, x := Sum(runs[def][i], nil), Sum(held[i], nil), Sum(exact[i], nil)
		if isNoAnswer(s) {
			fmt.Fprintf(&b, "| %s | %d | %s | – | – | – | %.1f%% | – | – | %.1f%% | – | %.1f%% |\n", s.Name, d.N, s.About, d.Empty, h.Empty, x.Empty)
			continue
		}
		fmt.Fprintf(&b, "| %s | %d | %s | %.1f | %.1f | %.1f | %.1f%% | %.1f | %.1f | %.1f%% | %.1f | %.1f%% |\n", s.Name, d.N, s.About, d.Any3, d.Any5, d.Any10, d.Empty, h.Any5, h.Any10, h.Empty, x.Any5, x.Empty)
	}
	fmt.Fprintf(&b, "\nDev: the shipped defaults, whose floors and BM25 parameters were chosen on these same conversations, so in-sample. Held out: each conversation with the short-query floor (none, or a cosine of 0.40, 0.35 or 0.30) that the other two choose by the mean share of right answers over the sets; picks %s. Only that choice is held out here: no LoCoMo conversation outside the dev set is in ../shared/eval (ENGRAM_LOCOMO_DIR runs the tests on others).\n\n", strings.Join(picks, ", "))
	b.WriteString("What the no-answer rows say: the floor's rejection of questions about another conversation comes mostly from names. With the asked vault's speakers' names put in, most of the same questions are answered with something (the names-swapped row): the floor tells a question about someone the vault never heard of, not a question about something it holds nothing on.\n\n")
	return b.String(), nil
}

// Model loads the embedding model from dir ("" looks where Engram looks,
// then in .cache/model/use-lite).
func Model(dir string) (recall.Embedder, error) { return loadModel(dir, true) }

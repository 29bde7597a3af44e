package recall

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/engram-app/engram/vault"
)

// The tests in this file check that a search tells a caller nothing of
// the documents it may not see: neither the words they hold nor how many
// they are change an answer, through its hits, scores, counts or
// unheard names.

// leakWords are the vocabulary of the random vaults: none a stopword,
// each its own term.
var leakWords = strings.Fields(`deploy service tabs spaces queue cache build release schema
	index backup token router linter config script server client metric alert pager window
	branch commit review ticket budget vendor report sprint`)

// leakAgent is an agent of the random vaults, with what widens its reads.
type leakAgent struct{ name, group, product string }

var leakAgents = []leakAgent{
	{"claude", "backend", "engram"},
	{"cursor", "backend", ""},
	{"aider", "frontend", "lens"},
	{"zed", "frontend", ""},
}

func leakGroup(owner string) string {
	for _, a := range leakAgents {
		if a.name == owner {
			return a.group
		}
	}
	return ""
}

// leakCaller is who searches: the user (nil rule) or an agent with the
// app's read matrix, written out here for documents' classes.
type leakCaller struct {
	desc  string
	allow func(*Doc) bool
}

func randCaller(r *rand.Rand) leakCaller {
	if r.IntN(5) == 0 {
		return leakCaller{desc: "operator"}
	}
	me := leakAgents[r.IntN(len(leakAgents))]
	internal, sensitive := r.IntN(4) != 0, r.IntN(4) == 0
	desc := fmt.Sprintf("agent %s (group %q, product %q, internal %v, sensitive %v)", me.name, me.group, me.product, internal, sensitive)
	return leakCaller{desc: desc, allow: func(d *Doc) bool {
		switch {
		case d.Partition == vault.Archive:
			return false
		case d.Sensitive || d.Partition == vault.Sensitive:
			return sensitive
		case d.Partition == vault.Internal && !internal:
			return false
		case d.Partition == vault.Public, d.Owner == me.name, d.Owner == vault.AgentOperator:
			return true
		case d.Product != "":
			return d.Product == me.product
		}
		return leakGroup(d.Owner) == me.group
	}}
}

// randName returns a capitalised word of six consonants (no s or y, which
// stemming would touch): two such words never begin one another, and
// none is a vocabulary word.
func randName(r *rand.Rand) string {
	const letters = "bcdfghjklmnpqrtvwxz"
	b := []byte{"BCDFGHJKLMNPQRTVWXZ"[r.IntN(19)]}
	for range 5 {
		b = append(b, letters[r.IntN(len(letters))])
	}
	return string(b)
}

// randLeakDoc returns a document of random class and text, which holds a
// few vocabulary words and sometimes one of names.
func randLeakDoc(r *rand.Rand, id string, names []string) Doc {
	owner := vault.AgentOperator
	product := ""
	if r.IntN(3) != 0 {
		a := leakAgents[r.IntN(len(leakAgents))]
		owner, product = a.name, a.product
	}
	partition := []vault.Partition{vault.Public, vault.Internal, vault.Internal, vault.Sensitive, vault.Archive}[r.IntN(5)]
	words := make([]string, 3+r.IntN(8))
	for i := range words {
		words[i] = leakWords[r.IntN(len(leakWords))]
	}
	if len(names) > 0 && r.IntN(2) == 0 {
		i := 1 + r.IntN(len(words)-1)
		words = slices.Insert(words, i, names[r.IntN(len(names))])
	}
	d := Doc{
		ID: id, Content: strings.Join(words, " "), Partition: partition, Owner: owner, Product: product,
		Tier:  []vault.Tier{vault.Episodic, vault.Semantic}[r.IntN(2)],
		Kind:  []vault.Kind{vault.Fact, vault.Preference, vault.Event}[r.IntN(3)],
		Field: []vault.Field{vault.Learnings, vault.Conventions}[r.IntN(2)],
		Trust: []vault.Trust{vault.TrustOperator, vault.TrustStandard, vault.TrustStandard, vault.TrustUntrusted, vault.TrustHostile}[r.IntN(5)],
		Tags:  pick(r, []string{"infra", "billing"}), Confidence: 0.3 + 0.7*r.Float64(),
		Source:  vault.Source{Type: vault.SourceExplicitSave},
		Created: t0.Add(-time.Duration(r.IntN(60*24)) * time.Hour),
	}
	d.Sensitive = d.Partition == vault.Sensitive
	return d
}

// randLeakQuery returns a query of a few vocabulary words, maybe a name
// from names, with slot (a placeholder for the word under test) among them
// but never first, where it would not read as a name.
func randLeakQuery(r *rand.Rand, names []string) string {
	words := make([]string, 1+r.IntN(4))
	for i := range words {
		words[i] = leakWords[r.IntN(len(leakWords))]
	}
	if len(names) > 0 && r.IntN(3) == 0 {
		words = slices.Insert(words, 1+r.IntN(len(words)), names[r.IntN(len(names))])
	}
	q := strings.Join(slices.Insert(words, 1+r.IntN(len(words)), "%s"), " ")
	if r.IntN(3) == 0 {
		// A time, in one of the ways when reads, around the documents'
		// dates (t0 and the 60 days before).
		d := t0.AddDate(0, 0, -r.IntN(60))
		q += " " + []string{d.Format("on 02.01.2006"), d.Format("on 2006-01-02"), d.Format("in mid-January 2006"), d.Format("on Jan 2, 2006"), "last week"}[r.IntN(5)]
	}
	return q
}

// randLeakSearch returns the options of a search, other than its text
// and read rule: mode, filters on classes and on documents, floor,
// limit, MaxTerms.
func randLeakSearch(r *rand.Rand, embedded bool) Query {
	modes := []Mode{Exact, Hybrid}
	if embedded {
		modes = append(modes, Semantic)
	}
	q := Query{Mode: modes[r.IntN(len(modes))], Now: t0, Floor: r.IntN(4) != 0}
	if r.IntN(3) == 0 {
		q.Filters = Filters{Partitions: pick(r, []vault.Partition{vault.Public, vault.Internal, vault.Archive}), Tiers: pick(r, []vault.Tier{vault.Episodic, vault.Semantic}),
			Tags: pick(r, []string{"infra", "billing"}), IncludeArchived: r.IntN(2) == 0}
		if r.IntN(2) == 0 {
			q.Filters.MinConfidence = 0.5
		}
	}
	if r.IntN(3) == 0 {
		q.Limit = 1 + r.IntN(4)
	}
	if r.IntN(4) == 0 {
		q.MaxTerms = 1 + r.IntN(3)
	}
	return q
}

// leakConfig is the engine configuration of the random vaults: the
// defaults, embedded by a bag of hashed terms or keyword-only.
func leakConfig(emb *bagEmbedder) Config {
	if emb == nil {
		return DefaultConfig(nil)
	}
	return DefaultConfig(emb)
}

// bucket is the dimension of emb's vectors a term counts in.
func (b *bagEmbedder) bucket(word string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(Terms(nil, word)[0]))
	return h.Sum32() % uint32(b.dim)
}

// freshName returns a name no document in docs holds, other than avoid,
// and that is no misspelling of a word they hold (alike), that emb
// embeds as it embeds like (so that a query naming one is embedded as a
// query naming the other).
func freshName(r *rand.Rand, emb *bagEmbedder, docs []Doc, like string, avoid []string) string {
	var held []string
	for _, d := range docs {
		held = append(held, Terms(nil, d.Content)...)
	}
	slices.Sort(held)
	held = slices.Compact(held)
	for {
		n := randName(r)
		if emb != nil && emb.bucket(n) != emb.bucket(like) || slices.Contains(avoid, n) ||
			slices.ContainsFunc(docs, func(d Doc) bool { return strings.Contains(d.Content, n) }) ||
			slices.ContainsFunc(held, func(u string) bool { return alike(n, term(n), u) }) {
			continue
		}
		return n
	}
}

// admittedByClass reports whether q admits d by its class: the trust
// floor, the read rule and the filters on classes, before the filters on
// a document's own tags, confidence and dates.
func admittedByClass(d *Doc, q *Query) bool {
	k := classOf(d)
	return trustWeight(d.Trust) > 0 && q.Filters.matchClass(&k) && (q.Allow == nil || q.Allow(d))
}

// diffResults describes how a differs from b once every w in a's unheard
// names reads z, or returns "" when they are the same answer: the same
// hits in the same order with the same scores, ranks, shares and
// similarities, the same context and the same counts.
func diffResults(a, b Result, w, z string) string {
	sub := func(s []string) []string {
		out := slices.Clone(s)
		for i := range out {
			if out[i] == w {
				out[i] = z
			}
		}
		return out
	}
	same := func(x, y float64) bool { return x == y || math.IsNaN(x) && math.IsNaN(y) }
	switch {
	case len(a.Hits) != len(b.Hits):
		return fmt.Sprintf("%d hits %v against %d %v", len(a.Hits), ids(a.Hits), len(b.Hits), ids(b.Hits))
	case a.BelowFloor != b.BelowFloor:
		return fmt.Sprintf("below floor %d against %d", a.BelowFloor, b.BelowFloor)
	case a.Dropped != b.Dropped:
		return fmt.Sprintf("dropped %d against %d", a.Dropped, b.Dropped)
	case !slices.Equal(sub(a.Unheard), b.Unheard):
		return fmt.Sprintf("unheard %q against %q", a.Unheard, b.Unheard)
	case a.Context != b.Context || a.Tokens != b.Tokens:
		return fmt.Sprintf("context %q against %q", a.Context, b.Context)
	}
	for i := range a.Hits {
		x, y := a.Hits[i], b.Hits[i]
		if x.Doc.ID != y.Doc.ID || x.Doc.Content != y.Doc.Content || !same(x.Score, y.Score) || !same(x.Relevance, y.Relevance) ||
			x.KeywordRank != y.KeywordRank || x.VectorRank != y.VectorRank || !same(x.KeywordShare, y.KeywordShare) || !same(x.Similarity, y.Similarity) {
			return fmt.Sprintf("hit %d: %+v against %+v", i, x, y)
		}
	}
	return ""
}

// TestSearchIgnoresUnseenWords is the property of issue 32, finding 3:
// for random vaults and callers, a query naming a word that only
// documents the search may not return hold (another agent's, another
// product's, sensitive, archived, hostile, or of a class the caller's
// filters leave out) has the answer of the same query naming a word no
// document holds, embedded alike. Converse: the word in a document the
// search may return changes the answer in exact and hybrid modes.
func TestSearchIgnoresUnseenWords(t *testing.T) {
	unseenWords(t, 32, func(w string) string { return w }, randLeakQuery, true)
}

// TestSearchIgnoresUnseenMisspelledNames is TestSearchIgnoresUnseenWords
// for a name the query spells with a slip (a letter doubled, which keeps
// its sound): misspelled names are matched only against the names of
// documents the search may return (Engine.respell). Converse: the name in
// a document the search may return changes the answer.
func TestSearchIgnoresUnseenMisspelledNames(t *testing.T) {
	unseenWords(t, 35, func(w string) string { return w[:3] + w[2:] }, randLeakQuery, true)
}

// TestSearchIgnoresUnseenMisspelledWords is TestSearchIgnoresUnseenWords
// for a word that is not a name (the query types it in lower case) with
// a slip (a letter doubled): a slip of the keyboard is matched only
// against the words of documents the search may return
// (Engine.respellWords). No converse here: a word matched with a slip
// may still leave its document under the floor, where it changes nothing
// (TestSlipOfTheKeyboard shows one found).
func TestSearchIgnoresUnseenMisspelledWords(t *testing.T) {
	// Short queries: only they are respelled (ShortQuery).
	short := func(r *rand.Rand, _ []string) string {
		if r.IntN(2) == 0 {
			return "%s"
		}
		return leakWords[r.IntN(len(leakWords))] + " %s"
	}
	unseenWords(t, 36, func(w string) string { return strings.ToLower(w[:4] + w[3:]) }, short, false)
}

// unseenWords runs TestSearchIgnoresUnseenWords on random stream stream,
// the query (from query) naming spell(w) for a word w documents hold, and
// its converse with converse set.
func unseenWords(t *testing.T, stream uint64, spell func(string) string, query func(*rand.Rand, []string) string, converse bool) {
	cases, seenCases := 0, 0
	for seed := range 300 {
		r := rand.New(rand.NewPCG(uint64(seed), stream))
		var emb *bagEmbedder
		if seed%4 != 0 {
			emb = &bagEmbedder{dim: 32}
		}
		names := []string{randName(r), randName(r), randName(r)}
		docs := make([]Doc, 10+r.IntN(40))
		for i := range docs {
			docs[i] = randLeakDoc(r, fmt.Sprintf("d%02d", i), names)
		}
		for range 4 {
			caller := randCaller(r)
			q := randLeakSearch(r, emb != nil)
			q.Allow = caller.allow
			q.Text = query(r, names)
			var hidden, seen []int // documents the search may not return, and may
			for i := range docs {
				if admittedByClass(&docs[i], &q) {
					if q.Filters.matchDoc(&docs[i], q.Now) {
						seen = append(seen, i)
					}
				} else {
					hidden = append(hidden, i)
				}
			}
			if len(hidden) == 0 {
				continue
			}
			w := freshName(r, nil, docs, "", names)
			sw := spell(w)
			z := freshName(r, emb, docs, sw, append(names, w, sw))
			if sw == strings.ToLower(sw) {
				z = strings.ToLower(z) // a word, as sw is: not a name
			}
			vaultWith := func(holders []int) *Engine {
				e := New(leakConfig(emb))
				for i, d := range docs {
					if slices.Contains(holders, i) {
						d.Content += " " + w
					}
					put(t, e, emb, d)
				}
				return e
			}
			search := func(e *Engine, word string) Result {
				qq := q
				qq.Text = fmt.Sprintf(q.Text, word)
				res, err := e.Search(ctx, qq)
				if err != nil {
					t.Fatal(err)
				}
				return res
			}
			var holders []int
			for _, i := range hidden {
				if len(holders) == 0 || r.IntN(2) == 0 {
					holders = append(holders, i)
				}
			}
			e := vaultWith(holders)
			cases++
			if d := diffResults(search(e, sw), search(e, z), sw, z); d != "" {
				t.Fatalf("seed %d, %s, query %q %+v: %s held by %v only, which it may not see, against %s held nowhere: %s",
					seed, caller.desc, q.Text, q.Filters, w, holders, z, d)
			}
			if !converse || len(seen) == 0 || q.Mode == Semantic {
				continue
			}
			// Scoring every term, so that the word is scored although
			// other terms as rare may come before it; a misspelled name
			// is matched for a search with the floor.
			q.MaxTerms = 0
			q.Floor = q.Floor || sw != w
			i := seen[r.IntN(len(seen))]
			e = vaultWith([]int{i})
			seenCases++
			if d := diffResults(search(e, sw), search(e, z), sw, z); d == "" {
				t.Fatalf("seed %d, %s, query %q: %s in %s, which it may see, gives the answer of %s held nowhere", seed, caller.desc, q.Text, w, docs[i].ID, z)
			}
		}
	}
	t.Logf("%d cases with the word unseen, %d with it seen", cases, seenCases)
}

// TestSearchIgnoresUnseenDocuments: two vaults that hold the same
// documents a search may return, in the same order, and different ones it
// may not (other texts, other vectors, another number of them, some
// removed, one vault built by Put and compacted, the other loaded in
// bulk), give every search the same answer. So do documents it may return
// that were removed: they leave nothing behind.
func TestSearchIgnoresUnseenDocuments(t *testing.T) {
	cases := 0
	for seed := range 200 {
		r := rand.New(rand.NewPCG(uint64(seed), 33))
		var emb *bagEmbedder
		if seed%4 != 0 {
			emb = &bagEmbedder{dim: 32}
		}
		names := []string{randName(r), randName(r), randName(r)}
		caller := randCaller(r)
		q := randLeakSearch(r, emb != nil)
		q.Allow = caller.allow
		// The documents the search may return, and for each vault its
		// own that it may not, drawn until there are enough of each;
		// vault 0 also holds for a while documents it may return (gone).
		var seen, gone []Doc
		var hidden [2][]Doc
		for n := 0; len(seen) < 15 || len(gone) < 5 || len(hidden[0]) < 10 || len(hidden[1]) < 10; n++ {
			if n == 2000 { // filters that admit next to nothing: another search
				n, seen, gone, hidden = 0, nil, nil, [2][]Doc{}
				caller, q = randCaller(r), randLeakSearch(r, emb != nil)
				q.Allow = caller.allow
			}
			d := randLeakDoc(r, fmt.Sprintf("d%04d", n), names)
			switch v := r.IntN(2); {
			case admittedByClass(&d, &q) && len(seen) < 15:
				seen = append(seen, d)
			case admittedByClass(&d, &q):
				gone = append(gone, d)
			case len(hidden[v]) < 10+20*v:
				hidden[v] = append(hidden[v], d)
			}
		}
		// Vault 0 by Put, its hidden documents and the gone ones
		// interleaved, most hidden ones and every gone one removed again
		// (which compacts it); vault 1 loaded in bulk.
		e0 := New(leakConfig(emb))
		var docs1 []Doc
		var vecs1 [][]float32
		h0, h1, g := hidden[0], hidden[1], gone
		for _, d := range seen {
			for len(h0) > 0 && r.IntN(2) == 0 {
				put(t, e0, emb, h0[0])
				h0 = h0[1:]
			}
			for len(g) > 0 && r.IntN(3) == 0 {
				put(t, e0, emb, g[0])
				g = g[1:]
			}
			for len(h1) > 0 && r.IntN(2) == 0 {
				docs1 = append(docs1, h1[0])
				h1 = h1[1:]
			}
			put(t, e0, emb, d)
			docs1 = append(docs1, d)
		}
		put(t, e0, emb, append(h0, g...)...)
		for _, d := range append(hidden[0][:8], gone...) {
			e0.Remove(d.ID)
		}
		docs1 = append(docs1, h1...)
		if emb != nil {
			for _, d := range docs1 {
				vecs1 = append(vecs1, emb.vec(d.Content))
			}
		}
		e1 := New(leakConfig(emb))
		if err := e1.Load(docs1, vecs1); err != nil {
			t.Fatal(err)
		}
		for range 5 {
			qq := q
			qq.Text = fmt.Sprintf(randLeakQuery(r, names), names[r.IntN(len(names))])
			var res [2]Result
			for i, e := range []*Engine{e0, e1} {
				var err error
				if res[i], err = e.Search(ctx, qq); err != nil {
					t.Fatal(err)
				}
			}
			cases++
			if d := diffResults(res[0], res[1], "", ""); d != "" {
				t.Fatalf("seed %d, %s, query %q %+v: the vaults' answers differ: %s", seed, caller.desc, qq.Text, q.Filters, d)
			}
		}
	}
	t.Logf("%d cases", cases)
}

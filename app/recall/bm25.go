package recall

import (
	"cmp"
	"math"
	"slices"
)

// BM25 parameters. SciFact's held-out folds alone prefer strong length
// normalisation (k1 1.2, b 0.9: hybrid nDCG@10 0.7114), while LoCoMo's
// conversations, whose turns are one or two sentences, prefer little
// (k1 0.6, b 0.3: recall_any@5 on turns 66.4 against 64.0), which costs
// SciFact 1.7 points. These are what leave-one-conversation-out
// cross-validation on LoCoMo picks among the settings that keep SciFact's
// hybrid nDCG@10 at or above 0.707 (its figure before this choice), ties
// broken by SciFact: turns 65.8, observations 78.6, SciFact 0.7102
// (cmd/engram-bench/internal/eval).
const (
	DefaultK1 = 0.9
	DefaultB  = 0.6
)

// posting is one document's term frequency in a posting list.
type posting struct {
	doc uint32
	tf  uint32
}

// keywordIndex is an in-memory inverted index scored with Okapi BM25.
// Documents are identified by slot numbers the engine assigns, terms by
// numbers the index assigns: a document's terms are kept as numbers,
// which the garbage collector need not scan and which take a quarter of
// the memory of strings. The statistics BM25 needs (the number of
// documents, their average length, each term's document frequency) are
// those of a search's scope: the index counts each term's documents by
// class, the engine's classes count their documents and length.
type keywordIndex struct {
	k1, b    float64
	ids      map[string]uint32 // term -> its number; never forgotten
	terms    []string          // by term number: the term (a misspelt name's search reads them in order)
	lists    [][]posting       // posting lists by term number, sorted by slot
	byClass  [][]classCount    // by term number: its documents in each class that has some
	docLen   []uint32          // by slot; 0 for a removed or empty document
	docTerms [][]uint32        // unique term numbers by slot, to remove a document
}

// classCount is how many documents of a class hold a term.
type classCount struct{ cls, n uint32 }

func newKeywordIndex(k1, b float64) *keywordIndex {
	return &keywordIndex{k1: k1, b: b, ids: map[string]uint32{}}
}

// id returns term t's number, assigning the next one to a new term.
func (x *keywordIndex) id(t string) uint32 {
	id, ok := x.ids[t]
	if !ok {
		id = uint32(len(x.lists))
		x.ids[t] = id
		x.terms = append(x.terms, t)
		x.lists = append(x.lists, nil)
		x.byClass = append(x.byClass, nil)
	}
	return id
}

// postings returns term t's posting list.
func (x *keywordIndex) postings(t string) []posting {
	if id, ok := x.ids[t]; ok {
		return x.lists[id]
	}
	return nil
}

// add indexes text, of class cls, under slot, which must be new or
// removed.
func (x *keywordIndex) add(slot, cls uint32, text string) {
	x.addCounted(slot, cls, countTerms(Terms(nil, text)))
}

// counted is a text's terms, each once, with their frequencies.
type counted struct {
	terms []string
	tf    []uint32
	n     int // number of terms with repeats: the document's length
}

// countTerms counts the terms of a text; it sorts terms in place.
func countTerms(terms []string) counted {
	slices.Sort(terms)
	unique := 0
	for i, t := range terms {
		if i == 0 || t != terms[i-1] {
			unique++
		}
	}
	// terms is never nil, even for an empty text: remove relies on it.
	c := counted{terms: make([]string, 0, unique), tf: make([]uint32, 0, unique), n: len(terms)}
	for i, t := range terms {
		if i > 0 && t == terms[i-1] {
			c.tf[len(c.tf)-1]++
			continue
		}
		c.terms = append(c.terms, t)
		c.tf = append(c.tf, 1)
	}
	return c
}

// addCounted indexes a counted text, of class cls, under slot, which must
// be new or removed.
func (x *keywordIndex) addCounted(slot, cls uint32, c counted) {
	for int(slot) >= len(x.docLen) {
		x.docLen = append(x.docLen, 0)
		x.docTerms = append(x.docTerms, nil)
	}
	ids := make([]uint32, len(c.terms)) // never nil: remove relies on it
	for i, t := range c.terms {
		id := x.id(t)
		ids[i] = id
		// Slots only grow, so appending keeps posting lists sorted by doc.
		x.lists[id] = append(x.lists[id], posting{slot, c.tf[i]})
		x.count(id, cls, 1)
	}
	x.docLen[slot] = uint32(c.n)
	x.docTerms[slot] = ids
}

// count adds delta (1 or -1) to the documents of class cls that hold term
// id, and forgets a class left with none.
func (x *keywordIndex) count(id, cls uint32, delta int) {
	cs := x.byClass[id]
	for i := range cs {
		if cs[i].cls != cls {
			continue
		}
		cs[i].n = uint32(int(cs[i].n) + delta)
		if cs[i].n == 0 {
			cs[i] = cs[len(cs)-1]
			if cs = cs[:len(cs)-1]; len(cs) == 0 {
				cs = nil
			}
			x.byClass[id] = cs
		}
		return
	}
	if delta > 0 {
		x.byClass[id] = append(cs, classCount{cls, 1})
	}
}

// recount counts each term's documents by class afresh, the class of a
// slot being of[slot], for classes numbered below n: after a bulk load
// and after the engine renumbers slots and classes.
func (x *keywordIndex) recount(of []uint32, n int) {
	x.byClass = slices.Grow(x.byClass[:0], len(x.lists))[:len(x.lists)]
	per := make([]uint32, n)
	var seen []uint32
	for id, ps := range x.lists {
		seen = seen[:0]
		for _, p := range ps {
			c := of[p.doc]
			if per[c] == 0 {
				seen = append(seen, c)
			}
			per[c]++
		}
		var cs []classCount
		if len(seen) > 0 {
			cs = make([]classCount, len(seen))
			for i, c := range seen {
				cs[i] = classCount{c, per[c]}
				per[c] = 0
			}
		}
		x.byClass[id] = cs
	}
}

// remove drops slot, of class cls, from every posting list it is in.
func (x *keywordIndex) remove(slot, cls uint32) {
	if int(slot) >= len(x.docTerms) || x.docTerms[slot] == nil {
		return
	}
	for _, id := range x.docTerms[slot] {
		ps := x.lists[id]
		if i, ok := slices.BinarySearchFunc(ps, slot, func(p posting, s uint32) int { return int(p.doc) - int(s) }); ok {
			ps = slices.Delete(ps, i, i+1)
			x.count(id, cls, -1)
		}
		if len(ps) == 0 {
			ps = nil // the term stays numbered: a later document may bring it back
		}
		x.lists[id] = ps
	}
	x.docLen[slot], x.docTerms[slot] = 0, nil
}

// remap renumbers slots after the engine compacts them; slots mapped to
// -1 must already be removed; the engine then recounts the counts by
// class (recount), since it numbers the classes afresh too.
func (x *keywordIndex) remap(newSlot []int32, n int) {
	for _, ps := range x.lists {
		for i := range ps {
			ps[i].doc = uint32(newSlot[ps[i].doc])
		}
	}
	docLen, docTerms := make([]uint32, n), make([][]uint32, n)
	for old, s := range newSlot {
		if s >= 0 {
			docLen[s], docTerms[s] = x.docLen[old], x.docTerms[old]
		}
	}
	x.docLen, x.docTerms = docLen, docTerms
}

// queryTerm is a distinct term of a query: its posting list, how often
// the query repeats it, and its document frequency in the search's scope.
type queryTerm struct {
	ps  []posting
	qtf int
	df  int
}

// query returns the distinct terms of terms in the order they first
// occur, with their document frequencies in sc.
func (x *keywordIndex) query(terms []string, sc *scope) []queryTerm {
	out := make([]queryTerm, 0, len(terms))
	seen := make(map[string]int, len(terms))
	for _, t := range terms {
		if i, ok := seen[t]; ok {
			out[i].qtf++
			continue
		}
		seen[t] = len(out)
		var ps []posting
		var cs []classCount
		if id, ok := x.ids[t]; ok {
			ps, cs = x.lists[id], x.byClass[id]
		}
		out = append(out, queryTerm{ps: ps, qtf: 1, df: sc.df(ps, cs)})
	}
	return out
}

// idf is Lucene's BM25 idf of a term in df of n documents, always
// positive.
func idf(df, n int) float64 {
	return math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5))
}

// score adds the BM25 score in sc of every document of sc matching the
// query terms to acc (indexed by slot, at least as long as the slot
// count) and appends the slots it touched for the first time to touched.
// Documents outside sc are not scored.
func (x *keywordIndex) score(terms []queryTerm, sc *scope, acc []float32, touched []uint32) []uint32 {
	if sc.n == 0 {
		return touched
	}
	avg := float64(sc.length) / float64(sc.n)
	if avg == 0 {
		avg = 1
	}
	// Terms are summed in query order: float32 addition is not
	// associative, and a score must not change from one call to the next.
	for _, t := range terms {
		if t.df == 0 {
			continue
		}
		w := idf(t.df, sc.n) * float64(t.qtf)
		for _, p := range t.ps {
			if !sc.has(p.doc) {
				continue
			}
			tf := float64(p.tf)
			norm := x.k1 * (1 - x.b + x.b*float64(x.docLen[p.doc])/avg)
			if acc[p.doc] == 0 {
				touched = append(touched, p.doc)
			}
			acc[p.doc] += float32(w * tf * (x.k1 + 1) / (tf + norm))
		}
	}
	return touched
}

// maxScore is the most a document could score for terms in a scope of n
// documents: the sum over the distinct query terms of idf × query
// frequency × (k1+1), the limit of a term's weight as its frequency
// grows. A term no document of the scope holds counts with the idf of a
// term in none, so a query naming what the caller never saw (a person, a
// project) keeps that share unmatched. A score divided by it is the share
// of the query's weight a document matched.
func (x *keywordIndex) maxScore(terms []queryTerm, n int) float64 {
	var sum float64
	for _, t := range terms {
		sum += idf(t.df, n) * float64(t.qtf) * (x.k1 + 1)
	}
	return sum
}

// rarest returns at most n of terms that some document of the scope
// contains, those in the fewest documents first, each counted once.
func rarest(terms []queryTerm, n int) []queryTerm {
	out := make([]queryTerm, 0, len(terms))
	for _, t := range terms {
		if t.df > 0 {
			t.qtf = 1
			out = append(out, t)
		}
	}
	slices.SortStableFunc(out, func(a, b queryTerm) int { return cmp.Compare(a.df, b.df) })
	return out[:min(n, len(out))]
}

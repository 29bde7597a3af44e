package recall

import (
	"cmp"
	"math"
	"math/bits"
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
	norm := x.lengthNorm(sc)
	// Terms are summed in query order: float32 addition is not
	// associative, and a score must not change from one call to the next.
	for _, t := range terms {
		if t.df == 0 {
			continue
		}
		touched = x.scoreTerm(t, idf(t.df, sc.n)*float64(t.qtf), norm, sc, acc, touched)
	}
	return touched
}

// lengthNorm is BM25's length normalisation in sc, for termScore: the
// document of length l has k1 × (1 − b + b × l / avg), where avg is the
// average length of sc's documents (1 for none), as base + per × l.
type lengthNorm struct{ base, per float64 }

func (x *keywordIndex) lengthNorm(sc *scope) lengthNorm {
	avg := float64(sc.length) / float64(sc.n)
	if avg == 0 {
		avg = 1
	}
	return lengthNorm{base: x.k1 * (1 - x.b), per: x.k1 * x.b / avg}
}

// scoreTerm adds the score of term t, of weight w, to acc for each
// document of sc that holds it, as score does.
func (x *keywordIndex) scoreTerm(t queryTerm, w float64, norm lengthNorm, sc *scope, acc []float32, touched []uint32) []uint32 {
	for _, p := range t.ps {
		if !sc.has(p.doc) {
			continue
		}
		if acc[p.doc] == 0 {
			touched = append(touched, p.doc)
		}
		acc[p.doc] += x.termScore(w, norm, p.tf, p.doc)
	}
	return touched
}

// termScore is the BM25 score of a term of weight w (its idf times its
// frequency in the query) in the document in slot doc, where it occurs tf
// times; norm is the scope's length normalisation. It is less than
// w × (k1+1). One division: it runs for every posting a search reads.
func (x *keywordIndex) termScore(w float64, norm lengthNorm, tf, doc uint32) float32 {
	f := float64(tf)
	return float32(w * f * (x.k1 + 1) / (f + norm.base + norm.per*float64(x.docLen[doc])))
}

// pruneSlack is the relative margin by which top's bounds on a score
// must fall short, for float32 rounding.
const pruneSlack = 1e-4

// top appends to best the k best-scoring slots of sc that keep accepts,
// best first, exactly as topSlots over score's acc and touched does,
// without scoring every document that holds a common term. It scores the
// terms in order, as score does, keeping k documents keep accepts whose
// sums so far are the highest it saw (their least, low, is at most the
// k-th best score), and after each term checks whether the terms left
// could still lift a document that no term matched so far to low: each
// adds less than its weight × (k1+1). When they cannot, only the
// documents whose sums could still reach low are scored for the terms
// left, each in term order as score sums it, and topSlots picks among
// them in the order score touched them: a document left out scores less
// than the k-th best, and such documents change nothing of topSlots'
// answer. acc and touched are as for score, but acc holds the complete
// scores of the slots returned only. at is scratch space, 0 for every
// slot, and left so.
func (x *keywordIndex) top(terms []queryTerm, sc *scope, k int, keep func(uint32) bool, acc []float32, touched []uint32, best []ranked, at []int32) ([]uint32, []ranked) {
	if sc.n == 0 || k <= 0 {
		touched = x.score(terms, sc, acc, touched)
		return touched, topSlots(acc, touched, k, keep, best)
	}
	norm := x.lengthNorm(sc)
	ws := make([]float64, len(terms))
	// rest[i] bounds what the terms from i on add to a score.
	rest := make([]float64, len(terms)+1)
	for i := len(terms) - 1; i >= 0; i-- {
		rest[i] = rest[i+1]
		if terms[i].df > 0 {
			ws[i] = idf(terms[i].df, sc.n) * float64(terms[i].qtf)
			rest[i] += ws[i] * (x.k1 + 1)
		}
	}
	h := lowHeap{k: k, at: at}
	defer h.clear()
	var cands []uint32
	for i, t := range terms {
		if t.df == 0 {
			continue
		}
		for _, p := range t.ps {
			if !sc.has(p.doc) {
				continue
			}
			if acc[p.doc] == 0 {
				touched = append(touched, p.doc)
			}
			acc[p.doc] += x.termScore(ws[i], norm, p.tf, p.doc)
			if sum := acc[p.doc]; len(h.sums) < k || sum > h.sums[0] {
				h.offer(p.doc, sum, keep)
			}
		}
		// A pass over the documents touched is worth making only when the
		// next list is longer.
		low, full := h.low()
		if !full || rest[i+1]*(1+pruneSlack) >= float64(low) || nextLen(terms[i+1:]) <= len(touched) {
			continue
		}
		cands = cands[:0] // topSlots leaves out those keep refuses
		for _, s := range touched {
			if (float64(acc[s])+rest[i+1])*(1+pruneSlack) >= float64(low) {
				cands = append(cands, s)
			}
		}
		// Looking the candidates up in the lists left must cost less than
		// reading the next list, after which fewer may be left.
		cost := 0
		for j := i + 1; j < len(terms); j++ {
			if ws[j] > 0 {
				cost += len(cands) * (1 + bits.Len(uint(len(terms[j].ps)/max(len(cands), 1)+1)))
			}
		}
		if cost >= nextLen(terms[i+1:]) {
			continue
		}
		// Each candidate's score is summed in term order, as score sums it.
		bySlot := slices.Clone(cands)
		slices.Sort(bySlot)
		for j := i + 1; j < len(terms); j++ {
			if ws[j] == 0 {
				continue
			}
			ps := terms[j].ps
			for _, s := range bySlot {
				n := gallop(ps, s)
				if ps = ps[n:]; len(ps) > 0 && ps[0].doc == s {
					acc[s] += x.termScore(ws[j], norm, ps[0].tf, s)
				}
			}
		}
		return touched, topSlots(acc, cands, k, keep, best)
	}
	return touched, topSlots(acc, touched, k, keep, best)
}

// nextLen is the length of the posting list of the first of terms that
// the scope has, 0 for none.
func nextLen(terms []queryTerm) int {
	for _, t := range terms {
		if t.df > 0 {
			return len(t.ps)
		}
	}
	return 0
}

// lowHeap keeps k distinct slots that keep accepts with the highest sums
// offered, least first, each with the highest sum offered for it while
// kept, so low is at most the k-th highest sum of the slots offered.
type lowHeap struct {
	k     int
	slots []uint32
	sums  []float32
	at    []int32 // by slot: its index in the heap + 1, 0 when not in it
}

// offer offers slot with its sum so far.
func (h *lowHeap) offer(slot uint32, sum float32, keep func(uint32) bool) {
	full := len(h.slots) == h.k
	if full && sum <= h.sums[0] {
		return
	}
	if i := h.at[slot]; i > 0 {
		h.sums[i-1] = sum // it only grows
		h.down(int(i - 1))
		return
	}
	if !keep(slot) {
		return
	}
	if !full {
		h.slots, h.sums = append(h.slots, slot), append(h.sums, sum)
		i := len(h.sums) - 1
		h.at[slot] = int32(i + 1)
		for i > 0 {
			p := (i - 1) / 2
			if h.sums[p] <= h.sums[i] {
				break
			}
			h.swap(i, p)
			i = p
		}
		return
	}
	h.at[h.slots[0]] = 0
	h.slots[0], h.sums[0] = slot, sum
	h.at[slot] = 1
	h.down(0)
}

func (h *lowHeap) down(i int) {
	for {
		m, l, r := i, 2*i+1, 2*i+2
		if l < len(h.sums) && h.sums[l] < h.sums[m] {
			m = l
		}
		if r < len(h.sums) && h.sums[r] < h.sums[m] {
			m = r
		}
		if m == i {
			return
		}
		h.swap(i, m)
		i = m
	}
}

func (h *lowHeap) swap(i, j int) {
	h.slots[i], h.slots[j] = h.slots[j], h.slots[i]
	h.sums[i], h.sums[j] = h.sums[j], h.sums[i]
	h.at[h.slots[i]], h.at[h.slots[j]] = int32(i+1), int32(j+1)
}

// low returns the least sum kept, and whether k slots are kept.
func (h *lowHeap) low() (float32, bool) {
	if len(h.slots) < h.k {
		return 0, false
	}
	return h.sums[0], true
}

// clear leaves at 0 for every slot.
func (h *lowHeap) clear() {
	for _, s := range h.slots {
		h.at[s] = 0
	}
}

// gallop returns the index of the first posting of ps, sorted by slot,
// whose slot is at least s, searching from the start in growing steps:
// the cost grows with the log of the distance, not of the list.
func gallop(ps []posting, s uint32) int {
	hi := 1
	for hi < len(ps) && ps[hi-1].doc < s {
		hi *= 2
	}
	lo := hi / 2
	hi = min(hi, len(ps))
	n, _ := slices.BinarySearchFunc(ps[lo:hi], s, func(p posting, s uint32) int { return cmp.Compare(p.doc, s) })
	return lo + n
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

// maxScoreOf is maxScore of qt, the query terms of terms, when some of
// them are the spellings a misspelled name was searched as (alts: each
// to the name's term): a memory holds one of them, so the name counts
// once, as its spelling of most weight, not once per spelling. With
// MaxTerms the terms are not those of qt: maxScore then.
func (x *keywordIndex) maxScoreOf(terms []string, qt []queryTerm, alts map[string]string, n int) float64 {
	if len(alts) == 0 {
		return x.maxScore(qt, n)
	}
	var sum float64
	best := map[string]float64{}
	i := 0
	for j, t := range terms {
		if slices.Contains(terms[:j], t) {
			continue
		}
		if i >= len(qt) {
			return x.maxScore(qt, n)
		}
		w := idf(qt[i].df, n) * float64(qt[i].qtf) * (x.k1 + 1)
		if name, ok := alts[t]; ok {
			best[name] = max(best[name], w)
		} else {
			sum += w
		}
		i++
	}
	if i != len(qt) {
		return x.maxScore(qt, n)
	}
	for _, w := range best {
		sum += w
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

package recall

import (
	"math"
	"slices"
)

// BM25 parameters. k1 0.9 and b 0.4 are Anserini's defaults and do well on
// short scientific abstracts (BEIR SciFact) and short notes alike.
const (
	DefaultK1 = 0.9
	DefaultB  = 0.4
)

// posting is one document's term frequency in a posting list.
type posting struct {
	doc uint32
	tf  uint32
}

// termCount is one term of a document with its frequency there.
type termCount struct {
	term string
	tf   uint32
}

// qterm is a query term with its weight.
type qterm struct {
	term string
	w    float64
}

// keywordIndex is an in-memory inverted index scored with Okapi BM25.
// Documents are identified by slot numbers the engine assigns.
type keywordIndex struct {
	k1, b    float64
	postings map[string][]posting
	docLen   []uint32      // by slot; 0 for a removed or empty document
	docTerms [][]termCount // unique terms by slot, to remove a document and for feedback
	seq      [][]uint32    // the document's terms in order, as term ids, by slot
	ids      map[string]uint32
	live     int // documents indexed
	totalLen int // sum of live document lengths
}

func newKeywordIndex(k1, b float64) *keywordIndex {
	return &keywordIndex{k1: k1, b: b, postings: map[string][]posting{}, ids: map[string]uint32{}}
}

// add indexes text under slot, which must be new or removed.
func (x *keywordIndex) add(slot uint32, text string) {
	terms := Terms(nil, text)
	for int(slot) >= len(x.docLen) {
		x.docLen = append(x.docLen, 0)
		x.docTerms = append(x.docTerms, nil)
		x.seq = append(x.seq, nil)
	}
	tf := map[string]uint32{}
	seq := make([]uint32, len(terms))
	for i, t := range terms {
		tf[t]++
		id, ok := x.ids[t]
		if !ok {
			id = uint32(len(x.ids))
			x.ids[t] = id
		}
		seq[i] = id
	}
	x.seq[slot] = seq
	unique := make([]termCount, 0, len(tf))
	for t, n := range tf {
		// Slots only grow, so appending keeps posting lists sorted by doc.
		x.postings[t] = append(x.postings[t], posting{slot, n})
		unique = append(unique, termCount{t, n})
	}
	x.docLen[slot] = uint32(len(terms))
	x.docTerms[slot] = unique
	x.live++
	x.totalLen += len(terms)
}

// remove drops slot from every posting list it is in.
func (x *keywordIndex) remove(slot uint32) {
	if int(slot) >= len(x.docTerms) || x.docTerms[slot] == nil {
		return
	}
	for _, tc := range x.docTerms[slot] {
		ps := x.postings[tc.term]
		if i, ok := slices.BinarySearchFunc(ps, slot, func(p posting, s uint32) int { return int(p.doc) - int(s) }); ok {
			ps = slices.Delete(ps, i, i+1)
		}
		if len(ps) == 0 {
			delete(x.postings, tc.term)
		} else {
			x.postings[tc.term] = ps
		}
	}
	x.live--
	x.totalLen -= int(x.docLen[slot])
	x.docLen[slot], x.docTerms[slot], x.seq[slot] = 0, nil, nil
}

// remap renumbers slots after the engine compacts them; slots mapped to
// -1 must already be removed.
func (x *keywordIndex) remap(newSlot []int32, n int) {
	for t, ps := range x.postings {
		for i := range ps {
			ps[i].doc = uint32(newSlot[ps[i].doc])
		}
		x.postings[t] = ps
	}
	docLen, docTerms, seq := make([]uint32, n), make([][]termCount, n), make([][]uint32, n)
	for old, s := range newSlot {
		if s >= 0 {
			docLen[s], docTerms[s], seq[s] = x.docLen[old], x.docTerms[old], x.seq[old]
		}
	}
	x.docLen, x.docTerms, x.seq = docLen, docTerms, seq
}

// idf is Lucene's BM25 idf, always positive.
func (x *keywordIndex) idf(df int) float64 {
	return math.Log(1 + (float64(x.live)-float64(df)+0.5)/(float64(df)+0.5))
}

// query weighs terms by their count in the query.
func query(terms []string) []qterm {
	var q []qterm
	for _, t := range terms {
		if i := slices.IndexFunc(q, func(x qterm) bool { return x.term == t }); i >= 0 {
			q[i].w++
		} else {
			q = append(q, qterm{t, 1})
		}
	}
	return q
}

// score adds the BM25 score of every document matching the query terms to
// acc (indexed by slot, at least as long as the slot count) and appends
// the slots it touched for the first time to touched.
func (x *keywordIndex) score(terms []string, acc []float32, touched []uint32) []uint32 {
	return x.scoreWeighted(query(terms), acc, touched)
}

// scoreWeighted is score for weighted terms: each term's BM25 part is
// multiplied by its weight.
func (x *keywordIndex) scoreWeighted(q []qterm, acc []float32, touched []uint32) []uint32 {
	if x.live == 0 {
		return touched
	}
	avg := float64(x.totalLen) / float64(x.live)
	if avg == 0 {
		avg = 1
	}
	for _, qt := range q {
		ps := x.postings[qt.term]
		if len(ps) == 0 || qt.w <= 0 {
			continue
		}
		w := x.idf(len(ps)) * qt.w * (x.k1 + 1)
		for _, p := range ps {
			tf := float64(p.tf)
			norm := x.k1 * (1 - x.b + x.b*float64(x.docLen[p.doc])/avg)
			if acc[p.doc] == 0 {
				touched = append(touched, p.doc)
			}
			acc[p.doc] += float32(w * tf / (tf + norm))
		}
	}
	return touched
}

// proximity scores the term-proximity part of BM25TP (Rasolofo and
// Savoy, 2003) for one query: for each pair of distinct query terms that
// occur within window terms of each other in a document, 1/d² is added to
// the pair's weight, which is then scored like a term frequency, with the
// lower idf and weight of the two terms.
type proximity struct {
	x      *keywordIndex
	window int
	ids    []uint32  // query term ids
	idf, w []float64 // by position in ids
	pair   []float64 // scratch: pair weights, len(ids)²
}

func (x *keywordIndex) proximity(q []qterm, window int) *proximity {
	p := &proximity{x: x, window: window}
	for _, t := range q {
		if id, ok := x.ids[t.term]; ok && len(x.postings[t.term]) > 0 {
			p.ids = append(p.ids, id)
			p.idf = append(p.idf, x.idf(len(x.postings[t.term])))
			p.w = append(p.w, t.w)
		}
	}
	p.pair = make([]float64, len(p.ids)*len(p.ids))
	return p
}

// score returns the proximity score of slot.
func (p *proximity) score(slot uint32) float64 {
	n := len(p.ids)
	if n < 2 {
		return 0
	}
	clear(p.pair)
	seq := p.x.seq[slot]
	for i, a := range seq {
		ia := slices.Index(p.ids, a)
		if ia < 0 {
			continue
		}
		for j := i + 1; j < len(seq) && j <= i+p.window; j++ {
			ib := slices.Index(p.ids, seq[j])
			if ib < 0 || ib == ia {
				continue
			}
			d := float64(j - i)
			p.pair[min(ia, ib)*n+max(ia, ib)] += 1 / (d * d)
		}
	}
	x := p.x
	avg := float64(x.totalLen) / float64(x.live)
	norm := x.k1 * (1 - x.b + x.b*float64(x.docLen[slot])/avg)
	var sc float64
	for a := range n {
		for b := a + 1; b < n; b++ {
			if tf := p.pair[a*n+b]; tf > 0 {
				sc += min(p.idf[a], p.idf[b]) * min(p.w[a], p.w[b]) * (x.k1 + 1) * tf / (tf + norm)
			}
		}
	}
	return sc
}

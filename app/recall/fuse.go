package recall

import (
	"math"
	"slices"
)

// Fusion is how hybrid mode combines the keyword and vector lists.
type Fusion string

// Fusions.
const (
	// FusionRRF is reciprocal rank fusion: the sum over the lists of
	// weight/(RRFK + rank). It needs no score calibration, but gives a
	// weak list as much say as a strong one.
	FusionRRF Fusion = "rrf"
	// FusionConvex is a convex combination of normalised scores over the
	// union of both candidate lists, each scored exactly by both indexes:
	// (1-α)·bm25/max(bm25) + α·(cos-min)/(max-min), with α =
	// VectorWeight/(KeywordWeight+VectorWeight). A memory without a vector
	// (sensitive) takes its keyword part for both.
	FusionConvex Fusion = "convex"
)

// fuse sets the hybrid relevance of the hits: the union of kwList and
// vecList. acc holds the BM25 score of every slot (nil without a keyword
// query); q is the unit query vector (nil without one).
func (e *Engine) fuse(hits map[uint32]*Hit, acc []float32, q []float32, kwList, vecList []ranked) {
	kw, vw := e.cfg.KeywordWeight, e.cfg.VectorWeight
	if e.cfg.Fusion == FusionRRF {
		for i, r := range kwList {
			hits[r.slot].Relevance += kw / (e.cfg.RRFK + float64(i+1))
		}
		for i, r := range vecList {
			hits[r.slot].Relevance += vw / (e.cfg.RRFK + float64(i+1))
		}
		return
	}
	alpha := vw / (kw + vw)
	if acc == nil {
		alpha = 1
	}
	if q == nil {
		alpha = 0
	}
	maxKw := 0.0
	if len(kwList) > 0 {
		maxKw = kwList[0].score
	}
	type scored struct{ kw, cos float64 }
	sc := make(map[uint32]scored, len(hits))
	minCos, maxCos := math.Inf(1), math.Inf(-1)
	for slot := range hits {
		var s scored
		if acc != nil && maxKw > 0 {
			s.kw = float64(acc[slot]) / maxKw
		}
		s.cos = math.NaN()
		if q != nil {
			s.cos = hits[slot].Similarity // the best chunk's cosine, set by gather
		}
		if !math.IsNaN(s.cos) {
			minCos, maxCos = math.Min(minCos, s.cos), math.Max(maxCos, s.cos)
		}
		sc[slot] = s
	}
	for slot, h := range hits {
		s := sc[slot]
		vecPart := s.kw
		if !math.IsNaN(s.cos) {
			vecPart = 1
			if maxCos > minCos {
				vecPart = (s.cos - minCos) / (maxCos - minCos)
			}
		}
		h.Relevance = (1-alpha)*s.kw + alpha*vecPart
	}
}

// unit returns a unit-length copy of v.
func unit(v []float32) []float32 {
	out := slices.Clone(v)
	normalise(out)
	return out
}

// normalise scales v to unit length in place.
func normalise(v []float32) {
	var ss float64
	for _, x := range v {
		ss += float64(x) * float64(x)
	}
	inv := 1 / math.Sqrt(ss)
	for i, x := range v {
		v[i] = float32(float64(x) * inv)
	}
}

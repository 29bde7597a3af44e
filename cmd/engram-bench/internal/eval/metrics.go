package eval

import (
	"math"
	"slices"
	"time"
)

// Qrels maps query id -> document id -> graded relevance.
type Qrels map[string]map[string]int

// Metrics are the averages over the judged queries of one mode.
type Metrics struct {
	Queries                     int
	NDCG10, Recall10, Recall100 float64
	MRR10                       float64
	P50, P99                    time.Duration
}

// ndcg is nDCG@k with linear gain, as trec_eval and pytrec_eval compute it.
func ndcg(ranked []string, rel map[string]int, k int) float64 {
	var dcg float64
	for i, d := range ranked[:min(k, len(ranked))] {
		dcg += float64(rel[d]) / math.Log2(float64(i+2))
	}
	var gains []int
	for _, g := range rel {
		if g > 0 {
			gains = append(gains, g)
		}
	}
	slices.SortFunc(gains, func(a, b int) int { return b - a })
	var idcg float64
	for i, g := range gains[:min(k, len(gains))] {
		idcg += float64(g) / math.Log2(float64(i+2))
	}
	if idcg == 0 {
		return 0
	}
	return dcg / idcg
}

// recallAt is the share of relevant documents in the first k.
func recallAt(ranked []string, rel map[string]int, k int) float64 {
	n, found := 0, 0
	for _, g := range rel {
		if g > 0 {
			n++
		}
	}
	for _, d := range ranked[:min(k, len(ranked))] {
		if rel[d] > 0 {
			found++
		}
	}
	if n == 0 {
		return 0
	}
	return float64(found) / float64(n)
}

// mrr is the reciprocal rank of the first relevant document within k.
func mrr(ranked []string, rel map[string]int, k int) float64 {
	for i, d := range ranked[:min(k, len(ranked))] {
		if rel[d] > 0 {
			return 1 / float64(i+1)
		}
	}
	return 0
}

// percentile returns the p-th percentile (0-100) of ds by nearest rank.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(math.Ceil(p/100*float64(len(s)))) - 1
	return s[max(0, min(i, len(s)-1))]
}

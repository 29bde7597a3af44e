package recall

import (
	"context"
	"hash/fnv"
	"math"
	"sync/atomic"
	"time"

	"github.com/engram-app/engram/vault"
)

// bagEmbedder embeds a text as its hashed bag of terms: texts sharing
// terms are similar. It counts the texts it embeds.
type bagEmbedder struct {
	dim   int
	calls atomic.Int64
}

func (b *bagEmbedder) Dim() int     { return b.dim }
func (b *bagEmbedder) Name() string { return "bag-test" }

func (b *bagEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		b.calls.Add(1)
		out[i] = b.vec(t)
	}
	return out, nil
}

func (b *bagEmbedder) vec(text string) []float32 {
	v := make([]float32, b.dim)
	for _, term := range Terms(nil, text) {
		h := fnv.New32a()
		h.Write([]byte(term))
		v[h.Sum32()%uint32(b.dim)]++
	}
	var ss float64
	for _, x := range v {
		ss += float64(x * x)
	}
	if ss > 0 {
		for i := range v {
			v[i] /= float32(math.Sqrt(ss))
		}
	}
	return v
}

var t0 = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

// doc returns an operator's semantic fact created at t0.
func doc(id, content string) Doc {
	return Doc{
		ID: id, Content: content, Kind: vault.Fact, Field: vault.Learnings, Tier: vault.Semantic, Partition: vault.Internal,
		Source: vault.Source{Type: vault.SourceExplicitSave}, Owner: vault.AgentOperator, Trust: vault.TrustOperator,
		Confidence: 0.95, Created: t0,
	}
}

// put indexes docs, embedding the non-sensitive ones with emb (if any).
func put(t interface{ Fatal(...any) }, e *Engine, emb *bagEmbedder, docs ...Doc) {
	for _, d := range docs {
		var v []float32
		if emb != nil {
			v = emb.vec(d.Content)
		}
		if err := e.Put(d, v); err != nil {
			t.Fatal(err)
		}
	}
}

func ids(hits []Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.Doc.ID
	}
	return out
}

// dequantised returns the unit vector v as the vector index keeps it: its
// int8 codes times their scale.
func dequantised(v []float32) []float32 {
	codes := make([]int8, len(v))
	sc := quantiseRow(codes, v)
	out := make([]float32, len(v))
	for i, c := range codes {
		out[i] = float32(c) * sc
	}
	return out
}

// dequantisedChunks is dequantised for each chunk of dim in v.
func dequantisedChunks(v []float32, dim int) []float32 {
	var out []float32
	for off := 0; off < len(v); off += dim {
		out = append(out, dequantised(v[off:off+dim])...)
	}
	return out
}

// bestDot is the best dot product of q with the chunk vectors in v.
func bestDot(q, v []float32) float32 {
	best := float32(math.Inf(-1))
	for off := 0; off+len(q) <= len(v); off += len(q) {
		best = max(best, dot(q, v[off:off+len(q)]))
	}
	return best
}

package embed

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

const (
	benchQuery  = "what did I decide about the database migration plan"
	benchMemory = "Decided to migrate the billing database from MySQL to Postgres during the " +
		"March maintenance window. The ops team will freeze schema changes two weeks before, " +
		"run dual writes for a week, and keep the old cluster read-only for a month as a fallback. " +
		"Alice owns the cutover checklist; Bob handles the replication lag alerts and the rollback script. " +
		"The go/no-go call is on the Friday before; tracked in OPS-1432, with notes in the infra wiki. " +
		"Carol signs off on the budget for the extra replicas."
)

func benchEmbed(b *testing.B, texts []string) {
	u := testUSE(b)
	ctx := context.Background()
	if _, err := u.Embed(ctx, texts); err != nil { // warm the pools
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := u.Embed(ctx, texts); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(texts))/b.Elapsed().Seconds(), "sentences/s")
}

// BenchmarkEmbedQuery is the recall path: one short query (9 words, 11
// tokens).
func BenchmarkEmbedQuery(b *testing.B) { benchEmbed(b, []string{benchQuery}) }

// BenchmarkEmbedMemory is one 493-character memory: 137 tokens, of which
// the model reads 128.
func BenchmarkEmbedMemory(b *testing.B) { benchEmbed(b, []string{benchMemory}) }

// BenchmarkEmbedBatch32 is a batch of 32 texts of mixed length, 2416 tokens
// in all.
func BenchmarkEmbedBatch32(b *testing.B) {
	texts := make([]string, 32)
	for i := range texts {
		if i%2 == 0 {
			texts[i] = benchMemory
		} else {
			texts[i] = strings.Repeat(benchQuery+" ", 1+i%3)
		}
	}
	benchEmbed(b, texts)
}

func BenchmarkTokenize(b *testing.B) {
	u := testUSE(b)
	var ids []int32
	b.ReportAllocs()
	for b.Loop() {
		ids = u.tok.encode(ids[:0], benchMemory)
	}
}

// BenchmarkLoadUSE is the start-up cost: read, check and pack the weights.
func BenchmarkLoadUSE(b *testing.B) {
	dir := testModelDir(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := LoadUSE(dir); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMatmul is the packed product alone, in multiply-adds per second.
func BenchmarkMatmul(b *testing.B) {
	for _, sz := range []struct{ m, k, n int }{{12, 512, 1536}, {128, 512, 1536}, {128, 1536, 512}, {512, 512, 1536}} {
		b.Run(fmt.Sprintf("%dx%dx%d", sz.m, sz.k, sz.n), func(b *testing.B) {
			w := make([]float32, sz.k*sz.n)
			for i := range w {
				w[i] = float32(i%7) * 0.01
			}
			p := pack(w, sz.k, sz.n)
			a := make([]float32, sz.m*sz.k)
			c := make([]float32, sz.m*sz.n)
			bias := make([]float32, sz.n)
			for b.Loop() {
				p.mul(c, a, sz.m, bias, runtime.GOMAXPROCS(0))
			}
			b.ReportMetric(float64(sz.m*sz.k*sz.n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GMAC/s")
		})
	}
}

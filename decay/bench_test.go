package decay

import (
	"math/rand/v2"
	"testing"
	"time"
)

// BenchmarkDecide100k measures one sweep's decisions over 100,000 records;
// ns/op is the time for all 100,000.
func BenchmarkDecide100k(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	base := time.Date(2026, time.January, 1, 0, 0, 0, 0, time.UTC)
	records := make([]Record, 100_000)
	for i := range records {
		records[i] = randomRecord(rng, base)
	}
	p := DefaultPolicy()
	var acted int
	for b.Loop() {
		acted = 0
		for i := range records {
			if Decide(records[i], base, p).Action != Keep {
				acted++
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(records)), "ns/record")
	b.ReportMetric(float64(acted), "acted")
}

func BenchmarkConfidence(b *testing.B) {
	r := Record{Kind: Preference, Initial: 0.95, Created: t0, Verifications: 1}
	now := t0.Add(100 * day)
	var sink float64
	for b.Loop() {
		sink += Confidence(r, now)
	}
	_ = sink
}

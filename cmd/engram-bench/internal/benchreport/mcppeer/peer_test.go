package mcppeer_test

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/engram-app/engram/cmd/engram-bench/internal/benchreport/mcppeer"
)

// BenchmarkPeer compares `engram mcp` with the reference MCP memory server
// over stdio (this package): the same Go SDK client makes 1,000
// stores then 1,000 searches through each, timed per call, then four
// clients (four processes, as four editors would start them) store 100
// memories each at once and the benchmark counts what each server kept.
// Needs npx (Node) for the reference; `engram-bench report` runs the same
// comparison with the embedding model.
//
//	go test ./cmd/engram-bench/internal/benchreport/mcppeer -run '^$' -bench Peer -benchtime 1x
func BenchmarkPeer(b *testing.B) {
	if _, err := exec.LookPath("npx"); err != nil {
		b.Skip("npx not found: the reference server runs on Node")
	}
	bin := filepath.Join(b.TempDir(), "engram")
	build := exec.Command("go", "build", "-o", bin, "github.com/engram-app/engram/cmd/engram")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("build engram: %v\n%s", err, out)
	}
	for b.Loop() {
		e, ref, err := mcppeer.Run(context.Background(), mcppeer.Config{Engram: bin})
		if errors.Is(err, mcppeer.ErrUnavailable) {
			b.Skip(err)
		}
		if err != nil {
			b.Fatal(err)
		}
		for _, r := range []mcppeer.Result{e, ref} {
			b.ReportMetric(ms(r.Store.P50), r.Name+"-store-p50-ms")
			b.ReportMetric(ms(r.Store.P99), r.Name+"-store-p99-ms")
			b.ReportMetric(ms(r.Search.P50), r.Name+"-search-p50-ms")
			b.ReportMetric(ms(r.Search.P99), r.Name+"-search-p99-ms")
			b.ReportMetric(float64(r.Kept), r.Name+"-kept")
			b.ReportMetric(float64(r.Acked), r.Name+"-acked")
		}
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

package mcppeer_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/engram-app/engram/app/embed"
	"github.com/engram-app/engram/app/recall"
	"github.com/engram-app/engram/cmd/engram-bench/internal/benchreport/mcppeer"
)

// BenchmarkPeer compares `engram mcp` with the reference MCP memory server
// over stdio (this package), at 1,000 and 10,000 memories: the same Go SDK
// client makes 1,000 stores then 1,000 searches through each, timed per
// call (at 10,000 the first 9,000 memories are stored beforehand, untimed),
// then four clients (four processes, as four editors would start them)
// store 100 memories each at once and the benchmark counts what each
// server kept. Engram recalls with the embedding model when
// ENGRAM_MODEL_DIR names it, keyword-only otherwise. Needs npx (Node) for
// the reference; `engram-bench report` runs the same comparison.
//
//	ENGRAM_MODEL_DIR=$PWD/.cache/model/use-lite go test ./cmd/engram-bench/internal/benchreport/mcppeer -run '^$' -bench Peer -benchtime 1x
func BenchmarkPeer(b *testing.B) {
	if _, err := exec.LookPath("npx"); err != nil {
		b.Skip("npx not found: the reference server runs on Node")
	}
	bin := filepath.Join(b.TempDir(), "engram")
	build := exec.Command("go", "build", "-o", bin, "github.com/engram-app/engram/cmd/engram")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("build engram: %v\n%s", err, out)
	}
	var emb recall.Embedder
	if dir := os.Getenv("ENGRAM_MODEL_DIR"); dir != "" {
		u, err := embed.LoadUSE(dir)
		if err != nil {
			b.Fatal(err)
		}
		emb = u
	}
	for _, size := range []int{1000, 10000} {
		b.Run(fmt.Sprint(size), func(b *testing.B) {
			for b.Loop() {
				e, ref, err := mcppeer.Run(context.Background(), mcppeer.Config{Engram: bin, Size: size, Embedder: emb})
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
		})
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

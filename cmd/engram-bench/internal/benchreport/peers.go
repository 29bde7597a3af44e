package benchreport

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/engram-app/engram/app/embed"
	"github.com/engram-app/engram/app/recall"
	"github.com/engram-app/engram/cmd/engram-bench/internal/benchreport/mcppeer"
	"github.com/engram-app/engram/cmd/engram-bench/internal/eval"
)

// ratio prints a/b, or "n/a" when b is zero.
func ratio(a, b float64) string {
	if b == 0 {
		return "n/a"
	}
	if r := a / b; r < 0.1 {
		return fmt.Sprintf("%.3f×", r)
	}
	return fmt.Sprintf("%.2f×", a/b)
}

// mcpSection compares `engram mcp` with the reference MCP memory server
// (mcppeer) and writes its section and mcp.png. What cannot run here (no
// npx, no engram binary) is written as skipped, with the reason.
func mcpSection(ctx context.Context, o Options, md *strings.Builder, logf func(string, ...any)) error {
	md.WriteString("## MCP over stdio: `engram mcp` and the reference memory server\n\n")
	bin := o.Engram
	if bin == "" {
		dir, err := os.MkdirTemp("", "engram-report-bin-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		bin = filepath.Join(dir, "engram")
		logf("building engram for the MCP comparison")
		if out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/engram-app/engram/cmd/engram").CombinedOutput(); err != nil {
			fmt.Fprintf(md, "Skipped: could not build engram (%v): %s\n\n", err, firstLine(string(out)))
			return nil
		}
	}
	cfg := mcppeer.Config{Engram: bin, N: 1000, Clients: 4, PerClient: 100, Log: o.Log}
	recallNote := "keyword recall (no embedding model)"
	if o.Quick {
		cfg.N, recallNote = 200, "keyword recall (--quick)"
	} else if emb, err := loadEmbedder(o.ModelDir); err != nil {
		logf("MCP comparison without the embedding model: %v", err)
	} else {
		cfg.Embedder, recallNote = emb, "hybrid recall with "+emb.Name()
	}
	e, ref, err := mcppeer.Run(ctx, cfg)
	refErr := ""
	if errors.Is(err, mcppeer.ErrUnavailable) {
		refErr = err.Error()
	} else if err != nil {
		return err
	}
	fmt.Fprintf(md, "The same Go SDK client drives both over stdio, each server in its own process as an editor starts it. One client makes %d stores then %d searches, each call timed; then %d clients, all connected first, store %d memories each at once, and afterwards each server's store is read back to count which acknowledged writes are still there.\n\n",
		cfg.N, cfg.N, cfg.Clients, cfg.PerClient)
	fmt.Fprintf(md, "| | `engram mcp` | %s | Engram / reference |\n|---|---|---|---|\n", mcppeer.Reference)
	row := func(name string, a, b time.Duration) {
		if refErr != "" {
			fmt.Fprintf(md, "| %s | %s | skipped | |\n", name, ms(a))
			return
		}
		fmt.Fprintf(md, "| %s | %s | %s | %s |\n", name, ms(a), ms(b), ratio(float64(a), float64(b)))
	}
	row("store p50", e.Store.P50, ref.Store.P50)
	row("store p99", e.Store.P99, ref.Store.P99)
	row("search p50", e.Search.P50, ref.Search.P50)
	row("search p99", e.Search.P99, ref.Search.P99)
	row("process start and handshake, median (the reference through npx)", e.Connect, ref.Connect)
	kept := func(r mcppeer.Result) string {
		s := fmt.Sprintf("%d of %d acknowledged", r.Kept, r.Acked)
		if r.Failed > 0 {
			s += fmt.Sprintf(", %d failed", r.Failed)
		}
		if r.Unreadable > 0 {
			s += fmt.Sprintf(", %d unreadable lines", r.Unreadable)
		}
		return s
	}
	refKept := "skipped"
	if refErr == "" {
		refKept = kept(ref)
	}
	fmt.Fprintf(md, "| concurrent writes kept | %s | %s | |\n\n", kept(e), refKept)
	fmt.Fprintf(md, "Engram: the bridge forwards each call over loopback HTTP to an Engram serving a fresh vault in this process, with %s; every store passes the guard and is written with fsync. Its per-agent rate limit is lifted for the run. The reference reads its whole JSON-lines file and writes it whole again (temporary file, rename, no fsync) on every change, and searches by substring.\n\n", recallNote)
	if refErr != "" {
		fmt.Fprintf(md, "Reference skipped: %s.\n\n", refErr)
		return nil
	}
	lats := []latency{
		{Name: "engram mcp: store", P50: e.Store.P50, P99: e.Store.P99},
		{Name: "server-memory: store", P50: ref.Store.P50, P99: ref.Store.P99},
		{Name: "engram mcp: search", P50: e.Search.P50, P99: e.Search.P99},
		{Name: "server-memory: search", P50: ref.Search.P50, P99: ref.Search.P99},
	}
	if err := latencyChart(filepath.Join(o.Out, "mcp.png"), lats); err != nil {
		return err
	}
	md.WriteString("![MCP latency, Engram and the reference](mcp.png)\n\n")
	return nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// loadEmbedder loads USE Lite from dir, or where Engram and make model
// put it.
func loadEmbedder(dir string) (recall.Embedder, error) {
	dirs := []string{dir}
	if dir == "" {
		dirs = []string{embed.DefaultModelDir(), filepath.Join(".cache", "model", "use-lite")}
	}
	var errs []error
	for _, d := range dirs {
		u, err := embed.LoadUSE(d)
		if err == nil {
			return u, nil
		}
		errs = append(errs, err)
	}
	return nil, errors.Join(errs...)
}

// bm25VsHybrid sets Engram's keyword mode, a plain BM25, beside hybrid
// recall on the same run.
func bm25VsHybrid(rep *eval.Report) string {
	var b strings.Builder
	b.WriteString("\n### Side by side: BM25 and hybrid recall\n\n")
	bm, okB := rep.ByMode[recall.Exact]
	hy, okH := rep.ByMode[recall.Hybrid]
	if !okB || !okH {
		b.WriteString("Skipped: --quick runs keyword recall only.\n")
		return b.String()
	}
	b.WriteString("Exact mode is BM25 over Engram's keyword index; hybrid fuses it with the embedding model's ranking. Same corpus, queries and index in one run.\n\n")
	b.WriteString("| | BM25 (exact) | hybrid | hybrid / BM25 |\n|---|---|---|---|\n")
	fmt.Fprintf(&b, "| nDCG@10 | %.3f | %.3f | %s |\n", bm.NDCG10, hy.NDCG10, ratio(hy.NDCG10, bm.NDCG10))
	fmt.Fprintf(&b, "| R@100 | %.3f | %.3f | %s |\n", bm.Recall100, hy.Recall100, ratio(hy.Recall100, bm.Recall100))
	fmt.Fprintf(&b, "| query p50 | %s | %s | %s |\n", ms(bm.P50), ms(hy.P50), ratio(float64(hy.P50), float64(bm.P50)))
	fmt.Fprintf(&b, "| query p99 | %s | %s | %s |\n", ms(bm.P99), ms(hy.P99), ratio(float64(hy.P99), float64(bm.P99)))
	return b.String()
}

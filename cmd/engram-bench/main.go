// Command engram-bench measures Engram on public benchmarks.
//
//	engram-bench retrieval --corpus corpus.jsonl --queries queries.jsonl --qrels qrels.tsv \
//	                       [--mode hybrid|semantic|exact|all] [--k 100] [--run run.tsv] [--recency 0.3]
//	engram-bench report --out DIR [--eval ../shared/eval] [--engram bin/engram] [--quick] [--scale N]
//	engram-bench scale [-n 1000000] [-queries 200] [-mode hybrid|semantic|exact] [-coarse ROWS]
//
// The embedding model is looked up as by Engram ($ENGRAM_MODEL_DIR, then
// the data directory), then in .cache/model/use-lite.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/engram-app/engram/app/recall"
	"github.com/engram-app/engram/cmd/engram-bench/internal/benchreport"
	"github.com/engram-app/engram/cmd/engram-bench/internal/eval"
	"github.com/engram-app/engram/cmd/engram-bench/internal/scale"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "report" {
		os.Exit(report(os.Args[2:]))
	}
	if len(os.Args) > 1 && os.Args[1] == "scale" {
		os.Exit(scaleCmd(os.Args[2:]))
	}
	os.Exit(eval.Main(os.Args[1:], os.Stdout, os.Stderr))
}

func report(args []string) int {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	var o benchreport.Options
	fs.StringVar(&o.Out, "out", "", "write report.md and its charts here")
	fs.StringVar(&o.Eval, "eval", "../shared/eval", "the evaluation corpora")
	fs.StringVar(&o.Engram, "engram", "", "the engram binary compared with the reference MCP memory server (default: build one)")
	fs.BoolVar(&o.Quick, "quick", false, "fewer samples, keyword recall only")
	fs.IntVar(&o.ScaleN, "scale", 0, "the largest synthetic vault measured (default 1,000,000, with --quick 100,000; negative: none)")
	if err := fs.Parse(args); err != nil || o.Out == "" {
		fmt.Fprintln(os.Stderr, "usage: engram-bench report --out DIR [--eval ../shared/eval] [--engram bin/engram] [--quick]")
		return 2
	}
	o.Log = os.Stderr
	if err := benchreport.Run(context.Background(), o); err != nil {
		fmt.Fprintln(os.Stderr, "engram-bench report:", err)
		return 1
	}
	fmt.Fprintf(os.Stderr, "wrote %s/report.md\n", o.Out)
	return 0
}

// scaleCmd runs the large synthetic vault benchmark (see package scale).
func scaleCmd(args []string) int {
	fs := flag.NewFlagSet("scale", flag.ContinueOnError)
	var o scale.Options
	fs.IntVar(&o.N, "n", 1_000_000, "memories")
	fs.IntVar(&o.Queries, "queries", 200, "recalls timed")
	mode := fs.String("mode", "hybrid", "hybrid, semantic or exact")
	fs.IntVar(&o.CoarseRows, "coarse", 0, "vectors from which searches scan sign bits first (0: the default, negative: never)")
	modelDir := fs.String("model", "", "the embedding model's directory (default: where Engram looks)")
	profile := fs.String("cpuprofile", "", "write a CPU profile of the start-up to this file")
	if err := fs.Parse(args); err != nil {
		fmt.Fprintln(os.Stderr, "usage: engram-bench scale [-n 1000000] [-queries 200] [-mode hybrid|semantic|exact] [-coarse ROWS] [-model DIR]")
		return 2
	}
	m, err := recall.ParseMode(*mode)
	if err != nil {
		fmt.Fprintln(os.Stderr, "engram-bench scale:", err)
		return 2
	}
	o.Mode, o.Log = m, os.Stderr
	if o.Embed, err = eval.Model(*modelDir); err != nil {
		fmt.Fprintln(os.Stderr, "engram-bench scale: the embedding model:", err)
		return 1
	}
	if *profile != "" {
		f, err := os.Create(*profile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "engram-bench scale:", err)
			return 1
		}
		defer f.Close()
		o.Profile = f
	}
	r, err := scale.Run(context.Background(), o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "engram-bench scale:", err)
		return 1
	}
	fmt.Print(scale.Markdown([]scale.Result{r}))
	return 0
}

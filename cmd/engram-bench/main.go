// Command engram-bench measures Engram on public benchmarks.
//
//	engram-bench retrieval --corpus corpus.jsonl --queries queries.jsonl --qrels qrels.tsv \
//	                       [--mode hybrid|semantic|exact|all] [--k 100] [--run run.tsv] [--recency 0.3]
//	engram-bench report --out DIR [--eval ../shared/eval] [--engram bin/engram] [--quick]
//
// The embedding model is looked up as by Engram ($ENGRAM_MODEL_DIR, then
// the data directory), then in .cache/model/use-lite.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/engram-app/engram/cmd/engram-bench/internal/benchreport"
	"github.com/engram-app/engram/cmd/engram-bench/internal/eval"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "report" {
		os.Exit(report(os.Args[2:]))
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

// Command engram-bench measures Engram on public benchmarks.
//
//	engram-bench retrieval --corpus corpus.jsonl --queries queries.jsonl --qrels qrels.tsv \
//	                       [--mode hybrid|semantic|exact|all] [--k 100] [--run run.tsv] [--recency 0.3]
//
// The embedding model is looked up as by Engram ($ENGRAM_MODEL_DIR, then
// the data directory), then in .cache/model/use-lite.
package main

import (
	"os"

	"github.com/engram-app/engram/app/recall/eval"
)

func main() {
	os.Exit(eval.Main(os.Args[1:], os.Stdout, os.Stderr))
}

package scale

import (
	"context"
	"strings"
	"testing"

	"github.com/engram-app/engram/app/recall"
)

// TestRunSmall runs the benchmark on a small vault without the model:
// every recall answers, the figures are filled in, and the table shows
// them.
func TestRunSmall(t *testing.T) {
	for _, mode := range []recall.Mode{recall.Hybrid, recall.Semantic} {
		r, err := Run(context.Background(), Options{N: 3000, Queries: 20, Mode: mode, CoarseRows: 1000})
		if err != nil {
			t.Fatal(err)
		}
		if r.N != 3000 || r.QueriesRun != 20 || r.Recalled != 20 {
			t.Errorf("%s: %d memories, %d recalls of which %d answered; want 3000, 20, 20", mode, r.N, r.QueriesRun, r.Recalled)
		}
		// Semantic recalls answer only from the vectors loaded after
		// the keyword index: every one answered says they all loaded.
		if r.Ready <= 0 || r.Vectors < r.Ready || r.HeapMiB <= 0 || r.P50 <= 0 || r.P99 < r.P50 {
			t.Errorf("%s: figures not measured: %+v", mode, r)
		}
		if md := Markdown([]Result{r}); !strings.Contains(md, "| 3000 | "+string(mode)+" |") {
			t.Errorf("%s: table without the run:\n%s", mode, md)
		}
	}
}

// TestRunRefusesNoMemories: a vault of no memories is a clear error.
func TestRunRefusesNoMemories(t *testing.T) {
	if _, err := Run(context.Background(), Options{N: 0}); err == nil || !strings.Contains(err.Error(), "want at least one") {
		t.Fatalf("Run(N 0) = %v, want an error saying at least one", err)
	}
}

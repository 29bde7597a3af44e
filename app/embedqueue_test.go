package app_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/recall"
	"github.com/engram-app/engram/vault/vaulttest"
)

// heldEmbedder embeds like countingEmbedder, but each call waits until
// the test opens the gate, and it records the size of each batch.
type heldEmbedder struct {
	countingEmbedder
	gate    chan struct{}
	mu      sync.Mutex
	batches []int
}

func (g *heldEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	select {
	case <-g.gate:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	g.mu.Lock()
	g.batches = append(g.batches, len(texts))
	g.mu.Unlock()
	return g.countingEmbedder.Embed(ctx, texts)
}

// TestWritesDoNotWaitForVectors: a store is answered while the embedder
// is stuck; the memory is found by keyword at once and semantically once
// its vector came; what waited meanwhile is embedded in batches; a vault
// closed with vectors still waiting gets them at the next start.
func TestWritesDoNotWaitForVectors(t *testing.T) {
	v, _ := vaulttest.New(t)
	g := &heldEmbedder{gate: make(chan struct{})}
	s := newRecallService(t, v, g)
	const n = 40
	var texts []string
	for i := range n {
		m := mustStore(t, s, operator, app.StoreInput{Content: fmt.Sprintf("note %d about the staging cluster %d", i, i*7)})
		texts = append(texts, m.Content)
	}
	// Nothing was embedded yet, and keyword recall finds them all.
	if got := g.n.Load(); got != 0 {
		t.Fatalf("%d texts embedded with the gate shut", got)
	}
	finds := func(mode recall.Mode) {
		t.Helper()
		for _, i := range []int{0, 17, n - 1} {
			q := fmt.Sprintf("note %d staging cluster %d", i, i*7)
			if got := recallIDs(t, s, operator, app.RecallInput{Query: q, Mode: mode}); !slices.Contains(got, texts[i]) {
				t.Fatalf("%s recall %q = %q, want %q among them", mode, q, got, texts[i])
			}
		}
	}
	finds(recall.Exact)
	close(g.gate)
	if err := s.WaitVectors(ctx); err != nil {
		t.Fatal(err)
	}
	if got := g.n.Load(); got != n {
		t.Fatalf("embedded %d texts, want %d", got, n)
	}
	g.mu.Lock()
	batches := len(g.batches)
	g.mu.Unlock()
	if batches >= n {
		t.Errorf("%d embedder calls for %d memories: the waiting writes were not batched", batches, n)
	}
	finds(recall.Semantic)

	// Close while writes wait for vectors: the next start embeds them.
	stuck := &heldEmbedder{gate: make(chan struct{})}
	s2 := newRecallService(t, v, stuck)
	for i := range 5 {
		mustStore(t, s2, operator, app.StoreInput{Content: fmt.Sprintf("late note %d on the billing service", i)})
	}
	s2.Close()
	if got := stuck.n.Load(); got != 0 {
		t.Fatalf("%d texts embedded with the gate shut", got)
	}
	again := &countingEmbedder{}
	s3 := newRecallService(t, v, again)
	if err := s3.WaitEmbedded(ctx); err != nil {
		t.Fatal(err)
	}
	if got := again.n.Load(); got != 5 {
		t.Fatalf("the next start embedded %d texts, want the 5 left waiting", got)
	}
	if got := recallIDs(t, s3, operator, app.RecallInput{Query: "billing service", Mode: recall.Semantic, Limit: 100}); len(got) < 5 {
		t.Fatalf("semantic recall after restart = %d memories, want at least 5", len(got))
	}
}

// TestVectorsStoredLazily: vectors made for written memories are indexed
// at once but stored together later, in one transaction, when the save
// timer fires (or WaitVectors or Close asks); a restart then finds every
// one and embeds nothing again. In a bubble, so that "at once" and "when
// the timer fires" are points of the fake clock, not guesses at how fast
// the machine is.
func TestVectorsStoredLazily(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v, _ := vaulttest.New(t)
		emb := &countingEmbedder{}
		s := newRecallService(t, v, emb)
		if err := s.WaitEmbedded(ctx); err != nil {
			t.Fatal(err)
		}
		const n = 6
		for i := range n {
			mustStore(t, s, operator, app.StoreInput{Content: fmt.Sprintf("note %d on the deploy pipeline and its %d stages", i, i+2)})
		}
		stored := func() int {
			t.Helper()
			k := 0
			if _, err := v.Vectors(func(string, []byte) error { k++; return nil }); err != nil {
				t.Fatal(err)
			}
			return k
		}
		// The queue's worker has embedded them and stopped; the save
		// timer waits on the bubble's clock, which has not moved.
		synctest.Wait()
		if got := recallIDs(t, s, operator, app.RecallInput{Query: "deploy pipeline stages", Mode: recall.Semantic, Limit: 20}); len(got) != n {
			t.Fatalf("semantic recall found %d memories once their vectors were made, want %d", len(got), n)
		}
		if got := stored(); got != 0 {
			t.Fatalf("%d vectors stored at once, want none before the save", got)
		}
		time.Sleep(vectorSaveEvery)
		synctest.Wait()
		if got := stored(); got != n {
			t.Fatalf("%d vectors stored after the save timer, want %d", got, n)
		}
		s.Close()
		again := &countingEmbedder{}
		s2 := newRecallService(t, v, again)
		defer s2.Close()
		if err := s2.WaitEmbedded(ctx); err != nil {
			t.Fatal(err)
		}
		if got := again.n.Load(); got != 0 {
			t.Fatalf("the restart embedded %d texts, want none: every vector was stored", got)
		}
	})
}

// vectorSaveEvery is how often upkeep stores the vectors made for written
// memories (upkeep's vectorSaveEvery).
const vectorSaveEvery = 2 * time.Second

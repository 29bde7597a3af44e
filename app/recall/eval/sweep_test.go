package eval

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/recall"
	"github.com/engram-app/engram/vault"
)

// TestSweepSciFact compares keyword and fusion settings on SciFact, on
// each half of the queries, so that a setting chosen on one half can be
// checked on the other. It needs the corpus and the model, so it runs
// only with ENGRAM_EVAL=1:
//
//	ENGRAM_EVAL=1 go test ./app/recall/eval -run TestSweep -v
//
// ENGRAM_EVAL_VAULT names a vault file to keep the ingested corpus in
// between runs (ingesting embeds 5,183 abstracts: minutes).
func TestSweepSciFact(t *testing.T) {
	if os.Getenv("ENGRAM_EVAL") == "" {
		t.Skip("set ENGRAM_EVAL=1 to run the SciFact sweep")
	}
	ctx := context.Background()
	dir := filepath.Join("..", "..", "..", "..", "shared", "eval", "search", "scifact")
	docs, err := ReadJSONL[doc](filepath.Join(dir, "corpus.jsonl"))
	if err != nil {
		t.Skip(err)
	}
	queries, _ := ReadJSONL[query](filepath.Join(dir, "queries.jsonl"))
	qrels, err := readQrels(filepath.Join(dir, "qrels", "test.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	emb, err := loadModel(os.Getenv("ENGRAM_MODEL_DIR"), true)
	if err != nil {
		emb, err = loadModel(filepath.Join("..", "..", "..", ".cache", "model", "use-lite"), true)
	}
	if err != nil {
		t.Skip(err)
	}
	path := os.Getenv("ENGRAM_EVAL_VAULT")
	if path == "" {
		path = filepath.Join(t.TempDir(), "vault.db")
	}
	pass := []byte("engram-bench")
	v, err := vault.Open(path, vault.Options{NoSync: true})
	if err == nil {
		err = v.Unlock(ctx, pass)
	} else {
		v, err = vault.Create(ctx, path, pass, vault.CreateOptions{KDF: vault.KDFCost{Time: 1, MemoryKiB: 64, Threads: 1}, Options: vault.Options{NoSync: true}})
		if err == nil {
			var svc *app.Service
			svc, err = app.New(v, app.Options{Recall: recall.New(recall.DefaultConfig(emb))})
			if err == nil {
				_, err = ingest(ctx, svc, docs, &benchClock{}, &Report{Stored: map[string]int{}}, t.Logf)
			}
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	byHash := map[string]string{}
	for _, d := range docs {
		byHash[vault.HashContent(d.Title+"\n"+d.Text)] = d.ID
	}
	mems, _, err := v.List(vault.ListFilter{})
	if err != nil {
		t.Fatal(err)
	}
	byMemory := map[string]string{}
	for _, m := range mems {
		byMemory[m.ID] = byHash[m.ContentHash]
	}
	var judged []query
	for _, q := range queries {
		if qrels[q.ID] != nil {
			judged = append(judged, q)
		}
	}

	type variant struct {
		name string
		mode recall.Mode
		set  func(*recall.Config)
	}
	variants := []variant{{"exact", recall.Exact, func(*recall.Config) {}}, {"semantic", recall.Semantic, func(*recall.Config) {}},
		{"hybrid", recall.Hybrid, func(*recall.Config) {}}}
	for _, w := range []float64{0.3, 0.1} {
		variants = append(variants, variant{fmt.Sprintf("rrf vec %.1f", w), recall.Hybrid, func(c *recall.Config) { c.Fusion, c.VectorWeight = recall.FusionRRF, w }})
	}
	for _, a := range []float64{0.1, 0.2, 0.3, 0.4} {
		variants = append(variants, variant{fmt.Sprintf("convex α %.2f", a), recall.Hybrid, func(c *recall.Config) {
			c.Fusion, c.KeywordWeight, c.VectorWeight = recall.FusionConvex, 1-a, a
		}})
	}
	for _, kb := range [][2]float64{{1.2, 0.75}, {0.9, 0.75}, {1.2, 0.4}} {
		variants = append(variants, variant{fmt.Sprintf("hybrid k1 %.1f b %.2f", kb[0], kb[1]), recall.Hybrid, func(c *recall.Config) { c.K1, c.B = kb[0], kb[1] }})
	}
	// A floor under the cosine of vector candidates (MinSimilarity).
	for _, f := range []float64{0.3, 0.5, 0.6, 0.7} {
		for _, mode := range []recall.Mode{recall.Semantic, recall.Hybrid} {
			variants = append(variants, variant{fmt.Sprintf("%s floor %.1f", mode, f), mode, func(c *recall.Config) { c.MinSimilarity = f }})
		}
	}
	// ENGRAM_EVAL_ONLY, a regular expression, picks variants by name.
	if re := os.Getenv("ENGRAM_EVAL_ONLY"); re != "" {
		variants = slices.DeleteFunc(variants, func(v variant) bool { return !regexp.MustCompile(re).MatchString(v.name) })
	}
	for _, vr := range variants {
		cfg := recall.DefaultConfig(emb)
		cfg.MaxEpisodic, cfg.MaxSemantic, cfg.MaxTokens = -1, -1, -1
		vr.set(&cfg)
		svc, err := app.New(v, app.Options{Recall: recall.New(cfg)})
		if err != nil {
			t.Fatal(err)
		}
		var halves [2][]query
		for i, q := range judged {
			halves[i%2] = append(halves[i%2], q)
		}
		var got [2]Metrics
		for h := range halves {
			if got[h], err = evaluate(ctx, svc, byMemory, halves[h], qrels, vr.mode, 100, nil); err != nil {
				t.Fatal(err)
			}
		}
		all := (got[0].NDCG10*float64(got[0].Queries) + got[1].NDCG10*float64(got[1].Queries)) / float64(len(judged))
		t.Logf("%-16s nDCG@10 %.4f (even %.4f, odd %.4f)  R@100 even %.4f", vr.name, all, got[0].NDCG10, got[1].NDCG10, got[0].Recall100)
	}
}

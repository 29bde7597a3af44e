package app_test

import (
	"context"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/embed"
	"github.com/engram-app/engram/app/internal/cputime"
	"github.com/engram-app/engram/app/recall"
	"github.com/engram-app/engram/vault"
	"github.com/engram-app/engram/vault/vaulttest"
)

// hashEmbedder makes a pseudo-random unit vector of dim from each text's
// hash: as costly to store and load as a real model's vectors, free to
// make.
type hashEmbedder struct {
	dim  int
	name string
}

func (h hashEmbedder) Dim() int     { return h.dim }
func (h hashEmbedder) Name() string { return h.name }
func (h hashEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		f := fnv.New64a()
		f.Write([]byte(t))
		r := rand.New(rand.NewPCG(f.Sum64(), 1))
		v := make([]float32, h.dim)
		var ss float64
		for j := range v {
			v[j] = float32(r.NormFloat64())
			ss += float64(v[j]) * float64(v[j])
		}
		for j := range v {
			v[j] /= float32(math.Sqrt(ss))
		}
		out[i] = v
	}
	return out, ctx.Err()
}

// benchSentence returns a note of about 30 English-looking words.
func benchSentence(z *rand.Zipf) string {
	syll := []string{"de", "ploy", "ser", "vice", "con", "fig", "ra", "tion", "build", "test", "pipe", "line", "stag", "ing", "ca", "che", "mem", "o", "ry", "in", "dex", "ed", "er", "al"}
	words := make([]string, 30)
	for i := range words {
		n := z.Uint64()
		var b strings.Builder
		for k := 0; k < 2+int(n%3); k++ {
			b.WriteString(syll[(n>>(3*k)+uint64(k))%uint64(len(syll))])
		}
		words[i] = b.String()
	}
	return strings.Join(words, " ")
}

// startupVault makes a vault of n plaintext memories of about 30 words,
// each with its stored 512-d vector, and returns its path.
// ENGRAM_STARTUP_VAULT names a file to keep it in between runs (making
// it takes minutes).
func startupVault(b *testing.B, n int, emb hashEmbedder) string {
	path := os.Getenv("ENGRAM_STARTUP_VAULT")
	if path != "" {
		if _, err := os.Stat(path); err == nil {
			return path
		}
	} else {
		path = filepath.Join(b.TempDir(), "vault.db")
	}
	return startupVaultAt(b, path, n, emb)
}

// startupVaultAt makes the vault of startupVault at path.
func startupVaultAt(b *testing.B, path string, n int, emb hashEmbedder) string {
	v, err := vault.Create(context.Background(), path, []byte(vaulttest.Passphrase), vault.CreateOptions{KDF: vaulttest.KDF, Options: vault.Options{NoSync: true}})
	if err != nil {
		b.Fatal(err)
	}
	model := recall.New(recall.DefaultConfig(emb)).Model()
	z := rand.NewZipf(rand.New(rand.NewPCG(3, 4)), 1.1, 2, 1<<20)
	blobs := map[string][]byte{}
	for i := range n {
		m := vaulttest.Memory(vault.Internal, benchSentence(z))
		m.Tier = []vault.Tier{vault.Episodic, vault.Semantic}[i%2]
		got, err := v.Add(m, vault.Actor{Agent: vault.AgentOperator})
		if err != nil {
			b.Fatal(err)
		}
		vec, _ := emb.Embed(context.Background(), []string{got.Content})
		blobs[got.ID] = recall.EncodeVector(model, got.ContentHash, emb.dim, vec[0])
		if len(blobs) == 1000 || i == n-1 {
			if err := v.PutVectors(blobs); err != nil {
				b.Fatal(err)
			}
			clear(blobs)
		}
	}
	if err := v.Close(); err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkStartup100k measures start-up on a vault of 100,000 memories
// whose vectors are stored, without embedding anything: opening the vault
// (locked, as the desktop app starts) and building the recall index until
// recall answers (ready-ms: every memory indexed by keyword), then until
// the stored vectors are loaded too (vectors-ms, from the start). It also
// reports the CPU time to ready (all cores), and the heap the index keeps.
//
//	go test ./app -run '^$' -bench Startup100k -benchtime 3x
func BenchmarkStartup100k(b *testing.B) {
	emb := hashEmbedder{dim: 512, name: "hash-bench"}
	path := startupVault(b, 100_000, emb)
	for b.Loop() {
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		start, cpu := time.Now(), cputime.Used()
		v, err := vault.Open(path, vault.Options{})
		if err != nil {
			b.Fatal(err)
		}
		s, err := app.New(v, app.Options{Recall: recall.New(recall.DefaultConfig(emb)), IndexInBackground: true})
		if err != nil {
			b.Fatal(err)
		}
		if err := s.WaitIndexed(ctx); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(time.Since(start).Milliseconds()), "ready-ms")
		b.ReportMetric(float64((cputime.Used() - cpu).Milliseconds()), "ready-cpu-ms")
		if err := s.WaitEmbedded(ctx); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(time.Since(start).Milliseconds()), "vectors-ms")
		if p := s.EmbedProgress(); p.Total != 0 {
			b.Fatalf("start-up embedded %d memories, want none", p.Total)
		}
		r := s.Recall(ctx, operator, app.RecallInput{Query: "deploy service", Mode: recall.Exact})
		if !r.OK() || len(r.Results) == 0 {
			b.Fatalf("recall after start-up = %+v", r.Response)
		}
		runtime.GC()
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapInuse-before.HeapInuse)/(1<<20), "heap-MiB")
		s.Close()
		v.Close()
	}
}

// BenchmarkReembed measures the background re-embedding after a model
// change: 1,000 memories whose vectors are of another model, embedded
// again by USE Lite (skipped without the model) and stored. It reports
// memories per second, the figure that says how long a model change
// takes before semantic recall is whole again.
//
//	go test ./app -run '^$' -bench Reembed -benchtime 1x
func BenchmarkReembed(b *testing.B) {
	dir := os.Getenv("ENGRAM_MODEL_DIR")
	if dir == "" {
		dir = filepath.Join("..", ".cache", "model", "use-lite")
	}
	u, err := embed.LoadUSE(dir)
	if err != nil {
		b.Skipf("no USE Lite model: %v", err)
	}
	old := hashEmbedder{dim: 512, name: "hash-bench"}
	path := startupVaultAt(b, filepath.Join(b.TempDir(), "vault.db"), 1000, old)
	for b.Loop() {
		b.StopTimer()
		v, err := vault.Open(path, vault.Options{NoSync: true})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		start := time.Now()
		s, err := app.New(v, app.Options{Recall: recall.New(recall.DefaultConfig(u)), IndexInBackground: true})
		if err != nil {
			b.Fatal(err)
		}
		if err := s.WaitEmbedded(ctx); err != nil {
			b.Fatal(err)
		}
		p := s.EmbedProgress()
		b.ReportMetric(float64(p.Done)/time.Since(start).Seconds(), "memories/s")
		if p.Done != 1000 {
			b.Fatalf("re-embedded %d memories, want 1000", p.Done)
		}
		b.StopTimer()
		s.Close()
		// Back to the old model's vectors for the next round.
		if err := v.Close(); err != nil {
			b.Fatal(err)
		}
		os.Remove(path)
		path = startupVaultAt(b, path, 1000, old)
		b.StartTimer()
	}
}

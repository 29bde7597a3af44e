// Package scale measures recall over a large synthetic vault: start-up
// (building the keyword index from decoded memories, then loading the
// stored vectors as the vault holds them), the heap
// the index keeps, and recall latency with each query embedded by the
// real model.
//
// The memories are synthetic: texts of 20 to 40 words drawn with a Zipf
// law from a vocabulary of 50,000, as words in notes are, and 512-d unit
// vectors with cluster structure (each near one of 2,000 centroids, as
// embeddings of notes on a few thousand topics are). Embedding a million
// texts with the model would take hours; each query is embedded by the
// model, and that time is counted in its latency, but the index is
// searched with a synthetic vector near a centroid, so that the search
// sees the data's structure. Nothing is cached on disk.
package scale

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/engram-app/engram/app/recall"
	"github.com/engram-app/engram/vault"
)

// Options configure a run.
type Options struct {
	N       int             // memories (1,000,000)
	Queries int             // recalls timed (200)
	Mode    recall.Mode     // the recalls' mode ("" for hybrid, the app's)
	Embed   recall.Embedder // embeds each query; nil leaves embedding out (reported)
	Log     io.Writer       // progress, or nil
	// CoarseRows is recall.Config.CoarseRows (0 for the default).
	CoarseRows int
	// Profile, when set, receives a CPU profile of the start-up.
	Profile io.Writer
}

// Result is what a run measured.
type Result struct {
	N        int
	Mode     recall.Mode
	Generate time.Duration // making the synthetic texts (not counted)
	Ready    time.Duration // start to recall-ready: the keyword index built from decoded memories, as the app's start-up (upkeep.Index)
	ReadyCPU time.Duration // the CPU time of all cores meanwhile: the figure a busy machine does not stretch
	// Vectors is start to every stored vector loaded: after Ready, each
	// memory's vector blob (the vault's format, int8 codes) decoded and
	// handed to the index, as the app does after recall is ready.
	Vectors    time.Duration
	VectorsCPU time.Duration
	HeapMiB    float64       // the live heap the engine keeps, after a GC
	P50, P99   time.Duration // recall, the query's embedding included
	EmbedP50   time.Duration // the embedding alone
	SearchP50  time.Duration // the search alone
	SearchP99  time.Duration
	SearchCPU  time.Duration // the search's CPU time, all cores, median
	Model      string
	Recalled   int // recalls that returned at least one memory
	QueriesRun int
}

const (
	dim       = 512
	centroids = 2000
	vocab     = 50_000
)

// Run builds the engine and times the recalls.
func Run(ctx context.Context, o Options) (Result, error) {
	if o.N <= 0 {
		return Result{}, fmt.Errorf("scale: %d memories: want at least one", o.N)
	}
	if o.Queries <= 0 {
		o.Queries = 200
	}
	if o.Mode == "" {
		o.Mode = recall.Hybrid
	}
	logf := func(format string, args ...any) {
		if o.Log != nil {
			fmt.Fprintf(o.Log, format+"\n", args...)
		}
	}
	res := Result{N: o.N, Mode: o.Mode, QueriesRun: o.Queries}
	r := rand.New(rand.NewPCG(1, 2))
	word := words(r)
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

	start := time.Now()
	logf("scale: generating %d memories", o.N)
	docs := make([]recall.Doc, o.N)
	var sb strings.Builder
	for i := range docs {
		sb.Reset()
		for j := range 20 + r.IntN(21) {
			if j > 0 {
				sb.WriteByte(' ')
			}
			sb.WriteString(word())
		}
		docs[i] = recall.Doc{
			ID: fmt.Sprintf("m%07d", i), Content: sb.String(), Kind: vault.Fact, Field: vault.Learnings,
			Tier: []vault.Tier{vault.Episodic, vault.Semantic}[i%2], Partition: vault.Internal, Owner: fmt.Sprintf("agent-%02d", i%20),
			Source: vault.Source{Type: vault.SourceExplicitSave}, Trust: vault.TrustOperator, Confidence: 0.95,
			Created: now.Add(-time.Duration(i) * time.Minute),
		}
	}
	cents := make([][]float32, centroids)
	for i := range cents {
		cents[i] = unitVec(r, 1)
	}
	// Each memory's vector is its centroid plus noise of about its norm:
	// neighbours within a topic at cosines of 0.4 to 0.6, as related notes.
	// The noise comes from a pool, mixed per memory, so that making a
	// vector costs about what decoding a stored one does.
	noise := make([][]float32, 4096)
	for i := range noise {
		noise[i] = unitVec(r, 1)
	}
	// The vectors as the vault stores them: made before the clock starts,
	// as the file already holds them at start-up.
	const model = "scale-synthetic"
	blobs := make([][]byte, o.N)
	gen := runtime.GOMAXPROCS(0)
	done := make(chan struct{}, gen)
	for w := range gen {
		go func() {
			for i := w; i < o.N; i += gen {
				q, _ := recall.Quantise(memoryVector(i, cents, noise), dim)
				blobs[i] = recall.EncodeQuantised(model, docs[i].ID, q)
			}
			done <- struct{}{}
		}()
	}
	for range gen {
		<-done
	}
	res.Generate = time.Since(start)
	logf("scale: generated in %v", res.Generate.Round(time.Millisecond))

	runtime.GC()
	before := heap()
	e := recall.New(recall.Config{Recency: 0.3, CoarseRows: o.CoarseRows})
	if o.Profile != nil {
		if err := pprof.StartCPUProfile(o.Profile); err != nil {
			return res, err
		}
	}
	start, cpu0 := time.Now(), cpuTime()
	l := e.NewLoader()
	for i := range docs {
		l.Add(docs[i], nil)
	}
	if err := l.Done(); err != nil {
		return res, err
	}
	res.Ready, res.ReadyCPU = time.Since(start), cpuTime()-cpu0
	// Then the stored vectors, in slices, as upkeep.Index attaches them.
	e.ReserveVectors(o.N)
	const slice = 8192
	vs := make([]recall.DocVector, 0, slice)
	for i := range docs {
		hash, q, ok, err := recall.DecodeVectorOf(blobs[i], model, dim)
		if err != nil || !ok || hash != docs[i].ID {
			return res, fmt.Errorf("scale: vector %d: %v", i, err)
		}
		vs = append(vs, recall.DocVector{ID: docs[i].ID, Content: docs[i].Content, Q: q})
		if len(vs) == slice || i == len(docs)-1 {
			if n := e.SetVectors(vs); n != len(vs) {
				return res, fmt.Errorf("scale: %d of %d vectors set", n, len(vs))
			}
			vs = vs[:0]
		}
	}
	res.Vectors, res.VectorsCPU = time.Since(start), cpuTime()-cpu0
	if o.Profile != nil {
		pprof.StopCPUProfile()
	}
	docs = nil
	runtime.GC()
	res.HeapMiB = float64(heap()-before) / (1 << 20)
	runtime.KeepAlive(blobs) // counted in before: the engine's heap alone
	blobs = nil
	logf("scale: ready in %v, vectors loaded by %v, heap %.0f MiB", res.Ready.Round(time.Millisecond), res.Vectors.Round(time.Millisecond), res.HeapMiB)

	qr := rand.New(rand.NewPCG(3, 4))
	qword := words(qr)
	var all, emb, srch, scpu []time.Duration
	for range o.Queries {
		ws := make([]string, 3+qr.IntN(6))
		for j := range ws {
			ws[j] = qword()
		}
		text := strings.Join(ws, " ")
		c := cents[qr.IntN(centroids)]
		q := slices.Clone(c)
		n := noise[qr.IntN(len(noise))]
		for j := range q {
			q[j] += 0.8 * n[j]
		}
		t0 := time.Now()
		if o.Embed != nil {
			if _, err := o.Embed.Embed(ctx, []string{text}); err != nil {
				return res, err
			}
		}
		t1, c1 := time.Now(), cpuTime()
		out, err := e.Search(ctx, recall.Query{Text: text, Vector: q, Mode: o.Mode, Now: now, Floor: true})
		if err != nil {
			return res, err
		}
		t2, c2 := time.Now(), cpuTime()
		scpu = append(scpu, c2-c1)
		if len(out.Hits) > 0 {
			res.Recalled++
		}
		all, emb, srch = append(all, t2.Sub(t0)), append(emb, t1.Sub(t0)), append(srch, t2.Sub(t1))
	}
	res.P50, res.P99 = percentiles(all)
	res.EmbedP50, _ = percentiles(emb)
	res.SearchP50, res.SearchP99 = percentiles(srch)
	res.SearchCPU, _ = percentiles(scpu)
	if o.Embed != nil {
		res.Model = o.Embed.Name()
	}
	runtime.KeepAlive(e)
	return res, nil
}

// memoryVector is memory i's synthetic vector, newly allocated (the
// engine normalises and quantises it, and keeps only the codes).
func memoryVector(i int, cents, noise [][]float32) []float32 {
	c := cents[(i*7919)%len(cents)]
	// Three noise vectors whose indexes repeat with coprime periods: no
	// two memories of a million share all four parts.
	a, b, d := noise[(i*31)%len(noise)], noise[(i*131+17)%len(noise)], noise[i%4093]
	v := make([]float32, dim)
	for j := range v {
		v[j] = c[j] + 0.6*a[j] + 0.6*b[j] + 0.5*d[j]
	}
	return v
}

// words returns a generator of words drawn with a Zipf law (s 1.1).
func words(r *rand.Rand) func() string {
	z := rand.NewZipf(r, 1.1, 2, vocab-1)
	return func() string { return fmt.Sprintf("w%x", z.Uint64()) }
}

func unitVec(r *rand.Rand, norm float64) []float32 {
	v := make([]float32, dim)
	var ss float64
	for i := range v {
		x := r.NormFloat64()
		v[i], ss = float32(x), ss+x*x
	}
	f := float32(norm / math.Sqrt(ss))
	for i := range v {
		v[i] *= f
	}
	return v
}

// cpuTime is the process's CPU time, user and system, all threads.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func heap() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

func percentiles(ds []time.Duration) (p50, p99 time.Duration) {
	s := slices.Clone(ds)
	slices.Sort(s)
	at := func(p float64) time.Duration { return s[min(len(s)-1, int(p*float64(len(s))))] }
	return at(0.5), at(0.99)
}

// Markdown formats results as a table.
func Markdown(rs []Result) string {
	var b strings.Builder
	b.WriteString("| memories | mode | start to ready (CPU) | vectors loaded by (CPU) | heap | recall p50 | recall p99 | of which embedding p50 | search p50 | search p99 | search CPU p50 |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
	ms := func(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }
	for _, r := range rs {
		fmt.Fprintf(&b, "| %d | %s | %s (%s) | %s (%s) | %.0f MiB | %s | %s | %s | %s | %s | %s |\n", r.N, r.Mode, ms(r.Ready), ms(r.ReadyCPU), ms(r.Vectors), ms(r.VectorsCPU), r.HeapMiB, ms(r.P50), ms(r.P99), ms(r.EmbedP50), ms(r.SearchP50), ms(r.SearchP99), ms(r.SearchCPU))
	}
	return b.String()
}

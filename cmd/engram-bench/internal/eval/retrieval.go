package eval

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/embed"
	"github.com/engram-app/engram/app/recall"
	"github.com/engram-app/engram/vault"
)

// Main runs engram-bench with args (without the program name) and returns
// the exit code: 0 done, 1 failed, 2 usage.
func Main(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "retrieval" {
		fmt.Fprintln(stderr, "usage: engram-bench retrieval --corpus FILE --queries FILE --qrels FILE [--mode hybrid|semantic|exact|all] [--k 100] [--run FILE] [--recency 0.3]")
		return 2
	}
	fs := flag.NewFlagSet("retrieval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o Options
	fs.StringVar(&o.Corpus, "corpus", "", "corpus JSON lines: _id, text, optional title, created_at and session_id")
	fs.StringVar(&o.Queries, "queries", "", "queries JSON lines: _id, text")
	fs.StringVar(&o.Qrels, "qrels", "", "relevance judgements: query-id, corpus-id, score (TSV, header line optional)")
	mode := fs.String("mode", "all", "hybrid, semantic, exact or all")
	fs.IntVar(&o.K, "k", 100, "results per query")
	fs.StringVar(&o.Run, "run", "", "write a TREC run file here")
	fs.Float64Var(&o.Recency, "recency", 0.3, "weight of the recency boost (0 turns it off)")
	fs.StringVar(&o.Set, "set", "", "override recall settings, comma-separated: k1=1.2,b=0.9,alpha=0.25,fusion=rrf,rrfk=60,candidates=100,minsim=0,coarse=1 (for experiments)")
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	if o.Corpus == "" || o.Queries == "" || o.Qrels == "" || o.K <= 0 {
		fmt.Fprintln(stderr, "engram-bench retrieval: --corpus, --queries and --qrels are required, --k must be positive")
		return 2
	}
	if *mode == "all" {
		o.Modes = []recall.Mode{recall.Exact, recall.Semantic, recall.Hybrid}
	} else {
		m, err := recall.ParseMode(*mode)
		if err != nil {
			fmt.Fprintln(stderr, "engram-bench:", err)
			return 2
		}
		o.Modes = []recall.Mode{m}
	}
	o.Log = stderr
	rep, err := Retrieval(context.Background(), o)
	if err != nil {
		fmt.Fprintln(stderr, "engram-bench:", err)
		return 1
	}
	rep.Print(stdout)
	return 0
}

// Options configure a retrieval run.
type Options struct {
	Corpus, Queries, Qrels string
	Modes                  []recall.Mode
	K                      int
	Run                    string // TREC run file to write, or ""
	Recency                float64
	// Set overrides recall settings for an experiment (see ApplySettings).
	Set string
	// ModelDir holds the USE Lite model; "" looks where Engram looks,
	// then in .cache/model/use-lite.
	ModelDir string
	Log      io.Writer // progress; nil for none
}

// Report is the outcome of a retrieval run.
type Report struct {
	Docs      int
	Stored    map[string]int // partition, or the status of a write that was not stored
	Redacted  int            // stored with secrets redacted
	Archived  int            // archived by the service's conflict check while ingesting
	Ingest    time.Duration
	Model     string
	ByMode    map[recall.Mode]Metrics
	Modes     []recall.Mode
	Recency   float64
	K         int
	QueryRuns int
}

// Print writes the report as a table.
func (r *Report) Print(w io.Writer) {
	fmt.Fprintf(w, "corpus: %d documents ingested in %s through Service.Store; model %s; k %d; recency %.2g\n", r.Docs, r.Ingest.Round(time.Second), r.Model, r.K, r.Recency)
	keys := make([]string, 0, len(r.Stored))
	for k := range r.Stored {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "  %-24s %d\n", k, r.Stored[k])
	}
	fmt.Fprintf(w, "  %-24s %d\n", "secrets redacted", r.Redacted)
	fmt.Fprintf(w, "  %-24s %d (recalled all the same)\n", "archived by conflicts", r.Archived)
	fmt.Fprintf(w, "%-9s %7s %7s %7s %7s %7s %9s %9s\n", "mode", "queries", "nDCG@10", "R@10", "R@100", "MRR@10", "p50", "p99")
	for _, m := range r.Modes {
		x := r.ByMode[m]
		fmt.Fprintf(w, "%-9s %7d %7.4f %7.4f %7.4f %7.4f %9s %9s\n", m, x.Queries, x.NDCG10, x.Recall10, x.Recall100, x.MRR10,
			x.P50.Round(time.Microsecond), x.P99.Round(time.Microsecond))
	}
}

type doc struct {
	ID        string    `json:"_id"`
	Title     string    `json:"title"`
	Text      string    `json:"text"`
	CreatedAt time.Time `json:"created_at"`
	// SessionID, when set, is the session the document was written in
	// (source.session_id: recall's neighbouring context).
	SessionID string `json:"session_id"`
}

type query struct {
	ID   string `json:"_id"`
	Text string `json:"text"`
}

// Retrieval ingests the corpus into a fresh temporary vault, runs every
// judged query in each mode and measures the results.
func Retrieval(ctx context.Context, o Options) (*Report, error) {
	logf := func(format string, args ...any) {
		if o.Log != nil {
			fmt.Fprintf(o.Log, format+"\n", args...)
		}
	}
	docs, err := ReadJSONL[doc](o.Corpus)
	if err != nil {
		return nil, err
	}
	queries, err := ReadJSONL[query](o.Queries)
	if err != nil {
		return nil, err
	}
	qrels, err := readQrels(o.Qrels)
	if err != nil {
		return nil, err
	}
	emb, err := loadModel(o.ModelDir, slices.Contains(o.Modes, recall.Semantic) || slices.Contains(o.Modes, recall.Hybrid))
	if err != nil {
		return nil, err
	}

	dir, err := os.MkdirTemp("", "engram-bench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	clock := &benchClock{}
	// A throwaway vault: the cheapest Argon2id cost the vault accepts and
	// no fsync, because nothing in it outlives the run and the figures
	// measure recall, not key derivation or the disk.
	v, err := vault.Create(ctx, filepath.Join(dir, "vault.db"), []byte("engram-bench"), vault.CreateOptions{
		KDF: vault.KDFCost{Time: 1, MemoryKiB: 64, Threads: 1}, Options: vault.Options{NoSync: true, Now: clock.now},
	})
	if err != nil {
		return nil, err
	}
	defer v.Close()
	cfg := recall.DefaultConfig(nil)
	if emb != nil {
		cfg.Embedder = emb
	}
	cfg.Recency = o.Recency
	// The per-recall limits (10 episodic, 20 semantic, 4,000 tokens) are
	// for a model's context; the benchmark ranks k documents per query.
	cfg.MaxEpisodic, cfg.MaxSemantic, cfg.MaxTokens, cfg.Candidates = -1, -1, -1, max(o.K, 100)
	if err := ApplySettings(&cfg, o.Set); err != nil {
		return nil, err
	}
	eng := recall.New(cfg)
	svc, err := app.New(v, app.Options{Recall: eng})
	if err != nil {
		return nil, err
	}
	rep := &Report{Docs: len(docs), Stored: map[string]int{}, ByMode: map[recall.Mode]Metrics{}, Modes: o.Modes, Recency: o.Recency, K: o.K, Model: eng.Model()}
	if rep.Model == "" {
		rep.Model = "none (keyword only)"
	}

	start := time.Now()
	byMemory, err := ingest(ctx, svc, docs, clock, rep, logf)
	if err != nil {
		return nil, err
	}
	// Writes are answered before their vectors are made; the queries
	// start once every memory has one.
	if err := svc.WaitVectors(ctx); err != nil {
		return nil, err
	}
	rep.Ingest = time.Since(start)
	archived, _, err := v.List(vault.ListFilter{Partitions: []vault.Partition{vault.Archive}})
	if err != nil {
		return nil, err
	}
	rep.Archived = len(archived)
	logf("ingested %d documents in %s", len(docs), rep.Ingest.Round(time.Second))

	var judged []query
	for _, q := range queries {
		if qrels[q.ID] != nil {
			judged = append(judged, q)
		}
	}
	var run io.Writer
	if o.Run != "" {
		f, err := os.Create(o.Run)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		w := bufio.NewWriter(f)
		defer w.Flush()
		run = w
	}
	for _, mode := range o.Modes {
		m, err := evaluate(ctx, svc, byMemory, judged, qrels, mode, o.K, run)
		if err != nil {
			return nil, err
		}
		rep.ByMode[mode] = m
		logf("%s: nDCG@10 %.4f", mode, m.NDCG10)
	}
	return rep, nil
}

// ApplySettings changes cfg by "name=value" pairs separated by commas:
// k1, b, alpha (the vector share of the fusion), fusion (convex or rrf),
// rrfk, candidates, minsim and coarse (Config.CoarseRows: 1 makes every
// vector search scan the sign bits first, as at a million memories).
func ApplySettings(cfg *recall.Config, set string) error {
	for _, kv := range strings.Split(set, ",") {
		if kv = strings.TrimSpace(kv); kv == "" {
			continue
		}
		name, val, ok := strings.Cut(kv, "=")
		if !ok {
			return fmt.Errorf("setting %q: want name=value", kv)
		}
		if name == "fusion" {
			cfg.Fusion = recall.Fusion(val)
			continue
		}
		x, err := strconv.ParseFloat(val, 64)
		if err != nil {
			return fmt.Errorf("setting %q: %w", kv, err)
		}
		switch name {
		case "k1":
			cfg.K1 = x
		case "b":
			cfg.B = x
		case "alpha":
			cfg.KeywordWeight, cfg.VectorWeight = 1-x, x
		case "rrfk":
			cfg.RRFK = x
		case "candidates":
			cfg.Candidates = int(x)
		case "minsim":
			cfg.MinSimilarity = x
		case "coarse":
			cfg.CoarseRows = int(x)
		default:
			return fmt.Errorf("setting %q: unknown name", kv)
		}
	}
	return nil
}

// evaluate runs the judged queries in mode through svc and measures the
// results, writing them to run when it is not nil.
func evaluate(ctx context.Context, svc *app.Service, byMemory map[string]string, judged []query, qrels Qrels, mode recall.Mode, k int, run io.Writer) (Metrics, error) {
	operator := app.Request{Caller: app.Caller{Operator: true}, Authorized: true}
	var m Metrics
	var lat []time.Duration
	for _, q := range judged {
		t0 := time.Now()
		// The service's conflict check archives a document it takes to
		// contradict an earlier one on the same subject (different
		// numbers, a negation), which in a corpus of abstracts is common
		// and says nothing of retrieval: archived memories are recalled
		// too, so every stored document is ranked.
		r := svc.Recall(ctx, operator, app.RecallInput{Query: q.Text, Limit: k, Mode: mode, Filters: app.RecallFilters{IncludeArchived: true}})
		lat = append(lat, time.Since(t0))
		if !r.OK() {
			return m, fmt.Errorf("query %s (%s): %s: %s", q.ID, mode, r.Status, r.Message)
		}
		ranked := make([]string, 0, len(r.Results))
		for i, res := range r.Results {
			id := byMemory[res.ID]
			ranked = append(ranked, id)
			if run != nil {
				fmt.Fprintf(run, "%s Q0 %s %d %.6f %s\n", q.ID, id, i+1, res.Score, mode)
			}
		}
		rel := qrels[q.ID]
		m.NDCG10 += ndcg(ranked, rel, 10)
		m.Recall10 += recallAt(ranked, rel, 10)
		m.Recall100 += recallAt(ranked, rel, 100)
		m.MRR10 += mrr(ranked, rel, 10)
	}
	if n := float64(len(judged)); n > 0 {
		m.Queries = len(judged)
		m.NDCG10, m.Recall10, m.Recall100, m.MRR10 = m.NDCG10/n, m.Recall10/n, m.Recall100/n, m.MRR10/n
	}
	m.P50, m.P99 = percentile(lat, 50), percentile(lat, 99)
	return m, nil
}

// ingest stores every document through Service.Store as the operator and
// returns memory id -> corpus id. Documents with a creation time are
// stored one at a time with the vault clock set to it; the others in
// parallel, one writer per CPU (bbolt serialises the commits; the guard
// and the embedder run concurrently).
func ingest(ctx context.Context, svc *app.Service, docs []doc, clock *benchClock, rep *Report, logf func(string, ...any)) (map[string]string, error) {
	operator := app.Request{Caller: app.Caller{Operator: true}, Authorized: true, Reason: "engram-bench"}
	byMemory := make(map[string]string, len(docs))
	var mu sync.Mutex
	var firstErr error
	store := func(d doc) {
		content := d.Text
		if d.Title != "" {
			content = d.Title + "\n" + d.Text
		}
		r := svc.Store(ctx, operator, app.StoreInput{Content: content, Kind: vault.Knowledge, Source: app.Source{Type: vault.SourceToolOutput, Tool: "engram-bench", SessionID: d.SessionID}})
		mu.Lock()
		defer mu.Unlock()
		switch {
		case r.OK():
			byMemory[r.Memory.ID] = d.ID
			rep.Stored[string(r.Memory.Partition)]++
			if slices.ContainsFunc(r.Warnings, func(w string) bool { return strings.Contains(w, "secrets were redacted") }) {
				rep.Redacted++
			}
		case r.Status == app.StatusUnavailable || r.Status == app.StatusDamaged:
			if firstErr == nil {
				firstErr = fmt.Errorf("store %s: %s: %s", d.ID, r.Status, r.Message)
			}
		default:
			rep.Stored["not stored: "+string(r.Status)]++
		}
		if n := len(byMemory); n%500 == 0 && n > 0 {
			logf("stored %d/%d", n, len(docs))
		}
	}
	var timed, untimed []doc
	for _, d := range docs {
		if d.CreatedAt.IsZero() {
			untimed = append(untimed, d)
		} else {
			timed = append(timed, d)
		}
	}
	for _, d := range timed {
		clock.set(d.CreatedAt)
		store(d)
	}
	clock.set(time.Time{})
	work := make(chan doc)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for d := range work {
				store(d)
			}
		})
	}
	for _, d := range untimed {
		work <- d
	}
	close(work)
	wg.Wait()
	return byMemory, firstErr
}

// benchClock is the vault's clock: a fixed time while documents with a
// creation time are stored, the real time otherwise.
type benchClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *benchClock) set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

func (c *benchClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.t.IsZero() {
		return time.Now()
	}
	return c.t
}

// loadModel loads USE Lite when a mode needs vectors.
func loadModel(dir string, need bool) (recall.Embedder, error) {
	if !need {
		return nil, nil
	}
	dirs := []string{dir}
	if dir == "" {
		dirs = []string{embed.DefaultModelDir(), filepath.Join(".cache", "model", "use-lite")}
	}
	var errs []error
	for _, d := range dirs {
		if d == "" {
			continue
		}
		u, err := embed.LoadUSE(d)
		if err == nil {
			return u, nil
		}
		errs = append(errs, err)
	}
	return nil, fmt.Errorf("semantic and hybrid modes need the USE Lite model (app/embed/fetch-model.sh): %w", errors.Join(errs...))
}

// ReadJSONL reads one JSON value of type T per non-empty line of the file
// at path; an error names the line.
func ReadJSONL[T any](path string) ([]T, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var x T
		if err := json.Unmarshal([]byte(line), &x); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		out = append(out, x)
	}
	return out, sc.Err()
}

// readQrels reads "query-id corpus-id score" lines (tabs or spaces),
// skipping a header line.
func readQrels(path string) (Qrels, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	q := Qrels{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		fs := strings.Fields(sc.Text())
		if len(fs) == 0 {
			continue
		}
		if len(fs) != 3 {
			return nil, fmt.Errorf("%s:%d: want query-id, corpus-id and score", path, n)
		}
		score, err := strconv.Atoi(fs[2])
		if err != nil {
			if n == 1 {
				continue // header
			}
			return nil, fmt.Errorf("%s:%d: score: %w", path, n, err)
		}
		if q[fs[0]] == nil {
			q[fs[0]] = map[string]int{}
		}
		q[fs[0]][fs[1]] = score
	}
	return q, sc.Err()
}

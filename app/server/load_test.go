package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/embed"
	"github.com/engram-app/engram/app/recall"
	"github.com/engram-app/engram/app/server"
	"github.com/engram-app/engram/vault"
	"github.com/engram-app/engram/vault/vaulttest"
)

// BenchmarkLoad drives 20 agents over real HTTP against the service as
// `engram serve` runs it: a vault that fsyncs every commit, embedding at
// idle priority with a spare P (app.SpareProc), the recall
// index with its duplicate and conflict checks on every store, and the
// built-in embedder when its model is present (ENGRAM_MODEL_DIR, else
// .cache/model/use-lite; without it the run is keyword-only and says so).
// The vault first holds 10,000 memories, so recall is measured at that
// size. Each agent does a mix of 50% store, 20% recall, 15% get, 10%
// update and 5% history.
//
// Two ways of loading it:
//   - saturated: every agent sends its next request as soon as the last
//     one is answered. This finds the throughput; latency there is queueing
//     (by Little's law the mean is agents / throughput).
//   - paced-N: agents send N requests per second in all, at random
//     (Poisson) moments, each agent one request at a time. Latency is
//     counted from the moment a request was due, so a slow answer also
//     delays what queues behind it (no coordinated omission).
//
// After each phase every acknowledged write must be in the vault exactly
// once with its last acknowledged content.
//
// The vault's clock stands still at vaulttest.Start while the service
// keeps the real one, so the fill's memories look months old to recall:
// the first recall of each writes its access time, as in a vault whose
// memories are old.
//
// A paced phase then times 500 bare bbolt commits with fsync on the same
// disk at the pace of its stores (vaulttest.BareCommits) and reports the
// stores' p99 beside theirs (store/bare-p99); then 500 commits that each
// write as many pages as the phase's commits wrote on average
// (pages/commit, from vault.CommitStats; vaulttest.BareCommitsOf), the
// floor the goal names: store/same-pages-p99.
//
// ENGRAM_LOAD_NOSYNC=1 opens the vault without fsync on commit, which
// separates the disk's share of the latencies from the rest.
//
//	make bench-load   (or: go test ./app/server -run '^$' -bench Load -benchtime 1x)
func BenchmarkLoad(b *testing.B) {
	const agents, prefill = 20, 10000
	env := newLoadEnv(b, agents, prefill)
	b.Run("saturated", func(b *testing.B) {
		for b.Loop() {
			env.run(b, 500, 0)
		}
	})
	for _, rate := range []float64{100, 250} {
		b.Run(fmt.Sprintf("paced-%.0f", rate), func(b *testing.B) {
			for b.Loop() {
				env.run(b, int(rate*20/agents), rate) // 20 seconds
			}
		})
	}
}

type loadEnv struct {
	v      *vault.Vault
	svc    *app.Service
	base   string
	client *http.Client
	tokens []string
	rng    *rand.Rand

	mu    sync.Mutex
	acked map[string]string // id -> last acknowledged content
	mine  [][]string        // per agent, ids it stored
}

// loadEmbedder is the built-in encoder when its model is on disk.
func loadEmbedder(b *testing.B) recall.Embedder {
	dir := os.Getenv("ENGRAM_MODEL_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", ".cache", "model", "use-lite")
	}
	u, err := embed.LoadUSE(dir)
	if err != nil {
		b.Logf("no embedder (%v): keyword-only recall", err)
		return nil
	}
	return u
}

func newLoadEnv(b *testing.B, agents, prefill int) *loadEnv {
	var opts []vaulttest.Option
	if os.Getenv("ENGRAM_LOAD_NOSYNC") == "1" {
		opts = append(opts, vaulttest.NoSync)
		b.Log("ENGRAM_LOAD_NOSYNC=1: commits are not flushed to disk")
	}
	v, _ := vaulttest.New(b, opts...)
	emb := loadEmbedder(b)
	app.SpareProc() // as engram serve runs
	svc, err := app.New(v, app.Options{Recall: recall.New(recall.DefaultConfig(emb)), IdleEmbedding: true})
	if err != nil {
		b.Fatal(err)
	}
	op := app.Request{Caller: app.Caller{Operator: true}, Authorized: true}
	e := &loadEnv{v: v, acked: map[string]string{}, mine: make([][]string, agents), rng: rand.New(rand.NewPCG(1, 2))}
	for i := 0; i < agents; i++ {
		e.tokens = append(e.tokens, svc.AddAgent(context.Background(), op, app.AgentSpec{Name: fmt.Sprintf("agent-%02d", i)}).Token)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- server.New(svc, server.Options{Rate: 1e6, Burst: 1e6, Listening: func(a string) { ready <- a }}).Serve(ctx, "127.0.0.1:0", "", "")
	}()
	e.base = "http://" + <-ready
	b.Cleanup(func() { cancel(); <-done })
	e.client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: agents}}

	// The vault is filled over the same API, eight writers at a time.
	start := time.Now()
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			for i := w; i < prefill; i += 8 {
				a := i % agents
				if err := e.store(a, memoryText(rng, a, i)); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if b.Failed() {
		b.FailNow()
	}
	// The vectors of the fill are made in the background; the phases
	// start from a steady state, with every vector made.
	if err := svc.WaitVectors(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.Logf("filled %d memories in %s (vectors included)", prefill, time.Since(start).Round(time.Millisecond))
	e.svc = svc
	return e
}

var (
	loadSubjects = []string{"the build", "the deploy script", "the billing service", "the staging cluster", "the nightly backup", "the search index", "the auth proxy", "the payments queue", "the mobile release", "the data pipeline", "the docs site", "the load balancer"}
	loadVerbs    = []string{"takes", "needs", "fails without", "runs after", "is owned by", "was moved to", "depends on", "reports to", "is cached for", "retries"}
	loadObjects  = []string{"two reviewers", "the ops team", "a warm cache", "the March freeze", "Postgres 17", "the EU region", "a feature flag", "ninety seconds", "the on-call rota", "a signed tag", "the old cluster", "three shards"}
)

// memoryText is a short, plausible note; the numbers keep notes distinct
// enough that the duplicate check does not merge them.
func memoryText(rng *rand.Rand, agent, i int) string {
	return fmt.Sprintf("Agent %d, note %d: %s %s %s (ticket OPS-%d, seen on day %d).",
		agent, i, loadSubjects[rng.IntN(len(loadSubjects))], loadVerbs[rng.IntN(len(loadVerbs))],
		loadObjects[rng.IntN(len(loadObjects))], 1000+rng.IntN(9000), rng.IntN(365))
}

func (e *loadEnv) call(method, path, token, body string) (int, map[string]any, error) {
	req, _ := http.NewRequest(method, e.base+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := e.client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var m map[string]any
	json.Unmarshal(raw, &m)
	if resp.StatusCode != 200 {
		return resp.StatusCode, m, fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, raw)
	}
	return resp.StatusCode, m, nil
}

func (e *loadEnv) store(a int, content string) error {
	body, _ := json.Marshal(map[string]string{"content": content})
	_, m, err := e.call("POST", "/v1/memories", e.tokens[a], string(body))
	if err != nil {
		return err
	}
	id, _ := m["id"].(string)
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, dup := e.acked[id]; dup || id == "" {
		return fmt.Errorf("store answered id %q twice or not at all", id)
	}
	e.acked[id] = content
	e.mine[a] = append(e.mine[a], id)
	return nil
}

type loadSample struct {
	op string
	d  time.Duration
}

// run lets every agent do ops operations, as fast as it can when rate is
// 0, else at rate requests per second in all.
func (e *loadEnv) run(b *testing.B, ops int, rate float64) {
	agents := len(e.tokens)
	var mu sync.Mutex
	var samples []loadSample
	var failures []string
	seeds := make([]uint64, agents)
	for i := range seeds {
		seeds[i] = e.rng.Uint64()
	}
	stats, err := e.v.CommitStats()
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	var wg sync.WaitGroup
	for a := 0; a < agents; a++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(seeds[a], uint64(a)))
			var local []loadSample
			due := start
			for i := 0; i < ops; i++ {
				if rate > 0 {
					due = due.Add(time.Duration(rng.ExpFloat64() * float64(agents) / rate * float64(time.Second)))
					if wait := time.Until(due); wait > 0 {
						// Pacing, not a wait: the load arrives at rate,
						// at the random times of a Poisson process.
						time.Sleep(wait)
					}
				} else {
					due = time.Now()
				}
				e.mu.Lock()
				mine := e.mine[a]
				id := mine[rng.IntN(len(mine))]
				e.mu.Unlock()
				var kind string
				var err error
				switch r := rng.IntN(100); {
				case r < 50:
					kind = "store"
					err = e.store(a, memoryText(rng, a, 1_000_000+i))
				case r < 70:
					kind = "recall"
					q := fmt.Sprintf(`{"query":"what does %s %s","limit":10}`, loadSubjects[rng.IntN(len(loadSubjects))], loadVerbs[rng.IntN(len(loadVerbs))])
					var m map[string]any
					if _, m, err = e.call("POST", "/v1/recall", e.tokens[a], q); err == nil {
						if res, _ := m["results"].([]any); len(res) == 0 {
							err = fmt.Errorf("recall %s found nothing", q)
						}
					}
				case r < 85:
					kind = "get"
					_, _, err = e.call("GET", "/v1/memories/"+id, e.tokens[a], "")
				case r < 95:
					kind = "update"
					content := memoryText(rng, a, 2_000_000+i)
					body, _ := json.Marshal(map[string]string{"content": content})
					if _, _, err = e.call("PATCH", "/v1/memories/"+id, e.tokens[a], string(body)); err == nil {
						e.mu.Lock()
						e.acked[id] = content
						e.mu.Unlock()
					}
				default:
					kind = "history"
					_, _, err = e.call("GET", "/v1/memories/"+id+"/history", e.tokens[a], "")
				}
				local = append(local, loadSample{kind, time.Since(due)})
				if err != nil {
					mu.Lock()
					failures = append(failures, kind+": "+err.Error())
					mu.Unlock()
				}
			}
			mu.Lock()
			samples = append(samples, local...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	// The next phase starts with no vectors left to make.
	if err := e.svc.WaitVectors(context.Background()); err != nil {
		b.Fatal(err)
	}
	if len(failures) > 0 {
		b.Fatalf("%d failed operations, first: %s", len(failures), failures[0])
	}
	e.verify(b)
	byOp := map[string][]time.Duration{}
	for _, s := range samples {
		byOp[s.op] = append(byOp[s.op], s.d)
	}
	p := func(ds []time.Duration, q int) float64 { return float64(ds[len(ds)*q/100].Microseconds()) / 1000 }
	for name, ds := range byOp {
		slices.Sort(ds)
		b.ReportMetric(p(ds, 50), name+"-p50-ms")
		b.ReportMetric(p(ds, 99), name+"-p99-ms")
	}
	if rate > 0 {
		// The floor under a store, in the same run: a bare bbolt commit
		// with fsync on the same disk, at the pace the stores came; then
		// one that writes as many pages as this phase's commits did on
		// average (the goal's "a commit of the same pages").
		gap := time.Duration(float64(time.Second) / (rate / 2))
		bare := vaulttest.BareCommits(b, b.TempDir(), 500, gap)
		slices.Sort(bare)
		b.ReportMetric(p(bare, 50), "bare-commit-p50-ms")
		b.ReportMetric(p(bare, 99), "bare-commit-p99-ms")
		after, err := e.v.CommitStats()
		if err != nil {
			b.Fatal(err)
		}
		pages := float64(after.Pages-stats.Pages) / float64(max(after.Commits-stats.Commits, 1))
		same, samePages := vaulttest.BareCommitsOf(b, b.TempDir(), 500, gap, max(1, int(math.Round(pages-2))))
		slices.Sort(same)
		b.ReportMetric(pages, "pages/commit")
		b.ReportMetric(samePages, "same-pages/commit")
		b.ReportMetric(p(same, 99), "same-pages-commit-p99-ms")
		if st := byOp["store"]; len(st) > 0 {
			b.ReportMetric(p(st, 99)/p(bare, 99), "store/bare-p99")
			b.ReportMetric(p(st, 99)/p(same, 99), "store/same-pages-p99")
		}
	}
	b.ReportMetric(float64(len(samples))/elapsed.Seconds(), "ops/s")
	b.ReportMetric(float64(len(e.acked)), "memories")
}

// verify checks that every acknowledged write is in the vault once, with
// its last acknowledged content, and nothing else is.
func (e *loadEnv) verify(b *testing.B) {
	all, _, err := e.v.List(vault.ListFilter{})
	if err != nil {
		b.Fatal(err)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(all) != len(e.acked) {
		b.Fatalf("vault holds %d memories, %d writes were acknowledged", len(all), len(e.acked))
	}
	for _, m := range all {
		if e.acked[m.ID] != m.Content {
			b.Fatalf("memory %s holds %q, the last acknowledged write was %q", m.ID, m.Content, e.acked[m.ID])
		}
	}
}

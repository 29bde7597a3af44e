package mcppeer

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/recall"
	"github.com/engram-app/engram/app/server"
	"github.com/engram-app/engram/vault"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Reference is the reference MCP memory server, pinned, run with npx.
const Reference = "@modelcontextprotocol/server-memory@2026.8.31"

// Config says what to run and how much.
type Config struct {
	// Engram is the engram binary; its "mcp" command is measured, bridging
	// to an Engram that Run serves in this process on a temporary vault.
	Engram string
	// Embedder is that Engram's embedding model; nil leaves it
	// keyword-only (hybrid recall then runs as exact).
	Embedder recall.Embedder
	// N is how many stores, then searches, one client makes (1,000).
	N int
	// Size is how many memories each server holds when the searches run
	// (default N): Size-N are stored first, untimed, by the same agent
	// (Engram: over its HTTP API, eight at a time, their vectors made
	// before the timed calls; the reference: written into its file).
	Size int
	// Clients store PerClient memories each, all at once (4 and 100).
	Clients, PerClient int
	Log                io.Writer
}

// Latency is the percentiles of one kind of call.
type Latency struct {
	P50, P99 time.Duration
	N        int
}

// Result is one server's figures.
type Result struct {
	Name string
	// Connect is the median time to start the process and finish the MCP
	// handshake.
	Connect       time.Duration
	Store, Search Latency
	// Acked is how many of the concurrent stores the server acknowledged,
	// Kept how many of those were there afterwards; Failed counts the
	// stores that returned an error.
	Acked, Kept, Failed int
	// Unreadable counts lines of the reference server's file that no
	// longer parse.
	Unreadable int
}

// side is one server of the comparison.
type side struct {
	name string
	// command starts a process for client who.
	command func(who string) *exec.Cmd
	store   func(ctx context.Context, cs *mcp.ClientSession, who string, i int) (key string, err error)
	search  func(ctx context.Context, cs *mcp.ClientSession, who string, i int) error
	// kept counts the keys still stored and the unreadable records.
	kept func(ctx context.Context, keys []string) (kept, unreadable int, err error)
	// fill stores notes 0 to n-1 of client who, untimed; nil when the
	// server was started with them (Engram).
	fill func(ctx context.Context, who string, n int) error
}

// note is the i-th memory of client who: distinct numbers keep Engram
// from merging two of them as duplicates.
func note(who string, i int) string {
	return fmt.Sprintf("%s note %d: build step %d takes %d seconds", who, i, i%17, i%60)
}

// query finds note i of client who.
func query(who string, i int) string { return fmt.Sprintf("%s note %d:", who, i) }

// Run measures Engram, then the reference server. An error wrapping
// ErrUnavailable means only that the reference could not run here.
func Run(ctx context.Context, cfg Config) (engram, ref Result, err error) {
	if cfg.N == 0 {
		cfg.N = 1000
	}
	cfg.Size = max(cfg.Size, cfg.N)
	if cfg.Clients == 0 {
		cfg.Clients, cfg.PerClient = 4, 100
	}
	logf := func(format string, args ...any) {
		if cfg.Log != nil {
			fmt.Fprintf(cfg.Log, format+"\n", args...)
		}
	}
	npx, lookErr := exec.LookPath("npx")
	dir, err := os.MkdirTemp("", "engram-mcppeer-")
	if err != nil {
		return engram, ref, err
	}
	defer os.RemoveAll(dir)

	e, stop, err := startEngram(ctx, cfg, dir)
	if err != nil {
		return engram, ref, err
	}
	defer stop()
	logf("mcp peer: engram mcp, %d stores and searches at %d memories, %d clients at once", cfg.N, cfg.Size, cfg.Clients)
	if engram, err = measure(ctx, cfg, e); err != nil {
		return engram, ref, fmt.Errorf("engram: %w", err)
	}
	if lookErr != nil {
		return engram, ref, fmt.Errorf("%w: npx not found (the reference server runs on Node): %v", ErrUnavailable, lookErr)
	}
	logf("mcp peer: %s", Reference)
	p := reference(npx, filepath.Join(dir, "memory.jsonl"))
	if ref, err = measure(ctx, cfg, p); err != nil {
		return engram, ref, fmt.Errorf("reference: %w", err)
	}
	return engram, ref, nil
}

// measure runs one server through the whole sequence.
func measure(ctx context.Context, cfg Config, s side) (Result, error) {
	r := Result{Name: s.name}
	// The first start may download or compile; it is not timed.
	warm, _, err := connect(ctx, s, "warmup")
	if err != nil {
		if s.name != "engram" {
			err = fmt.Errorf("%w: %v", ErrUnavailable, err)
		}
		return r, err
	}
	warm.Close()
	first := cfg.Size - cfg.N
	if first > 0 && s.fill != nil {
		if err := s.fill(ctx, "solo", first); err != nil {
			return r, fmt.Errorf("fill: %w", err)
		}
	}
	cs, _, err := connect(ctx, s, "solo")
	if err != nil {
		return r, err
	}
	defer cs.Close()
	stores := make([]time.Duration, cfg.N)
	for i := range cfg.N {
		t0 := time.Now()
		if _, err := s.store(ctx, cs, "solo", first+i); err != nil {
			return r, fmt.Errorf("store %d: %w", first+i, err)
		}
		stores[i] = time.Since(t0)
	}
	// The searches look for notes spread over the whole store.
	searches := make([]time.Duration, cfg.N)
	for i := range cfg.N {
		t0 := time.Now()
		if err := s.search(ctx, cs, "solo", i*cfg.Size/cfg.N); err != nil {
			return r, fmt.Errorf("search %d: %w", i, err)
		}
		searches[i] = time.Since(t0)
	}
	r.Store, r.Search = percentiles(stores), percentiles(searches)

	// Several clients, each its own process as each editor starts its
	// own, all connected before any of them writes.
	var sessions []*mcp.ClientSession
	closeAll := func() {
		for _, cs := range sessions {
			cs.Close()
		}
	}
	connects := make([]time.Duration, cfg.Clients)
	for c := range cfg.Clients {
		cs, d, err := connect(ctx, s, client(c))
		if err != nil {
			closeAll()
			return r, err
		}
		sessions, connects[c] = append(sessions, cs), d
	}
	r.Connect = percentiles(connects).P50
	var (
		mu   sync.Mutex
		keys []string
		wg   sync.WaitGroup
	)
	for c, cs := range sessions {
		wg.Go(func() {
			for i := range cfg.PerClient {
				key, err := s.store(ctx, cs, client(c), i)
				mu.Lock()
				if err != nil {
					r.Failed++
				} else {
					keys = append(keys, key)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	closeAll()
	r.Acked = len(keys)
	r.Kept, r.Unreadable, err = s.kept(ctx, keys)
	return r, err
}

func client(c int) string { return fmt.Sprintf("client%c", 'a'+c) }

func connect(ctx context.Context, s side, who string) (*mcp.ClientSession, time.Duration, error) {
	c := mcp.NewClient(&mcp.Implementation{Name: "engram-mcppeer", Version: "1"}, nil)
	t0 := time.Now()
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: s.command(who)}, nil)
	if err != nil {
		return nil, 0, fmt.Errorf("start %s for %s: %w", s.name, who, err)
	}
	return cs, time.Since(t0), nil
}

func percentiles(ds []time.Duration) Latency {
	ds = slices.Clone(ds)
	slices.Sort(ds)
	return Latency{P50: ds[len(ds)/2], P99: ds[min(len(ds)-1, len(ds)*99/100)], N: len(ds)}
}

// call runs a tool and returns its text, or an error for a tool error.
func call(ctx context.Context, cs *mcp.ClientSession, tool string, args map[string]any) (string, error) {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	if res.IsError {
		return "", fmt.Errorf("%s: tool error: %s", tool, b.String())
	}
	return b.String(), nil
}

// startEngram serves a fresh vault on a loopback port with one agent per
// client, and returns the engram side of the comparison.
func startEngram(ctx context.Context, cfg Config, dir string) (side, func(), error) {
	if cfg.Engram == "" {
		return side{}, nil, errors.New("no engram binary given")
	}
	v, err := vault.Create(ctx, filepath.Join(dir, "vault.db"), []byte("engram-mcppeer"),
		vault.CreateOptions{KDF: vault.KDFCost{Time: 1, MemoryKiB: 64, Threads: 1}})
	if err != nil {
		return side{}, nil, err
	}
	operator := app.Request{Caller: app.Caller{Operator: true}, Authorized: true}
	tokens := map[string]string{}
	{
		// The agents, and the memories stored before the timed calls, with
		// their vectors, made at full priority: a service then opens the
		// vault as engram serve does.
		svc, err := app.New(v, app.Options{Recall: recall.New(recall.DefaultConfig(cfg.Embedder))})
		if err != nil {
			v.Close()
			return side{}, nil, err
		}
		for _, who := range append([]string{"warmup", "solo"}, clients(cfg.Clients)...) {
			r := svc.AddAgent(ctx, operator, app.AgentSpec{Name: "bench-" + who})
			if !r.OK() {
				svc.Close()
				v.Close()
				return side{}, nil, fmt.Errorf("add agent: %s %s", r.Status, r.Message)
			}
			tokens[who] = r.Token
		}
		if n := cfg.Size - cfg.N; n > 0 {
			addr, stop, err := serve(ctx, svc)
			if err == nil {
				err = fillHTTP(ctx, "http://"+addr, tokens["solo"], "solo", n)
				stop()
			}
			if err == nil {
				err = svc.WaitVectors(ctx)
			}
			if err != nil {
				svc.Close()
				v.Close()
				return side{}, nil, fmt.Errorf("fill: %w", err)
			}
		}
		svc.Close()
	}
	// As engram serve runs it: new memories are embedded at idle
	// priority, on a spare P, so that they do not hold up the calls.
	app.SpareProc()
	svc, err := app.New(v, app.Options{Recall: recall.New(recall.DefaultConfig(cfg.Embedder)), IdleEmbedding: true})
	if err == nil {
		err = svc.WaitEmbedded(ctx)
	}
	if err != nil {
		v.Close()
		return side{}, nil, err
	}
	addr, stopServer, err := serve(ctx, svc)
	if err != nil {
		svc.Close()
		v.Close()
		return side{}, nil, err
	}
	stop := func() { stopServer(); svc.Close(); v.Close() }
	return side{
		name: "engram",
		command: func(who string) *exec.Cmd {
			c := exec.Command(cfg.Engram, "mcp", "--url", addr)
			c.Env = append(os.Environ(), "ENGRAM_TOKEN="+tokens[who])
			return c
		},
		store: func(ctx context.Context, cs *mcp.ClientSession, who string, i int) (string, error) {
			content := note(who, i)
			out, err := call(ctx, cs, "store_memory", map[string]any{"content": content})
			if err != nil {
				return "", err
			}
			var r struct{ Status, Message string }
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				return "", fmt.Errorf("store_memory: %w", err)
			}
			if r.Status != string(app.StatusOK) {
				return "", fmt.Errorf("store_memory: %s %s", r.Status, r.Message)
			}
			return content, nil
		},
		search: func(ctx context.Context, cs *mcp.ClientSession, who string, i int) error {
			_, err := call(ctx, cs, "recall_memory", map[string]any{"query": query(who, i), "limit": 10})
			return err
		},
		kept: func(ctx context.Context, keys []string) (int, int, error) {
			r := svc.List(ctx, operator, app.ListInput{})
			if !r.OK() {
				return 0, 0, fmt.Errorf("list: %s %s", r.Status, r.Message)
			}
			have := map[string]bool{}
			for _, m := range r.Memories {
				have[m.Content] = true
			}
			return count(keys, have), 0, nil
		},
	}, stop, nil
}

// serve serves svc on a loopback port until stop.
func serve(ctx context.Context, svc *app.Service) (addr string, stop func(), err error) {
	sctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	ready := make(chan string, 1)
	// The per-agent rate limit (200 a second by default) would throttle a
	// client that calls as fast as it can; the reference has none.
	srv := server.New(svc, server.Options{Rate: 1e6, Burst: 1e6, Listening: func(a string) { ready <- a }})
	go func() { done <- srv.Serve(sctx, "127.0.0.1:0", "", "") }()
	select {
	case addr = <-ready:
		return addr, func() { cancel(); <-done }, nil
	case err := <-done:
		cancel()
		return "", nil, fmt.Errorf("serve: %w", err)
	}
}

// fillHTTP stores notes 0 to n-1 of who over Engram's HTTP API, eight
// at a time.
func fillHTTP(ctx context.Context, base, token, who string, n int) error {
	const workers = 8
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: workers}}
	defer hc.CloseIdleConnections()
	errs := make(chan error, workers)
	for w := range workers {
		go func() {
			for i := w; i < n; i += workers {
				body, _ := json.Marshal(map[string]string{"content": note(who, i)})
				req, err := http.NewRequestWithContext(ctx, "POST", base+"/v1/memories", bytes.NewReader(body))
				if err != nil {
					errs <- err
					return
				}
				req.Header.Set("Authorization", "Bearer "+token)
				resp, err := hc.Do(req)
				if err != nil {
					errs <- err
					return
				}
				raw, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					errs <- fmt.Errorf("store note %d: %d %s", i, resp.StatusCode, raw)
					return
				}
			}
			errs <- nil
		}()
	}
	var all []error
	for range workers {
		all = append(all, <-errs)
	}
	return errors.Join(all...)
}

func clients(n int) []string {
	var out []string
	for c := range n {
		out = append(out, client(c))
	}
	return out
}

func count(keys []string, have map[string]bool) int {
	n := 0
	for _, k := range keys {
		if have[k] {
			n++
		}
	}
	return n
}

// reference is the reference server, storing each note as an entity with
// one observation in the JSON-lines file path.
func reference(npx, path string) side {
	return side{
		name: "server-memory",
		command: func(string) *exec.Cmd {
			c := exec.Command(npx, "-y", Reference)
			c.Env = append(os.Environ(), "MEMORY_FILE_PATH="+path)
			return c
		},
		store: func(ctx context.Context, cs *mcp.ClientSession, who string, i int) (string, error) {
			name := fmt.Sprintf("%s-note-%d", who, i)
			_, err := call(ctx, cs, "create_entities", map[string]any{"entities": []map[string]any{{
				"name": name, "entityType": "note", "observations": []string{note(who, i)}}}})
			return name, err
		},
		search: func(ctx context.Context, cs *mcp.ClientSession, who string, i int) error {
			_, err := call(ctx, cs, "search_nodes", map[string]any{"query": query(who, i)})
			return err
		},
		fill: func(_ context.Context, who string, n int) error {
			var b bytes.Buffer
			enc := json.NewEncoder(&b)
			for i := range n {
				enc.Encode(map[string]any{"type": "entity", "name": fmt.Sprintf("%s-note-%d", who, i), "entityType": "note", "observations": []string{note(who, i)}})
			}
			return os.WriteFile(path, b.Bytes(), 0o600)
		},
		kept: func(_ context.Context, keys []string) (int, int, error) {
			f, err := os.Open(path)
			if err != nil {
				return 0, 0, err
			}
			defer f.Close()
			have := map[string]bool{}
			bad := 0
			sc := bufio.NewScanner(f)
			sc.Buffer(make([]byte, 1<<20), 1<<26)
			for sc.Scan() {
				if strings.TrimSpace(sc.Text()) == "" {
					continue
				}
				var e struct{ Type, Name string }
				if json.Unmarshal(sc.Bytes(), &e) != nil {
					bad++
					continue
				}
				if e.Type == "entity" {
					have[e.Name] = true
				}
			}
			return count(keys, have), bad, sc.Err()
		},
	}
}

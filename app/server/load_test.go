package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/server"
	"github.com/engram-app/engram/vault"
	"github.com/engram-app/engram/vault/vaulttest"
)

// BenchmarkLoad runs 20 agents concurrently, each doing ops mixed operations
// (60% store, 25% get, 10% update, 5% history) over real HTTP against a
// vault that fsyncs every commit, then checks that every acknowledged
// write is in the vault exactly once with its content. It reports
// latency percentiles per operation and the throughput.
//
//	go test ./app/server -run '^$' -bench Load -benchtime 1x
func BenchmarkLoad(b *testing.B) {
	const agents, ops = 20, 1000
	for b.Loop() {
		runLoad(b, agents, ops)
	}
}

func runLoad(b *testing.B, agents, ops int) {
	v, _ := vaulttest.New(b)
	svc, err := app.New(v, app.Options{})
	if err != nil {
		b.Fatal(err)
	}
	op := app.Request{Caller: app.Caller{Operator: true}, Authorized: true}
	tokens := make([]string, agents)
	for i := range tokens {
		tokens[i] = svc.AddAgent(context.Background(), op, app.AgentSpec{Name: fmt.Sprintf("agent-%02d", i)}).Token
	}
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- server.New(svc, server.Options{Rate: 1e6, Burst: 1e6, Listening: func(a string) { ready <- a }}).Serve(ctx, "127.0.0.1:0", "", "")
	}()
	base := "http://" + <-ready
	defer func() { cancel(); <-done }()

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: agents}}
	call := func(method, path, token, body string) (int, map[string]any, error) {
		req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := client.Do(req)
		if err != nil {
			return 0, nil, err
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		var m map[string]any
		json.Unmarshal(raw, &m)
		return resp.StatusCode, m, nil
	}
	type sample struct {
		op string
		d  time.Duration
	}
	var mu sync.Mutex
	var samples []sample
	acked := map[string]string{} // id -> content
	var wg sync.WaitGroup
	var failures []string
	start := time.Now()
	for a := 0; a < agents; a++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []string
			var local []sample
			for i := 0; i < ops; i++ {
				kind := "store"
				switch r := (i * 7919) % 100; {
				case r < 60 || len(mine) == 0:
				case r < 85:
					kind = "get"
				case r < 95:
					kind = "update"
				default:
					kind = "history"
				}
				t0 := time.Now()
				var code int
				var body map[string]any
				var err error
				switch kind {
				case "store":
					content := fmt.Sprintf("agent %d note %d: the build step %d takes %d seconds", a, i, i%17, i%60)
					code, body, err = call("POST", "/v1/memories", tokens[a], `{"content":"`+content+`"}`)
					if err == nil && code == 200 {
						id := body["id"].(string)
						mine = append(mine, id)
						mu.Lock()
						if _, dup := acked[id]; dup {
							failures = append(failures, "duplicate id "+id)
						}
						acked[id] = content
						mu.Unlock()
					}
				case "get":
					code, _, err = call("GET", "/v1/memories/"+mine[i%len(mine)], tokens[a], "")
				case "update":
					id := mine[i%len(mine)]
					content := fmt.Sprintf("agent %d updated note %d", a, i)
					code, _, err = call("PATCH", "/v1/memories/"+id, tokens[a], `{"content":"`+content+`"}`)
					if err == nil && code == 200 {
						mu.Lock()
						acked[id] = content
						mu.Unlock()
					}
				case "history":
					code, _, err = call("GET", "/v1/memories/"+mine[i%len(mine)]+"/history", tokens[a], "")
				}
				local = append(local, sample{kind, time.Since(t0)})
				if err != nil || code != 200 {
					mu.Lock()
					failures = append(failures, fmt.Sprintf("%s: %d %v", kind, code, err))
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
	if len(failures) > 0 {
		b.Fatalf("%d failed operations, first: %s", len(failures), failures[0])
	}
	// Every acknowledged write is there once, with its last acknowledged content.
	all, _, err := v.List(vault.ListFilter{})
	if err != nil {
		b.Fatal(err)
	}
	if len(all) != len(acked) {
		b.Fatalf("vault holds %d memories, %d writes were acknowledged", len(all), len(acked))
	}
	for _, m := range all {
		if acked[m.ID] != m.Content {
			b.Fatalf("memory %s holds %q, the last acknowledged write was %q", m.ID, m.Content, acked[m.ID])
		}
	}
	byOp := map[string][]time.Duration{}
	for _, s := range samples {
		byOp[s.op] = append(byOp[s.op], s.d)
	}
	for name, ds := range byOp {
		slices.Sort(ds)
		b.ReportMetric(float64(ds[len(ds)/2].Microseconds())/1000, name+"-p50-ms")
		b.ReportMetric(float64(ds[len(ds)*99/100].Microseconds())/1000, name+"-p99-ms")
	}
	b.ReportMetric(float64(len(samples))/elapsed.Seconds(), "ops/s")
}

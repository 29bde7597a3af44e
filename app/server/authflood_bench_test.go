package server_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/recall"
	"github.com/engram-app/engram/app/server"
	"github.com/engram-app/engram/vault"
	"github.com/engram-app/engram/vault/vaulttest"
)

// floodEnv is a served vault (fsync on commit, as Engram runs) with one
// agent, for BenchmarkBadTokenFlood.
type floodEnv struct {
	v      *vault.Vault
	svc    *app.Service
	base   string
	token  string
	client *http.Client
}

func newFloodEnv(b *testing.B) *floodEnv {
	v, _ := vaulttest.New(b)
	svc, err := app.New(v, app.Options{Recall: recall.New(recall.DefaultConfig(nil))})
	if err != nil {
		b.Fatal(err)
	}
	add := svc.AddAgent(context.Background(), operator, app.AgentSpec{Name: "writer"})
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- server.New(svc, server.Options{Listening: func(a string) { ready <- a }}).Serve(ctx, "127.0.0.1:0", "", "")
	}()
	e := &floodEnv{v: v, svc: svc, base: "http://" + <-ready, token: add.Token,
		client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}}}
	b.Cleanup(func() { cancel(); <-done })
	return e
}

func (e *floodEnv) send(method, path, token, body string) int {
	req, _ := http.NewRequest(method, e.base+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := e.client.Do(req)
	if err != nil {
		return 0
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// flood sends requests with wrong tokens from 4 goroutines (one process,
// as one hostile program would) until stop is closed or n are sent (n=0:
// no bound), perSec in all (0: as fast as the server answers); it
// returns how many were sent.
func (e *floodEnv) flood(stop <-chan struct{}, n int64, perSec float64) int64 {
	return e.floodPath(stop, n, perSec, "GET", "/v1/memories/00000000-0000-4000-8000-000000000000")
}

// floodPath is flood with requests to method and path.
func (e *floodEnv) floodPath(stop <-chan struct{}, n int64, perSec float64, method, path string) int64 {
	return e.floodWhile(stop, n, perSec, method, path, nil)
}

// floodWhile is floodPath sending only while on is true (nil: always).
func (e *floodEnv) floodWhile(stop <-chan struct{}, n int64, perSec float64, method, path string, on *atomic.Bool) int64 {
	var sent atomic.Int64
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			var tick <-chan time.Time
			if perSec > 0 {
				t := time.NewTicker(time.Duration(4 * float64(time.Second) / perSec))
				defer t.Stop()
				tick = t.C
			}
			for {
				select {
				case <-stop:
					return
				default:
				}
				if tick != nil {
					select {
					case <-stop:
						return
					case <-tick:
					}
				}
				if on != nil && !on.Load() {
					if tick == nil {
						// Pacing, not a wait: a paused unpaced flood
						// looks at on every millisecond instead of
						// spinning.
						time.Sleep(time.Millisecond)
					}
					continue
				}
				i := sent.Add(1)
				if n > 0 && i > n {
					sent.Add(-1)
					return
				}
				e.send(method, path, fmt.Sprintf("engram_wrong%d", i), "")
			}
		})
	}
	wg.Wait()
	return sent.Load()
}

// stores times n stores of the agent and returns their p50 and p99.
func (e *floodEnv) stores(b *testing.B, n int, tag string) (p50, p99 time.Duration) {
	return pct(e.timeStores(b, n, tag))
}

// timeStores times n stores of the agent.
func (e *floodEnv) timeStores(b *testing.B, n int, tag string) []time.Duration {
	lat := make([]time.Duration, 0, n)
	for i := range n {
		start := time.Now()
		if code := e.send("POST", "/v1/memories", e.token, fmt.Sprintf(`{"content":"%s note %d: the deploy of service %d waits for review"}`, tag, i, i)); code != 200 {
			b.Fatalf("store %d = %d", i, code)
		}
		lat = append(lat, time.Since(start))
	}
	return lat
}

// pct returns the p50 and p99 of lat.
func pct(lat []time.Duration) (p50, p99 time.Duration) {
	lat = slices.Sorted(slices.Values(lat))
	return lat[len(lat)/2], lat[len(lat)*99/100]
}

// BenchmarkBadTokenFlood measures what requests with wrong tokens cost
// an agent that has a good one. In paced and unpaced, the agent's store
// p50 and p99 are timed quiet, then while one process sends wrong tokens
// from 4 connections: at 8,000 a minute (the rate of the finding)
// or as fast as the server answers; in paced-alternating, 12 windows of
// 50 stores alternate quiet and paced flood in one run, so that the load
// of the rest of the machine weighs on both alike; health-unpaced is the
// control, a
// flood of GET /v1/health (which needs no token) as fast as the server
// answers, what any local process can cost the server. In audit, 8,000 wrong tokens are sent
// and the audit entries counted after the service's Close (which writes
// any summary).
//
//	go test ./app/server -run '^$' -bench BadTokenFlood -benchtime 1x
func BenchmarkBadTokenFlood(b *testing.B) {
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	for _, phase := range []struct {
		name   string
		perSec float64
		path   string
	}{
		{"paced", 8000.0 / 60, "/v1/memories/00000000-0000-4000-8000-000000000000"},
		{"unpaced", 0, "/v1/memories/00000000-0000-4000-8000-000000000000"},
		{"health-unpaced", 0, "/v1/health"},
	} {
		b.Run(phase.name, func(b *testing.B) {
			for b.Loop() {
				e := newFloodEnv(b)
				e.stores(b, 50, "warm")
				q50, q99 := e.stores(b, 300, "quiet")
				stop := make(chan struct{})
				var sent int64
				var wg sync.WaitGroup
				wg.Go(func() { sent = e.floodPath(stop, 0, phase.perSec, "GET", phase.path) })
				start := time.Now()
				p50, p99 := e.stores(b, 300, "flood")
				close(stop)
				wg.Wait()
				b.ReportMetric(ms(q50), "quiet-p50-ms")
				b.ReportMetric(ms(q99), "quiet-p99-ms")
				b.ReportMetric(ms(p50), "flood-p50-ms")
				b.ReportMetric(ms(p99), "flood-p99-ms")
				b.ReportMetric(float64(sent)/time.Since(start).Seconds(), "flood/s")
			}
		})
	}
	b.Run("paced-alternating", func(b *testing.B) {
		for b.Loop() {
			e := newFloodEnv(b)
			e.stores(b, 50, "warm")
			var on atomic.Bool
			stop := make(chan struct{})
			var wg sync.WaitGroup
			wg.Go(func() {
				e.floodWhile(stop, 0, 8000.0/60, "GET", "/v1/memories/00000000-0000-4000-8000-000000000000", &on)
			})
			var quiet, flood []time.Duration
			for w := range 12 {
				on.Store(w%2 == 1)
				lat := e.timeStores(b, 50, fmt.Sprintf("window %d", w))
				if w%2 == 1 {
					flood = append(flood, lat...)
				} else {
					quiet = append(quiet, lat...)
				}
			}
			close(stop)
			wg.Wait()
			q50, q99 := pct(quiet)
			f50, f99 := pct(flood)
			b.ReportMetric(ms(q50), "quiet-p50-ms")
			b.ReportMetric(ms(q99), "quiet-p99-ms")
			b.ReportMetric(ms(f50), "flood-p50-ms")
			b.ReportMetric(ms(f99), "flood-p99-ms")
		}
	})
	b.Run("audit", func(b *testing.B) {
		for b.Loop() {
			e := newFloodEnv(b)
			before, _ := e.v.AuditLog(vault.AuditFilter{})
			e.flood(nil, 8000, 0)
			e.svc.Close()
			after, _ := e.v.AuditLog(vault.AuditFilter{})
			b.ReportMetric(float64(len(after)-len(before)), "entries/8000-bad")
		}
	})
}

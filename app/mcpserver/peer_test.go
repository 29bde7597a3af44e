package mcpserver_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/engram-app/engram/app"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// peerPackage is the reference MCP memory server, run with npx.
const peerPackage = "@modelcontextprotocol/server-memory@2026.8.31"

// BenchmarkPeer compares Engram with the reference MCP memory server over
// stdio, with the same Go SDK client and the same operations: n stores,
// each through a fresh process as a client would launch it, timed per
// call. Then two clients store concurrently (two processes of each
// server, as two editors would start them) and the benchmark counts what
// each server kept. Needs npx (Node) for the peer.
//
//	go test ./app/mcpserver -run '^$' -bench Peer -benchtime 1x
func BenchmarkPeer(b *testing.B) {
	if _, err := exec.LookPath("npx"); err != nil {
		b.Skip("npx not found: the reference server runs on Node")
	}
	const n = 1000
	bin := filepath.Join(b.TempDir(), "engram")
	build := exec.Command("go", "build", "-o", bin, "github.com/engram-app/engram/cmd/engram")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("build engram: %v\n%s", err, out)
	}
	base, token, svc := startEngramSvc(b)
	memFile := filepath.Join(b.TempDir(), "memory.jsonl")
	engram := func() *exec.Cmd {
		c := exec.Command(bin, "mcp", "--url", strings.TrimPrefix(base, "http://"))
		c.Env = append(os.Environ(), "ENGRAM_TOKEN="+token)
		return c
	}
	peer := func() *exec.Cmd {
		c := exec.Command("npx", "-y", peerPackage)
		c.Env = append(os.Environ(), "MEMORY_FILE_PATH="+memFile)
		return c
	}
	engramStore := func(cs *mcp.ClientSession, i int, who string) error {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "store_memory", Arguments: map[string]any{"content": fmt.Sprintf("%s note %d: build step %d takes %d seconds", who, i, i%17, i%60)}})
		if err == nil && res.IsError {
			err = fmt.Errorf("tool error: %v", res.Content)
		}
		return err
	}
	peerStore := func(cs *mcp.ClientSession, i int, who string) error {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "create_entities", Arguments: map[string]any{"entities": []map[string]any{{
			"name": fmt.Sprintf("%s-note-%d", who, i), "entityType": "note",
			"observations": []string{fmt.Sprintf("%s note %d: build step %d takes %d seconds", who, i, i%17, i%60)}}}}})
		if err == nil && res.IsError {
			err = fmt.Errorf("tool error: %v", res.Content)
		}
		return err
	}
	for b.Loop() {
		for _, s := range []struct {
			name  string
			cmd   func() *exec.Cmd
			store func(*mcp.ClientSession, int, string) error
		}{{"engram", engram, engramStore}, {"reference", peer, peerStore}} {
			lat := run(b, s.cmd, n, s.store, "solo")
			slices.Sort(lat)
			b.ReportMetric(ms(lat[len(lat)/2]), s.name+"-store-p50-ms")
			b.ReportMetric(ms(lat[len(lat)*99/100]), s.name+"-store-p99-ms")
		}
		// Two concurrent clients, 200 stores each.
		var wg sync.WaitGroup
		for _, who := range []string{"a", "b"} {
			wg.Add(2)
			go func() { defer wg.Done(); run(b, engram, 200, engramStore, "concurrent-"+who) }()
			go func() { defer wg.Done(); run(b, peer, 200, peerStore, "concurrent-"+who) }()
		}
		wg.Wait()
		b.ReportMetric(float64(countEngram(b, svc)), "engram-kept-of-400")
		b.ReportMetric(float64(countPeer(b, memFile)), "reference-kept-of-400")
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// run starts one server process, stores n memories through it and
// returns each call's latency.
func run(b *testing.B, cmd func() *exec.Cmd, n int, store func(*mcp.ClientSession, int, string) error, who string) []time.Duration {
	c := mcp.NewClient(&mcp.Implementation{Name: "peer-bench", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.CommandTransport{Command: cmd()}, nil)
	if err != nil {
		b.Errorf("%s: connect: %v", who, err)
		return []time.Duration{0}
	}
	defer cs.Close()
	lat := make([]time.Duration, 0, n)
	for i := 0; i < n; i++ {
		t0 := time.Now()
		if err := store(cs, i, who); err != nil {
			b.Errorf("%s: store %d: %v", who, i, err)
			return append(lat, 0)
		}
		lat = append(lat, time.Since(t0))
	}
	return lat
}

// countEngram counts the concurrent notes the running Engram stored.
func countEngram(b *testing.B, svc *app.Service) int {
	r := svc.List(context.Background(), app.Request{Caller: app.Caller{Operator: true}, Authorized: true}, app.ListInput{})
	if !r.OK() {
		b.Fatal(r.Response)
	}
	n := 0
	for _, m := range r.Memories {
		if strings.HasPrefix(m.Content, "concurrent-") {
			n++
		}
	}
	return n
}

// countPeer counts the concurrent notes left in the reference server's file.
func countPeer(b *testing.B, path string) int {
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		if strings.Contains(sc.Text(), `"name":"concurrent-`) {
			n++
		}
	}
	return n
}

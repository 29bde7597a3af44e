package mcpserver_test

import (
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/mcpserver"
	"github.com/engram-app/engram/app/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkCall is one tool call (a recall, a recall of one memory, then
// a store) by the three ways an agent reaches Engram's tools: in process
// (no transport), over streamable HTTP, and through the stdio bridge,
// which forwards to the HTTP endpoint. The differences are what each
// transport costs a call, and what the size of an answer costs.
//
//	go test ./app/mcpserver -run '^$' -bench Call
func BenchmarkCall(b *testing.B) {
	base, token, svc := startEngramOpts(b, server.Options{Rate: 1e6, Burst: 1e6})
	sessions := map[string]*mcp.ClientSession{
		"local":  localClient(b, svc),
		"http":   httpClient(b, base+"/mcp", token),
		"bridge": bridgeClientTB(b, mcpserver.BridgeOptions{Endpoint: base + "/mcp", Token: token, Stderr: io.Discard}),
	}
	for i := range 200 {
		store(b, sessions["http"], fmt.Sprintf("bench note %d: build step %d takes %d seconds", i, i%17, i%60))
	}
	for _, way := range []string{"local", "http", "bridge"} {
		cs := sessions[way]
		// recall answers with the default limit (ten memories here, about
		// 10 KB); recall-1 asks for one, so the two differ by what reading
		// and writing the answer costs.
		for _, limit := range []int{0, 1} {
			name := way + "/recall"
			if limit > 0 {
				name += fmt.Sprint("-top", limit)
			}
			b.Run(name, func(b *testing.B) {
				i := 0
				for b.Loop() {
					i++
					res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "recall_memory", Arguments: map[string]any{"query": fmt.Sprintf("bench note %d:", i%200), "mode": "exact", "limit": limit}})
					if err != nil || res.IsError {
						b.Fatalf("recall: %v %v", err, res)
					}
				}
			})
		}
		b.Run(way+"/store", func(b *testing.B) {
			i := 0
			for b.Loop() {
				i++
				store(b, cs, fmt.Sprintf("%s note %d: deploy step %d waits %d minutes", way, i, i%13, i%50))
			}
		})
	}
}

func store(b testing.TB, cs *mcp.ClientSession, content string) {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "store_memory", Arguments: map[string]any{"content": content}})
	if err != nil || res.IsError {
		b.Fatalf("store: %v %v", err, res)
	}
}

func localClient(t testing.TB, svc *app.Service) *mcp.ClientSession {
	s, err := mcpserver.NewLocal(svc, app.Caller{Agent: "claude-code"})
	if err != nil {
		t.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Close() })
	return cs
}

func httpClient(t testing.TB, endpoint, token string) *mcp.ClientSession {
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: bearer{token}}, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

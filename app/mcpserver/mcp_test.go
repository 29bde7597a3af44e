package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/mcpserver"
	"github.com/engram-app/engram/app/recall"
	"github.com/engram-app/engram/app/server"
	"github.com/engram-app/engram/vault/vaulttest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var ctx = context.Background()

// startEngram runs a real loopback server and returns its base URL and an
// agent token.
func startEngram(t testing.TB) (string, string) {
	base, token, _ := startEngramSvc(t)
	return base, token
}

func startEngramSvc(t testing.TB) (string, string, *app.Service) {
	t.Helper()
	return startEngramOpts(t, server.Options{})
}

// startEngramOpts is startEngramSvc with the server's options.
func startEngramOpts(t testing.TB, o server.Options) (string, string, *app.Service) {
	t.Helper()
	svc, token := newEngram(t)
	base, stop := serveEngram(t, svc, "127.0.0.1:0", o)
	t.Cleanup(stop)
	return base, token, svc
}

// newEngram opens a vault and registers the agent claude-code; it returns
// the service and the agent's token.
func newEngram(t testing.TB) (*app.Service, string) {
	t.Helper()
	v, _ := vaulttest.New(t)
	svc, err := app.New(v, app.Options{Recall: recall.New(recall.DefaultConfig(nil))})
	if err != nil {
		t.Fatal(err)
	}
	add := svc.AddAgent(ctx, app.Request{Caller: app.Caller{Operator: true}, Authorized: true}, app.AgentSpec{Name: "claude-code"})
	return svc, add.Token
}

// serveEngram runs the loopback server on addr; stop ends it and waits.
func serveEngram(t testing.TB, svc *app.Service, addr string, o server.Options) (base string, stop func()) {
	t.Helper()
	c, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	ready := make(chan string, 1)
	go func() {
		o.Listening = func(a string) { ready <- a }
		done <- server.New(svc, o).Serve(c, addr, "", "")
	}()
	select {
	case a := <-ready:
		var once sync.Once
		return "http://" + a, func() { once.Do(func() { cancel(); <-done }) }
	case err := <-done:
		cancel()
		t.Fatalf("server did not start: %v", err)
	}
	return "", nil
}

type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

func text(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func exercise(t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
		if tl.Description == "" || tl.InputSchema == nil || tl.Annotations == nil {
			t.Errorf("tool %s lacks a description, schema or annotations", tl.Name)
		}
	}
	if got := strings.Join(names, ","); got != "confirm_memory,forget_memory,memory_history,question_memory,recall_memory,refute_memory,store_memory,update_memory" {
		t.Fatalf("tools = %s", got)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "store_memory", Arguments: map[string]any{"content": "the build needs Go 1.27", "tags": []string{"build"}}})
	if err != nil || res.IsError {
		t.Fatalf("store_memory = %v, %v", text(t, res), err)
	}
	var stored struct{ Status, ID string }
	if err := json.Unmarshal([]byte(text(t, res)), &stored); err != nil || stored.Status != "ok" || stored.ID == "" {
		t.Fatalf("store_memory result = %s", text(t, res))
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "recall_memory", Arguments: map[string]any{"query": "which Go version does the build need"}})
	if err != nil || res.IsError || !strings.Contains(text(t, res), "the build needs Go 1.27") {
		t.Fatalf("recall_memory = %s, %v", text(t, res), err)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "confirm_memory", Arguments: map[string]any{"id": stored.ID, "evidence": "go.mod says 1.27"}})
	if err != nil || res.IsError {
		t.Fatalf("confirm_memory = %s, %v", text(t, res), err)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "memory_history", Arguments: map[string]any{"id": stored.ID}})
	if err != nil || res.IsError || !strings.Contains(text(t, res), `"verdict":"CONFIRMED"`) {
		t.Fatalf("memory_history = %s, %v", text(t, res), err)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "store_memory", Arguments: map[string]any{"content": "x", "field": "system"}})
	if err != nil || !res.IsError || !strings.Contains(text(t, res), "not writable by agents") {
		t.Fatalf("store_memory(system) = %s, %v; want an error result", text(t, res), err)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "forget_memory", Arguments: map[string]any{"id": stored.ID}})
	if err != nil || res.IsError {
		t.Fatalf("forget_memory = %s, %v", text(t, res), err)
	}
}

func TestStreamableHTTP(t *testing.T) {
	base, token := startEngram(t)
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: base + "/mcp", HTTPClient: &http.Client{Transport: bearer{token}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	exercise(t, cs)

	// Without a token the endpoint refuses to start a session.
	c2 := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	if _, err := c2.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: base + "/mcp", MaxRetries: 1}, nil); err == nil {
		t.Fatal("an MCP session opened without a token")
	}
}

// bridgeClient runs Bridge on pipes and returns a client session speaking to it.
func bridgeClient(t *testing.T, endpoint, token string, stderr io.Writer) *mcp.ClientSession {
	t.Helper()
	return bridgeClientOpts(t, mcpserver.BridgeOptions{Endpoint: endpoint, Token: token, Stderr: stderr})
}

func bridgeClientOpts(t *testing.T, o mcpserver.BridgeOptions) *mcp.ClientSession {
	t.Helper()
	return bridgeClientTB(t, o)
}

func bridgeClientTB(t testing.TB, o mcpserver.BridgeOptions) *mcp.ClientSession {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- mcpserver.Bridge(c, inR, outW, o) }()
	cl := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := cl.Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); cancel(); inW.Close(); <-done })
	return cs
}

func TestStdioBridge(t *testing.T) {
	base, token := startEngram(t)
	exercise(t, bridgeClient(t, base+"/mcp", token, io.Discard))
}

func TestBridgeWithoutEngram(t *testing.T) {
	var stderr bytes.Buffer
	cs := bridgeClientOpts(t, mcpserver.BridgeOptions{Endpoint: "http://127.0.0.1:9/mcp", Token: "engram_x", Stderr: &stderr, Reconnect: 500 * time.Millisecond})
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "store_memory", Arguments: map[string]any{"content": "x"}})
	if err != nil || !res.IsError || !strings.Contains(text(t, res), "Engram is not reachable") {
		t.Fatalf("CallTool without Engram = %v, %v; want an error result saying so", res, err)
	}
	if !strings.Contains(stderr.String(), "engram mcp: Engram is not reachable at http://127.0.0.1:9/mcp") {
		t.Fatalf("stderr = %q", stderr.String())
	}
}

// lockedBuffer is an io.WriteCloser safe for the bridge's writer goroutine.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}
func (l *lockedBuffer) Close() error { return nil }
func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestBridgeAnswersEveryRequestBeforeEOF: a client that writes its
// requests and closes standard input at once (a script piping a file)
// gets an answer to every request the bridge read.
func TestBridgeAnswersEveryRequestBeforeEOF(t *testing.T) {
	base, token := startEngram(t)
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"store_memory","arguments":{"content":"the linter runs before every push"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"recall_memory","arguments":{"query":"linter"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/list"}`,
	}, "\n") + "\n"
	var out lockedBuffer
	err := mcpserver.Bridge(ctx, io.NopCloser(strings.NewReader(in)), &out, mcpserver.BridgeOptions{Endpoint: base + "/mcp", Token: token})
	if err != nil && !errors.Is(err, io.EOF) {
		t.Fatalf("Bridge = %v", err)
	}
	for id := 1; id <= 4; id++ {
		if !strings.Contains(out.String(), fmt.Sprintf(`"id":%d,`, id)) {
			t.Errorf("no answer to request %d before the bridge ended; output:\n%s", id, out.String())
		}
	}
}

package mcpserver_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/engram-app/engram/app/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// shortTimeouts make the loopback server's per-request limits a second or
// two, so that a test crosses each of them within seconds instead of the
// minutes they are in `engram serve`.
var shortTimeouts = server.Timeouts{ReadHeader: 500 * time.Millisecond, Read: time.Second, Write: 1500 * time.Millisecond, Idle: 2 * time.Second, KeepAlive: time.Second}

// idleGap is longer than every one of shortTimeouts.
const idleGap = 3 * time.Second

// idleConfig is the server's timeouts, the idle gap and the number of
// gaps an editor-like session waits through: shortTimeouts, 3 s and 3 by
// default. ENGRAM_IDLE_GAPS sets the number of gaps; ENGRAM_IDLE_GAP (a
// duration) sets the gap and runs the server with its real timeouts
// (DefaultTimeouts), for a run of many minutes by hand.
func idleConfig(t *testing.T) (server.Timeouts, time.Duration, int) {
	to, gap, n := shortTimeouts, idleGap, 3
	if v := os.Getenv("ENGRAM_IDLE_GAPS"); v != "" {
		if _, err := fmt.Sscan(v, &n); err != nil {
			t.Fatalf("ENGRAM_IDLE_GAPS=%q: %v", v, err)
		}
	}
	if v := os.Getenv("ENGRAM_IDLE_GAP"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("ENGRAM_IDLE_GAP=%q: %v", v, err)
		}
		to, gap = server.Timeouts{}, d
	}
	t.Logf("idle gaps: %d of %v; server timeouts %+v (zero: the defaults)", n, gap, to)
	return to, gap, n
}

// editorSession uses cs as an editor does: a store, then for each idle gap
// a pause longer than every server timeout followed by a recall and a
// store. Every call must succeed, and every store must land exactly once.
func editorSession(t *testing.T, cs *mcp.ClientSession, gap time.Duration, gaps int) {
	t.Helper()
	calls := 0
	call := func(name string, args map[string]any) string {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s after an idle gap: %v", name, err)
		}
		if res.IsError {
			t.Fatalf("%s after an idle gap: error result %s", name, text(t, res))
		}
		calls++
		return text(t, res)
	}
	call("store_memory", map[string]any{"content": "marker zero: the linter runs before every commit"})
	for i := range gaps {
		time.Sleep(gap) // the idle gap is the point of the test
		out := call("recall_memory", map[string]any{"query": "linter before commit", "mode": "exact"})
		if !strings.Contains(out, "marker zero") {
			t.Fatalf("recall after gap %d = %s; want the first memory", i+1, out)
		}
		call("store_memory", map[string]any{"content": fmt.Sprintf("marker %d: release branch number %d is frozen", i+1, 100+i)})
	}
	var final struct{ Results []struct{ Content string } }
	out := call("recall_memory", map[string]any{"query": "release branch frozen", "mode": "exact", "limit": 50})
	if err := json.Unmarshal([]byte(out), &final); err != nil {
		t.Fatal(err)
	}
	for i := range gaps {
		m, n := fmt.Sprintf("marker %d:", i+1), 0
		for _, r := range final.Results {
			if strings.HasPrefix(r.Content, m) {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%d memories start with %q; want exactly one: %s", n, m, out)
		}
	}
	t.Logf("%d calls answered, across %d idle gaps of %v", calls, gaps, gap)
}

// TestIdleSessionOverStreamableHTTP keeps one MCP session of the SDK's
// client, with its defaults (a standalone SSE stream open), across idle
// gaps longer than every server timeout.
func TestIdleSessionOverStreamableHTTP(t *testing.T) {
	to, gap, gaps := idleConfig(t)
	base, token, _ := startEngramOpts(t, server.Options{Timeouts: to})
	c := mcp.NewClient(&mcp.Implementation{Name: "editor", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: base + "/mcp", HTTPClient: &http.Client{Transport: bearer{token}}}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	editorSession(t, cs, gap, gaps)
}

// TestIdleSessionOverBridge does the same through `engram mcp`'s bridge.
func TestIdleSessionOverBridge(t *testing.T) {
	to, gap, gaps := idleConfig(t)
	base, token, _ := startEngramOpts(t, server.Options{Timeouts: to})
	var stderr bytes.Buffer
	editorSession(t, bridgeClient(t, base+"/mcp", token, &stderr), gap, gaps)
	if strings.Contains(stderr.String(), "not reachable") {
		t.Errorf("the bridge reported Engram unreachable: %s", stderr.String())
	}
}

// TestStandaloneStreamOutlivesTimeouts opens the standalone SSE stream of
// the streamable HTTP transport by hand, as a client in another language
// would, and checks that the server does not end it when its per-request
// timeouts pass.
func TestStandaloneStreamOutlivesTimeouts(t *testing.T) {
	base, token, _ := startEngramOpts(t, server.Options{Timeouts: shortTimeouts})
	post := func(session string, body string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest("POST", base+"/mcp", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2025-06-18")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	resp := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	session := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || session == "" {
		t.Fatalf("initialize: %s, session %q", resp.Status, session)
	}
	resp = post(session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	resp.Body.Close()

	// The stream, on a connection of its own whose reads we can time.
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET /mcp HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nAccept: text/event-stream\r\nMcp-Session-Id: %s\r\nMCP-Protocol-Version: 2025-06-18\r\n\r\n",
		strings.TrimPrefix(base, "http://"), token, session)
	br := bufio.NewReader(conn)
	stream, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	if stream.StatusCode != 200 || !strings.HasPrefix(stream.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("GET /mcp = %s %s", stream.Status, stream.Header.Get("Content-Type"))
	}
	// Only keep-alive comments arrive on an idle stream; what matters is
	// that it is not ended. A read that times out on our side means the stream is open.
	conn.SetReadDeadline(time.Now().Add(2 * idleGap))
	got, err := io.ReadAll(stream.Body)
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("the standalone stream ended after less than %v (%v, after %q); want it open", 2*idleGap, err, got)
	}
	// It was written to after the write timeout had passed: the keep-alive
	// comments, one a second, the third of them at 3 s.
	if n := strings.Count(string(got), ": keepalive\n\n"); n < 3 {
		t.Errorf("%d keep-alive comments in %v on an idle stream (%q); want at least 3", n, 2*idleGap, got)
	}

	// The session still answers.
	resp = post(session, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"recall_memory","arguments":{"query":"anything"}}}`)
	defer resp.Body.Close()
	var out struct {
		Result *mcp.CallToolResult `json:"result"`
		Error  any                 `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || out.Result == nil || out.Result.IsError {
		t.Fatalf("tools/call after the idle stream: %s, %+v, %v", resp.Status, out, err)
	}
}

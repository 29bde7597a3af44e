package mcpserver_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/engram-app/engram/app/mcpserver"
	"github.com/engram-app/engram/app/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// countStored recalls query over cs and counts the results whose content
// starts with prefix.
func countStored(t *testing.T, cs *mcp.ClientSession, query, prefix string) int {
	t.Helper()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "recall_memory", Arguments: map[string]any{"query": query, "mode": "exact", "limit": 50}})
	if err != nil || res.IsError {
		t.Fatalf("recall: %v %v", err, res)
	}
	var out struct{ Results []struct{ Content string } }
	if err := json.Unmarshal([]byte(text(t, res)), &out); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range out.Results {
		if strings.HasPrefix(r.Content, prefix) {
			n++
		}
	}
	return n
}

// TestBridgeSurvivesRestart restarts Engram under a bridge that holds a
// session: the server forgets the session, and the next call, made while
// Engram is still down, must wait for it, open a new session and land.
func TestBridgeSurvivesRestart(t *testing.T) {
	svc, token := newEngram(t)
	base, stop := serveEngram(t, svc, "127.0.0.1:0", server.Options{})
	var stderr bytes.Buffer
	cs := bridgeClient(t, base+"/mcp", token, &stderr)
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "store_memory", Arguments: map[string]any{"content": "restart one: the staging database is read-only on Fridays"}}); err != nil || res.IsError {
		t.Fatalf("store before the restart: %v %v", err, res)
	}
	stop()
	// Engram stays down until the bridge's next call reaches its address:
	// the test holds the address meanwhile, and drops that first
	// connection unanswered (as a restarting Engram would), so the call
	// is made while Engram is down and the bridge must try again.
	addr := strings.TrimPrefix(base, "http://")
	down, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("hold Engram's address while it is down: %v", err)
	}
	restarted := make(chan func(), 1)
	go func() {
		conn, err := down.Accept()
		down.Close()
		if err != nil {
			restarted <- func() {} // the test ended first
			return
		}
		conn.Close()
		_, stop2 := serveEngram(t, svc, addr, server.Options{})
		restarted <- stop2
	}()
	defer func() { down.Close(); (<-restarted)() }()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "store_memory", Arguments: map[string]any{"content": "restart two: the staging database is read-only on Mondays"}})
	if err != nil || res.IsError {
		t.Fatalf("store across the restart: %v %s; stderr %s", err, text(t, res), stderr.String())
	}
	if n := countStored(t, cs, "staging database read-only", "restart two"); n != 1 {
		t.Errorf("%d copies of the memory stored across the restart; want 1", n)
	}
	if stderr.Len() != 0 {
		t.Errorf("the bridge reported a failure: %s", stderr.String())
	}
}

// relay sends r, whose body was read as body, on to target with tr, as a
// proxy in front of Engram does, and returns Engram's answer; when that
// fails it answers w with 502 and returns nil.
func relay(w http.ResponseWriter, r *http.Request, body []byte, target *url.URL, tr http.RoundTripper) *http.Response {
	out := r.Clone(r.Context())
	out.RequestURI = ""
	out.URL.Scheme, out.URL.Host, out.Host = target.Scheme, target.Host, target.Host
	out.Body = io.NopCloser(bytes.NewReader(body))
	resp, err := tr.RoundTrip(out)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return nil
	}
	return resp
}

// dropFirstAnswer is a proxy in front of Engram that forwards every
// request, but for the first call of each write tool closes the client's
// connection instead of relaying Engram's answer: the write was made and
// its answer lost, as when a connection drops under a request. It counts
// the write calls it forwarded.
func dropFirstAnswer(t *testing.T, target string) (string, *atomic.Int32) {
	t.Helper()
	u, _ := url.Parse(target)
	var sent atomic.Int32
	var mu sync.Mutex
	dropped := map[string]bool{}
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	p := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		resp := relay(w, r, body, u, tr)
		if resp == nil {
			return
		}
		defer resp.Body.Close()
		answer, _ := io.ReadAll(resp.Body)
		for _, tool := range []string{"store_memory", "forget_memory"} {
			if !bytes.Contains(body, []byte(`"`+tool+`"`)) {
				continue
			}
			sent.Add(1)
			mu.Lock()
			drop := !dropped[tool]
			dropped[tool] = true
			mu.Unlock()
			if drop {
				if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
					conn.Close()
				}
				return
			}
		}
		for k, vs := range resp.Header {
			w.Header()[k] = vs
		}
		w.WriteHeader(resp.StatusCode)
		w.Write(answer)
	}))
	t.Cleanup(p.Close)
	return p.URL, &sent
}

// TestBridgeRetriesLostAnswerOnce loses the answers to a store and to a
// forget: the bridge must send each call again and answer the editor with
// Engram's first answer, and Engram must make each write once.
func TestBridgeRetriesLostAnswerOnce(t *testing.T) {
	base, token, _ := startEngramOpts(t, server.Options{})
	proxy, sent := dropFirstAnswer(t, base)
	var stderr bytes.Buffer
	cs := bridgeClient(t, proxy+"/mcp", token, &stderr)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "store_memory", Arguments: map[string]any{"content": "lost answer: deploys go out on Tuesdays after the standup"}})
	if err != nil || res.IsError {
		t.Fatalf("store whose first answer was lost: %v %s; stderr %s", err, text(t, res), stderr.String())
	}
	var stored struct{ Status, ID string }
	if json.Unmarshal([]byte(text(t, res)), &stored); stored.Status != "ok" || stored.ID == "" {
		t.Fatalf("store answered %s; want the first answer, status ok", text(t, res))
	}
	if n := countStored(t, cs, "deploys Tuesdays standup", "lost answer"); n != 1 {
		t.Errorf("%d memories stored; want 1", n)
	}
	// A forget made twice would answer "not found" the second time.
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "forget_memory", Arguments: map[string]any{"id": stored.ID}})
	if err != nil || res.IsError || !strings.Contains(text(t, res), `"status":"ok"`) {
		t.Fatalf("forget whose first answer was lost: %v %s; want the first answer, status ok", err, text(t, res))
	}
	if n := sent.Load(); n < 4 {
		t.Fatalf("the writes were sent %d times; the test needs each sent twice", n)
	}
	if n := countStored(t, cs, "deploys Tuesdays standup", "lost answer"); n != 0 {
		t.Errorf("%d memories left after the forget; want 0", n)
	}
}

// TestIdempotencyKey sends writes with the same _meta idempotency key
// straight over streamable HTTP, on two sessions of one agent.
func TestIdempotencyKey(t *testing.T) {
	base, token, _ := startEngramOpts(t, server.Options{})
	connect := func() *mcp.ClientSession {
		c := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil)
		cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: base + "/mcp", HTTPClient: &http.Client{Transport: bearer{token}}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	a, b := connect(), connect()
	call := func(cs *mcp.ClientSession, key, tool string, args map[string]any) *mcp.CallToolResult {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args, Meta: mcp.Meta{mcpserver.IdempotencyKey: key}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	store := map[string]any{"content": "keyed: the build cache lives on the second disk"}
	first := call(a, "key-1", "store_memory", store)
	again := call(b, "key-1", "store_memory", store)
	if first.IsError || text(t, again) != text(t, first) {
		t.Fatalf("the same keyed store twice answered\n%s\nthen\n%s\nwant the first answer again", text(t, first), text(t, again))
	}
	var stored struct{ ID string }
	json.Unmarshal([]byte(text(t, first)), &stored)

	// A forget sent twice is made once: the second answer is the first
	// one, not "not found".
	forget := map[string]any{"id": stored.ID}
	f1 := call(a, "key-2", "forget_memory", forget)
	f2 := call(a, "key-2", "forget_memory", forget)
	if f1.IsError || f2.IsError || text(t, f1) != text(t, f2) {
		t.Fatalf("the same keyed forget twice answered %s then %s", text(t, f1), text(t, f2))
	}
	// Without a key, the second forget runs and finds nothing.
	if res, _ := a.CallTool(ctx, &mcp.CallToolParams{Name: "forget_memory", Arguments: forget}); !res.IsError && !strings.Contains(text(t, res), "not_found") {
		t.Errorf("an unkeyed forget of a forgotten memory answered %s; want not found", text(t, res))
	}

	// A key reused for another call is refused, and so is a malformed key.
	if res := call(a, "key-1", "store_memory", map[string]any{"content": "something else entirely"}); !res.IsError || !strings.Contains(text(t, res), "already used") {
		t.Errorf("a key reused for another store answered %s; want an error", text(t, res))
	}
	if res := call(a, "bad key!", "store_memory", store); !res.IsError || !strings.Contains(text(t, res), "invalid _meta") {
		t.Errorf("a malformed key answered %s; want an error", text(t, res))
	}
}

// TestBridgeWrongToken: a token Engram refuses is named as the cause,
// without the call waiting out the reconnect window.
func TestBridgeWrongToken(t *testing.T) {
	base, _, _ := startEngramOpts(t, server.Options{})
	var stderr bytes.Buffer
	cs := bridgeClientOpts(t, mcpserver.BridgeOptions{Endpoint: base + "/mcp", Token: "engram_notarealtoken", Stderr: &stderr, Reconnect: time.Minute, CallTimeout: 2 * time.Minute})
	done := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, _ := cs.CallTool(ctx, &mcp.CallToolParams{Name: "recall_memory", Arguments: map[string]any{"query": "x"}})
		done <- res
	}()
	select {
	case res := <-done:
		if res == nil || !res.IsError || !strings.Contains(text(t, res), "refused the agent token") {
			t.Fatalf("call with a wrong token = %v; want an error naming the token", res)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("a call with a refused token was still retrying after 30 s")
	}
}

package mcpserver_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/engram-app/engram/app/mcpserver"
	"github.com/engram-app/engram/app/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// forwarded is a tools/call as the bridge sent it to Engram.
type forwarded struct {
	ID     json.RawMessage `json:"id"`
	Params struct {
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
		Meta      map[string]any `json:"_meta"`
	} `json:"params"`
}

// recordingProxy stands in front of Engram, records every tools/call the
// bridge sends, and lets edit change Engram's answer to one (nil: relay
// it): edit may set headers on w and returns the status and body to send.
func recordingProxy(t *testing.T, target string, edit func(w http.ResponseWriter, call forwarded, status int, answer []byte) (int, []byte)) (string, func() []forwarded) {
	t.Helper()
	u, _ := url.Parse(target)
	var mu sync.Mutex
	var calls []forwarded
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	p := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var call forwarded
		isCall := bytes.Contains(body, []byte(`"method":"tools/call"`)) && json.Unmarshal(body, &call) == nil
		if isCall {
			mu.Lock()
			calls = append(calls, call)
			mu.Unlock()
		}
		resp := relay(w, r, body, u, tr)
		if resp == nil {
			return
		}
		defer resp.Body.Close()
		answer, _ := io.ReadAll(resp.Body)
		for k, vs := range resp.Header {
			w.Header()[k] = vs
		}
		status := resp.StatusCode
		if isCall && edit != nil {
			status, answer = edit(w, call, status, answer)
			w.Header().Del("Content-Length")
		}
		w.WriteHeader(status)
		w.Write(answer)
	}))
	t.Cleanup(p.Close)
	return p.URL, func() []forwarded {
		mu.Lock()
		defer mu.Unlock()
		return append([]forwarded(nil), calls...)
	}
}

// stdio speaks raw JSON-RPC lines to a Bridge, as an editor does.
type stdio struct {
	t       *testing.T
	in      *io.PipeWriter
	answers chan answer
	done    chan error
}

type answer struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	line string
}

func rawBridge(t *testing.T, o mcpserver.BridgeOptions) *stdio {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &stdio{t: t, in: inW, answers: make(chan answer, 100), done: make(chan error, 1)}
	c, cancel := context.WithCancel(ctx)
	go func() {
		err := mcpserver.Bridge(c, inR, outW, o)
		outW.Close()
		s.done <- err
	}()
	go func() {
		defer close(s.answers)
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var a answer
			if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
				t.Errorf("the bridge wrote a line that is not JSON: %q", sc.Text())
				continue
			}
			a.line = sc.Text()
			s.answers <- a
		}
	}()
	t.Cleanup(func() {
		cancel()
		inW.Close()
		outR.Close()
		<-s.done
	})
	return s
}

func (s *stdio) send(lines ...string) {
	s.t.Helper()
	if _, err := io.WriteString(s.in, strings.Join(lines, "\n")+"\n"); err != nil {
		s.t.Fatal(err)
	}
}

// next returns the next answer the bridge wrote.
func (s *stdio) next() answer {
	s.t.Helper()
	select {
	case a, ok := <-s.answers:
		if !ok {
			s.t.Fatal("the bridge's output ended")
		}
		return a
	case <-time.After(30 * time.Second):
		s.t.Fatal("no answer from the bridge in 30 s")
	}
	return answer{}
}

// initialize does the editor's MCP handshake.
func (s *stdio) initialize() {
	s.t.Helper()
	s.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"editor","version":"1"}}}`)
	if a := s.next(); string(a.ID) != "0" || a.Result == nil {
		s.t.Fatalf("initialize answered %s", a.line)
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// toolText is the text of a tools/call answer's result.
func toolText(t *testing.T, a answer) (string, bool) {
	t.Helper()
	if a.Error != nil || a.Result == nil {
		t.Fatalf("tools/call answered %s; want a result", a.line)
	}
	var res mcp.CallToolResult
	if err := json.Unmarshal(a.Result, &res); err != nil {
		t.Fatalf("result %s: %v", a.Result, err)
	}
	return text(t, &res), res.IsError
}

// TestBridgeForwardsCallsAsTheyCame: tool calls with a string id and a
// number id, sent together, are forwarded with ids of the bridge's own,
// and each answer carries the editor's id back. The editor's _meta is
// forwarded with the idempotency key beside it, and a key the editor sent
// is kept.
func TestBridgeForwardsCallsAsTheyCame(t *testing.T) {
	base, token := startEngram(t)
	proxy, calls := recordingProxy(t, base, nil)
	s := rawBridge(t, mcpserver.BridgeOptions{Endpoint: proxy + "/mcp", Token: token})
	s.initialize()
	s.send(
		`{"jsonrpc":"2.0","id":"call-a","method":"tools/call","params":{"name":"store_memory","arguments":{"content":"forwarded: the nightly build runs at two"},"_meta":{"trace":"t1"}}}`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"store_memory","arguments":{"content":"forwarded: the nightly build skips Sundays"},"_meta":{"trace":"t2","`+mcpserver.IdempotencyKey+`":"editor-key-1"}}}`,
		`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"recall_memory","arguments":{"query":"anything"}}}`,
	)
	got := map[string]string{}
	for range 3 {
		a := s.next()
		out, isErr := toolText(t, a)
		if isErr {
			t.Errorf("call %s answered an error: %s", a.ID, out)
		}
		got[string(a.ID)] = out
	}
	for _, id := range []string{`"call-a"`, `7`, `8`} {
		if _, ok := got[id]; !ok {
			t.Errorf("no answer with id %s; answers %v", id, got)
		}
	}
	for _, id := range []string{`"call-a"`, `7`} {
		if !strings.Contains(got[id], `"status":"ok"`) {
			t.Errorf("store %s answered %s", id, got[id])
		}
	}
	seen := map[string]bool{}
	for _, c := range calls() {
		if !strings.HasPrefix(string(c.ID), `"bridge-`) {
			t.Errorf("a call was forwarded with id %s; want one of the bridge's own", c.ID)
		}
		if seen[string(c.ID)] {
			t.Errorf("two calls forwarded with id %s", c.ID)
		}
		seen[string(c.ID)] = true
		key, _ := c.Params.Meta[mcpserver.IdempotencyKey].(string)
		switch c.Params.Meta["trace"] {
		case "t1":
			if !strings.HasPrefix(key, "bridge-") {
				t.Errorf("the call without a key was forwarded with _meta %v; want the bridge's key", c.Params.Meta)
			}
		case "t2":
			if key != "editor-key-1" {
				t.Errorf("the call with the editor's key was forwarded with _meta %v; want the editor's key", c.Params.Meta)
			}
		case nil:
			if c.Params.Name != "recall_memory" || key == "" {
				t.Errorf("a call was forwarded with _meta %v", c.Params.Meta)
			}
		}
	}
	if n := len(calls()); n != 3 {
		t.Errorf("%d calls forwarded; want 3", n)
	}
}

// TestBridgeKeepsEditorsIdempotencyKey: a write the editor sends twice
// with its own idempotency key is made once, through the bridge.
func TestBridgeKeepsEditorsIdempotencyKey(t *testing.T) {
	base, token := startEngram(t)
	cs := bridgeClient(t, base+"/mcp", token, io.Discard)
	params := &mcp.CallToolParams{Name: "store_memory", Arguments: map[string]any{"content": "keyed twice: the cache is warmed at boot"}, Meta: mcp.Meta{mcpserver.IdempotencyKey: "editor-key-2"}}
	first, err := cs.CallTool(ctx, params)
	if err != nil || first.IsError {
		t.Fatalf("store: %v %v", err, first)
	}
	again, err := cs.CallTool(ctx, params)
	if err != nil || text(t, again) != text(t, first) {
		t.Fatalf("the same keyed store twice answered %s then %s (%v)", text(t, first), text(t, again), err)
	}
	if n := countStored(t, cs, "cache warmed boot", "keyed twice"); n != 1 {
		t.Errorf("%d memories stored; want 1", n)
	}
	// The answer names the server, as the SDK's server does for a call
	// of the sessionless protocol the SDK's client speaks.
	if _, ok := first.Meta[mcp.MetaKeyServerInfo]; !ok {
		t.Errorf("the answer's _meta %v does not name the server", first.Meta)
	}
}

// TestBridgeCallsRunConcurrently: a slow call does not hold up the next.
func TestBridgeCallsRunConcurrently(t *testing.T) {
	base, token := startEngram(t)
	release := make(chan struct{})
	proxy, _ := recordingProxy(t, base, func(w http.ResponseWriter, c forwarded, status int, answer []byte) (int, []byte) {
		if c.Params.Arguments["query"] == "slow" {
			<-release
		}
		return status, answer
	})
	s := rawBridge(t, mcpserver.BridgeOptions{Endpoint: proxy + "/mcp", Token: token})
	s.initialize()
	s.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"recall_memory","arguments":{"query":"slow"}}}`)
	s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"recall_memory","arguments":{"query":"fast"}}}`)
	if a := s.next(); string(a.ID) != "2" {
		t.Fatalf("first answer %s; want the fast call's", a.line)
	}
	close(release)
	if a := s.next(); string(a.ID) != "1" {
		t.Fatalf("second answer %s; want the slow call's", a.line)
	}
}

// TestBridgeAnswersForwardedCallsBeforeEOF: an editor that initializes,
// then writes its calls and closes standard input at once, gets every
// answer; so does one that speaks the sessionless protocol and does not
// initialize.
func TestBridgeAnswersForwardedCallsBeforeEOF(t *testing.T) {
	base, token := startEngram(t)
	proxy, calls := recordingProxy(t, base, nil)
	sessionless := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"script","version":"1"}}`
	for _, tc := range []struct {
		name       string
		initialize bool
		meta       string
	}{{"initialized", true, `"_meta":{}`}, {"sessionless", false, sessionless}} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(calls())
			s := rawBridge(t, mcpserver.BridgeOptions{Endpoint: proxy + "/mcp", Token: token})
			if tc.initialize {
				s.initialize()
			}
			s.send(
				`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"store_memory","arguments":{"content":"eof `+tc.name+`: the linter runs before every push"},`+tc.meta+`}}`,
				`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"recall_memory","arguments":{"query":"linter"},`+tc.meta+`}}`,
				`{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{`+tc.meta+`}}`,
			)
			s.in.Close()
			got := map[string]string{}
			for a := range s.answers {
				got[string(a.ID)] = a.line
			}
			for _, id := range []string{`"a"`, `2`, `3`} {
				if _, ok := got[id]; !ok {
					t.Errorf("no answer to request %s before the bridge ended; answers %v", id, got)
				}
			}
			if n := len(calls()) - before; n != 2 {
				t.Errorf("%d calls forwarded; want 2", n)
			}
			if !tc.initialize && !strings.Contains(got["2"], `"resultType":"complete"`) {
				t.Errorf("a call of the sessionless protocol answered %s; want resultType complete", got["2"])
			}
		})
	}
}

// TestBridgeCancelsForwardedCall: the editor's notifications/cancelled
// ends the forwarded request, which gets no answer, and the bridge goes
// on answering.
func TestBridgeCancelsForwardedCall(t *testing.T) {
	base, token := startEngram(t)
	arrived, ended := make(chan struct{}), make(chan struct{})
	u, _ := url.Parse(base)
	rp := &http.Transport{}
	t.Cleanup(rp.CloseIdleConnections)
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if bytes.Contains(body, []byte(`"query":"hang"`)) {
			close(arrived)
			<-r.Context().Done()
			close(ended)
			return
		}
		resp := relay(w, r, body, u, rp)
		if resp == nil {
			return
		}
		defer resp.Body.Close()
		for k, vs := range resp.Header {
			w.Header()[k] = vs
		}
		w.WriteHeader(resp.StatusCode)
		io.Copy(w, resp.Body)
	}))
	t.Cleanup(proxy.Close)
	s := rawBridge(t, mcpserver.BridgeOptions{Endpoint: proxy.URL + "/mcp", Token: token})
	s.initialize()
	s.send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"recall_memory","arguments":{"query":"hang"}}}`)
	select {
	case <-arrived:
	case <-time.After(30 * time.Second):
		t.Fatal("the call did not reach Engram")
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5,"reason":"user"}}`)
	select {
	case <-ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the forwarded request went on after the editor cancelled the call")
	}
	s.send(`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"recall_memory","arguments":{"query":"after"}}}`)
	if a := s.next(); string(a.ID) != "6" {
		t.Fatalf("answer %s; want the answer to call 6 (and none to the cancelled call)", a.line)
	}
	start := time.Now()
	s.in.Close()
	for a := range s.answers {
		t.Errorf("answer after the end of input: %s", a.line)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the bridge took %v to end; the cancelled call held it", d)
	}
}

// TestBridgeRelaysEngramsAnswers: Engram's JSON-RPC error becomes the
// error result it was before the fast path; an answer in an event stream
// is read from it; an answer of 503 is no answer, and the call is sent
// again, with the same key.
func TestBridgeRelaysEngramsAnswers(t *testing.T) {
	base, token := startEngram(t)
	var mu sync.Mutex
	busy := 0
	proxy, calls := recordingProxy(t, base, func(w http.ResponseWriter, c forwarded, status int, answer []byte) (int, []byte) {
		switch c.Params.Arguments["query"] {
		case "refuse":
			return 200, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":"the vault is sealed"}}`, c.ID)
		case "stream":
			w.Header().Set("Content-Type", "text/event-stream")
			return 200, fmt.Appendf(nil, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"x\"}}\n\nevent: message\nid: 1\ndata: %s\n\n", bytes.TrimSpace(answer))
		case "busy":
			mu.Lock()
			defer mu.Unlock()
			if busy++; busy == 1 {
				return http.StatusServiceUnavailable, []byte("busy")
			}
		}
		return status, answer
	})
	cs := bridgeClient(t, proxy+"/mcp", token, io.Discard)
	recall := func(q string) *mcp.CallToolResult {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "recall_memory", Arguments: map[string]any{"query": q}})
		if err != nil {
			t.Fatalf("recall %q: %v", q, err)
		}
		return res
	}
	if res := recall("refuse"); !res.IsError || text(t, res) != "Engram refused the call: the vault is sealed" {
		t.Errorf("a JSON-RPC error answered %q (error %v)", text(t, res), res.IsError)
	}
	if res := recall("stream"); res.IsError || !strings.Contains(text(t, res), `"status":"ok"`) {
		t.Errorf("an answer in an event stream answered %q", text(t, res))
	}
	if res := recall("busy"); res.IsError || !strings.Contains(text(t, res), `"status":"ok"`) {
		t.Errorf("a call answered 503 first answered %q", text(t, res))
	}
	var keys []any
	for _, c := range calls() {
		if c.Params.Arguments["query"] == "busy" {
			keys = append(keys, c.Params.Meta[mcpserver.IdempotencyKey])
		}
	}
	if len(keys) != 2 || keys[0] != keys[1] {
		t.Errorf("the call answered 503 was sent with keys %v; want twice the same", keys)
	}
}

// TestBridgeLeavesOtherMessagesToServer: a tools/call the bridge's server
// would refuse (before initialize, an unknown tool) is still refused as
// the server refuses it, and is not forwarded.
func TestBridgeLeavesOtherMessagesToServer(t *testing.T) {
	base, token, _ := startEngramOpts(t, server.Options{})
	proxy, calls := recordingProxy(t, base, nil)
	s := rawBridge(t, mcpserver.BridgeOptions{Endpoint: proxy + "/mcp", Token: token})
	s.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"recall_memory","arguments":{"query":"early"}}}`)
	if a := s.next(); a.Error == nil || !strings.Contains(a.Error.Message, "invalid during session initialization") {
		t.Errorf("a call before initialize answered %s", a.line)
	}
	s.initialize()
	s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"no_such_tool","arguments":{}}}`)
	if a := s.next(); a.Error == nil || !strings.Contains(a.Error.Message, "unknown tool") {
		t.Errorf("a call of an unknown tool answered %s", a.line)
	}
	if n := len(calls()); n != 0 {
		t.Errorf("%d calls forwarded; want none", n)
	}
}

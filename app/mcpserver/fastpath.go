package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// fastPath forwards the editor's tool calls to Engram as they came, one
// JSON-RPC request over HTTP each, instead of through the bridge's MCP
// server and client: those decode, validate and encode every call twice
// more, which cost a call about a millisecond. It takes from standard
// input only the tools/call requests the bridge's server would run (a
// known tool, an id the server accepts, a session the editor initialized
// or a call of the sessionless protocol); everything else, and a call it
// does not take, goes to the server as before. Each call runs in its own
// goroutine, and its answer is written as one line to standard output.
type fastPath struct {
	ctx  context.Context // ends the calls when the bridge ends
	end  context.CancelFunc
	r    *remote
	s    *mcp.Server
	out  *answerCounter
	p    *inFlight
	wg   sync.WaitGroup
	init atomic.Bool // the editor's session was initialized

	mu      sync.Mutex
	stopped bool
	calls   map[string]context.CancelFunc // by idKey of the editor's id
}

func newFastPath(ctx context.Context, r *remote, s *mcp.Server, out *answerCounter, p *inFlight) *fastPath {
	ctx, end := context.WithCancel(ctx)
	return &fastPath{ctx: ctx, end: end, r: r, s: s, out: out, p: p, calls: map[string]context.CancelFunc{}}
}

// stop ends the calls still running, unanswered, and waits for them.
func (f *fastPath) stop() {
	f.mu.Lock()
	f.stopped = true
	f.mu.Unlock()
	f.end()
	f.wg.Wait()
}

// callParams are the params of a tools/call, as the fast path needs them.
type callParams struct {
	Meta      map[string]json.RawMessage `json:"_meta,omitempty"`
	Name      string                     `json:"name"`
	Arguments json.RawMessage            `json:"arguments,omitempty"`
}

// take is the reader's divert: it starts a tools/call it can forward,
// and cancels one it forwards on the editor's notifications/cancelled.
// It reports whether it took the message.
func (f *fastPath) take(m *message) bool {
	switch {
	case m.Method == "tools/call" && len(m.ID) > 0:
		return f.start(m)
	case m.Method == "notifications/cancelled" && len(m.ID) == 0:
		return f.cancel(m.Params)
	}
	return false
}

func (f *fastPath) start(m *message) bool {
	key, ok := idKey(m.ID)
	if !ok || m.JSONRPC != "2.0" {
		return false
	}
	var p callParams
	if json.Unmarshal(m.Params, &p) != nil || !slices.ContainsFunc(tools, func(t tool) bool { return t.def.Name == p.Name }) {
		return false
	}
	sessionless, ok := f.runs(p.Meta)
	if !ok {
		return false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, dup := f.calls[key]; dup || f.stopped {
		return false
	}
	ctx, cancel := context.WithCancel(f.ctx)
	f.calls[key] = cancel
	f.wg.Add(1)
	go f.serve(ctx, cancel, key, m.ID, p, sessionless)
	return true
}

// idKey returns a request id as a map key, if it is one the bridge's
// server takes as it is: a string or an integer.
func idKey(id json.RawMessage) (string, bool) {
	if string(id) == "null" {
		return "", false
	}
	if len(id) > 0 && id[0] == '"' {
		var s string
		err := json.Unmarshal(id, &s)
		return "s" + s, err == nil
	}
	var n int64
	err := json.Unmarshal(id, &n)
	return "n" + strconv.FormatInt(n, 10), err == nil
}

// sessionlessVersion is the first protocol version whose calls carry the
// protocol in their _meta (SEP-2575) instead of an initialized session.
const sessionlessVersion = "2026-07-28"

var protocolVersions = mcp.SupportedProtocolVersions()

// runs reports whether the bridge's server would run a call with this
// _meta, as ServerSession.handle decides: a call of the sessionless
// protocol names a version the server speaks and the client's
// capabilities; any other call needs the editor's initialize first.
// sessionless reports the former: the server marks its answer.
func (f *fastPath) runs(meta map[string]json.RawMessage) (sessionless, ok bool) {
	var v string
	if raw, has := meta[mcp.MetaKeyProtocolVersion]; has && json.Unmarshal(raw, &v) == nil && v >= sessionlessVersion {
		info, hasInfo := meta[mcp.MetaKeyClientInfo]
		return true, slices.Contains(protocolVersions, v) && isObject(meta[mcp.MetaKeyClientCapabilities]) && (!hasInfo || isObject(info))
	}
	if f.init.Load() {
		return false, true
	}
	for ss := range f.s.Sessions() {
		if ss.InitializeParams() != nil {
			f.init.Store(true)
			return false, true
		}
	}
	return false, false
}

func isObject(raw json.RawMessage) bool { return len(raw) > 0 && raw[0] == '{' }

// cancel cancels the forwarded call the editor's notifications/cancelled
// names, and reports whether there was one.
func (f *fastPath) cancel(params json.RawMessage) bool {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil {
		return false
	}
	key, ok := idKey(p.RequestID)
	if !ok {
		return false
	}
	f.mu.Lock()
	cancel, ok := f.calls[key]
	f.mu.Unlock()
	if ok {
		cancel()
	}
	return ok
}

// serve forwards one call and writes its answer, with the editor's id. A
// call cancelled (by the editor, or because the bridge ends) is not
// answered, as MCP asks; it no longer counts as waiting for an answer.
func (f *fastPath) serve(ctx context.Context, cancel context.CancelFunc, key string, id json.RawMessage, p callParams, sessionless bool) {
	defer f.wg.Done()
	defer cancel()
	res := f.call(ctx, p)
	f.mu.Lock()
	delete(f.calls, key) // the editor may use the id again once answered
	f.mu.Unlock()
	if ctx.Err() != nil {
		f.p.add(-1)
		return
	}
	if sessionless {
		res = markSessionless(res)
	}
	if bytes.IndexByte(res, '\n') >= 0 { // a line holds one message
		var b bytes.Buffer
		if json.Compact(&b, res) == nil {
			res = b.Bytes()
		}
	}
	line := make([]byte, 0, len(res)+len(id)+40)
	line = append(line, `{"jsonrpc":"2.0","id":`...)
	line = append(line, id...)
	line = append(line, `,"result":`...)
	line = append(line, res...)
	f.out.answer(append(line, "}\n"...))
}

// call forwards the call to Engram and returns its result, or the error
// result to give the editor. The call keeps the editor's _meta but what
// describes the editor's own protocol, and gets an idempotency key unless
// the editor sent one, the same on every attempt.
func (f *fastPath) call(ctx context.Context, p callParams) json.RawMessage {
	meta := make(map[string]json.RawMessage, len(p.Meta)+1)
	for k, v := range p.Meta {
		if !strings.HasPrefix(k, "io.modelcontextprotocol/") {
			meta[k] = v
		}
	}
	if _, ok := meta[IdempotencyKey]; !ok {
		meta[IdempotencyKey] = json.RawMessage(strconv.Quote(newKey()))
	}
	p.Meta = meta
	res, failed := forward(ctx, f.r, func(ctx context.Context, cs *mcp.ClientSession) (json.RawMessage, error) {
		return f.r.post(ctx, cs, p)
	})
	if failed != nil {
		b, err := json.Marshal(failed)
		if err != nil {
			return json.RawMessage(`{"content":[],"isError":true}`)
		}
		return b
	}
	return res
}

// callRequest is a tools/call as the fast path forwards it.
type callRequest struct {
	JSONRPC string     `json:"jsonrpc"`
	ID      string     `json:"id"`
	Method  string     `json:"method"`
	Params  callParams `json:"params"`
}

// callAnswer is what the fast path reads of Engram's answer.
type callAnswer struct {
	Result json.RawMessage `json:"result"`
	Error  *jsonrpc.Error  `json:"error"`
}

// rejected marks an error after which the call got no answer and the
// session is still usable, as the SDK's client marks it.
var rejected = &jsonrpc.Error{Code: codeRejected, Message: "rejected by transport"}

// post sends one tools/call on session cs and returns Engram's result,
// with forward's errors: a failed connection or an answer of 500, 502,
// 503, 504 or 429 is rejected (the SDK's client counts them so); Engram's
// JSON-RPC error is a *jsonrpc.Error; a session Engram does not know (404)
// or an answer that cannot be read is any other error. The request gets an
// id of its own, a string, which no request of the bridge's MCP client
// (numbered) can have.
func (r *remote) post(ctx context.Context, cs *mcp.ClientSession, p callParams) (json.RawMessage, error) {
	if cs.ID() == "" {
		// A session without an id is one of the sessionless protocol,
		// which only the SDK's client speaks.
		meta := mcp.Meta{}
		for k, v := range p.Meta {
			meta[k] = v
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: p.Name, Arguments: p.Arguments, Meta: meta})
		if err != nil {
			return nil, err
		}
		return json.Marshal(res)
	}
	id := "bridge-" + strconv.FormatUint(r.seq.Add(1), 10)
	body, err := json.Marshal(callRequest{JSONRPC: "2.0", ID: id, Method: "tools/call", Params: p})
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.o.Endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", cs.ID())
	if res := cs.InitializeResult(); res != nil {
		req.Header.Set("Mcp-Protocol-Version", res.ProtocolVersion)
	}
	resp, err := r.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", rejected, err)
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout, http.StatusTooManyRequests:
		io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		return nil, fmt.Errorf("%w: %s", rejected, resp.Status)
	}
	if resp.StatusCode < 200 || resp.StatusCode >= 300 {
		// Engram's answer, if the body is a JSON-RPC error.
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		var a callAnswer
		if json.Unmarshal(b, &a) == nil && a.Error != nil {
			return nil, a.Error
		}
		return nil, fmt.Errorf("answered %s", resp.Status)
	}
	var msg []byte
	switch ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); ct {
	case "application/json":
		var b bytes.Buffer
		if n := resp.ContentLength; n > 0 && n < 64<<20 {
			b.Grow(int(n) + bytes.MinRead)
		}
		_, err = b.ReadFrom(resp.Body)
		msg = b.Bytes()
	case "text/event-stream":
		msg, err = eventAnswer(resp.Body, strconv.Quote(id))
	default:
		err = fmt.Errorf("answered with content type %q", ct)
	}
	if err != nil {
		return nil, err
	}
	var a callAnswer
	switch err := json.Unmarshal(msg, &a); {
	case err != nil:
		return nil, fmt.Errorf("an unreadable answer: %v", err)
	case a.Error != nil:
		return nil, a.Error
	case len(a.Result) == 0 || string(a.Result) == "null":
		return nil, errors.New("an answer without a result")
	}
	return a.Result, nil
}

// eventAnswer reads a server-sent event stream until the event that is
// the answer to the request whose id is id (JSON), and returns it.
func eventAnswer(stream io.Reader, id string) ([]byte, error) {
	sc := bufio.NewScanner(stream)
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	var data []byte
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 { // the end of an event
			var m message
			if json.Unmarshal(data, &m) == nil && m.Method == "" && string(m.ID) == id {
				return data, nil
			}
			data = data[:0]
			continue
		}
		if v, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			if len(data) > 0 {
				data = append(data, '\n')
			}
			data = append(data, bytes.TrimPrefix(v, []byte(" "))...)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return nil, errors.New("the event stream ended without the answer")
}

// markSessionless adds to a result what the bridge's server adds to the
// result of a call of the sessionless protocol: its name in _meta, unless
// there is one, and resultType complete. The rest is left as it came.
func markSessionless(res json.RawMessage) json.RawMessage {
	var has struct {
		Meta       json.RawMessage `json:"_meta"`
		ResultType json.RawMessage `json:"resultType"`
	}
	if json.Unmarshal(res, &has) != nil || res[0] != '{' {
		return res
	}
	info, err := json.Marshal(serverImpl)
	if err != nil {
		return res
	}
	if has.Meta == nil && has.ResultType == nil {
		// Engram's results have neither: put both in front.
		out := fmt.Appendf(nil, `{"_meta":{%q:%s},"resultType":"complete"`, mcp.MetaKeyServerInfo, info)
		if rest := bytes.TrimLeft(res[1:], " \t\r\n"); rest[0] != '}' {
			out = append(out, ',')
		}
		return append(out, res[1:]...)
	}
	var top, meta map[string]json.RawMessage
	if json.Unmarshal(res, &top) != nil || has.Meta != nil && json.Unmarshal(has.Meta, &meta) != nil {
		return res
	}
	if meta == nil {
		meta = map[string]json.RawMessage{}
	}
	if _, ok := meta[mcp.MetaKeyServerInfo]; !ok {
		meta[mcp.MetaKeyServerInfo] = info
	}
	m, err := json.Marshal(meta)
	if err != nil {
		return res
	}
	top["_meta"], top["resultType"] = m, json.RawMessage(`"complete"`)
	if b, err := json.Marshal(top); err == nil {
		return b
	}
	return res
}

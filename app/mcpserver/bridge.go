package mcpserver

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/engram-app/engram/app"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BridgeOptions configure Bridge.
type BridgeOptions struct {
	// Endpoint is the running Engram's /mcp URL; Token the agent's token.
	Endpoint, Token string
	// Stderr receives one line per call that failed.
	Stderr io.Writer
	// CallTimeout bounds one forwarded call, reconnecting and retrying
	// included (default 60 s).
	CallTimeout time.Duration
	// Reconnect is how long a call keeps trying to reach an Engram that
	// does not answer, for instance while the desktop app restarts
	// (default 10 s). It ends earlier when CallTimeout does.
	Reconnect time.Duration
}

// IdempotencyKey is the _meta key under which the bridge sends each tool
// call's idempotency key. A client that sends one with a write gets the
// first answer back when it sends the same call again within ReplayTTL,
// instead of having the write made twice.
const IdempotencyKey = "engram/idempotency-key"

// remote forwards tool calls to a running Engram's /mcp endpoint. It
// connects on the first call and again whenever its session broke, so a
// bridge started before Engram works once Engram is up, and a session
// that Engram forgot (a restart) or whose connection dropped is replaced
// without the editor noticing.
//
// The bridge opens no standalone SSE stream: its own MCP server answers
// the editor's tools/list, and a forwarded call's answer comes in the
// call's own HTTP response. So nothing it holds open can be cut by a
// timeout, and an idle bridge holds no connection but pooled idle ones.
type remote struct {
	o      BridgeOptions
	client *http.Client
	auth   *bearer

	// seq numbers the requests the fast path forwards.
	seq atomic.Uint64

	mu sync.Mutex
	cs *mcp.ClientSession
}

// bearer adds the token to every request of the bridge's client and
// remembers whether Engram refused it.
type bearer struct {
	token string
	next  http.RoundTripper

	mu      sync.Mutex
	refused int // the HTTP status of the last refusal of the token, or 0
}

func (b *bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	resp, err := b.next.RoundTrip(r)
	if err == nil {
		b.mu.Lock()
		if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
			b.refused = resp.StatusCode
		} else if resp.StatusCode < 300 {
			b.refused = 0
		}
		b.mu.Unlock()
	}
	return resp, err
}

func (b *bearer) refusal() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.refused
}

func (r *remote) session(ctx context.Context) (*mcp.ClientSession, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cs != nil {
		return r.cs, nil
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "engram-mcp-bridge", Version: Version}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: r.o.Endpoint, HTTPClient: r.client, DisableStandaloneSSE: true}, nil)
	if err != nil {
		return nil, err
	}
	r.cs = cs
	return cs, nil
}

// drop forgets cs if it is still the current session.
func (r *remote) drop(cs *mcp.ClientSession) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cs != nil && (cs == nil || r.cs == cs) {
		r.cs.Close()
		r.cs = nil
	}
}

// codeRejected is the code of the SDK's client-side "rejected by
// transport" error: the request did not get an answer (the connection
// failed, or Engram answered 502, 503 or 429), and the session is still
// usable.
const codeRejected = -32005

// newKey returns a fresh idempotency key.
func newKey() string {
	return "bridge-" + rand.Text()
}

// call forwards one tool call through the bridge's MCP client: the
// calls the bridge's own MCP server runs (those the fast path leaves it)
// come here. The editor's idempotency key is kept, else the call gets one.
func (r *remote) call(ctx context.Context, c toolCall) *mcp.CallToolResult {
	key := c.Key
	if key == "" {
		key = newKey()
	}
	params := &mcp.CallToolParams{Name: c.Tool, Arguments: c.Args, Meta: mcp.Meta{IdempotencyKey: key}}
	res, failed := forward(ctx, r, func(ctx context.Context, cs *mcp.ClientSession) (*mcp.CallToolResult, error) {
		return cs.CallTool(ctx, params)
	})
	if failed != nil {
		return failed
	}
	return res
}

// forward sends one tool call to Engram with send, on the current session
// or a new one, until Engram answers. A call that fails for a reason of
// the connection (Engram restarting, a dropped or forgotten session, a
// connection closed under the request) is sent again, on a new session if
// the old one broke; send must send the same idempotency key every time,
// so that Engram makes a write once however often it is sent. Engram's own
// answers, errors included, are never sent again.
//
// send's errors say what happened: a *jsonrpc.Error is Engram's answer,
// unless its code is codeRejected (the request got no answer, and the
// session is still usable); any other error means the session broke.
// forward returns send's answer, or the error result to give the editor.
func forward[T any](ctx context.Context, r *remote, send func(context.Context, *mcp.ClientSession) (T, error)) (T, *mcp.CallToolResult) {
	caller := ctx
	ctx, cancel := context.WithTimeout(ctx, r.o.CallTimeout)
	defer cancel()
	var none T
	var err error
	start := time.Now()
	for attempt := 0; ; attempt++ {
		var cs *mcp.ClientSession
		cs, err = r.session(ctx)
		if err == nil {
			var res T
			res, err = send(ctx, cs)
			if err == nil {
				return res, nil
			}
			var wire *jsonrpc.Error
			if errors.As(err, &wire) && wire.Code != codeRejected {
				return none, errorResult("Engram refused the call: " + wire.Message)
			}
			if !errors.As(err, &wire) {
				// The session broke (Engram forgot it, or its connection
				// failed): close it, which ends it on Engram's side if
				// Engram still knows it, and open another.
				r.drop(cs)
			}
		}
		if code := r.auth.refusal(); code != 0 {
			return none, r.fail(fmt.Sprintf("Engram refused the agent token (HTTP %d): check ENGRAM_TOKEN, or whether the agent was revoked or paused ('engram agent list')", code))
		}
		if caller.Err() != nil {
			// The editor cancelled the call, or the bridge is ending:
			// nothing failed, and no one reads the answer.
			return none, errorResult("the call was cancelled")
		}
		if ctx.Err() != nil || time.Since(start) >= r.o.Reconnect {
			break
		}
		// Back off a little, at most a second, before the next attempt.
		wait := min(time.Duration(1<<min(attempt, 4))*50*time.Millisecond, time.Second)
		select {
		case <-ctx.Done():
		case <-time.After(wait):
		}
	}
	return none, r.fail(fmt.Sprintf("Engram is not reachable at %s (%v): start it with 'engram serve' or the desktop app, and check ENGRAM_TOKEN", r.o.Endpoint, err))
}

func (r *remote) fail(msg string) *mcp.CallToolResult {
	fmt.Fprintln(r.o.Stderr, "engram mcp: "+msg)
	return errorResult(msg)
}

// Bridge serves MCP over in and out (the stdio of `engram mcp`) and
// forwards every tool call to the Engram at o.Endpoint with o.Token. It
// returns when in closes or ctx ends.
func Bridge(ctx context.Context, in io.ReadCloser, out io.WriteCloser, o BridgeOptions) error {
	if o.CallTimeout <= 0 {
		o.CallTimeout = 60 * time.Second
	}
	if o.Reconnect <= 0 {
		o.Reconnect = 10 * time.Second
	}
	if o.Stderr == nil {
		o.Stderr = io.Discard
	}
	// Its own transport, so that idle connections are the bridge's to
	// close: after 30 s, before Engram's server closes them (120 s), so
	// that a request never races the server closing its connection.
	tr := &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
		MaxIdleConns:        4,
		IdleConnTimeout:     30 * time.Second,
		TLSHandshakeTimeout: 5 * time.Second,
	}
	defer tr.CloseIdleConnections()
	auth := &bearer{token: o.Token, next: tr}
	r := &remote{o: o, auth: auth, client: &http.Client{Transport: auth}}
	defer r.drop(nil)
	s, err := newServer(r)
	if err != nil {
		return err
	}
	p := &inFlight{changed: make(chan struct{}, 1)}
	answers := &answerCounter{w: out, p: p}
	fast := newFastPath(ctx, r, s, answers, p)
	defer fast.stop()
	in = &drainingReader{r: in, p: p, ctx: ctx, wait: o.CallTimeout + 5*time.Second, divert: fast.take}
	return s.Run(ctx, &mcp.IOTransport{Reader: in, Writer: answers})
}

// The MCP server ends its session when standard input ends, dropping the
// answers of requests still being forwarded: a client that writes its
// requests and closes its end at once (a script) lost them. So the bridge
// counts the requests it reads and the answers it writes (stdio messages
// are one JSON object a line), and holds back the end of its input until
// every request read was answered, or a call's timeout passed. The
// requests the fast path takes are counted when read, like the others,
// and their answers when written.

// inFlight counts requests read and not yet answered.
type inFlight struct {
	mu      sync.Mutex
	n       int
	changed chan struct{} // signalled (without blocking) on every change
}

func (p *inFlight) add(d int) {
	p.mu.Lock()
	p.n += d
	p.mu.Unlock()
	select {
	case p.changed <- struct{}{}:
	default:
	}
}

func (p *inFlight) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.n
}

// lines splits a byte stream into lines, keeping the unfinished one.
type lines struct{ partial []byte }

func (l *lines) each(b []byte, fn func(line []byte)) {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			l.partial = append(l.partial, b...)
			return
		}
		fn(append(l.partial, b[:i]...))
		l.partial, b = l.partial[:0], b[i+1:]
	}
}

// message is what the bridge reads of a JSON-RPC message: a request has
// an id and a method, an answer an id and no method, a notification a
// method and no id.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

// drainingReader is the MCP server's standard input. It reads whole
// lines, counts the requests among them, offers each message to divert
// (the fast path), and passes the server every line divert did not take,
// unchanged.
type drainingReader struct {
	r      io.ReadCloser
	p      *inFlight
	ctx    context.Context
	wait   time.Duration
	divert func(m *message) bool // reports whether it took the message

	l       lines
	buf     []byte
	pending bytes.Buffer // lines for the server
	err     error        // the error that ended r
}

func (d *drainingReader) Read(b []byte) (int, error) {
	for d.pending.Len() == 0 && d.err == nil {
		if d.buf == nil {
			d.buf = make([]byte, 32<<10)
		}
		n, err := d.r.Read(d.buf)
		d.l.each(d.buf[:n], func(line []byte) { d.line(line, "\n") })
		if err != nil {
			if len(d.l.partial) > 0 { // a last line without its newline
				d.line(d.l.partial, "")
				d.l.partial = d.l.partial[:0]
			}
			d.err = err
		}
	}
	if d.pending.Len() > 0 {
		return d.pending.Read(b) // the last requests reach the server first
	}
	if errors.Is(d.err, io.EOF) {
		d.drain()
	}
	return 0, d.err
}

// line counts and routes one line read; end is what followed it.
func (d *drainingReader) line(line []byte, end string) {
	var m message
	if json.Unmarshal(line, &m) == nil {
		if len(m.ID) > 0 && m.Method != "" {
			d.p.add(1)
		}
		if d.divert != nil && d.divert(&m) {
			return
		}
	}
	d.pending.Write(line)
	d.pending.WriteString(end)
}

// drain waits until every request read was answered.
func (d *drainingReader) drain() {
	deadline := time.NewTimer(d.wait)
	defer deadline.Stop()
	for d.p.count() > 0 {
		select {
		case <-d.p.changed:
		case <-deadline.C:
			return
		case <-d.ctx.Done():
			return
		}
	}
}

func (d *drainingReader) Close() error { return d.r.Close() }

// answerCounter is standard output, written by the MCP server and by the
// fast path. The server writes one whole message and its newline a Write
// (the SDK's ioConn does), and the fast path one whole line an answer, so
// a lock keeps their lines whole.
type answerCounter struct {
	mu sync.Mutex
	w  io.WriteCloser
	p  *inFlight
	l  lines
}

func (a *answerCounter) Write(b []byte) (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	n, err := a.w.Write(b)
	a.l.each(b[:n], func(line []byte) {
		var m message
		if json.Unmarshal(line, &m) == nil && len(m.ID) > 0 && m.Method == "" {
			a.p.add(-1)
		}
	})
	return n, err
}

// answer writes the answer to a request the fast path took, a line
// ending in a newline. The request is answered whether or not the write
// succeeds: if standard output broke, no answer will ever get out.
func (a *answerCounter) answer(line []byte) {
	a.mu.Lock()
	a.w.Write(line)
	a.mu.Unlock()
	a.p.add(-1)
}

func (a *answerCounter) Close() error { return a.w.Close() }

// toolCall is one tools/call as a backend receives it.
type toolCall struct {
	// Session is the MCP session's id.
	Session string
	Tool    string
	Args    json.RawMessage
	// Key is the call's idempotency key (_meta IdempotencyKey), or "".
	Key string
	// Caller is the authenticated caller of the HTTP request that carried
	// the call (Handler), with its grants as they are now; nil when the
	// transport has none (in process, the bridge's own server).
	Caller *app.Caller
}

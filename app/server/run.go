package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/internal/strictjson"
)

// Forwarded commands. While this process holds the vault, the user's
// engram commands run here, on its vault and service, with the same code
// as offline, and the terminal stays on the user's side:
// POST /v1/admin/run (admin token) carries an Invocation and upgrades the
// connection (101, Upgrade: engram-run) to JSON lines both ways. This
// side sends the command's output ({"stdout":…}, {"stderr":…}, bytes in
// base64), its requests ({"id":N,"ask":"secret"|"line"|"env"|"stdin",…})
// and at last {"exit":CODE}; the user's side answers each request
// ({"id":N,"data":…}, "none" when it has no terminal or no such
// variable, "eof" at the end of its standard input, "error" when it
// failed) and may send {"cancel":true} (Ctrl+C). A closed connection
// cancels the command too.

// RunProtocol is the Upgrade token of POST /v1/admin/run.
const RunProtocol = "engram-run"

// Limits of forwarded commands.
const (
	// MaxRuns is how many forwarded commands run at once; more are
	// refused 503.
	MaxRuns = 4
	// maxFrame bounds one JSON line either way.
	maxFrame = 256 << 10
	// runChunk bounds the bytes of output or standard input in one frame.
	runChunk = 32 << 10
	// cancelGrace is how long the user's side waits, after Ctrl+C, for
	// the command to end before it closes the connection.
	cancelGrace = 5 * time.Second
	// closeGrace is how long this side waits, after the exit frame, for
	// the user's side to close the connection first.
	closeGrace = 5 * time.Second
)

// ErrNoTerminal says the user's side has no terminal to ask on.
var ErrNoTerminal = errors.New("no terminal")

// ErrUnreachable says Forward could not reach a server that runs
// commands: nothing was run.
var ErrUnreachable = errors.New("the running Engram did not answer")

// errGone says the user's side closed the connection.
var errGone = errors.New("the terminal that ran the command went away")

// Invocation is one engram command the user runs in a terminal while this
// Engram holds the vault.
type Invocation struct {
	// Args are the command's arguments, without the program name.
	Args []string `json:"args"`
	// Dir is the user's working directory, an absolute path: relative
	// paths among Args are relative to it.
	Dir string `json:"dir"`
	// Vault is the vault file the command means. A server whose Engram
	// holds another file refuses the command (409).
	Vault string `json:"vault"`
	// Secret and Line say whether the user's side can ask for a
	// passphrase (without echo) and for a line of text.
	Secret bool `json:"secret,omitempty"`
	Line   bool `json:"line,omitempty"`
}

// problem says what is wrong with an invocation, or "".
func (inv Invocation) problem() string {
	switch {
	case len(inv.Args) == 0:
		return "invalid: no command given in args"
	case !filepath.IsAbs(inv.Dir):
		return "invalid: dir must be the absolute path of the working directory"
	case inv.Vault == "":
		return "invalid: vault must name the vault file"
	}
	return ""
}

// Terminal is the user's side of a forwarded command: its streams, its
// prompts and its environment. The RunFunc on the server gets one whose
// every call crosses the connection; Forward, on the user's side, answers
// those calls from a real one.
type Terminal struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Secret asks for a passphrase without echo, Line for a line of text
	// (a confirmation). Nil means the user's side has no terminal; an
	// error wrapping ErrNoTerminal says it found none when asked.
	Secret func(prompt string) ([]byte, error)
	Line   func(prompt string) (string, error)
	// Getenv reads an environment variable of the user's side ("" when
	// unset). On the user's side it answers only the variables the
	// commands read.
	Getenv func(name string) string
}

// RunFunc runs a forwarded command in this process and returns its exit
// code. It must return soon after ctx ends (Ctrl+C on the user's side, a
// closed connection, an unanswered prompt, or the server shutting down).
type RunFunc func(ctx context.Context, inv Invocation, t Terminal) int

// RefusedError is the server's answer when it does not run a forwarded
// command: the HTTP code and the response's status and message.
type RefusedError struct {
	Code    int
	Status  app.Status
	Message string
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("the running Engram refused the command (%d): %s", e.Code, e.Message)
}

// runFrame is one line from the server.
type runFrame struct {
	Stdout []byte `json:"stdout,omitempty"`
	Stderr []byte `json:"stderr,omitempty"`
	// ID and Ask make a request, answered by a runAnswer with the same ID:
	// Prompt is the prompt, or the variable's name for "env"; N is how
	// many bytes of standard input at most.
	ID     int    `json:"id,omitempty"`
	Ask    string `json:"ask,omitempty"`
	Prompt string `json:"prompt,omitempty"`
	N      int    `json:"n,omitempty"`
	Exit   *int   `json:"exit,omitempty"`
}

// What a request asks for.
const (
	askSecret = "secret"
	askLine   = "line"
	askEnv    = "env"
	askStdin  = "stdin"
)

// runAnswer is one line from the user's side.
type runAnswer struct {
	ID   int    `json:"id,omitempty"`
	Data []byte `json:"data,omitempty"`
	// None: no terminal to ask on, or the variable is unset.
	None bool `json:"none,omitempty"`
	// EOF: standard input has ended (after Data).
	EOF bool `json:"eof,omitempty"`
	// Err: the user's side could not answer, and why.
	Err string `json:"error,omitempty"`
	// Cancel: the user pressed Ctrl+C.
	Cancel bool `json:"cancel,omitempty"`
}

// runSet tracks the forwarded commands in progress, so that at most
// MaxRuns run and Serve ends none of them by closing the vault under it:
// they are cancelled and waited for.
type runSet struct {
	mu      sync.Mutex
	closed  bool
	next    int
	cancels map[int]context.CancelFunc
	wg      sync.WaitGroup
}

// start claims a slot; done releases it (once, whatever the calls). It
// fails with the reason when the set is full or closed.
func (rs *runSet) start() (ctx context.Context, done func(), refused string) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	switch {
	case rs.closed:
		return nil, nil, "Engram is shutting down"
	case len(rs.cancels) >= MaxRuns:
		return nil, nil, fmt.Sprintf("Engram is already running %d engram commands; try again when one ends", MaxRuns)
	}
	if rs.cancels == nil {
		rs.cancels = map[int]context.CancelFunc{}
	}
	ctx, cancel := context.WithCancel(context.Background())
	rs.next++
	id := rs.next
	rs.cancels[id] = cancel
	rs.wg.Add(1)
	return ctx, sync.OnceFunc(func() {
		cancel()
		rs.mu.Lock()
		delete(rs.cancels, id)
		rs.mu.Unlock()
		rs.wg.Done()
	}), ""
}

// stop refuses new commands, cancels those in progress and waits for
// them to end.
func (rs *runSet) stop() {
	rs.mu.Lock()
	rs.closed = true
	for _, cancel := range rs.cancels {
		cancel()
	}
	rs.mu.Unlock()
	rs.wg.Wait()
}

// upgradeTo reports whether a request asks to upgrade to proto.
func upgradeTo(h http.Header, proto string) bool {
	upgrade := false
	for _, v := range h.Values("Connection") {
		for _, tok := range strings.Split(v, ",") {
			upgrade = upgrade || strings.EqualFold(strings.TrimSpace(tok), "upgrade")
		}
	}
	return upgrade && strings.EqualFold(strings.TrimSpace(h.Get("Upgrade")), proto)
}

// sameFile reports whether a and b name the same existing file.
func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

// adminRun is POST /v1/admin/run: it runs the invocation with the Run
// hook and streams it over the upgraded connection.
func (s *Server) adminRun(w http.ResponseWriter, r *http.Request, _ app.Request) {
	if s.run == nil {
		replyError(w, http.StatusNotFound, app.StatusNotFound, "this Engram does not run engram commands")
		return
	}
	if !upgradeTo(r.Header, RunProtocol) {
		w.Header().Set("Connection", "Upgrade")
		w.Header().Set("Upgrade", RunProtocol)
		replyError(w, http.StatusUpgradeRequired, app.StatusInvalid, "POST /v1/admin/run needs Connection: Upgrade and Upgrade: "+RunProtocol)
		return
	}
	var inv Invocation
	if !decode(w, r, &inv) {
		return
	}
	if msg := inv.problem(); msg != "" {
		replyError(w, http.StatusBadRequest, app.StatusInvalid, msg)
		return
	}
	if s.vaultPath != "" && !sameFile(inv.Vault, s.vaultPath) {
		replyError(w, http.StatusConflict, app.StatusConflict, fmt.Sprintf("this Engram holds the vault %s, not %s", s.vaultPath, inv.Vault))
		return
	}
	ctx, done, refused := s.runs.start()
	if refused != "" {
		replyError(w, http.StatusServiceUnavailable, app.StatusUnavailable, refused)
		return
	}
	defer done()
	conn, brw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		replyError(w, http.StatusInternalServerError, app.StatusUnavailable, "the connection cannot be upgraded")
		return
	}
	defer conn.Close()
	s.serveRun(ctx, conn, brw.Reader, inv, done)
}

// serveRun answers 101, runs the command, calls done (the command no
// longer uses the vault, and its slot is free before the user's side
// learns it ended) and sends its exit code.
func (s *Server) serveRun(ctx context.Context, conn net.Conn, buffered *bufio.Reader, inv Invocation, done func()) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	_ = conn.SetDeadline(time.Time{}) // the server's request deadlines end here; runPeer sets its own
	p := &runPeer{conn: conn, writeTimeout: s.timeouts.Write, answerTimeout: s.timeouts.Answer, cancel: cancel,
		pending: map[int]chan runAnswer{}, gone: make(chan struct{})}
	if err := p.writeRaw([]byte("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: " + RunProtocol + "\r\n\r\n")); err != nil {
		return
	}
	go p.read(bufio.NewReaderSize(buffered, maxFrame))
	code := s.runSafely(ctx, inv, p.terminal(ctx, inv))
	done()
	if err := p.send(runFrame{Exit: &code}); err != nil {
		return
	}
	// Let the user's side read the exit code and close first: closing
	// with its bytes unread could reset the connection before the code
	// arrives.
	t := time.NewTimer(closeGrace)
	defer t.Stop()
	select {
	case <-p.gone:
	case <-t.C:
	}
}

// runSafely runs the command; a panic in it ends the command, not the
// Engram that runs it.
func (s *Server) runSafely(ctx context.Context, inv Invocation, t Terminal) (code int) {
	defer func() {
		if r := recover(); r != nil {
			// The panic's value is not logged: it could quote a memory.
			s.log.Error("forwarded engram command panicked", "stack", string(debug.Stack()))
			fmt.Fprintln(t.Stderr, "engram: the command failed inside the running Engram (see its log)")
			code = 1
		}
	}()
	return s.run(ctx, inv, t)
}

// runPeer is the server's end of an upgraded connection.
type runPeer struct {
	conn                        net.Conn
	writeTimeout, answerTimeout time.Duration
	// cancel ends the command.
	cancel context.CancelFunc

	wmu sync.Mutex // one frame at a time

	mu      sync.Mutex
	next    int
	pending map[int]chan runAnswer
	// gone is closed when the user's side closed the connection or broke
	// the protocol.
	gone chan struct{}
}

func (p *runPeer) writeRaw(b []byte) error {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	_ = p.conn.SetWriteDeadline(time.Now().Add(p.writeTimeout))
	_, err := p.conn.Write(b)
	return err
}

func (p *runPeer) send(f runFrame) error {
	b, err := json.Marshal(f)
	if err != nil {
		return err
	}
	return p.writeRaw(append(b, '\n'))
}

// read delivers the answers to their requests until the connection ends,
// then cancels the command. A frame over maxFrame or one that does not
// decode ends it too.
func (p *runPeer) read(r *bufio.Reader) {
	defer close(p.gone)
	defer p.cancel()
	for {
		line, err := r.ReadSlice('\n')
		if err != nil {
			return
		}
		var a runAnswer
		if err := strictjson.Decode(bytes.TrimSpace(line), &a); err != nil {
			return
		}
		if a.Cancel {
			p.cancel()
			continue
		}
		p.mu.Lock()
		ch := p.pending[a.ID]
		delete(p.pending, a.ID)
		p.mu.Unlock()
		if ch != nil {
			ch <- a // buffered; an answer to a request no longer waited for is dropped
		}
	}
}

// ask sends a request and waits for its answer. A request unanswered
// for answerTimeout cancels the command: nobody is at the terminal.
func (p *runPeer) ask(ctx context.Context, f runFrame) (runAnswer, error) {
	ch := make(chan runAnswer, 1)
	p.mu.Lock()
	p.next++
	f.ID = p.next
	p.pending[f.ID] = ch
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		delete(p.pending, f.ID)
		p.mu.Unlock()
	}()
	if err := p.send(f); err != nil {
		return runAnswer{}, err
	}
	t := time.NewTimer(p.answerTimeout)
	defer t.Stop()
	select {
	case a := <-ch:
		switch {
		case a.Err != "":
			return a, errors.New(a.Err)
		case a.None && (f.Ask == askSecret || f.Ask == askLine):
			return a, ErrNoTerminal
		}
		return a, nil
	case <-ctx.Done():
		return runAnswer{}, ctx.Err()
	case <-p.gone:
		return runAnswer{}, errGone
	case <-t.C:
		p.cancel()
		return runAnswer{}, fmt.Errorf("no answer from the terminal in %v", p.answerTimeout)
	}
}

// terminal is the Terminal a forwarded command gets: every call crosses
// the connection.
func (p *runPeer) terminal(ctx context.Context, inv Invocation) Terminal {
	var envMu sync.Mutex
	env := map[string]string{}
	t := Terminal{
		Stdin:  &runStdin{p: p, ctx: ctx},
		Stdout: runOut{p: p},
		Stderr: runOut{p: p, stderr: true},
		Getenv: func(name string) string {
			envMu.Lock()
			defer envMu.Unlock()
			if v, ok := env[name]; ok {
				return v
			}
			a, err := p.ask(ctx, runFrame{Ask: askEnv, Prompt: name})
			if err != nil {
				return "" // the command ends on ctx, or answers as if unset
			}
			env[name] = string(a.Data)
			return env[name]
		},
	}
	if inv.Secret {
		t.Secret = func(prompt string) ([]byte, error) {
			a, err := p.ask(ctx, runFrame{Ask: askSecret, Prompt: prompt})
			return a.Data, err
		}
	}
	if inv.Line {
		t.Line = func(prompt string) (string, error) {
			a, err := p.ask(ctx, runFrame{Ask: askLine, Prompt: prompt})
			return string(a.Data), err
		}
	}
	return t
}

// runOut sends what a command writes, in frames of at most runChunk bytes.
type runOut struct {
	p      *runPeer
	stderr bool
}

func (o runOut) Write(b []byte) (int, error) {
	n := 0
	for len(b) > 0 {
		part := b[:min(len(b), runChunk)]
		f := runFrame{Stdout: part}
		if o.stderr {
			f = runFrame{Stderr: part}
		}
		if err := o.p.send(f); err != nil {
			return n, err
		}
		n += len(part)
		b = b[len(part):]
	}
	return n, nil
}

// runStdin reads the user's standard input on demand.
type runStdin struct {
	p   *runPeer
	ctx context.Context
	eof bool
}

func (r *runStdin) Read(b []byte) (int, error) {
	if r.eof {
		return 0, io.EOF
	}
	if len(b) == 0 {
		return 0, nil
	}
	want := min(len(b), runChunk)
	a, err := r.p.ask(r.ctx, runFrame{Ask: askStdin, N: want})
	if err != nil {
		return 0, err
	}
	if len(a.Data) > want {
		r.p.cancel()
		return 0, errors.New("the terminal sent more input than asked for")
	}
	n := copy(b, a.Data)
	if a.EOF {
		r.eof = true
		if n == 0 {
			return 0, io.EOF
		}
	}
	return n, nil
}

// Forward runs inv in the Engram at the other end of conn (its Unix
// socket), authenticated with the admin token, and answers its requests
// from t, until the command ends; it returns the command's exit code.
// When ctx ends (Ctrl+C) it asks the command to stop and still waits,
// for a few seconds, for its exit code. It fails with a *RefusedError
// when the server does not run the command, with an error wrapping
// ErrUnreachable when the server did not answer the request, and closes
// conn.
func Forward(ctx context.Context, conn net.Conn, token string, inv Invocation, t Terminal) (int, error) {
	defer conn.Close()
	body, err := json.Marshal(inv)
	if err != nil {
		return 0, err
	}
	req, err := http.NewRequest("POST", "http://localhost/v1/admin/run", bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", RunProtocol)
	abort := context.AfterFunc(ctx, func() { conn.Close() })
	br := bufio.NewReaderSize(conn, maxFrame)
	err = req.Write(conn)
	var resp *http.Response
	if err == nil {
		resp, err = http.ReadResponse(br, req)
	}
	if !abort() {
		return 0, ctx.Err()
	}
	if err != nil {
		return 0, fmt.Errorf("%w: %v", ErrUnreachable, err)
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, maxFrame))
		resp.Body.Close()
		var r app.Response
		if json.Unmarshal(raw, &r) != nil || r.Message == "" {
			r.Message = resp.Status
		}
		return 0, &RefusedError{Code: resp.StatusCode, Status: r.Status, Message: r.Message}
	}
	c := &runClient{conn: conn}
	stop := context.AfterFunc(ctx, func() {
		_ = c.send(runAnswer{Cancel: true})
		time.AfterFunc(cancelGrace, func() { conn.Close() })
	})
	defer stop()
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			if ctx.Err() != nil {
				return 0, fmt.Errorf("interrupted; the running Engram did not say how the command ended")
			}
			return 0, fmt.Errorf("the running Engram closed the connection before the command ended (%v)", err)
		}
		var f runFrame
		if err := json.Unmarshal(line, &f); err != nil {
			return 0, fmt.Errorf("the running Engram sent a malformed frame: %v", err)
		}
		switch {
		case f.Exit != nil:
			return *f.Exit, nil
		case f.Stdout != nil:
			_, _ = t.Stdout.Write(f.Stdout)
		case f.Stderr != nil:
			_, _ = t.Stderr.Write(f.Stderr)
		case f.Ask != "":
			a := answer(f, t)
			a.ID = f.ID
			err := c.send(a)
			clear(a.Data)
			if err != nil {
				return 0, fmt.Errorf("the running Engram closed the connection before the command ended (%v)", err)
			}
		}
	}
}

// runClient is the user's end of an upgraded connection.
type runClient struct {
	conn net.Conn
	mu   sync.Mutex
}

func (c *runClient) send(a runAnswer) error {
	b, err := json.Marshal(a)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	_, err = c.conn.Write(append(b, '\n'))
	clear(b)
	return err
}

// answer answers one request from t.
func answer(f runFrame, t Terminal) runAnswer {
	failed := func(err error) runAnswer {
		if errors.Is(err, ErrNoTerminal) {
			return runAnswer{None: true}
		}
		return runAnswer{Err: err.Error()}
	}
	switch f.Ask {
	case askSecret:
		if t.Secret == nil {
			return runAnswer{None: true}
		}
		b, err := t.Secret(f.Prompt)
		if err != nil {
			return failed(err)
		}
		return runAnswer{Data: b}
	case askLine:
		if t.Line == nil {
			return runAnswer{None: true}
		}
		s, err := t.Line(f.Prompt)
		if err != nil {
			return failed(err)
		}
		return runAnswer{Data: []byte(s)}
	case askEnv:
		if t.Getenv == nil {
			return runAnswer{None: true}
		}
		if v := t.Getenv(f.Prompt); v != "" {
			return runAnswer{Data: []byte(v)}
		}
		return runAnswer{None: true}
	case askStdin:
		if t.Stdin == nil {
			return runAnswer{EOF: true}
		}
		buf := make([]byte, max(1, min(f.N, runChunk)))
		n, err := t.Stdin.Read(buf)
		switch {
		case errors.Is(err, io.EOF):
			return runAnswer{Data: buf[:n], EOF: true}
		case err != nil:
			return runAnswer{Err: "read standard input: " + err.Error()}
		}
		return runAnswer{Data: buf[:n]}
	}
	return runAnswer{Err: fmt.Sprintf("unknown request %q", f.Ask)}
}

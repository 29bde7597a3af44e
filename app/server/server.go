package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/internal/strictjson"
)

// DefaultAddr is the documented loopback address of the API.
const DefaultAddr = "127.0.0.1:7474"

// MaxBody bounds a request body: a memory holds at most 10,000
// characters, 40 KB of UTF-8, plus its JSON.
const MaxBody = 256 << 10

// SessionHeader carries an agent's session id over HTTP.
const SessionHeader = "Engram-Session"

// Options configure a Server.
type Options struct {
	Log *slog.Logger
	// Rate is each agent's sustained requests per second, Burst its burst.
	Rate  float64
	Burst int
	Now   func() time.Time
	// Listening, when set, is called with the TCP address once the server
	// accepts connections.
	Listening func(addr string)
	// Timeouts bound ordinary requests; zero fields take the defaults
	// (DefaultTimeouts). Tests shorten them to cross them in seconds.
	Timeouts Timeouts
	// Lock, when set, locks the Engram that runs the server and removes
	// its key from the OS keyring: `engram lock` reaches it through the
	// admin endpoint.
	Lock func() error
	// Run, when set, runs the engram commands the user forwards to this
	// Engram through POST /v1/admin/run (run.go); VaultPath is the vault
	// file this Engram holds, and a command meant for another is refused.
	Run       RunFunc
	VaultPath string
}

// Timeouts are the loopback server's limits on one connection, as
// http.Server applies them.
type Timeouts struct {
	// ReadHeader bounds reading a request's headers, Read the whole
	// request with its body, Write a response from the end of the request's
	// headers, and Idle a kept-alive connection between requests. An event
	// stream (MCP's standalone SSE stream) is not bounded by Read and
	// Write: each of its writes is bounded by Write instead, and after
	// KeepAlive of silence it gets a comment.
	ReadHeader, Read, Write, Idle, KeepAlive time.Duration
	// Answer bounds how long a forwarded command waits for the user's
	// terminal to answer (a passphrase, a confirmation); after it the
	// command is cancelled.
	Answer time.Duration
}

// DefaultTimeouts are the limits of `engram serve` and the desktop app.
var DefaultTimeouts = Timeouts{ReadHeader: 5 * time.Second, Read: 30 * time.Second, Write: 60 * time.Second, Idle: 120 * time.Second, KeepAlive: DefaultKeepAlive, Answer: 10 * time.Minute}

// orDefault fills zero fields from DefaultTimeouts.
func (t Timeouts) orDefault() Timeouts {
	d := DefaultTimeouts
	if t.ReadHeader > 0 {
		d.ReadHeader = t.ReadHeader
	}
	if t.Read > 0 {
		d.Read = t.Read
	}
	if t.Write > 0 {
		d.Write = t.Write
	}
	if t.Idle > 0 {
		d.Idle = t.Idle
	}
	if t.KeepAlive > 0 {
		d.KeepAlive = t.KeepAlive
	}
	if t.Answer > 0 {
		d.Answer = t.Answer
	}
	return d
}

// Server serves the API over the memory service.
type Server struct {
	svc   *app.Service
	log   *slog.Logger
	now   func() time.Time
	rate  float64
	burst int
	// listening is Options.Listening.
	listening func(addr string)
	timeouts  Timeouts
	// adminToken authenticates the local user's engram commands; Serve
	// creates it.
	adminToken string
	lock       func() error
	// run and vaultPath are Options.Run and Options.VaultPath; runs are
	// the forwarded commands in progress.
	run       RunFunc
	vaultPath string
	runs      runSet

	mu      sync.Mutex
	buckets map[string]*bucket
}

// New returns a server for svc.
func New(svc *app.Service, o Options) *Server {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Rate == 0 {
		o.Rate = 200
	}
	if o.Burst == 0 {
		o.Burst = 400
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Server{svc: svc, log: o.Log, now: o.Now, rate: o.Rate, burst: o.Burst, listening: o.Listening, timeouts: o.Timeouts.orDefault(), buckets: map[string]*bucket{}, lock: o.Lock, run: o.Run, vaultPath: o.VaultPath}
}

// httpStatus is the one mapping from service statuses to HTTP codes.
// An unauthorized status from the service (a field or level the agent may
// not use) is 403; a missing or bad token never reaches the service and is
// answered 401 by the authentication step.
func httpStatus(s app.Status) int {
	switch s {
	case app.StatusOK:
		return http.StatusOK
	case app.StatusQuarantined, app.StatusPending:
		return http.StatusAccepted
	case app.StatusUnauthorized, app.StatusPaused:
		return http.StatusForbidden
	case app.StatusNotFound:
		return http.StatusNotFound
	case app.StatusInvalid:
		return http.StatusBadRequest
	case app.StatusConflict:
		return http.StatusConflict
	case app.StatusConfirmationRequired:
		return http.StatusPreconditionRequired
	case app.StatusRejected:
		return http.StatusUnprocessableEntity
	case app.StatusLocked:
		return http.StatusLocked
	case app.StatusDamaged:
		return http.StatusInternalServerError
	}
	return http.StatusServiceUnavailable
}

// reply writes v as JSON with the HTTP code of its status.
func reply(w http.ResponseWriter, status app.Status, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(httpStatus(status))
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

func replyError(w http.ResponseWriter, code int, status app.Status, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(app.Response{Status: status, Message: msg})
}

// isLoopbackHost reports whether a Host header names this machine's
// loopback interface: localhost, 127.0.0.0/8 or ::1, with any port.
func isLoopbackHost(host string) bool {
	h := host
	if hh, _, err := net.SplitHostPort(host); err == nil {
		h = hh
	}
	h = strings.Trim(h, "[]")
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// sameOrigin reports whether a browser Origin header names the server the
// request was sent to. Non-browser clients send no Origin.
func sameOrigin(origin, host string) bool {
	if origin == "" {
		return true
	}
	o := strings.TrimPrefix(strings.TrimPrefix(origin, "http://"), "https://")
	return o != origin && strings.EqualFold(o, host) && isLoopbackHost(o)
}

// checkRequest applies the checks every request passes before routing.
// A request must name this machine in its Host header, on the Unix socket
// too (clients send "localhost" there): an empty Host (or HTTP/1.0
// without one) names nothing and is refused 400, another host 403.
func (s *Server) checkRequest(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Host == "" {
			replyError(w, http.StatusBadRequest, app.StatusInvalid, "invalid: empty Host header")
			return
		}
		if !isLoopbackHost(r.Host) {
			replyError(w, http.StatusForbidden, app.StatusUnauthorized, "the Host header must name this machine's loopback address")
			return
		}
		if !sameOrigin(r.Header.Get("Origin"), r.Host) {
			replyError(w, http.StatusForbidden, app.StatusUnauthorized, "cross-origin requests are refused")
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, MaxBody)
		// The service asks the OS which process sent a request that needs
		// it (a pairing, a failed authentication): through the connection
		// (Serve's ConnContext), else through the remote address.
		r = r.WithContext(app.WithPeer(r.Context(), r.RemoteAddr))
		next.ServeHTTP(w, r)
	})
}

type ctxKey struct{}

// authed wraps a handler that needs an agent: it authenticates the bearer
// token, applies the rate limit and passes the caller on. A wrong token
// is answered 401, or 429 past the asking process's limit (refuseAuth).
func (s *Server) authed(h func(w http.ResponseWriter, r *http.Request, req app.Request)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="engram"`)
			replyError(w, http.StatusUnauthorized, app.StatusUnauthorized, "an Authorization: Bearer token is required")
			return
		}
		caller, resp := s.svc.Authenticate(r.Context(), token, r.Header.Get(SessionHeader))
		switch {
		case resp.Status == app.StatusUnauthorized:
			s.refuseAuth(w, r, resp.Message)
			return
		case !resp.OK():
			reply(w, resp.Status, resp)
			return
		}
		if !s.allow(caller.Agent) {
			w.Header().Set("Retry-After", "1")
			replyError(w, http.StatusTooManyRequests, app.StatusUnavailable, "too many requests from this agent; slow down")
			return
		}
		h(w, r, app.Request{Caller: caller, Authorized: true, Reason: agentReason(r.Header.Get("Engram-Reason"))})
	}
}

// ReasonGiven is what the audit log and the provenance keep of an
// agent's Engram-Reason header: that it gave one, never its words. An
// agent's words may name what the user later deletes or forgets, and the
// log would keep them after it (and a keyed fingerprint would not pass
// the screening of a request's reason as free text).
const ReasonGiven = "the agent gave a reason (not kept)"

// agentReason is the actor's reason for a request with the Engram-Reason
// header h: ReasonGiven, or "" for none.
func agentReason(h string) string {
	if strings.TrimSpace(h) == "" {
		return ""
	}
	return ReasonGiven
}

// decode reads a JSON body strictly (strictjson.Decode): invalid UTF-8, a
// NUL character, a key given twice, an unknown field and data after the
// object are answered 400 with what is wrong and where.
func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	body, err := io.ReadAll(r.Body)
	if err == nil {
		err = strictjson.Decode(body, v)
	}
	if err == nil {
		return true
	}
	var tooBig *http.MaxBytesError
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	msg := err.Error()
	switch {
	case errors.As(err, &tooBig):
		replyError(w, http.StatusRequestEntityTooLarge, app.StatusInvalid, fmt.Sprintf("the request body is larger than %d bytes", MaxBody))
		return false
	case errors.Is(err, strictjson.ErrEmpty):
		msg = "the request body is empty; send a JSON object"
	case errors.Is(err, strictjson.ErrNotUTF8):
		msg = "invalid: the request body is not valid UTF-8"
	case errors.Is(err, strictjson.ErrDuplicateKey):
		msg = "invalid: " + msg + " in the request body"
	case errors.Is(err, strictjson.ErrNUL), errors.Is(err, strictjson.ErrSurrogate):
		msg = "invalid: " + msg
	case errors.Is(err, strictjson.ErrTrailing):
		msg = "invalid: trailing data after the JSON object"
	case errors.As(err, &syntax):
		msg = fmt.Sprintf("malformed JSON at byte %d: %v", syntax.Offset, err)
	case errors.As(err, &typ):
		msg = fmt.Sprintf("field %q must be a %s", typ.Field, typ.Type)
	}
	replyError(w, http.StatusBadRequest, app.StatusInvalid, msg)
	return false
}

// Serve listens on addr (TCP, loopback only) and, when socket is not
// empty, on a Unix socket with mode 0600, until ctx ends; then it stops
// accepting and lets requests in flight finish (up to 10 s). It writes the
// TCP address it listens on to runtimeFile (mode 0600) when that is set.
func (s *Server) Serve(ctx context.Context, addr, socket, runtimeFile string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("serve: address %q: %w", addr, err)
	}
	if !isLoopbackHost(host) {
		return fmt.Errorf("serve: %s is not a loopback address; Engram listens on this machine only", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	listeners := []net.Listener{ln}
	// Forwarded commands run on the vault of the process that called
	// Serve, which closes it once Serve returns: end them first.
	defer s.runs.stop()
	if socket != "" {
		_ = os.Remove(socket)
		if err := os.MkdirAll(filepath.Dir(socket), 0o700); err != nil {
			ln.Close()
			return err
		}
		old := umask(0o177)
		uln, err := net.Listen("unix", socket)
		umask(old)
		if err != nil {
			ln.Close()
			return fmt.Errorf("serve: %w", err)
		}
		if err := os.Chmod(socket, 0o600); err != nil {
			ln.Close()
			uln.Close()
			return err
		}
		listeners = append(listeners, uln)
	}
	if runtimeFile != "" {
		if err := os.MkdirAll(filepath.Dir(runtimeFile), 0o700); err != nil {
			return err
		}
		token, err := newAdminToken()
		if err != nil {
			return err
		}
		adminFile := filepath.Join(filepath.Dir(runtimeFile), AdminTokenFile)
		if err := os.WriteFile(adminFile, []byte(token+"\n"), 0o600); err != nil {
			return err
		}
		defer os.Remove(adminFile)
		s.adminToken = token
		if err := os.WriteFile(runtimeFile, []byte(ln.Addr().String()+"\n"), 0o600); err != nil {
			return err
		}
		defer os.Remove(runtimeFile)
	}
	hs := &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: s.timeouts.ReadHeader,
		ReadTimeout:       s.timeouts.Read,
		WriteTimeout:      s.timeouts.Write,
		IdleTimeout:       s.timeouts.Idle,
		MaxHeaderBytes:    32 << 10,
		// The process behind a connection is looked up once per
		// connection, when a request first needs it.
		ConnContext: app.WithConn,
	}
	errc := make(chan error, len(listeners))
	for _, l := range listeners {
		go func() { errc <- hs.Serve(l) }()
	}
	if s.listening != nil {
		s.listening(ln.Addr().String())
	}
	select {
	case <-ctx.Done():
	case err := <-errc:
		if !errors.Is(err, http.ErrServerClosed) {
			hs.Close()
			return err
		}
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return hs.Shutdown(shutdown)
}

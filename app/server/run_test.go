package server_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/recall"
	"github.com/engram-app/engram/app/server"
	"github.com/engram-app/engram/vault/vaulttest"
)

// runEnv is a real server on loopback and a Unix socket whose Run hook
// is run, as `engram serve` runs the command line there.
type runEnv struct {
	*env
	admin string // the admin token Serve wrote
}

func startRun(t *testing.T, opts server.Options, run server.RunFunc) *runEnv {
	t.Helper()
	opts.Run = run
	e := start(t, opts)
	token, err := os.ReadFile(filepath.Join(filepath.Dir(e.socket), server.AdminTokenFile))
	if err != nil {
		t.Fatal(err)
	}
	return &runEnv{env: e, admin: strings.TrimSpace(string(token))}
}

func (e *runEnv) dial(t *testing.T) net.Conn {
	t.Helper()
	c, err := net.Dial("unix", e.socket)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func (e *runEnv) inv(args ...string) server.Invocation {
	return server.Invocation{Args: args, Dir: e.t.TempDir(), Vault: e.v.Path()}
}

// TestRunRelays: what a forwarded command writes reaches the user's side
// byte for byte (invalid UTF-8 and more than one frame too), its prompts
// are answered there, standard input is read on demand, the variables
// it reads are asked one by one, and its exit code comes back.
func TestRunRelays(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789abcdef"), 5000) // 80,000 bytes: several frames
	odd := []byte("\xff\xfe not UTF-8 \x00 and a NUL\n")
	type seen struct {
		secret  string
		line    string
		env     []string
		stdin   string
		args    []string
		dirSeen string
	}
	got := make(chan seen, 1)
	e := startRun(t, server.Options{}, func(ctx context.Context, inv server.Invocation, term server.Terminal) int {
		var s seen
		s.args, s.dirSeen = inv.Args, inv.Dir
		term.Stdout.Write(big)
		term.Stderr.Write(odd)
		b, err := term.Secret("Passphrase: ")
		if err != nil {
			t.Errorf("Secret = %v", err)
		}
		s.secret = string(b)
		s.line, err = term.Line("Type \"forget\" to confirm: ")
		if err != nil {
			t.Errorf("Line = %v", err)
		}
		s.env = []string{term.Getenv("ENGRAM_PASSPHRASE"), term.Getenv("HOME"), term.Getenv("ENGRAM_PASSPHRASE")}
		in, err := io.ReadAll(term.Stdin)
		if err != nil {
			t.Errorf("read stdin = %v", err)
		}
		s.stdin = string(in)
		got <- s
		return 7
	})
	var stdout, stderr bytes.Buffer
	var asked []string
	var envAsked []string
	stdin := strings.Repeat("standard input, ", 4000) // 64,000 bytes: several requests
	term := server.Terminal{
		Stdin: strings.NewReader(stdin), Stdout: &stdout, Stderr: &stderr,
		Secret: func(p string) ([]byte, error) { asked = append(asked, p); return []byte("s3cret \xff"), nil },
		Line:   func(p string) (string, error) { asked = append(asked, p); return "forget", nil },
		Getenv: func(name string) string {
			envAsked = append(envAsked, name)
			if name == "ENGRAM_PASSPHRASE" {
				return "from the env"
			}
			return ""
		},
	}
	inv := e.inv("memory", "forget", "a topic")
	inv.Secret, inv.Line = true, true
	code, err := server.Forward(context.Background(), e.dial(t), e.admin, inv, term)
	if err != nil || code != 7 {
		t.Fatalf("Forward = %d, %v; want 7", code, err)
	}
	s := <-got
	if !bytes.Equal(stdout.Bytes(), big) {
		t.Errorf("stdout: %d bytes, want the %d written", stdout.Len(), len(big))
	}
	if !bytes.Equal(stderr.Bytes(), odd) {
		t.Errorf("stderr = %q, want %q", stderr.Bytes(), odd)
	}
	if s.secret != "s3cret \xff" || s.line != "forget" {
		t.Errorf("answers = %q, %q", s.secret, s.line)
	}
	if fmt.Sprint(asked) != `[Passphrase:  Type "forget" to confirm: ]` {
		t.Errorf("prompts asked = %q", asked)
	}
	if fmt.Sprint(s.env) != "[from the env  from the env]" || fmt.Sprint(envAsked) != "[ENGRAM_PASSPHRASE HOME]" {
		t.Errorf("env = %q, asked %q; want each variable asked once", s.env, envAsked)
	}
	if s.stdin != stdin {
		t.Errorf("stdin: %d bytes, want %d", len(s.stdin), len(stdin))
	}
	if fmt.Sprint(s.args) != "[memory forget a topic]" || s.dirSeen != inv.Dir {
		t.Errorf("invocation = %q in %q", s.args, s.dirSeen)
	}
}

// TestRunNoTerminal: without a terminal on the user's side the command
// has no prompt functions, or gets ErrNoTerminal when the user's side
// finds none when asked.
func TestRunNoTerminal(t *testing.T) {
	type res struct {
		nilSecret, nilLine bool
		err                error
	}
	got := make(chan res, 1)
	e := startRun(t, server.Options{}, func(ctx context.Context, inv server.Invocation, term server.Terminal) int {
		r := res{nilSecret: term.Secret == nil, nilLine: term.Line == nil}
		if term.Secret != nil {
			_, r.err = term.Secret("Passphrase: ")
		}
		got <- r
		return 0
	})
	if _, err := server.Forward(context.Background(), e.dial(t), e.admin, e.inv("memory", "list"), server.Terminal{Stdout: io.Discard, Stderr: io.Discard}); err != nil {
		t.Fatal(err)
	}
	if r := <-got; !r.nilSecret || !r.nilLine {
		t.Errorf("no terminal: Secret nil %v, Line nil %v; want both nil", r.nilSecret, r.nilLine)
	}
	inv := e.inv("memory", "list")
	inv.Secret = true
	term := server.Terminal{Stdout: io.Discard, Stderr: io.Discard, Secret: func(string) ([]byte, error) {
		return nil, fmt.Errorf("open /dev/tty: %w", server.ErrNoTerminal)
	}}
	if _, err := server.Forward(context.Background(), e.dial(t), e.admin, inv, term); err != nil {
		t.Fatal(err)
	}
	if r := <-got; !errors.Is(r.err, server.ErrNoTerminal) {
		t.Errorf("Secret without a terminal = %v, want ErrNoTerminal", r.err)
	}
}

// TestRunRefused: a command is run only for the admin token, on the
// vault it means, over an upgraded connection, a few at a time; every
// refusal says why and runs nothing.
func TestRunRefused(t *testing.T) {
	release := make(chan struct{})
	var once sync.Once
	defer once.Do(func() { close(release) })
	started := make(chan struct{}, server.MaxRuns)
	e := startRun(t, server.Options{VaultPath: ""}, func(ctx context.Context, inv server.Invocation, term server.Terminal) int {
		if inv.Args[0] == "block" {
			started <- struct{}{}
			<-release
		}
		return 0
	})
	other := e.inv("memory", "list")
	other.Vault = filepath.Join(t.TempDir(), "vault.db")
	os.WriteFile(other.Vault, nil, 0o600)
	relative := e.inv("memory", "list")
	relative.Dir = "work"
	noVault := start(t, server.Options{})
	noVaultToken, _ := os.ReadFile(filepath.Join(filepath.Dir(noVault.socket), server.AdminTokenFile))
	withVault := startRun(t, server.Options{VaultPath: e.v.Path()}, func(context.Context, server.Invocation, server.Terminal) int { return 0 })
	tests := []struct {
		name  string
		e     *env
		token string
		inv   server.Invocation
		code  int
		msg   string
	}{
		{"no admin token", e.env, e.token, e.inv("memory", "list"), 401, "admin token is required"},
		{"another vault", withVault.env, withVault.admin, other, 409, "holds the vault"},
		{"no run hook", noVault, strings.TrimSpace(string(noVaultToken)), e.inv("memory", "list"), 404, "does not run engram commands"},
		{"relative dir", e.env, e.admin, relative, 400, "absolute path"},
		{"no args", e.env, e.admin, e.inv(), 400, "no command"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := net.Dial("unix", tc.e.socket)
			if err != nil {
				t.Fatal(err)
			}
			_, err = server.Forward(context.Background(), c, tc.token, tc.inv, server.Terminal{Stdout: io.Discard, Stderr: io.Discard})
			refused, ok := errors.AsType[*server.RefusedError](err)
			if !ok || refused.Code != tc.code || !strings.Contains(refused.Message, tc.msg) {
				t.Fatalf("Forward = %v, want a %d refusal saying %q", err, tc.code, tc.msg)
			}
		})
	}
	// Without the upgrade the endpoint says what it needs.
	code, _, body := rawHTTP(t, "unix", e.socket, "POST /v1/admin/run HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer "+e.admin+"\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}")
	if code != 426 || !strings.Contains(body, "Upgrade: engram-run") {
		t.Errorf("POST without Upgrade = %d %s, want 426", code, body)
	}
	// MaxRuns at once; one more is refused 503 until one ends.
	done := make(chan error, server.MaxRuns)
	for i := 0; i < server.MaxRuns; i++ {
		go func() {
			_, err := server.Forward(context.Background(), e.dial(t), e.admin, e.inv("block"), server.Terminal{Stdout: io.Discard, Stderr: io.Discard})
			done <- err
		}()
		<-started
	}
	_, err := server.Forward(context.Background(), e.dial(t), e.admin, e.inv("memory", "list"), server.Terminal{Stdout: io.Discard, Stderr: io.Discard})
	if refused, ok := errors.AsType[*server.RefusedError](err); !ok || refused.Code != 503 || !strings.Contains(refused.Message, "already running") {
		t.Errorf("one command too many = %v, want 503", err)
	}
	once.Do(func() { close(release) })
	for i := 0; i < server.MaxRuns; i++ {
		if err := <-done; err != nil {
			t.Errorf("blocked command = %v", err)
		}
	}
	if _, err := server.Forward(context.Background(), e.dial(t), e.admin, e.inv("memory", "list"), server.Terminal{Stdout: io.Discard, Stderr: io.Discard}); err != nil {
		t.Errorf("after the others ended = %v, want it run", err)
	}
}

// TestRunCancel: Ctrl+C on the user's side cancels the command in the
// server, and the user still gets what it said and its exit code.
func TestRunCancel(t *testing.T) {
	e := startRun(t, server.Options{}, func(ctx context.Context, inv server.Invocation, term server.Terminal) int {
		fmt.Fprintln(term.Stdout, "working")
		<-ctx.Done()
		fmt.Fprintln(term.Stderr, "engram: interrupted")
		return 1
	})
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr bytes.Buffer
	out := &signalWriter{w: &stdout, first: make(chan struct{})}
	go func() { <-out.first; cancel() }()
	code, err := server.Forward(ctx, e.dial(t), e.admin, e.inv("memory", "list"), server.Terminal{Stdout: out, Stderr: &stderr})
	if err != nil || code != 1 || stdout.String() != "working\n" || stderr.String() != "engram: interrupted\n" {
		t.Fatalf("Forward after Ctrl+C = %d, %v, stdout %q, stderr %q", code, err, stdout.String(), stderr.String())
	}
}

// signalWriter closes first after its first write.
type signalWriter struct {
	w     io.Writer
	once  sync.Once
	first chan struct{}
}

func (s *signalWriter) Write(b []byte) (int, error) {
	n, err := s.w.Write(b)
	s.once.Do(func() { close(s.first) })
	return n, err
}

// upgrade sends a forwarded command by hand and reads up to the 101.
func (e *runEnv) upgrade(t *testing.T, inv string) (net.Conn, *bufio.Reader) {
	t.Helper()
	c := e.dial(t)
	fmt.Fprintf(c, "POST /v1/admin/run HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer %s\r\nConnection: Upgrade\r\nUpgrade: engram-run\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", e.admin, len(inv), inv)
	br := bufio.NewReader(c)
	status, err := br.ReadString('\n')
	if err != nil || !strings.HasPrefix(status, "HTTP/1.1 101 ") {
		t.Fatalf("upgrade = %q, %v", status, err)
	}
	for {
		l, err := br.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if l == "\r\n" {
			return c, br
		}
	}
}

// TestRunClosedConnection: when the user's side goes away (the terminal
// closed, the process killed) the command is cancelled, and a prompt it
// waits on fails; so does a frame over the limit or one that does not
// decode.
func TestRunClosedConnection(t *testing.T) {
	type res struct {
		err       error
		cancelled bool
	}
	got := make(chan res, 1)
	e := startRun(t, server.Options{}, func(ctx context.Context, inv server.Invocation, term server.Terminal) int {
		_, err := term.Line("Type \"forget\" to confirm: ")
		<-ctx.Done()
		got <- res{err: err, cancelled: true}
		return 1
	})
	inv := fmt.Sprintf(`{"args":["memory","forget","x"],"dir":%q,"vault":%q,"line":true}`, t.TempDir(), e.v.Path())
	for _, tc := range []struct {
		name string
		send func(c net.Conn)
	}{
		{"closed", func(c net.Conn) { c.Close() }},
		{"oversize frame", func(c net.Conn) { c.Write(bytes.Repeat([]byte("x"), 300<<10)) }},
		{"not JSON", func(c net.Conn) { c.Write([]byte("{\"id\":1,\"data\":\n")) }},
		{"unknown field", func(c net.Conn) { c.Write([]byte("{\"id\":1,\"run\":\"rm -rf\"}\n")) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, br := e.upgrade(t, inv)
			defer c.Close()
			line, err := br.ReadString('\n') // the prompt
			if err != nil || !strings.Contains(line, `"ask":"line"`) {
				t.Fatalf("first frame = %q, %v; want the prompt", line, err)
			}
			tc.send(c)
			r := <-got
			if r.err == nil || !r.cancelled {
				t.Errorf("after the user's side went away: prompt = %v, cancelled %v", r.err, r.cancelled)
			}
		})
	}
}

// TestRunUnanswered: a prompt nobody answers within Timeouts.Answer
// cancels the command.
func TestRunUnanswered(t *testing.T) {
	got := make(chan error, 1)
	e := startRun(t, server.Options{Timeouts: server.Timeouts{Answer: 50 * time.Millisecond}}, func(ctx context.Context, inv server.Invocation, term server.Terminal) int {
		_, err := term.Secret("Passphrase: ")
		<-ctx.Done() // cancelled, not just failed
		got <- err
		return 3
	})
	waiting := make(chan struct{})
	defer close(waiting)
	inv := e.inv("memory", "add", "x")
	inv.Secret = true
	done := make(chan error, 1)
	go func() {
		_, err := server.Forward(context.Background(), e.dial(t), e.admin, inv, server.Terminal{Stdout: io.Discard, Stderr: io.Discard,
			Secret: func(string) ([]byte, error) { <-waiting; return nil, errors.New("too late") }})
		done <- err
	}()
	if err := <-got; err == nil || !strings.Contains(err.Error(), "no answer from the terminal") {
		t.Fatalf("unanswered prompt = %v", err)
	}
}

// TestRunShutdown: when the server stops, a command in progress is
// cancelled and Serve returns only after it ended, since its caller then
// closes the vault the command uses.
func TestRunShutdown(t *testing.T) {
	v, _ := vaulttest.New(t)
	svc, err := app.New(v, app.Options{Recall: recall.New(recall.DefaultConfig(nil))})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sawCancel, release := make(chan struct{}), make(chan struct{})
	ended := make(chan struct{})
	ready := make(chan string, 1)
	srv := server.New(svc, server.Options{Listening: func(a string) { ready <- a }, Run: func(ctx context.Context, inv server.Invocation, term server.Terminal) int {
		fmt.Fprintln(term.Stdout, "started")
		<-ctx.Done()
		close(sawCancel)
		<-release
		close(ended)
		return 1
	}})
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() {
		served <- srv.Serve(ctx, "127.0.0.1:0", filepath.Join(dir, "engram.sock"), filepath.Join(dir, "engram.addr"))
	}()
	<-ready
	token, _ := os.ReadFile(filepath.Join(dir, server.AdminTokenFile))
	c, err := net.Dial("unix", filepath.Join(dir, "engram.sock"))
	if err != nil {
		t.Fatal(err)
	}
	started := &signalWriter{w: io.Discard, first: make(chan struct{})}
	forwarded := make(chan error, 1)
	go func() {
		_, err := server.Forward(context.Background(), c, strings.TrimSpace(string(token)), server.Invocation{Args: []string{"sweep"}, Dir: dir, Vault: v.Path()},
			server.Terminal{Stdout: started, Stderr: io.Discard})
		forwarded <- err
	}()
	<-started.first
	cancel()
	<-sawCancel
	// The command has not ended: Serve must still be waiting for it. A
	// Serve that does not wait would return within this bound.
	select {
	case err := <-served:
		t.Fatalf("Serve returned (%v) while a forwarded command was still running", err)
	case <-time.After(200 * time.Millisecond):
	}
	close(release)
	if err := <-served; err != nil {
		t.Fatalf("Serve = %v", err)
	}
	select {
	case <-ended:
	default:
		t.Fatal("Serve returned before the command ended")
	}
	<-forwarded
}

package hooks_test

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/apptest"
	"github.com/engram-app/engram/app/hooks"
	"github.com/engram-app/engram/app/host"
	"github.com/engram-app/engram/vault"
	"github.com/engram-app/engram/vault/vaulttest"
)

// freeAddr is a loopback address nothing listens on.
func freeAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// mainIn runs hooks.Main for event as claude-code with ENGRAM_HOME=home
// (also its runtime directory) and the token, and returns its standard
// output and error.
func mainIn(home, token, event, payload string, args ...string) (string, string) {
	var out, errb bytes.Buffer
	getenv := func(k string) string {
		return map[string]string{"ENGRAM_TOKEN": token, "ENGRAM_HOME": home}[k]
	}
	hooks.Main(context.Background(), append([]string{event}, args...), hooks.Env{
		Stdin: strings.NewReader(payload), Stdout: &out, Stderr: &errb, Getenv: getenv,
		Token: func(string) (string, error) { return "", os.ErrNotExist },
	})
	return out.String(), errb.String()
}

// TestNotStartingWhenNothingServes: an Engram that holds the vault of the
// hook's data directory (as a command does) but has not said it will
// serve where the hook calls is not "starting": the hook says at once
// that Engram is not running, whatever the address it calls.
func TestNotStartingWhenNothingServes(t *testing.T) {
	v, _ := vaulttest.New(t) // holds DIR/vault.db as an engram command does
	home := filepath.Dir(v.Path())
	called, other := freeAddr(t), freeAddr(t)
	const prompt = `{"session_id":"s","hook_event_name":"UserPromptSubmit","prompt":"how do we deploy?"}`
	for _, tc := range []struct {
		name, marker string
		args         []string
	}{
		{"no Engram says it is starting", "", []string{"--url", called}},
		{"the starting Engram serves elsewhere", other, []string{"--url", called}},
		{"the hook is pointed elsewhere", called, []string{"--url", other}},
	} {
		os.Remove(filepath.Join(home, hooks.StartingFile))
		if tc.marker != "" {
			if err := os.WriteFile(filepath.Join(home, hooks.StartingFile), []byte(tc.marker+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		out, stderr := mainIn(home, "engram_x", "UserPromptSubmit", prompt, tc.args...)
		if !strings.Contains(out, "Engram is not running: no memories were recalled for this prompt.") || strings.Contains(stderr, "starting") {
			t.Errorf("%s: stdout %q, stderr %q; want 'not running' at once", tc.name, out, stderr)
		}
	}
}

// TestStartingEngramIsWaitedFor: an Engram opened by app/host (as engram
// serve and the desktop app open it) says in the runtime directory where
// it will serve until it listens there; a hook that finds nothing
// listening yet, with no address file and no --url, calls that address,
// waits for it and gets its briefing. The file goes once the server
// listens and when the Engram closes.
func TestStartingEngramIsWaitedFor(t *testing.T) {
	dir := t.TempDir()
	addr := freeAddr(t)
	cfg := host.Config{DataDir: dir, RuntimeDir: dir, KeyStore: &apptest.Keys{}, KDF: vaulttest.KDF, BackupWorkFactor: 10,
		Getenv: func(string) string { return "" }, ModelDir: filepath.Join(t.TempDir(), "none"), Addr: addr}
	h, err := host.Create(t.Context(), cfg, []byte(vaulttest.Passphrase), false)
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	t.Cleanup(func() {
		if !closed {
			h.Close()
		}
	})
	marker := filepath.Join(dir, host.StartingFile)
	if b, err := os.ReadFile(marker); err != nil || strings.TrimSpace(string(b)) != addr {
		t.Fatalf("%s = %q, %v; want %s", host.StartingFile, b, err, addr)
	}
	add := h.Service().AddAgent(t.Context(), h.Operator(), app.AgentSpec{Name: "claude-code"})
	if !add.OK() {
		t.Fatal(add.Response)
	}
	if r := h.Service().Store(t.Context(), h.Operator(), app.StoreInput{Content: "The team indents Go code with tabs", Partition: vault.Public}); !r.OK() {
		t.Fatal(r.Response)
	}
	listening := make(chan struct{}, 1)
	h.Subscribe(func(e host.Event) {
		if e.Server {
			select {
			case listening <- struct{}{}:
			default:
			}
		}
	})
	type result struct{ out, stderr string }
	done := make(chan result, 1)
	go func() {
		out, stderr := mainIn(dir, add.Token, "SessionStart", `{"session_id":"s","hook_event_name":"SessionStart","source":"startup","cwd":"/tmp"}`)
		done <- result{out, stderr}
	}()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	h.Start(ctx)
	r := <-done
	if !strings.Contains(r.out, "[from user] The team indents Go code with tabs") {
		t.Errorf("SessionStart while Engram starts: stdout %q, stderr %q; want the briefing", r.out, r.stderr)
	}
	<-listening
	if addr, err := h.ServerStatus(); err != nil {
		t.Fatalf("server: %s, %v", addr, err)
	}
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Errorf("%s still there once the server listens (%v)", host.StartingFile, err)
	}
	// An Engram that closes before it listens takes the file with it.
	cancel()
	h.Close()
	closed = true
	h2, err := host.Open(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("%s missing while a second Engram starts: %v", host.StartingFile, err)
	}
	h2.Close()
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Errorf("%s still there after Close (%v)", host.StartingFile, err)
	}
}

// TestStartingFileMatchesHost: the hook reads the file host writes.
func TestStartingFileMatchesHost(t *testing.T) {
	if hooks.StartingFile != host.StartingFile {
		t.Errorf("StartingFile = %s, host's %s", hooks.StartingFile, host.StartingFile)
	}
}

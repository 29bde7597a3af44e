package cli_test

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/cli"
	"github.com/engram-app/engram/app/host"
	"github.com/engram-app/engram/app/server"
	"github.com/engram-app/engram/vault"
	"github.com/engram-app/engram/vault/vaulttest"
)

const testPass = "correct horse battery staple"

// forwardStart is when TestForwardedSameAsOffline begins; both sides'
// clock reads forwardClock, which each step moves on by 100 ms (less than
// the minute after which a running Engram sweeps on its own).
var (
	forwardStart = time.Date(2027, 3, 1, 9, 0, 0, 0, time.UTC)
	forwardNow   atomic.Int64
)

func forwardClock() time.Time { return forwardStart.Add(time.Duration(forwardNow.Load())) }

// side is one vault and the directory commands run in: offline, or held
// by a running Engram that the commands reach through its socket.
type side struct {
	name    string
	home    string            // ENGRAM_HOME
	runtime string            // XDG_RUNTIME_DIR
	cwd     string            // the user's working directory
	ids     map[string]string // symbol -> this side's id
}

// fstep is one command of the table: run offline and forwarded, the two
// must say the same, up to the ids each vault made.
type fstep struct {
	args []string // {sym} is the id a step captured under sym
	// capture names the first id the command prints.
	capture string
	// env overrides the environment (an empty value unsets).
	env map[string]string
	// terminal gives both sides a terminal that answers with answers in
	// order; prompts records what it was asked.
	terminal bool
	answers  []string
	stdin    string
	code     int
	// hostedStderr is what the forwarded run adds on stderr (its first line).
	hostedStderr string
	// lock locks both vaults before the command (the running Engram as
	// the Lock button does).
	lock bool
	// unordered compares the lines in any order: ties between memories
	// made at the same time are broken by their ids, which differ.
	unordered bool
}

type fresult struct {
	stdout, stderr, prompts string
	code                    int
}

var (
	uuidRE = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	hashRE = regexp.MustCompile(`\b[0-9a-f]{64}\b`)
)

func (s *side) run(t *testing.T, st fstep) fresult {
	t.Helper()
	t.Chdir(s.cwd)
	env := map[string]string{"ENGRAM_HOME": s.home, "XDG_RUNTIME_DIR": s.runtime, "ENGRAM_NO_KEYRING": "1", "ENGRAM_PASSPHRASE": testPass, "HOME": s.cwd}
	for k, v := range st.env {
		env[k] = v
	}
	var stdout, stderr bytes.Buffer
	var prompts []string
	answers := slices.Clone(st.answers)
	next := func(p string) string {
		prompts = append(prompts, p)
		if len(answers) == 0 {
			t.Errorf("%s: unexpected prompt %q", s.name, p)
			return ""
		}
		a := answers[0]
		answers = answers[1:]
		return a
	}
	o := cli.Options{
		Stdin: strings.NewReader(st.stdin), Stdout: &stdout, Stderr: &stderr,
		Getenv:   func(k string) string { return env[k] },
		KeyStore: app.NoKeyring{Reason: "test"}, KDF: vaulttest.KDF, BackupWorkFactor: 10,
		Now: forwardClock,
	}
	if st.terminal {
		o.Prompt = func(p string) ([]byte, error) { return []byte(next(p)), nil }
		o.ReadLine = func(p string) (string, error) { return next(p), nil }
	}
	args := make([]string, len(st.args))
	for i, a := range st.args {
		for sym, id := range s.ids {
			a = strings.ReplaceAll(a, "{"+sym+"}", id)
		}
		args[i] = a
	}
	code := cli.Run(context.Background(), args, o)
	if st.capture != "" {
		id := uuidRE.FindString(stdout.String())
		if id == "" {
			t.Fatalf("%s: engram %s printed no id to capture: %q %q", s.name, strings.Join(args, " "), stdout.String(), stderr.String())
		}
		s.ids[st.capture] = id
	}
	norm := func(x string) string {
		for sym, id := range s.ids {
			x = strings.ReplaceAll(x, id, "{"+sym+"}")
		}
		x = strings.ReplaceAll(x, s.home, "{home}")
		x = uuidRE.ReplaceAllString(x, "{uuid}")
		// The audit chain's hashes cover the ids.
		x = hashRE.ReplaceAllString(x, "{hash}")
		if st.unordered {
			lines := strings.Split(x, "\n")
			slices.Sort(lines)
			x = strings.Join(lines, "\n")
		}
		return x
	}
	return fresult{stdout: norm(stdout.String()), stderr: norm(stderr.String()), prompts: strings.Join(prompts, "|"), code: code}
}

// seedVault makes the vault both sides start from: a few memories (one
// sealed, one damaged), an agent with a write in the quarantine, a
// paused agent and a pairing request. It returns the damaged memory's id.
func seedVault(t *testing.T, home string) string {
	t.Helper()
	o := cli.Options{Getenv: func(k string) string {
		return map[string]string{"ENGRAM_HOME": home, "ENGRAM_PASSPHRASE": testPass, "ENGRAM_NO_KEYRING": "1"}[k]
	}, KDF: vaulttest.KDF, Now: forwardClock}
	if code := cli.Run(context.Background(), []string{"init"}, o); code != 0 {
		t.Fatalf("init = %d", code)
	}
	v, err := vault.Open(filepath.Join(home, app.VaultFile), vault.Options{Now: forwardClock})
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Unlock(context.Background(), []byte(testPass)); err != nil {
		t.Fatal(err)
	}
	svc, err := app.New(v, app.Options{Now: forwardClock})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	op := app.Request{Caller: app.Caller{Operator: true}, Authorized: true}
	for _, name := range []string{"cursor", "helper"} {
		if r := svc.AddAgent(ctx, op, app.AgentSpec{Name: name}); !r.OK() {
			t.Fatal(r.Response)
		}
	}
	svc.SetAgentStatus(ctx, op, "helper", vault.AgentPaused)
	svc.RequestPairing(ctx, "stranger")
	cursor := app.Request{Caller: app.Caller{Agent: "cursor", Session: "s1"}, Authorized: true}
	if r := svc.Store(ctx, cursor, app.StoreInput{Content: "The API allows 100 requests per minute", Source: vault.Source{Type: "web_fetch"}}); r.Status != app.StatusQuarantined {
		t.Fatalf("web write = %s, want quarantined", r.Status)
	}
	damaged := svc.Store(ctx, op, app.StoreInput{Content: "the deploy key rotates monthly", Partition: vault.Sensitive})
	if !damaged.OK() {
		t.Fatal(damaged.Response)
	}
	svc.Close()
	v.Close()
	// Flip a byte inside the sealed record (its key and value sit side by
	// side in a bbolt leaf), as corruptrecord does.
	path := filepath.Join(home, app.VaultFile)
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(raw, append([]byte(damaged.Memory.ID), 0x02))
	if i < 0 {
		t.Fatal("no sealed record to damage")
	}
	raw[i+len(damaged.Memory.ID)+30] ^= 0x20
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	return damaged.Memory.ID
}

// runningEngram opens home's vault in a host that runs the forwarded
// commands, unlocked, serving on loopback and its Unix socket in runtime,
// as engram serve and the desktop app do.
// after, when set, is called with the exit code of each command it ran.
func runningEngram(t *testing.T, home, runtime string, after func(code int)) *host.Host {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	o := cli.Options{KDF: vaulttest.KDF, BackupWorkFactor: 10, Now: forwardClock}
	commands := cli.Commands(o)
	h, err := host.Open(ctx, host.Config{DataDir: home, RuntimeDir: filepath.Join(runtime, "engram"), KeyStore: app.NoKeyring{Reason: "test"},
		Now: forwardClock, Getenv: func(string) string { return "" }, Addr: "127.0.0.1:0", NoAutoLock: true,
		BackupWorkFactor: 10, Commands: func(ctx context.Context, h *host.Host, inv server.Invocation, t server.Terminal) int {
			code := commands(ctx, h, inv, t)
			if after != nil {
				after(code)
			}
			return code
		}})
	if err != nil {
		t.Fatal(err)
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
	if _, err := h.Unlock(ctx, []byte(testPass), false); err != nil {
		t.Fatal(err)
	}
	h.Start(ctx)
	<-listening
	if addr, err := h.ServerStatus(); err != nil || addr == "" {
		t.Fatalf("server = %q, %v", addr, err)
	}
	if err := h.Service().WaitIndexed(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		h.Close()
	})
	return h
}

// TestForwardedSameAsOffline runs every command a user runs while Engram
// holds the vault, once offline on one vault and once through a running
// Engram on a copy of it: standard output, standard error, the prompts
// asked and the exit code are the same (ids aside), relative paths are
// the user's, and what the commands changed is the same in both vaults.
func TestForwardedSameAsOffline(t *testing.T) {
	root := t.TempDir()
	offline := &side{name: "offline", home: filepath.Join(root, "a"), runtime: filepath.Join(root, "run-a"), cwd: filepath.Join(root, "cwd-a"), ids: map[string]string{}}
	hosted := &side{name: "forwarded", home: filepath.Join(root, "b"), runtime: filepath.Join(root, "run-b"), cwd: filepath.Join(root, "cwd-b"), ids: map[string]string{}}
	damaged := seedVault(t, offline.home)
	for _, d := range []string{hosted.home, offline.cwd, hosted.cwd} {
		os.MkdirAll(d, 0o700)
	}
	raw, err := os.ReadFile(filepath.Join(offline.home, app.VaultFile))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(hosted.home, app.VaultFile), raw, 0o600)
	offline.ids["damaged"], hosted.ids["damaged"] = damaged, damaged
	claude := "# Conventions\n\n- Use tabs for indentation\n- Run make test before pushing\n"
	for _, s := range []*side{offline, hosted} {
		os.WriteFile(filepath.Join(s.cwd, "CLAUDE.md"), []byte(claude), 0o600)
		os.WriteFile(filepath.Join(s.cwd, "pass.txt"), []byte(testPass+"\n"), 0o600)
	}
	var ran atomic.Int64
	h := runningEngram(t, hosted.home, hosted.runtime, func(int) { ran.Add(1) })

	steps := []fstep{
		// A damaged record fails its command with 5, and doctor says so.
		{args: []string{"memory", "get", "{damaged}"}, code: 5},
		{args: []string{"memory", "list"}},
		{args: []string{"doctor"}, code: 5},
		{args: []string{"memory", "delete", "{damaged}"}},
		{args: []string{"doctor"}},
		{args: []string{"memory", "add", "--partition", "public", "The team indents with tabs"}, capture: "pub"},
		{args: []string{"memory", "add", "--partition", "sensitive", "--tag", "health", "Alice's phone is 555-0100"}, capture: "sens"},
		{args: []string{"memory", "add", "--partition", "sensitive", "Carol's birthday is on 3 May"}, capture: "carol"},
		{args: []string{"memory", "add", "--json", "Deploys run from the ops repo on Fridays"}, capture: "ops"},
		{args: []string{"memory", "add", "--tier", "episodic", "Standup moved to 10:00 today"}, capture: "epi"},
		{args: []string{"memory", "add", "The API key is sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c"}, code: 1},
		{args: []string{"memory", "list"}},
		{args: []string{"memory", "list", "--partition", "sensitive", "--json"}},
		{args: []string{"memory", "get", "{pub}"}},
		{args: []string{"memory", "get", "{sens}", "--json"}},
		{args: []string{"memory", "get", "00000000-0000-4000-8000-000000000000"}, code: 1},
		{args: []string{"memory", "update", "{pub}", "The team indents with tabs, four wide"}},
		{args: []string{"memory", "history", "{pub}"}},
		{args: []string{"memory", "rollback", "{pub}", "--to", "1"}},
		{args: []string{"memory", "confirm", "{pub}", "seen in .editorconfig"}},
		{args: []string{"memory", "refute", "{ops}"}, code: 2},
		{args: []string{"memory", "refute", "{ops}", "deploys moved to Thursdays"}},
		{args: []string{"memory", "pin", "{pub}"}},
		{args: []string{"memory", "unpin", "{pub}"}},
		{args: []string{"memory", "recall", "how do we indent?"}},
		{args: []string{"memory", "recall", "indentation", "--json", "--mode", "exact"}},
		{args: []string{"memory", "recall", "who is Zorro?"}},
		{args: []string{"memory", "split", "{ops}", "Deploys run from the ops repo", "Deploys happen on Fridays"}, capture: "part", unordered: true},
		{args: []string{"memory", "merge", "{pub}", "{part}"}, capture: "merged"},
		{args: []string{"memory", "restore", "{ops}"}},
		{args: []string{"memory", "delete", "{epi}"}},
		{args: []string{"memory", "frobnicate"}, code: 2},
		{args: []string{"memory", "get", "--help"}},
		{args: []string{"quarantine", "list"}},
		{args: []string{"quarantine", "list", "--json"}, capture: "q"},
		{args: []string{"quarantine", "show", "{q}"}},
		{args: []string{"quarantine", "approve", "{q}", "--edit", "The API allows 120 requests per minute"}, capture: "approved"},
		{args: []string{"quarantine", "reject", "{q}"}, code: 1},
		{args: []string{"audit", "--last", "6"}},
		{args: []string{"audit", "--agent", "cursor", "--json"}},
		{args: []string{"audit", "verify"}},
		{args: []string{"audit", "prune", "--days", "400"}},
		{args: []string{"audit", "prune"}, env: map[string]string{"ENGRAM_AUDIT_RETENTION_DAYS": "nonsense"}, code: 2},
		// A backup, a readable copy, a restore: relative paths are the user's.
		{args: []string{"export", "backup.age"}, env: map[string]string{"ENGRAM_BACKUP_PASSPHRASE": "backup secret"}},
		{args: []string{"export", "prompted.age"}, terminal: true, answers: []string{"backup secret", "backup secret"}},
		{args: []string{"export", "mismatch.age"}, terminal: true, answers: []string{"backup secret", "another"}, code: 1},
		{args: []string{"export", "none.age"}, code: 3},
		{args: []string{"export", "--format", "markdown", "notes.md"}},
		{args: []string{"export", "--format", "jsonl", "--include-sensitive", "all.jsonl"}},
		{args: []string{"export", "missing/dir/x.age"}, env: map[string]string{"ENGRAM_BACKUP_PASSPHRASE": "backup secret"}, code: 1},
		{args: []string{"memory", "delete", "{carol}"}},
		{args: []string{"import", "backup.age"}, env: map[string]string{"ENGRAM_BACKUP_PASSPHRASE": "backup secret"}},
		{args: []string{"import", "--include-forgotten", "./prompted.age"}, env: map[string]string{"ENGRAM_BACKUP_PASSPHRASE": "backup secret"}},
		{args: []string{"import", "backup.age"}, env: map[string]string{"ENGRAM_BACKUP_PASSPHRASE": "wrong"}, code: 3},
		{args: []string{"import", "nothing.age"}, env: map[string]string{"ENGRAM_BACKUP_PASSPHRASE": "backup secret"}, code: 1},
		{args: []string{"import", "--from", "claude", "--dry-run", "CLAUDE.md"}},
		{args: []string{"import", "--from", "claude", "."}},
		{args: []string{"import", "--from", "claude", "--json", "./CLAUDE.md"}},
		{args: []string{"import", "--from", "claude", "no-such-file.md"}, code: 1},
		// Prompts: forget asks on the terminal, and refuses without one.
		{args: []string{"memory", "forget", "phone"}, code: 2},
		{args: []string{"memory", "forget", "phone"}, terminal: true, answers: []string{"no"}, code: 1},
		{args: []string{"memory", "forget", "phone"}, terminal: true, answers: []string{"forget"}},
		{args: []string{"memory", "forget", "budget", "--yes"}},
		{args: []string{"memory", "clear", "episodic"}, terminal: true, answers: []string{"clear"}},
		{args: []string{"memory", "clear", "all", "--yes"}, code: 2},
		{args: []string{"doctor"}},
		// Locked: a command that needs the key asks for the passphrase, and
		// fails without one; one that does not works without it.
		{args: []string{"memory", "get", "{carol}"}, lock: true, env: map[string]string{"ENGRAM_PASSPHRASE": ""}, code: 3},
		{args: []string{"memory", "list"}, env: map[string]string{"ENGRAM_PASSPHRASE": ""}},
		{args: []string{"doctor"}, env: map[string]string{"ENGRAM_PASSPHRASE": ""}, code: 3},
		{args: []string{"memory", "get", "{carol}"}, env: map[string]string{"ENGRAM_PASSPHRASE": ""}, terminal: true, answers: []string{"wrong passphrase"}, code: 3},
		{args: []string{"memory", "add", "--partition", "sensitive", "--passphrase-file", "/dev/stdin", "Bob's phone is 555-0199"}, env: map[string]string{"ENGRAM_PASSPHRASE": ""},
			stdin: testPass + "\n", capture: "bob", hostedStderr: "engram: the running Engram is unlocked now"},
		{args: []string{"memory", "get", "{bob}", "--passphrase-file", "pass.txt"}, lock: true, env: map[string]string{"ENGRAM_PASSPHRASE": ""},
			hostedStderr: "engram: the running Engram is unlocked now"},
		{args: []string{"memory", "list", "--partition", "sensitive"}, lock: true, env: map[string]string{"ENGRAM_PASSPHRASE": ""}, terminal: true, answers: []string{testPass},
			hostedStderr: "engram: the running Engram is unlocked now"},
		{args: []string{"sweep", "--now", "2031-01-01T00:00:00Z"}, unordered: true},
		{args: []string{"sweep", "--now", "yesterday"}, code: 2},
		{args: []string{"audit", "verify"}},
	}
	for i, st := range steps {
		forwardNow.Store(int64(i) * int64(100*time.Millisecond))
		name := fmt.Sprintf("%02d %s", i, strings.Join(st.args, " "))
		if st.lock {
			h.Lock()
		}
		want := offline.run(t, st)
		got := hosted.run(t, st)
		if st.hostedStderr != "" {
			lines := strings.SplitAfter(got.stderr, "\n")
			i := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, st.hostedStderr) })
			if i < 0 {
				t.Errorf("%s: forwarded stderr %q lacks %q", name, got.stderr, st.hostedStderr)
			} else {
				got.stderr = strings.Join(slices.Delete(lines, i, i+1), "")
			}
		}
		if want.code != st.code {
			t.Errorf("%s: offline exit %d, want %d\nstdout %s\nstderr %s", name, want.code, st.code, want.stdout, want.stderr)
		}
		if got != want {
			t.Errorf("%s: forwarded differs from offline\nforwarded: exit %d, prompts %q\nstdout:\n%s\nstderr:\n%s\noffline: exit %d, prompts %q\nstdout:\n%s\nstderr:\n%s",
				name, got.code, got.prompts, got.stdout, got.stderr, want.code, want.prompts, want.stdout, want.stderr)
		}
	}
	if n := ran.Load(); n != int64(len(steps)) {
		t.Errorf("the running Engram ran %d commands of the %d", n, len(steps))
	}
	// The files the commands wrote are in the user's directory, not the
	// running Engram's.
	for _, f := range []string{"backup.age", "prompted.age", "notes.md", "all.jsonl"} {
		if _, err := os.Stat(filepath.Join(hosted.cwd, f)); err != nil {
			t.Errorf("forwarded export: %v", err)
		}
	}
}

// TestForwardedInterrupt: Ctrl+C while a forwarded command waits for the
// user to confirm stops the command inside the running Engram: nothing is
// removed, and the user is told.
func TestForwardedInterrupt(t *testing.T) {
	root := t.TempDir()
	home, runtime := filepath.Join(root, "home"), filepath.Join(root, "run")
	env := map[string]string{"ENGRAM_HOME": home, "XDG_RUNTIME_DIR": runtime, "ENGRAM_NO_KEYRING": "1", "ENGRAM_PASSPHRASE": testPass}
	var stdout, stderr bytes.Buffer
	o := cli.Options{Stdout: &stdout, Stderr: &stderr, Getenv: func(k string) string { return env[k] }, KeyStore: app.NoKeyring{Reason: "test"},
		KDF: vaulttest.KDF, Now: forwardClock}
	for _, args := range [][]string{{"init"}, {"memory", "add", "Project Falcon launches in March"}} {
		if code := cli.Run(context.Background(), args, o); code != 0 {
			t.Fatalf("%v = %d: %s", args, code, stderr.String())
		}
	}
	id := strings.TrimSpace(stdout.String()[strings.LastIndex(strings.TrimSpace(stdout.String()), "\n")+1:])
	ended := make(chan int, 1)
	runningEngram(t, home, runtime, func(code int) {
		select {
		case ended <- code:
		default:
		}
	})
	stdout.Reset()
	stderr.Reset()
	ctx, cancel := context.WithCancel(context.Background())
	var inServer int
	o.ReadLine = func(string) (string, error) {
		cancel() // Ctrl+C while the question waits
		inServer = <-ended
		return "forget", nil // typed too late
	}
	code := cli.Run(ctx, []string{"memory", "forget", "falcon"}, o)
	if code != 1 || inServer != 1 || !strings.Contains(stdout.String(), "Project Falcon") || !strings.HasSuffix("\n"+stderr.String(), "\nengram: interrupted\n") {
		t.Fatalf("forget interrupted = %d (in the server %d)\nstdout %q\nstderr %q\nwant 1, the memory listed, 'engram: interrupted'", code, inServer, stdout.String(), stderr.String())
	}
	o.ReadLine = nil
	stdout.Reset()
	if code := cli.Run(context.Background(), []string{"memory", "get", id}, o); code != 0 || !strings.Contains(stdout.String(), "Project Falcon launches in March") {
		t.Fatalf("after the interrupted forget: get = %d %q, want the memory kept", code, stdout.String())
	}
}

// TestForwardedOnlyUserCommands: the running Engram runs only the
// commands a user forwards to it; one that must run in its own process
// (a second server, a new vault, the passphrase, salvage, client set-up)
// is refused with a usage error even with the admin token.
func TestForwardedOnlyUserCommands(t *testing.T) {
	root := t.TempDir()
	home, runtime := filepath.Join(root, "home"), filepath.Join(root, "run")
	o := cli.Options{Getenv: func(k string) string {
		return map[string]string{"ENGRAM_HOME": home, "ENGRAM_PASSPHRASE": testPass, "ENGRAM_NO_KEYRING": "1"}[k]
	}, KDF: vaulttest.KDF, Now: forwardClock}
	if code := cli.Run(context.Background(), []string{"init"}, o); code != 0 {
		t.Fatalf("init = %d", code)
	}
	runningEngram(t, home, runtime, nil)
	rt := filepath.Join(runtime, "engram")
	token, err := os.ReadFile(filepath.Join(rt, server.AdminTokenFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"serve"}, {"init"}, {"passphrase", "change"}, {"doctor", "--salvage", "x.age"}, {"connect", "cursor"}, {"mcp"}, {"guard"}, {"agent", "list"}, {"lock"}, {"help"}} {
		c, err := net.Dial("unix", filepath.Join(rt, "engram.sock"))
		if err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		code, err := server.Forward(context.Background(), c, strings.TrimSpace(string(token)),
			server.Invocation{Args: args, Dir: root, Vault: filepath.Join(home, app.VaultFile)}, server.Terminal{Stdout: &stdout, Stderr: &stderr})
		if err != nil || code != 2 || stdout.Len() > 0 || !strings.Contains(stderr.String(), "runs in its own process") {
			t.Errorf("forwarded %q = %d, %v, stdout %q, stderr %q; want refused with 2", args, code, err, stdout.String(), stderr.String())
		}
	}
	if _, err := os.Stat(filepath.Join(root, "x.age")); err == nil {
		t.Error("doctor --salvage ran inside the running Engram")
	}
}

package hooks

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Timeouts bound each event's whole run, well inside the clients' own
// limits (Claude Code: 60 s a command by default): a prompt must not wait
// on memory, a session start may wait briefly for a starting Engram.
var Timeouts = map[Event]time.Duration{
	SessionStart:     5 * time.Second,
	UserPromptSubmit: 2 * time.Second,
	PreCompact:       10 * time.Second,
	Stop:             10 * time.Second,
	SessionEnd:       10 * time.Second,
}

// DefaultAddr is the agent API's address when no running Engram wrote
// its own (server.DefaultAddr).
const DefaultAddr = "127.0.0.1:7474"

// Env is what Main needs from its process.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	// Token returns the token engram connect kept for an agent (the OS
	// keyring, else its 0600 file).
	Token func(agent string) (string, error)
	Now   func() time.Time
}

type projectFlags []Project

func (p *projectFlags) String() string { return "" }
func (p *projectFlags) Set(s string) error {
	pr, err := ParseProject(s)
	if err != nil {
		return err
	}
	*p = append(*p, pr)
	return nil
}

// Usage is the hook command's synopsis.
const Usage = "hook EVENT [--client NAME] [--agent NAME | --token-file F] [--budget N] [--project DIR=NAME]... [--no-capture] [--url ADDR]"

// Main runs the hook command (engram hook, engram-hook) with args after
// the command's name: the client's JSON on env.Stdin, its answer on
// env.Stdout. Whatever happens it returns normally, so that the process
// exits 0 and the client goes on as if there were no hook; what went
// wrong goes to env.Stderr (the client's debug log) and to
// DATADIR/hooks/hooks.log, and a start or a prompt tells the user in one
// line.
func Main(ctx context.Context, args []string, env Env) {
	if env.Now == nil {
		env.Now = time.Now
	}
	fail := func(err error) { fmt.Fprintf(env.Stderr, "engram hook: %v\n", err) }
	fs := flag.NewFlagSet("hook", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	client := fs.String("client", "claude-code", "the client whose hook this is: claude-code, codex, gemini, cursor, vscode or windsurf (its input and answer formats)")
	agent := fs.String("agent", "", "run as this agent, with the token engram connect kept")
	tokenFile := fs.String("token-file", "", "read the agent token from this file (default $ENGRAM_TOKEN)")
	url := fs.String("url", "", "the running Engram's address (default: from its runtime file, else "+DefaultAddr+")")
	budget := fs.Int("budget", 0, "the briefing's size in tokens (default 1500)")
	noCapture := fs.Bool("no-capture", false, "capture nothing and never ask the agent to store its learnings")
	var projects projectFlags
	fs.Var(&projects, "project", "map a working directory (and those below it) to a product: DIR=NAME (repeatable)")
	// The event may come before or after the flags.
	var event string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		event, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		fail(fmt.Errorf("%v; usage: %s", err, Usage))
		return
	}
	if event == "" && fs.NArg() > 0 {
		event = fs.Arg(0)
	} else if fs.NArg() > 0 {
		fail(fmt.Errorf("unexpected %q; usage: %s", fs.Arg(0), Usage))
		return
	}
	format, err := ParseFormat(*client)
	if err != nil {
		fail(err)
		return
	}
	ev, err := ParseEvent(event)
	if err != nil {
		fail(err)
		return
	}
	in, err := ReadInput(env.Stdin)
	if err != nil {
		fail(err)
		return
	}
	token, err := findToken(env, *agent, *tokenFile)
	if err != nil {
		fail(err)
		return
	}
	dataDir := DataDir(env.Getenv)
	ctx, cancel := context.WithTimeout(ctx, Timeouts[ev])
	defer cancel()
	base := apiBase(env.Getenv, *url)
	cl := &Client{Base: base, Token: token, Wait: Timeouts[ev] - 500*time.Millisecond, Starting: startingAt(runtimeDir(env.Getenv), dataDir, base)}
	log, closeLog := openLog(env, dataDir)
	defer closeLog()
	opts := Options{Format: format, Agent: *agent, Budget: *budget, Projects: projects, Capture: !*noCapture, Log: log, Now: env.Now}
	if dataDir != "" {
		name := *agent
		if name == "" {
			name = "token"
		}
		opts.StateDir = filepath.Join(dataDir, "hooks", name)
	}
	out, err := Run(ctx, ev, in, cl, opts)
	if err != nil {
		opts.logf("%s: %v", ev, err)
	}
	env.Stdout.Write(out.Stdout)
}

// findToken finds the agent's token as engram mcp does: --token-file, the
// agent's stored token (--agent), else ENGRAM_TOKEN. No token is ever in
// the client's settings.
func findToken(env Env, agent, tokenFile string) (string, error) {
	token := strings.TrimSpace(env.Getenv("ENGRAM_TOKEN"))
	switch {
	case tokenFile != "":
		b, err := os.ReadFile(tokenFile)
		if err != nil {
			return "", fmt.Errorf("read the token file: %v", err)
		}
		token = strings.TrimSpace(string(b))
	case agent != "":
		t, err := env.Token(agent)
		if err != nil {
			return "", fmt.Errorf("%v (run 'engram connect CLIENT --agent %s' again)", err, agent)
		}
		token = t
	}
	if token == "" {
		return "", errors.New("no agent token: pass --agent NAME (set up by 'engram connect CLIENT'), set ENGRAM_TOKEN or pass --token-file")
	}
	return token, nil
}

// DataDir is Engram's data directory (app.DataDir): $ENGRAM_HOME, else
// $XDG_DATA_HOME/engram, else ~/.local/share/engram, else the OS's
// per-user config directory; "" when none can be found.
func DataDir(getenv func(string) string) string {
	switch {
	case getenv("ENGRAM_HOME") != "":
		return getenv("ENGRAM_HOME")
	case getenv("XDG_DATA_HOME") != "":
		return filepath.Join(getenv("XDG_DATA_HOME"), "engram")
	case getenv("HOME") != "":
		return filepath.Join(getenv("HOME"), ".local", "share", "engram")
	}
	if d, err := os.UserConfigDir(); err == nil {
		return filepath.Join(d, "engram")
	}
	return ""
}

// runtimeDir is where a running Engram writes its address (app.RuntimeDir).
func runtimeDir(getenv func(string) string) string {
	if d := getenv("XDG_RUNTIME_DIR"); d != "" {
		return filepath.Join(d, "engram")
	}
	return DataDir(getenv)
}

// StartingFile, in the runtime directory, names the address an Engram
// that holds the vault will serve on while it starts (host.StartingFile).
const StartingFile = "engram.starting"

// apiBase is the running Engram's address: the flag, its runtime file,
// else the address a starting Engram will serve on, else the default.
func apiBase(getenv func(string) string, flagValue string) string {
	base := flagValue
	if base == "" {
		base = DefaultAddr
		if rt := runtimeDir(getenv); rt != "" {
			// The starting file first: an Engram writes its address file
			// before it removes the starting file, so one of the two is
			// found while it starts.
			starting := readRuntime(rt, StartingFile)
			if b := readRuntime(rt, "engram.addr"); b != "" {
				base = b
			} else if starting != "" {
				base = starting
			}
		}
	}
	return baseURL(base)
}

func baseURL(addr string) string {
	if !strings.Contains(addr, "://") {
		addr = "http://" + addr
	}
	return strings.TrimSuffix(addr, "/")
}

// readRuntime is the first line of the runtime file name in rt, "" when
// there is none.
func readRuntime(rt, name string) string {
	b, err := os.ReadFile(filepath.Join(rt, name))
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(string(b), "\n")
	return strings.TrimSpace(line)
}

// startingAt is Client.Starting for a hook that calls base: it says yes
// only while an Engram of this data directory holds the vault and has
// said, in StartingFile, that it will serve on base and does not yet.
// A hook that calls another address, or finds the vault held by an
// Engram that serves nothing (a command), is answered at once. Nil when
// there is no data directory.
func startingAt(rt, dataDir, base string) func() bool {
	if rt == "" || dataDir == "" {
		return nil
	}
	return func() bool {
		addr := readRuntime(rt, StartingFile)
		return addr != "" && baseURL(addr) == base && vaultHeld(filepath.Join(dataDir, "vault.db"))
	}
}

// openLog is where a hook says what it skipped: standard error and, when
// the data directory can be written, hooks/hooks.log in it (0600, started
// again past 1 MiB).
func openLog(env Env, dataDir string) (io.Writer, func()) {
	if dataDir == "" {
		return env.Stderr, func() {}
	}
	path := filepath.Join(dataDir, "hooks", "hooks.log")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return env.Stderr, func() {}
	}
	flags := os.O_CREATE | os.O_WRONLY | os.O_APPEND
	if fi, err := os.Stat(path); err == nil && fi.Size() > 1<<20 {
		flags |= os.O_TRUNC
	}
	f, err := os.OpenFile(path, flags, 0o600)
	if err != nil {
		return env.Stderr, func() {}
	}
	return &timedLog{w: io.MultiWriter(env.Stderr, f), now: env.Now}, func() { f.Close() }
}

// timedLog prefixes each line with the time.
type timedLog struct {
	w   io.Writer
	now func() time.Time
}

func (t *timedLog) Write(p []byte) (int, error) {
	if _, err := fmt.Fprintf(t.w, "%s %s", t.now().UTC().Format(time.RFC3339), p); err != nil {
		return 0, err
	}
	return len(p), nil
}

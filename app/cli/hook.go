package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/connect"
	"github.com/engram-app/engram/app/hooks"
	"github.com/engram-app/engram/app/server"
	"github.com/engram-app/engram/vault"
)

// hookTimeouts bound each event's whole run, well inside the clients' own
// limits (Claude Code: 60 s a command by default): a prompt must not wait
// on memory, a session start may wait briefly for a starting Engram.
var hookTimeouts = map[hooks.Event]time.Duration{
	hooks.SessionStart:     5 * time.Second,
	hooks.UserPromptSubmit: 2 * time.Second,
	hooks.PreCompact:       10 * time.Second,
	hooks.Stop:             10 * time.Second,
	hooks.SessionEnd:       10 * time.Second,
}

// projectFlags collects repeated --project DIR=NAME flags.
type projectFlags []hooks.Project

func (p *projectFlags) String() string { return "" }
func (p *projectFlags) Set(s string) error {
	pr, err := hooks.ParseProject(s)
	if err != nil {
		return err
	}
	*p = append(*p, pr)
	return nil
}

// hookCmd runs `engram hook EVENT`: answer a client's lifecycle hook (the
// client's JSON on standard input, its answer on standard output). It
// always exits 0: a hook must never stop the agent, whatever happened;
// what went wrong goes to standard error (the client's debug log) and,
// in one line, to the user through the client.
func (c *cmd) hookCmd(args []string) error {
	fs := newFlags("hook")
	agent := fs.String("agent", "", "run as this agent, with the token engram connect kept in the OS keyring (or its 0600 file)")
	tokenFile := fs.String("token-file", "", "read the agent token from this file (default $ENGRAM_TOKEN)")
	url := fs.String("url", "", "the running Engram's address (default: from its runtime file, else "+server.DefaultAddr+")")
	budget := fs.Int("budget", 0, fmt.Sprintf("the briefing's size in tokens (default %d)", app.DefaultBriefingBudget))
	noCapture := fs.Bool("no-capture", false, "capture nothing from the transcript and never ask the agent to store its learnings")
	var projects projectFlags
	fs.Var(&projects, "project", "map a working directory (and those below it) to a product: DIR=NAME (repeatable)")
	pos, err := parse(fs, args, 1, 1, "an EVENT: "+strings.Join(eventNames(), ", "))
	if err != nil {
		if _, ok := errors.AsType[*helpRequested](err); ok {
			return err
		}
		return c.hookFailed(err)
	}
	ev, err := hooks.ParseEvent(pos[0])
	if err != nil {
		return c.hookFailed(err)
	}
	in, err := hooks.ReadInput(c.o.Stdin)
	if err != nil {
		return c.hookFailed(err)
	}
	token, err := c.hookToken(*agent, *tokenFile)
	if err != nil {
		return c.hookFailed(err)
	}
	ctx, cancel := context.WithTimeout(c.ctx, hookTimeouts[ev])
	defer cancel()
	cl := &hooks.Client{Base: c.apiBase(*url), Token: token, Starting: c.engramStarting, Wait: hookTimeouts[ev] - 500*time.Millisecond}
	opts := hooks.Options{Agent: *agent, Budget: *budget, Projects: projects, Capture: !*noCapture, Log: c.hookLog()}
	if dir, err := app.DataDir(c.o.Getenv); err == nil {
		name := *agent
		if name == "" {
			name = "token"
		}
		opts.StateDir = filepath.Join(dir, "hooks", name)
	}
	out, err := hooks.Run(ctx, ev, in, cl, opts)
	if err != nil {
		fmt.Fprintf(opts.Log, "engram hook %s: %v\n", ev, err)
	}
	c.o.Stdout.Write(out.Stdout)
	return nil
}

func eventNames() []string {
	out := make([]string, len(hooks.Events))
	for i, e := range hooks.Events {
		out[i] = string(e)
	}
	return out
}

// hookFailed reports err on standard error and exits 0, so the client goes
// on as if there were no hook.
func (c *cmd) hookFailed(err error) error {
	fmt.Fprintf(c.o.Stderr, "engram hook: %v\n", err)
	return nil
}

// hookLog is where a hook says what it skipped: standard error (the
// client's debug log) and, when the data directory can be written, the
// file hooks/hooks.log in it (0600, started again past 1 MiB).
func (c *cmd) hookLog() io.Writer {
	dir, err := app.DataDir(c.o.Getenv)
	if err != nil {
		return c.o.Stderr
	}
	path := filepath.Join(dir, "hooks", "hooks.log")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return c.o.Stderr
	}
	flags := os.O_CREATE | os.O_WRONLY | os.O_APPEND
	if fi, err := os.Stat(path); err == nil && fi.Size() > 1<<20 {
		flags |= os.O_TRUNC
	}
	f, err := os.OpenFile(path, flags, 0o600)
	if err != nil {
		return c.o.Stderr
	}
	return &timedLog{w: io.MultiWriter(c.o.Stderr, f), now: c.o.Now}
}

// timedLog prefixes each write with the time, for the log file.
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

// hookToken finds the agent's token as engram mcp does: --token-file, the
// agent's stored token (--agent: the OS keyring or its 0600 file), else
// ENGRAM_TOKEN. No token is ever in the client's settings.
func (c *cmd) hookToken(agent, tokenFile string) (string, error) {
	token := strings.TrimSpace(c.o.Getenv("ENGRAM_TOKEN"))
	switch {
	case tokenFile != "":
		b, err := os.ReadFile(tokenFile)
		if err != nil {
			return "", fmt.Errorf("read the token file: %v", err)
		}
		token = strings.TrimSpace(string(b))
	case agent != "":
		tk, err := c.tokens()
		if err != nil {
			return "", err
		}
		token, err = tk.Load(agent)
		if errors.Is(err, connect.ErrNoToken) {
			return "", fmt.Errorf("no token stored for agent %s: run 'engram connect CLIENT --agent %s' again", agent, agent)
		}
		if err != nil {
			return "", fmt.Errorf("the token of agent %s: %v", agent, err)
		}
	}
	if token == "" {
		return "", errors.New("no agent token: pass --agent NAME (set up by 'engram connect CLIENT'), set ENGRAM_TOKEN or pass --token-file")
	}
	return token, nil
}

// apiBase is the running Engram's address: the flag, its runtime file,
// else the default.
func (c *cmd) apiBase(flagValue string) string {
	base := flagValue
	if base == "" {
		base = server.DefaultAddr
		if rt, err := c.runtimeDir(); err == nil {
			if b, err := os.ReadFile(filepath.Join(rt, "engram.addr")); err == nil && len(strings.TrimSpace(string(b))) > 0 {
				base = strings.TrimSpace(string(b))
			}
		}
	}
	if !strings.Contains(base, "://") {
		base = "http://" + base
	}
	return strings.TrimSuffix(base, "/")
}

// engramStarting reports whether an Engram holds the vault (so that one
// that does not answer yet is starting, worth a short wait): the vault
// file exists and cannot be opened, because its lock is held.
func (c *cmd) engramStarting() bool {
	dir, err := app.DataDir(c.o.Getenv)
	if err != nil {
		return false
	}
	path := filepath.Join(dir, app.VaultFile)
	if _, err := os.Stat(path); err != nil {
		return false
	}
	v, err := vault.Open(path, vault.Options{Timeout: 10 * time.Millisecond, ReadOnly: true})
	if err == nil {
		v.Close()
		return false
	}
	return errors.Is(err, vault.ErrInUse)
}

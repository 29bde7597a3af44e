package cli

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"text/tabwriter"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/connect"
	"github.com/engram-app/engram/app/hooks"
	"github.com/engram-app/engram/vault"
)

// noSecrets is the keyring when the user asked for none (ENGRAM_NO_KEYRING).
type noSecrets struct{ reason string }

func (n noSecrets) err() error                 { return fmt.Errorf("%w: %s", app.ErrKeyringUnavailable, n.reason) }
func (n noSecrets) Get(string) (string, error) { return "", n.err() }
func (n noSecrets) Set(string, string) error   { return n.err() }
func (n noSecrets) Delete(string) error        { return nil }

func (c *cmd) connectEnv() connect.Env {
	return connect.Env{Getenv: c.o.Getenv, GOOS: runtime.GOOS, LookPath: exec.LookPath}
}

// secrets is the keyring for agent tokens, unless the user asked for none.
func (c *cmd) secrets() connect.Secrets {
	if c.o.Getenv("ENGRAM_NO_KEYRING") != "" {
		return noSecrets{"ENGRAM_NO_KEYRING is set"}
	}
	return c.o.Secrets
}

// tokens is where engram connect keeps agent tokens and engram mcp --agent
// finds them.
func (c *cmd) tokens() (connect.Tokens, error) {
	dir, err := app.DataDir(c.o.Getenv)
	if err != nil {
		return connect.Tokens{}, err
	}
	return connect.Tokens{Keyring: c.secrets(), DataDir: dir}, nil
}

// remoteRegistry is the agent registry of the running Engram that holds
// the vault, through its admin API.
type remoteRegistry struct{ c *cmd }

func (r remoteRegistry) Agents() (app.AgentsResponse, error) {
	var out app.AgentsResponse
	return out, r.c.forward("GET", "/v1/admin/agents", &out)
}

func (r remoteRegistry) AddAgent(s app.AgentSpec) (app.AgentResponse, error) {
	var out app.AgentResponse
	return out, r.c.forwardBody("POST", "/v1/admin/agents", s, &out)
}

func (r remoteRegistry) RotateToken(name string) (app.AgentResponse, error) {
	var out app.AgentResponse
	return out, r.c.forward("POST", "/v1/admin/agents/"+url.PathEscape(name)+"/rotate", &out)
}

func (r remoteRegistry) Revoke(name string) (app.AgentResponse, error) {
	var out app.AgentResponse
	return out, r.c.forward("POST", "/v1/admin/agents/"+url.PathEscape(name)+"/revoke", &out)
}

// withRegistry runs f on the agent registry, in the running Engram when
// one answers (asked first: opening a vault it holds waits a second for
// the lock), else here. A refusal becomes the exit code it has elsewhere.
func (c *cmd) withRegistry(f func(connect.Registry) error) error {
	run := func(reg connect.Registry) error {
		err := f(reg)
		if re, ok := errors.AsType[*connect.ResponseError](err); ok {
			return fromResponse(re.Response)
		}
		return err
	}
	var r app.AgentsResponse
	if err := c.forward("GET", "/v1/admin/agents", &r); err == nil {
		return run(remoteRegistry{c})
	} else if !errors.Is(err, errNoServer) {
		return err
	}
	return c.orForward(func() error { return run(connect.ForService(c.ctx, c.svc, operator)) }, func() error { return run(remoteRegistry{c}) })
}

// connectCmd runs `engram connect`: configure an MCP client to start
// `engram mcp --agent NAME`, with the agent registered and its token in
// the OS keyring.
func (c *cmd) connectCmd(args []string) error {
	fs := newFlags("connect")
	list := fs.Bool("list", false, "show which clients are installed and which are connected")
	remove := fs.Bool("remove", false, "take Engram out of the client's configuration and revoke its agent")
	dryRun := fs.Bool("dry-run", false, "print the change to the client's file (a diff) and change nothing")
	agentName := fs.String("agent", "", "the agent's name (default: the one the client already uses, else the client's name)")
	fields := fs.String("fields", "", "writable fields of a new agent, comma-separated (default learnings,preferences,conventions,decisions)")
	read := fs.String("read", "", "readable partitions of a new agent, comma-separated (default public,internal)")
	product := fs.String("product", "", "the product a new agent works on")
	group := fs.String("group", "", "a new agent's group")
	mayConfirm := fs.Bool("may-confirm", false, "let a new agent's \"the user confirmed\" count as your confirmation")
	command := fs.String("command", "", "the engram program the client starts (default: this one)")
	noHooks := fs.Bool("no-hooks", false, "leave the client's lifecycle hooks out (a briefing at session start, recall per prompt, capture)")
	noCapture := fs.Bool("no-capture", false, "install the hooks without capture: nothing taken from transcripts, the agent never asked to store its learnings")
	budget := fs.Int("budget", 0, fmt.Sprintf("the briefing's size in tokens (default %d)", app.DefaultBriefingBudget))
	var projects projectFlags
	fs.Var(&projects, "project", "map a working directory to a product for the briefing: DIR=NAME (repeatable)")
	pos, err := parse(fs, args, 0, 1, "a CLIENT: "+strings.Join(connect.IDs(), ", "))
	if err != nil {
		return err
	}
	if *list {
		if len(pos) != 0 || *remove {
			return usage("connect --list takes no client")
		}
		return c.connectList()
	}
	if len(pos) != 1 {
		return usage("connect takes a CLIENT: %s (or --list)", strings.Join(connect.IDs(), ", "))
	}
	client, err := connect.Find(pos[0])
	if err != nil {
		return usage("unknown client %q: use one of %s", pos[0], strings.Join(connect.IDs(), ", "))
	}
	exe, err := c.engramCommand(*command)
	if err != nil {
		return err
	}
	req := connect.Request{
		Client: client, Env: c.connectEnv(), Command: exe, DryRun: *dryRun, NoHooks: *noHooks,
		Agent: app.AgentSpec{Name: *agentName, Fields: splitList[vault.Field](*fields), Read: splitList[vault.Partition](*read), Product: *product, Group: *group, MayConfirm: *mayConfirm},
	}
	req.HookCommand = connect.HookProgram(exe)
	if *noCapture {
		req.HookArgs = append(req.HookArgs, "--no-capture")
	}
	if *budget > 0 {
		req.HookArgs = append(req.HookArgs, "--budget", fmt.Sprint(*budget))
	}
	for _, p := range projects {
		dir := p.Dir
		if abs, err := filepath.Abs(dir); err == nil {
			dir = abs
		}
		req.HookArgs = append(req.HookArgs, "--project", dir+"="+p.Name)
	}
	if h := c.o.Getenv("ENGRAM_HOME"); h != "" {
		if abs, err := filepath.Abs(h); err == nil {
			h = abs
		}
		req.ExtraEnv = map[string]string{"ENGRAM_HOME": h}
	}
	tk, err := c.tokens()
	if err != nil {
		return err
	}
	var res connect.Result
	err = c.withRegistry(func(reg connect.Registry) error {
		if *remove {
			res, err = connect.Disconnect(reg, tk, req)
		} else {
			res, err = connect.Connect(reg, tk, req)
		}
		return err
	})
	if err != nil {
		return err // Run classifies it: a vault in use, locked, damaged
	}
	if *remove {
		return c.printDisconnect(res, *dryRun)
	}
	return c.printConnect(client, res, req)
}

// engramCommand is the absolute path of the engram the client starts.
func (c *cmd) engramCommand(flagValue string) (string, error) {
	exe := flagValue
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return "", fail(exitFailed, "cannot find this program's path (%v); pass --command PATH", err)
		}
		if strings.Contains(exe, string(filepath.Separator)+"go-build") {
			fmt.Fprintf(c.o.Stderr, "engram: %s is a temporary build (go run); pass --command with an installed engram\n", exe)
		}
	}
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	abs, err := filepath.Abs(exe)
	if err != nil {
		return "", err
	}
	return abs, nil
}

func describeAgent(a app.Agent) string {
	return fmt.Sprintf("writes %s; reads %s; may confirm: %s", joinList(a.Fields), joinList(a.Read), yesNo(a.MayConfirm))
}

func (c *cmd) printConnect(client connect.Client, res connect.Result, req connect.Request) error {
	plan, name := res.Plan, res.Agent.Name
	if req.DryRun {
		verb := "use"
		if res.New {
			verb = "add"
		}
		fmt.Fprintf(c.out, "would %s agent %s (%s)\n", verb, name, describeAgent(res.Agent))
		if !plan.Changes() {
			fmt.Fprintf(c.out, "%s is already connected: %s stays as it is\n", client.Name, plan.Path)
		} else {
			fmt.Fprintf(c.out, "would %s %s:\n", plan.Action, plan.Path)
			fmt.Fprint(c.out, plan.Diff())
		}
		c.printHookPlan(res.HookPlan, true)
		return nil
	}
	if res.Stored.File != "" {
		fmt.Fprintf(c.o.Stderr, "engram: %v; the token of %s is in %s (mode 0600) instead\n", res.Stored.Why, name, res.Stored.File)
	}
	switch {
	case res.New:
		fmt.Fprintf(c.out, "added agent %s (%s)\n", name, describeAgent(res.Agent))
	case res.Rotated:
		fmt.Fprintf(c.out, "agent %s (%s) exists and its token was not stored here: it has a new token now, the old one no longer works\n", name, describeAgent(res.Agent))
	default:
		fmt.Fprintf(c.out, "agent %s (%s), already registered\n", name, describeAgent(res.Agent))
	}
	a := req.Agent
	if !res.New && (a.Fields != nil || a.Read != nil || a.Product != "" || a.Group != "" || a.MayConfirm) {
		fmt.Fprintf(c.out, "its grants are unchanged; to change them, revoke it (engram connect --remove %s) and connect again\n", client.ID)
	}
	if !plan.Changes() && !res.HookPlan.Changes() {
		return printf(c.out, "%s is already connected: %s is unchanged\n", client.Name, plan.Path)
	}
	if plan.Changes() {
		fmt.Fprintf(c.out, "connected %s: %s %s", client.Name, map[connect.Action]string{connect.Create: "created", connect.Update: "updated"}[plan.Action], plan.Path)
		if plan.Action == connect.Update {
			fmt.Fprint(c.out, plan.BackupNote())
		}
		fmt.Fprintf(c.out, "\nit starts %s mcp --agent %s", req.Command, name)
	} else {
		fmt.Fprintf(c.out, "%s's MCP entry is unchanged in %s", client.Name, plan.Path)
	}
	c.printHookPlan(res.HookPlan, false)
	return printf(c.out, "; restart %s to load it\n", client.Name)
}

// printHookPlan says what happens to the client's hooks file.
func (c *cmd) printHookPlan(p connect.Plan, dryRun bool) {
	if p.Path == "" {
		return
	}
	if dryRun {
		if p.Changes() {
			fmt.Fprintf(c.out, "would %s %s (lifecycle hooks):\n", p.Action, p.Path)
			fmt.Fprint(c.out, p.Diff())
		} else {
			fmt.Fprintf(c.out, "%s stays as it is (lifecycle hooks)\n", p.Path)
		}
		return
	}
	switch p.Action {
	case connect.Unchanged:
		return
	case connect.Create, connect.Update:
		fmt.Fprintf(c.out, "\nlifecycle hooks: %s %s", map[connect.Action]string{connect.Create: "created", connect.Update: "updated"}[p.Action], p.Path)
	case connect.Restore:
		fmt.Fprintf(c.out, "\nlifecycle hooks: restored %s as it was", p.Path)
	case connect.Delete:
		fmt.Fprintf(c.out, "\nlifecycle hooks: removed %s, which engram connect had created", p.Path)
	}
	if p.Action == connect.Update {
		fmt.Fprint(c.out, p.BackupNote())
	}
}

func (c *cmd) printDisconnect(res connect.Result, dryRun bool) error {
	plan, name := res.Plan, res.Agent.Name
	if dryRun {
		if plan.Changes() {
			fmt.Fprintf(c.out, "would %s %s:\n", plan.Action, plan.Path)
			fmt.Fprint(c.out, plan.Diff())
		} else {
			fmt.Fprintf(c.out, "Engram is not in %s\n", plan.Path)
		}
		c.printHookPlan(res.HookPlan, true)
		if res.Revoked {
			fmt.Fprintf(c.out, "would revoke agent %s\n", name)
		}
		return printf(c.out, "would forget the token of %s\n", name)
	}
	switch plan.Action {
	case connect.Unchanged:
		fmt.Fprintf(c.out, "Engram was not in %s\n", plan.Path)
	case connect.Restore:
		fmt.Fprintf(c.out, "restored %s as it was before engram connect\n", plan.Path)
	case connect.Delete:
		fmt.Fprintf(c.out, "removed %s, which engram connect had created\n", plan.Path)
	default:
		fmt.Fprintf(c.out, "removed Engram from %s, keeping what else changed in it since%s\n", plan.Path, plan.BackupNote())
	}
	if res.HookPlan.Changes() {
		c.printHookPlan(res.HookPlan, false)
		fmt.Fprintln(c.out)
	}
	if res.Revoked {
		fmt.Fprintf(c.out, "revoked agent %s\n", name)
	}
	return printf(c.out, "forgot the token of %s\n", name)
}

// connectList prints every client: installed, connected, and its file.
func (c *cmd) connectList() error {
	env := c.connectEnv()
	tk, err := c.tokens()
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(c.out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CLIENT\tNAME\tINSTALLED\tCONNECTED\tCONFIG")
	for _, cl := range connect.Clients {
		st := cl.StatusOf(env)
		connected := "no"
		switch {
		case st.Err != nil:
			connected = "unreadable: " + st.Err.Error()
		case st.Connected && st.Agent == "":
			connected = "yes (not through engram connect)"
		case st.Connected:
			connected = "yes, agent " + st.Agent
			if _, err := tk.Load(st.Agent); err != nil {
				connected += " (no token stored: connect again)"
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", cl.ID, cl.Name, yesNo(st.Installed), connected, st.Path)
	}
	return tw.Flush()
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

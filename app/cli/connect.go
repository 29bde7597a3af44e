package cli

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/connect"
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

// agentOps are the operator's agent commands, on the vault in this process
// or through the running Engram that holds it.
type agentOps interface {
	list() (app.AgentsResponse, error)
	add(app.AgentSpec) (app.AgentResponse, error)
	rotate(name string) (app.AgentResponse, error)
	revoke(name string) (app.AgentResponse, error)
}

type localAgents struct{ c *cmd }

func (l localAgents) list() (app.AgentsResponse, error) {
	return l.c.svc.Agents(l.c.ctx, operator), nil
}
func (l localAgents) add(s app.AgentSpec) (app.AgentResponse, error) {
	return l.c.svc.AddAgent(l.c.ctx, operator, s), nil
}
func (l localAgents) rotate(name string) (app.AgentResponse, error) {
	return l.c.svc.RotateToken(l.c.ctx, operator, name), nil
}
func (l localAgents) revoke(name string) (app.AgentResponse, error) {
	return l.c.svc.SetAgentStatus(l.c.ctx, operator, name, vault.AgentRevoked), nil
}

type remoteAgents struct{ c *cmd }

func (r remoteAgents) list() (app.AgentsResponse, error) {
	var out app.AgentsResponse
	return out, r.c.forward("GET", "/v1/admin/agents", &out)
}
func (r remoteAgents) add(s app.AgentSpec) (app.AgentResponse, error) {
	var out app.AgentResponse
	body := map[string]any{"name": s.Name, "fields": s.Fields, "read": s.Read, "product": s.Product, "group": s.Group, "may_confirm": s.MayConfirm}
	return out, r.c.forwardBody("POST", "/v1/admin/agents", body, &out)
}
func (r remoteAgents) rotate(name string) (app.AgentResponse, error) {
	var out app.AgentResponse
	return out, r.c.forward("POST", "/v1/admin/agents/"+url.PathEscape(name)+"/rotate", &out)
}
func (r remoteAgents) revoke(name string) (app.AgentResponse, error) {
	var out app.AgentResponse
	return out, r.c.forward("POST", "/v1/admin/agents/"+url.PathEscape(name)+"/revoke", &out)
}

// withAgents runs f on the agents of the vault, in the running Engram
// when one answers (asked first: opening a vault it holds waits a second
// for the lock), else here.
func (c *cmd) withAgents(f func(agentOps) error) error {
	var r app.AgentsResponse
	if err := c.forward("GET", "/v1/admin/agents", &r); err == nil {
		return f(remoteAgents{c})
	} else if !errors.Is(err, errNoServer) {
		return err
	}
	return c.orForward(func() error { return f(localAgents{c}) }, func() error { return f(remoteAgents{c}) })
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
	env := c.connectEnv()
	name := *agentName
	explicit := name != ""
	if !explicit {
		name = client.StatusOf(env).Agent
	}
	if name == "" {
		name = client.ID
	}
	exe, err := c.engramCommand(*command)
	if err != nil {
		return err
	}
	var extra map[string]string
	if h := c.o.Getenv("ENGRAM_HOME"); h != "" {
		if abs, err := filepath.Abs(h); err == nil {
			h = abs
		}
		extra = map[string]string{"ENGRAM_HOME": h}
	}
	tk, err := c.tokens()
	if err != nil {
		return err
	}
	if *remove {
		return c.disconnect(client, env, connect.NewEntry(exe, name, extra), tk, *dryRun)
	}
	spec := app.AgentSpec{Name: name, Fields: splitList[vault.Field](*fields), Read: splitList[vault.Partition](*read), Product: *product, Group: *group, MayConfirm: *mayConfirm}
	return c.connectClient(client, env, spec, explicit, exe, extra, tk, *dryRun)
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

func describeAgent(a *app.Agent) string {
	return fmt.Sprintf("writes %s; reads %s; may confirm: %s", joinList(a.Fields), joinList(a.Read), yesNo(a.MayConfirm))
}

// connectClient registers (or reuses) the agent, keeps its token and
// writes the client's file.
func (c *cmd) connectClient(client connect.Client, env connect.Env, spec app.AgentSpec, explicit bool, exe string, extra map[string]string, tk connect.Tokens, dryRun bool) error {
	var (
		agent  *app.Agent
		token  string
		reused bool
	)
	err := c.withAgents(func(ops agentOps) error {
		r, err := ops.list()
		if err != nil {
			return err
		}
		if err := fromResponse(r.Response); err != nil {
			return err
		}
		byName := map[string]app.Agent{}
		for _, a := range r.Agents {
			byName[a.Name] = a
		}
		// A revoked agent stays revoked: a new connection gets a new name.
		base := spec.Name
		for i := 2; ; i++ {
			a, ok := byName[spec.Name]
			if !ok || a.Status != vault.AgentRevoked {
				break
			}
			if explicit || i > 99 {
				return fail(exitFailed, "agent %s is revoked; choose another name with --agent", spec.Name)
			}
			spec.Name = fmt.Sprintf("%s-%d", base, i)
		}
		if a, ok := byName[spec.Name]; ok {
			reused = true
			agent = &a
			if dryRun {
				return nil
			}
			if _, err := tk.Load(spec.Name); err == nil {
				return nil // kept from an earlier connect
			}
			if !errors.Is(err, connect.ErrNoToken) {
				return err
			}
			// Engram keeps only the token's hash: a client can get the
			// agent only with a new token.
			rr, err := ops.rotate(spec.Name)
			if err != nil {
				return err
			}
			if err := fromResponse(rr.Response); err != nil {
				return err
			}
			fmt.Fprintf(c.out, "agent %s exists and its token is not stored here: it has a new token now, the old one no longer works\n", spec.Name)
			token = rr.Token
			return nil
		}
		if dryRun {
			return nil
		}
		ar, err := ops.add(spec)
		if err != nil {
			return err
		}
		if err := fromResponse(ar.Response); err != nil {
			return err
		}
		agent, token = ar.Agent, ar.Token
		return nil
	})
	if err != nil {
		return err
	}
	plan, err := client.PlanInstall(env, connect.NewEntry(exe, spec.Name, extra))
	if err != nil {
		return fail(exitFailed, "%v", err)
	}
	if dryRun {
		if agent != nil {
			fmt.Fprintf(c.out, "would use agent %s (%s)\n", agent.Name, describeAgent(agent))
		} else {
			fields, read := spec.Fields, spec.Read
			if fields == nil {
				fields = app.DefaultAgentFields
			}
			if read == nil {
				read = []vault.Partition{vault.Public, vault.Internal}
			}
			fmt.Fprintf(c.out, "would add agent %s (writes %s; reads %s; may confirm: %s)\n", spec.Name, joinList(fields), joinList(read), yesNo(spec.MayConfirm))
		}
		if !plan.Changes() {
			return printf(c.out, "%s is already connected: %s stays as it is\n", client.Name, plan.Path)
		}
		fmt.Fprintf(c.out, "would %s %s:\n", plan.Action, plan.Path)
		fmt.Fprint(c.out, plan.Diff())
		return nil
	}
	if token != "" {
		st, err := tk.Save(spec.Name, token)
		if err != nil {
			return fail(exitFailed, "keep the agent's token: %v", err)
		}
		if st.File != "" {
			fmt.Fprintf(c.o.Stderr, "engram: %v; the token of %s is in %s (mode 0600) instead\n", st.Why, spec.Name, st.File)
		}
	}
	if reused {
		fmt.Fprintf(c.out, "agent %s (%s), already registered\n", agent.Name, describeAgent(agent))
		if spec.Fields != nil || spec.Read != nil || spec.Product != "" || spec.Group != "" || spec.MayConfirm {
			fmt.Fprintf(c.out, "its grants are unchanged; to change them, revoke it (engram connect --remove %s) and connect again\n", client.ID)
		}
	} else {
		fmt.Fprintf(c.out, "added agent %s (%s)\n", agent.Name, describeAgent(agent))
	}
	if !plan.Changes() {
		return printf(c.out, "%s is already connected: %s is unchanged\n", client.Name, plan.Path)
	}
	if err := plan.Apply(); err != nil {
		return fail(exitFailed, "%v", err)
	}
	fmt.Fprintf(c.out, "connected %s: %s %s", client.Name, map[connect.Action]string{connect.Create: "created", connect.Update: "updated"}[plan.Action], plan.Path)
	if plan.Action == connect.Update {
		fmt.Fprintf(c.out, " (the previous version is in %s)", plan.Path+connect.BackupSuffix)
	}
	fmt.Fprintf(c.out, "\nit starts %s mcp --agent %s; restart %s to load it\n", exe, spec.Name, client.Name)
	return nil
}

// disconnect takes Engram's entry out of the client's file, revokes the
// agent and forgets its token.
func (c *cmd) disconnect(client connect.Client, env connect.Env, entry connect.Entry, tk connect.Tokens, dryRun bool) error {
	name := entry.Args[len(entry.Args)-1]
	plan, err := client.PlanRemove(env, entry)
	if err != nil {
		return fail(exitFailed, "%v", err)
	}
	if dryRun {
		if plan.Changes() {
			fmt.Fprintf(c.out, "would %s %s:\n", plan.Action, plan.Path)
			fmt.Fprint(c.out, plan.Diff())
		} else {
			fmt.Fprintf(c.out, "Engram is not in %s\n", plan.Path)
		}
		return printf(c.out, "would revoke agent %s and forget its token\n", name)
	}
	if err := plan.Apply(); err != nil {
		return fail(exitFailed, "%v", err)
	}
	switch plan.Action {
	case connect.Unchanged:
		fmt.Fprintf(c.out, "Engram was not in %s\n", plan.Path)
	case connect.Restore:
		fmt.Fprintf(c.out, "restored %s as it was before engram connect\n", plan.Path)
	case connect.Delete:
		fmt.Fprintf(c.out, "removed %s, which engram connect had created\n", plan.Path)
	default:
		fmt.Fprintf(c.out, "removed Engram from %s (the previous version is in %s)\n", plan.Path, plan.Path+connect.BackupSuffix)
	}
	err = c.withAgents(func(ops agentOps) error {
		r, err := ops.list()
		if err != nil {
			return err
		}
		if err := fromResponse(r.Response); err != nil {
			return err
		}
		i := slices.IndexFunc(r.Agents, func(a app.Agent) bool { return a.Name == name })
		if i < 0 || r.Agents[i].Status == vault.AgentRevoked {
			return nil
		}
		rr, err := ops.revoke(name)
		if err != nil {
			return err
		}
		if err := fromResponse(rr.Response); err != nil {
			return err
		}
		return printf(c.out, "revoked agent %s\n", name)
	})
	if err != nil {
		return err
	}
	if err := tk.Delete(name); err != nil {
		return fail(exitFailed, "forget the token of %s: %v", name, err)
	}
	return nil
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

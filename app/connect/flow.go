package connect

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/vault"
)

// Registry is the agent registry as the user reaches it: app.Service with
// the caller's operator request (ForService), or the running Engram's
// admin API (the command line, when engram serve holds the vault). Its
// error is a failure to reach the registry; a refusal comes back as a
// response status.
type Registry interface {
	Agents() (app.AgentsResponse, error)
	AddAgent(spec app.AgentSpec) (app.AgentResponse, error)
	RotateToken(name string) (app.AgentResponse, error)
	Revoke(name string) (app.AgentResponse, error)
}

// ResponseError is a registry's answer other than ok (locked, damaged,
// conflict, ...), for the caller to show as it shows any other.
type ResponseError struct{ Response app.Response }

func (e *ResponseError) Error() string { return e.Response.Message }

func check(r app.Response, err error) error {
	if err != nil {
		return err
	}
	if r.Status != app.StatusOK {
		return &ResponseError{r}
	}
	return nil
}

// ForService is the Registry of svc, acting with req: the operator's
// request of the channel the user is on (the desktop app's, the command
// line's). Connecting never makes a request of its own.
func ForService(ctx context.Context, svc *app.Service, req app.Request) Registry {
	return serviceRegistry{ctx, svc, req}
}

type serviceRegistry struct {
	ctx context.Context
	svc *app.Service
	req app.Request
}

func (s serviceRegistry) Agents() (app.AgentsResponse, error) { return s.svc.Agents(s.ctx, s.req), nil }
func (s serviceRegistry) AddAgent(spec app.AgentSpec) (app.AgentResponse, error) {
	return s.svc.AddAgent(s.ctx, s.req, spec), nil
}
func (s serviceRegistry) RotateToken(name string) (app.AgentResponse, error) {
	return s.svc.RotateToken(s.ctx, s.req, name), nil
}
func (s serviceRegistry) Revoke(name string) (app.AgentResponse, error) {
	return s.svc.SetAgentStatus(s.ctx, s.req, name, vault.AgentRevoked), nil
}

// Request is one connection of a client.
type Request struct {
	Client Client
	Env    Env
	// Agent is the agent to register. An empty Name means the agent the
	// client's file already names, else the client's ID; nil Fields and
	// Read mean the service's defaults. An existing agent keeps its grants.
	Agent app.AgentSpec
	// Command is the absolute path of the engram program the client starts.
	Command string
	// ExtraEnv is passed to it (ENGRAM_HOME when set); never a secret.
	ExtraEnv map[string]string
	// DryRun computes everything and changes nothing: no agent, no token,
	// no file.
	DryRun bool
	// NoHooks leaves the client's lifecycle hooks out (Connect); a
	// Disconnect takes them out whatever it says.
	NoHooks bool
	// HookCommand is the absolute path of the program the hooks run:
	// engram-hook when it lies next to engram, else Command (run as
	// `engram hook`).
	HookCommand string
	// HookArgs are passed to every `engram hook` after --agent NAME
	// (--no-capture, --project DIR=NAME, --budget N); never a secret.
	HookArgs []string
}

// hookEntry is the command the client's hooks run for agent.
func (r Request) hookEntry(agent string) HookEntry {
	cmd := r.HookCommand
	if cmd == "" {
		cmd = r.Command
	}
	args := []string{"--agent", agent}
	if h := r.Client.Hooks; h != nil && h.Client != "" {
		args = append([]string{"--client", h.Client}, args...)
	}
	return HookEntry{Command: cmd, Args: append(args, r.HookArgs...), Env: r.ExtraEnv}
}

// hooksInConfig reports whether the client keeps its hooks in the file of
// its MCP entry (Gemini CLI's settings.json): then one plan edits both,
// and HookPlan is empty.
func (r Request) hooksInConfig() bool {
	h := r.Client.Hooks
	return h != nil && h.Path(r.Env) == r.Client.ConfigPath(r.Env)
}

// plan computes the change to the client's file for entry: its MCP entry,
// and its hooks too when they are in the same file.
func (r Request) plan(entry Entry, agent string, remove bool) (Plan, error) {
	if !r.hooksInConfig() {
		if remove {
			return r.Client.PlanRemove(r.Env, entry)
		}
		return r.Client.PlanInstall(r.Env, entry)
	}
	ed := bothEditor{entry: entryEditor{r.Client, entry}, hooks: hookEditor{r.Client.Hooks, r.hookEntry(agent)}, noHooks: r.NoHooks}
	real, src, mode, existed, err := read(r.Client.ConfigPath(r.Env))
	if err != nil {
		return Plan{}, err
	}
	if !remove {
		return planWith(ed, r.Client, real, src, existed, mode)
	}
	backup, _, berr := readFile(real+BackupSuffix, real+BackupSuffix, MaxFileSize)
	return planRemoveWith(ed, r.Client, real, src, existed, mode, backup, berr == nil)
}

// bothEditor edits a client's MCP entry and its hooks in one file:
// installing both (the hooks taken out instead with noHooks), removing
// both.
type bothEditor struct {
	entry   entryEditor
	hooks   hookEditor
	noHooks bool
}

func (x bothEditor) edit(src []byte) ([]byte, error) {
	out, err := x.entry.edit(src)
	if err != nil {
		return src, err
	}
	if x.noHooks {
		out, _, err = x.hooks.strip(out)
	} else {
		out, err = x.hooks.edit(out)
	}
	if err != nil {
		return src, err
	}
	return out, nil
}

func (x bothEditor) strip(src []byte) ([]byte, bool, error) {
	out, hadEntry, err := x.entry.strip(src)
	if err != nil {
		return src, false, err
	}
	out, hadHooks, err := x.hooks.strip(out)
	if err != nil {
		return src, false, err
	}
	return out, hadEntry || hadHooks, nil
}

// restores compares what is neither Engram's entry nor its hooks, as
// hookEditor.restores does: the hooks may carry other arguments.
func (x bothEditor) restores(base, src []byte) bool {
	x.noHooks = false
	again, err := x.edit(base)
	if err != nil {
		return false
	}
	if bytes.Equal(again, src) {
		return true
	}
	a, _, err1 := x.strip(src)
	b, _, err2 := x.strip(again)
	return err1 == nil && err2 == nil && bytes.Equal(a, b)
}

// planHooks computes the change to the client's hooks file: installing
// Engram's hooks, or (remove, or NoHooks) taking them out. A client
// without hooks gets an empty plan.
func (r Request) planHooks(agent string, remove bool) (Plan, error) {
	h := r.Client.Hooks
	if h == nil || r.hooksInConfig() {
		return Plan{Action: Unchanged}, nil
	}
	if remove || r.NoHooks {
		return h.PlanRemove(r.Client, r.Env, r.hookEntry(agent))
	}
	return h.PlanInstall(r.Client, r.Env, r.hookEntry(agent))
}

// Result says what Connect or Disconnect did (or, for a dry run, would do).
type Result struct {
	// Agent is the agent the client runs as. For a new agent in a dry
	// run, it is the spec with the service's default grants filled in.
	Agent app.Agent
	// New is true when the agent is (or would be) registered by this run.
	New bool
	// Rotated is true when an existing agent got a new token because none
	// was stored here; its old token no longer works.
	Rotated bool
	// Stored says where a new token went (Stored.File when not in the
	// OS keyring).
	Stored Stored
	// Revoked is true when Disconnect revoked the agent.
	Revoked bool
	// Plan is the change to the client's file; Plan.Diff shows it.
	Plan Plan
	// HookPlan is the change to the client's hooks file (Action
	// Unchanged and no Path for a client without hooks, and for one that
	// keeps its hooks in the file of Plan, which then changes both).
	HookPlan Plan
}

// maxSuffix bounds the search for a name that is not revoked.
const maxSuffix = 99

// Connect registers the agent (or reuses the one registered before), keeps
// its token in tk and writes the client's file. The file is read and
// planned before anything is registered, so a file Engram cannot read
// changes nothing. A revoked agent stays revoked: without an explicit name
// the next free NAME-2, NAME-3, ... is used; with one, Connect fails.
func Connect(reg Registry, tk Tokens, req Request) (Result, error) {
	var res Result
	list, err := reg.Agents()
	if err := check(list.Response, err); err != nil {
		return res, err
	}
	name, explicit := req.Agent.Name, req.Agent.Name != ""
	if !explicit {
		name = req.Client.StatusOf(req.Env).Agent
	}
	if name == "" {
		name = req.Client.ID
	}
	byName := func(n string) (app.Agent, bool) {
		i := slices.IndexFunc(list.Agents, func(a app.Agent) bool { return a.Name == n })
		if i < 0 {
			return app.Agent{}, false
		}
		return list.Agents[i], true
	}
	base := name
	for i := 2; ; i++ {
		a, ok := byName(name)
		if !ok || a.Status != vault.AgentRevoked {
			break
		}
		if explicit || i > maxSuffix {
			return res, fmt.Errorf("agent %s is revoked; choose another name", name)
		}
		name = fmt.Sprintf("%s-%d", base, i)
	}
	entry := NewEntry(req.Command, name, req.ExtraEnv)
	replan := func() (Plan, error) { return req.plan(entry, name, false) }
	if res.Plan, err = replan(); err != nil {
		return res, err
	}
	replanHooks := func() (Plan, error) { return req.planHooks(name, false) }
	if res.HookPlan, err = replanHooks(); err != nil {
		return res, err
	}

	existing, exists := byName(name)
	if req.DryRun {
		res.Agent, res.New = existing, !exists
		if !exists {
			res.Agent = defaults(req.Agent, name)
		}
		return res, nil
	}
	var token string
	if exists {
		res.Agent = existing
		if _, err := tk.Load(name); errors.Is(err, ErrNoToken) {
			// Engram keeps only a token's hash: a client gets an agent
			// registered elsewhere only with a new token.
			r, err := reg.RotateToken(name)
			if err := check(r.Response, err); err != nil {
				return res, err
			}
			token, res.Rotated = r.Token, true
		} else if err != nil {
			return res, err
		}
	} else {
		spec := req.Agent
		spec.Name = name
		r, err := reg.AddAgent(spec)
		if err := check(r.Response, err); err != nil {
			return res, err
		}
		res.Agent, res.New, token = *r.Agent, true, r.Token
	}
	if token != "" {
		if res.Stored, err = tk.Save(name, token); err != nil {
			return res, fmt.Errorf("keep the agent's token: %w", err)
		}
	}
	if res.Plan, err = applyRetrying(res.Plan, replan); err != nil {
		return res, err
	}
	res.HookPlan, err = applyRetrying(res.HookPlan, replanHooks)
	return res, err
}

// applyRetrying applies plan; when the client rewrote its file meanwhile
// (Claude Code rewrites ~/.claude.json as it runs), it plans again on the
// new content, up to three times in all.
func applyRetrying(plan Plan, replan func() (Plan, error)) (Plan, error) {
	for i := 1; ; i++ {
		err := plan.Apply()
		if !errors.Is(err, ErrChanged) || i == 3 {
			return plan, err
		}
		if plan, err = replan(); err != nil {
			return plan, err
		}
	}
}

func defaults(spec app.AgentSpec, name string) app.Agent {
	a := app.Agent{Name: name, Fields: spec.Fields, Read: spec.Read, Product: spec.Product, Group: spec.Group, MayConfirm: spec.MayConfirm}
	if a.Fields == nil {
		a.Fields = app.DefaultAgentFields
	}
	if a.Read == nil {
		a.Read = []vault.Partition{vault.Public, vault.Internal}
	}
	return a
}

// Disconnect takes Engram's entry out of the client's file (giving back the
// backup when nothing else changed the file), revokes the agent the entry
// named (req.Agent.Name when set) and forgets its token.
func Disconnect(reg Registry, tk Tokens, req Request) (Result, error) {
	var res Result
	name := req.Agent.Name
	if name == "" {
		name = req.Client.StatusOf(req.Env).Agent
	}
	if name == "" {
		name = req.Client.ID
	}
	entry := NewEntry(req.Command, name, req.ExtraEnv)
	replan := func() (Plan, error) { return req.plan(entry, name, true) }
	plan, err := replan()
	if err != nil {
		return res, err
	}
	res.Plan = plan
	replanHooks := func() (Plan, error) { return req.planHooks(name, true) }
	if res.HookPlan, err = replanHooks(); err != nil {
		return res, err
	}
	list, err := reg.Agents()
	if err := check(list.Response, err); err != nil {
		return res, err
	}
	i := slices.IndexFunc(list.Agents, func(a app.Agent) bool { return a.Name == name })
	if i >= 0 {
		res.Agent = list.Agents[i]
	} else {
		res.Agent = app.Agent{Name: name}
	}
	active := i >= 0 && list.Agents[i].Status != vault.AgentRevoked
	if req.DryRun {
		res.Revoked = active
		return res, nil
	}
	if res.Plan, err = applyRetrying(plan, replan); err != nil {
		return res, err
	}
	if res.HookPlan, err = applyRetrying(res.HookPlan, replanHooks); err != nil {
		return res, err
	}
	if active {
		r, err := reg.Revoke(name)
		if err := check(r.Response, err); err != nil {
			return res, err
		}
		res.Revoked = true
		if r.Agent != nil {
			res.Agent = *r.Agent
		}
	}
	return res, tk.Delete(name)
}

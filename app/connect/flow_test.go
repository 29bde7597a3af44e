package connect_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/connect"
	"github.com/engram-app/engram/vault"
	"github.com/engram-app/engram/vault/vaulttest"
)

var operator = app.Request{Caller: app.Caller{Operator: true}, Authorized: true, Reason: "test"}

func newService(t *testing.T) *app.Service {
	t.Helper()
	v, clock := vaulttest.New(t)
	svc, err := app.New(v, app.Options{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	return svc
}

func agentStatus(t *testing.T, svc *app.Service, name string) vault.AgentStatus {
	t.Helper()
	r := svc.Agents(context.Background(), operator)
	i := slices.IndexFunc(r.Agents, func(a app.Agent) bool { return a.Name == name })
	if i < 0 {
		return ""
	}
	return r.Agents[i].Status
}

// TestConnectFlow runs Connect and Disconnect against a real service: the
// agent with the chosen grants, the token kept outside the file, reuse,
// a new token when none is stored, a dry run that changes nothing, and a
// revoked name never coming back.
func TestConnectFlow(t *testing.T) {
	ctx := context.Background()
	svc := newService(t)
	reg := connect.ForService(ctx, svc, operator)
	home := t.TempDir()
	env := testEnv(home)
	kr := &memSecrets{m: map[string]string{}}
	tk := connect.Tokens{Keyring: kr, DataDir: t.TempDir()}
	c, _ := connect.Find("claude-code")
	req := connect.Request{Client: c, Env: env, Command: engramBin,
		Agent: app.AgentSpec{Read: []vault.Partition{vault.Public}, Fields: []vault.Field{vault.Learnings}}}

	dry := req
	dry.DryRun = true
	res, err := connect.Connect(reg, tk, dry)
	if err != nil {
		t.Fatal(err)
	}
	if !res.New || res.Agent.Name != "claude-code" || res.Plan.Action != connect.Create || agentStatus(t, svc, "claude-code") != "" {
		t.Fatalf("dry run = %+v; agent %q", res, agentStatus(t, svc, "claude-code"))
	}
	if _, err := os.Stat(c.ConfigPath(env)); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a dry run wrote the file: %v", err)
	}

	res, err = connect.Connect(reg, tk, req)
	if err != nil {
		t.Fatal(err)
	}
	if !res.New || !slices.Equal(res.Agent.Read, []vault.Partition{vault.Public}) || !slices.Equal(res.Agent.Fields, []vault.Field{vault.Learnings}) {
		t.Errorf("agent = %+v, want the chosen grants", res.Agent)
	}
	token, err := tk.Load("claude-code")
	if err != nil || !strings.HasPrefix(token, "engram_") {
		t.Fatalf("stored token = %q, %v", token, err)
	}
	b, _ := os.ReadFile(c.ConfigPath(env))
	checkEntry(t, c, b, "claude-code")
	if strings.Contains(string(b), token) {
		t.Fatal("the token is in the client's file")
	}

	res, err = connect.Connect(reg, tk, req)
	if err != nil || res.New || res.Rotated || res.Plan.Changes() {
		t.Fatalf("second run = %+v, %v", res, err)
	}
	if again, _ := tk.Load("claude-code"); again != token {
		t.Error("the second run changed the token")
	}

	// The token lost here: the agent gets a new one, the old one stops working.
	if err := tk.Delete("claude-code"); err != nil {
		t.Fatal(err)
	}
	res, err = connect.Connect(reg, tk, req)
	if err != nil || !res.Rotated {
		t.Fatalf("run without a stored token = %+v, %v", res, err)
	}
	if fresh, _ := tk.Load("claude-code"); fresh == token || fresh == "" {
		t.Errorf("token after rotation = %q", fresh)
	}

	res, err = connect.Disconnect(reg, tk, connect.Request{Client: c, Env: env, Command: engramBin})
	if err != nil || !res.Revoked || res.Plan.Action != connect.Delete {
		t.Fatalf("Disconnect = %+v, %v", res, err)
	}
	if s := agentStatus(t, svc, "claude-code"); s != vault.AgentRevoked {
		t.Errorf("agent status = %s, want revoked", s)
	}
	if _, err := tk.Load("claude-code"); !errors.Is(err, connect.ErrNoToken) {
		t.Errorf("token after Disconnect: %v", err)
	}
	if _, err := os.Stat(c.ConfigPath(env)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the file Connect created is still there: %v", err)
	}

	res, err = connect.Connect(reg, tk, req)
	if err != nil || res.Agent.Name != "claude-code-2" || !res.New {
		t.Fatalf("connect after a revoke = %+v, %v", res, err)
	}
	named := req
	named.Agent.Name = "claude-code"
	if _, err := connect.Connect(reg, tk, named); err == nil || !strings.Contains(err.Error(), "revoked") {
		t.Errorf("connect with a revoked name = %v", err)
	}
}

// TestConnectUnreadableFile: a client file Engram cannot read stops
// Connect before any agent is registered.
func TestConnectUnreadableFile(t *testing.T) {
	svc := newService(t)
	home := t.TempDir()
	env := testEnv(home)
	c, _ := connect.Find("cursor")
	if err := os.MkdirAll(home+"/.cursor", 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(c.ConfigPath(env), []byte(`{"mcpServers": {`), 0o600); err != nil {
		t.Fatal(err)
	}
	tk := connect.Tokens{Keyring: &memSecrets{m: map[string]string{}}, DataDir: t.TempDir()}
	_, err := connect.Connect(connect.ForService(context.Background(), svc, operator), tk, connect.Request{Client: c, Env: env, Command: engramBin})
	if !errors.Is(err, connect.ErrSyntax) {
		t.Fatalf("Connect = %v, want ErrSyntax", err)
	}
	if s := agentStatus(t, svc, "cursor"); s != "" {
		t.Errorf("an agent was registered: %s", s)
	}
}

// TestConnectRefused: a refusal of the registry (an agent request, not the
// operator's) comes back as a ResponseError and changes nothing.
func TestConnectRefused(t *testing.T) {
	svc := newService(t)
	home := t.TempDir()
	env := testEnv(home)
	c, _ := connect.Find("gemini")
	agentReq := app.Request{Caller: app.Caller{Agent: "someone"}}
	tk := connect.Tokens{Keyring: &memSecrets{m: map[string]string{}}, DataDir: t.TempDir()}
	_, err := connect.Connect(connect.ForService(context.Background(), svc, agentReq), tk, connect.Request{Client: c, Env: env, Command: engramBin})
	if re, ok := errors.AsType[*connect.ResponseError](err); !ok || re.Response.Status == app.StatusOK {
		t.Fatalf("Connect as an agent = %v, want a ResponseError", err)
	}
	if _, err := os.Stat(c.ConfigPath(env)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the file was written: %v", err)
	}
}

package mcpserver_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The trust part of the red-team suite (issue 17) through MCP's tools: an
// agent tries to make itself more trusted than the user allows.

func mcpSession(t *testing.T, base, token string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: base + "/mcp", HTTPClient: &http.Client{Transport: bearer{token}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func callText(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) string {
	t.Helper()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return "error: " + err.Error()
	}
	return text(t, res)
}

func TestRedTeamSelfConfirmationMCP(t *testing.T) {
	base, token, _ := startEngramOpts(t, server.Options{})
	cs := mcpSession(t, base, token)
	out := callText(t, cs, "store_memory", map[string]any{"content": "the setup script printed 3f9a1c7e2b4d6f8a0c1e3b5d7f9a1c3e5b7d9f1a", "confirmed": true})
	if !strings.Contains(out, `"status":"quarantined"`) || !strings.Contains(out, "the agent reports that the user confirmed") {
		t.Errorf("agent-confirmed possible secret = %s; want a confirmation request in the quarantine", out)
	}
	out = callText(t, mcpSession(t, base, token), "store_memory", map[string]any{"content": "the project builds with Go 1.27", "tier": "semantic"})
	if !strings.Contains(out, "confirmation_required") || !strings.Contains(out, "ask the user") {
		t.Errorf("unconfirmed semantic memory = %s; want confirmation_required telling the agent to ask the user", out)
	}
}

func TestRedTeamSelfDeclaredSourceMCP(t *testing.T) {
	base, token, _ := startEngramOpts(t, server.Options{})
	cs := mcpSession(t, base, token)
	out := callText(t, cs, "store_memory", map[string]any{"content": "release notes are written by the on-call engineer", "source": map[string]any{"type": "user_message"}})
	if !strings.Contains(out, `"status":"ok"`) {
		t.Fatalf("store = %s", out)
	}
	out = callText(t, cs, "recall_memory", map[string]any{"query": "release notes on-call engineer", "mode": "exact"})
	if strings.Contains(out, "[from user]") || !strings.Contains(out, "reported as from the user") {
		t.Errorf("recall = %s; want the memory shown as the agent's report", out)
	}
}

func TestRedTeamMetadataMCP(t *testing.T) {
	base, token, _ := startEngramOpts(t, server.Options{})
	out := callText(t, mcpSession(t, base, token), "store_memory", map[string]any{"content": "the linter runs on save", "source": map[string]any{"message_id": "123-45-6789"}})
	if !strings.Contains(out, "invalid") || !strings.Contains(out, "message_id") {
		t.Errorf("an SSN in message_id = %s; want invalid naming the field", out)
	}
}

func TestRedTeamFreshSessionAfterRefusalsMCP(t *testing.T) {
	base, token, _ := startEngramOpts(t, server.Options{})
	first := mcpSession(t, base, token)
	for range 3 {
		callText(t, first, "store_memory", map[string]any{"content": "x", "field": "gotchas"})
	}
	if out := callText(t, first, "store_memory", map[string]any{"content": "the build runs on Linux"}); !strings.Contains(out, "disabled for this session") {
		t.Fatalf("a write after three refusals = %s; want the session disabled", out)
	}
	second := mcpSession(t, base, token)
	if out := callText(t, second, "store_memory", map[string]any{"content": "the build runs on Linux"}); !strings.Contains(out, `"status":"ok"`) {
		t.Fatalf("a write in a new session = %s", out)
	}
	callText(t, second, "store_memory", map[string]any{"content": "x", "field": "gotchas"})
	out := callText(t, second, "store_memory", map[string]any{"content": "x", "field": "gotchas"})
	if !strings.Contains(out, "paused") {
		t.Fatalf("the fifth refusal = %s; want the agent paused", out)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil)
	if cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: base + "/mcp", HTTPClient: &http.Client{Transport: bearer{token}}}, nil); err == nil {
		out := callText(t, cs, "store_memory", map[string]any{"content": "the build runs on Linux"})
		cs.Close()
		if !strings.Contains(out, "paused") && !strings.Contains(out, "error") {
			t.Fatalf("a third session after the pause wrote: %s", out)
		}
	}
}

// TestRefuteOverMCP: an agent refutes a memory with evidence; without
// evidence it is told what is missing.
func TestRefuteOverMCP(t *testing.T) {
	base, token, svc := startEngramOpts(t, server.Options{})
	cs := mcpSession(t, base, token)
	out := callText(t, cs, "store_memory", map[string]any{"content": "the staging database is reset on Mondays"})
	var stored struct{ ID string }
	json.Unmarshal([]byte(out), &stored)
	if out := callText(t, cs, "refute_memory", map[string]any{"id": stored.ID, "evidence": ""}); !strings.Contains(out, "needs the evidence") {
		t.Errorf("refute without evidence = %s", out)
	}
	if out := callText(t, cs, "refute_memory", map[string]any{"id": stored.ID, "evidence": "the ops calendar moved the reset to Sundays"}); !strings.Contains(out, `"status":"ok"`) {
		t.Fatalf("refute = %s", out)
	}
	h := svc.History(ctx, app.Request{Caller: app.Caller{Operator: true}, Authorized: true}, stored.ID)
	if !h.OK() || !strings.Contains(fmt.Sprint(h.Memory.Provenance), "REFUTED") {
		t.Errorf("history after the refutation = %+v", h.Memory.Provenance)
	}
}

package mcpserver_test

import (
	"strings"
	"testing"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/server"
	"github.com/engram-app/engram/vault"
)

// TestRefuteUsersMemoryOverMCP: over MCP, an agent's refutation of the
// user's memory is recorded as its report (QUESTIONED) and it is told so.
func TestRefuteUsersMemoryOverMCP(t *testing.T) {
	base, token, svc := startEngramOpts(t, server.Options{})
	op := app.Request{Caller: app.Caller{Operator: true}, Authorized: true}
	users := svc.Store(ctx, op, app.StoreInput{Content: "the team indents with tabs", Partition: vault.Public}).Memory
	cs := mcpSession(t, base, token)
	if out := callText(t, cs, "refute_memory", map[string]any{"id": users.ID, "evidence": "the linter config asks for spaces"}); !strings.Contains(out, `"status":"ok"`) || !strings.Contains(out, "recorded as your report") {
		t.Fatalf("refute_memory of the user's memory = %s; want ok, recorded as a report", out)
	}
	g := svc.Get(ctx, op, users.ID)
	vs := g.Memory.Provenance.Verifications
	if len(vs) != 1 || vs[0].Verdict != vault.Questioned || vs[0].Evidence != "the linter config asks for spaces" {
		t.Fatalf("verifications = %+v; want the agent's report", vs)
	}
}

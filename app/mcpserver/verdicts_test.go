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

// TestQuestionAndExpiryOverMCP: over MCP, question_memory is recorded as
// the agent's report and store_memory takes an expiry no later than the
// policy gives the agent's memory.
func TestQuestionAndExpiryOverMCP(t *testing.T) {
	base, token, svc := startEngramOpts(t, server.Options{})
	op := app.Request{Caller: app.Caller{Operator: true}, Authorized: true}
	users := svc.Store(ctx, op, app.StoreInput{Content: "the release train leaves on Thursdays", Partition: vault.Public}).Memory
	cs := mcpSession(t, base, token)
	if out := callText(t, cs, "question_memory", map[string]any{"id": users.ID, "reason": "the calendar moved it to Fridays"}); !strings.Contains(out, `"status":"ok"`) || !strings.Contains(out, "your report") {
		t.Fatalf("question_memory = %s; want ok, recorded as a report", out)
	}
	g := svc.Get(ctx, op, users.ID)
	if qs := app.OpenQuestions(g.Memory); len(qs) != 1 || qs[0].Evidence != "the calendar moved it to Fridays" {
		t.Fatalf("open questions = %+v; want the agent's report", qs)
	}
	if _, ok := app.QuestionedBy(g.Memory); ok {
		t.Fatal("an agent's question counts as the user's")
	}
	if out := callText(t, cs, "store_memory", map[string]any{"content": "the deploy freeze lasts two days", "expires": "2d"}); !strings.Contains(out, `"status":"ok"`) {
		t.Fatalf("store_memory with expires 2d = %s", out)
	}
	if out := callText(t, cs, "store_memory", map[string]any{"content": "the build cache is warm", "expires": "400d"}); !strings.Contains(out, "only shorten") {
		t.Fatalf("store_memory with expires 400d = %s; want refused", out)
	}
}

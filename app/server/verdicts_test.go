package server_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/server"
	"github.com/engram-app/engram/decay"
	"github.com/engram-app/engram/vault"
)

// TestVerdictsHTTP: over the real HTTP API, an agent cannot store below
// the automatic level, its refutation of the user's memory is only its
// report, and once Engram pauses it for its refusals it is told so and
// how the user resumes it.
func TestVerdictsHTTP(t *testing.T) {
	e := start(t, server.Options{})
	ctx := context.Background()
	if r := e.do("POST", "/v1/memories", e.token, `{"content":"the deploy script lives in ops/deploy.sh","partition":"public"}`, withSession("a")); r.code != 400 || !strings.Contains(r.raw, "only the user makes a memory public") {
		t.Fatalf("an agent's public write = %d %s; want 400 with the reason", r.code, r.raw)
	}
	users := e.svc.Store(ctx, operator, app.StoreInput{Content: "the team indents with tabs", Partition: vault.Public}).Memory
	r := e.do("POST", "/v1/memories/"+users.ID+"/refute", e.token, `{"evidence":"the linter config asks for spaces"}`, withSession("a"))
	if r.code != 200 || !strings.Contains(r.raw, "recorded as your report") {
		t.Fatalf("the agent's refutation of the user's memory = %d %s; want 200, a report", r.code, r.raw)
	}
	if sw := e.svc.Sweep(ctx, operator, users.Created.Add(time.Hour), decay.DefaultPolicy(), 0); !sw.OK() || sw.Archived != 0 {
		t.Fatalf("sweep after the agent's report = %+v; want nothing archived", sw)
	}
	for i := range app.MaxAgentRefusals {
		e.do("POST", "/v1/memories", e.token, `{"content":"x","field":"constitution"}`, withSession(fmt.Sprintf("refused-%d", i)))
	}
	if r := e.do("GET", "/v1/memories/"+users.ID, e.token, "", withSession("b")); r.code != 403 || r.body["status"] != "paused" ||
		!strings.Contains(r.raw, "Engram paused this agent for its refused writes") || !strings.Contains(r.raw, "engram agent resume claude-code") {
		t.Fatalf("the next call after Engram paused the agent = %d %s", r.code, r.raw)
	}
}

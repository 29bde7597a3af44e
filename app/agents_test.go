package app_test

import (
	"strings"
	"testing"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/vault"
)

func TestAgentLifecycle(t *testing.T) {
	s, v := newService(t)
	add := s.AddAgent(ctx, operator, app.AgentSpec{Name: "claude-code", Fields: []vault.Field{vault.Learnings, vault.Gotchas}})
	if !add.OK() || !strings.HasPrefix(add.Token, "engram_") || len(add.Token) < 40 || add.Agent.TokenHash != "" {
		t.Fatalf("AddAgent = %+v", add)
	}
	if again := s.AddAgent(ctx, operator, app.AgentSpec{Name: "claude-code"}); again.Status != app.StatusConflict {
		t.Fatalf("AddAgent(duplicate) = %+v, want conflict", again.Response)
	}
	if bad := s.AddAgent(ctx, claude, app.AgentSpec{Name: "x"}); bad.Status != app.StatusUnauthorized {
		t.Fatalf("AddAgent by an agent = %+v, want unauthorized", bad.Response)
	}
	for _, tc := range []struct {
		spec app.AgentSpec
	}{{app.AgentSpec{Name: "operator"}}, {app.AgentSpec{Name: "has space"}}, {app.AgentSpec{Name: "a", Fields: []vault.Field{vault.Constitution}}}, {app.AgentSpec{Name: "b", Read: []vault.Partition{"attic"}}}} {
		if r := s.AddAgent(ctx, operator, tc.spec); r.Status != app.StatusInvalid {
			t.Errorf("AddAgent(%+v) = %+v, want invalid", tc.spec, r.Response)
		}
	}

	caller, r := s.Authenticate(ctx, add.Token, "sess")
	if !r.OK() || caller.Agent != "claude-code" || caller.Session != "sess" || len(caller.Fields) != 2 {
		t.Fatalf("Authenticate = %+v, %+v", caller, r)
	}
	// The granted gotchas field is writable now.
	if w := s.Store(ctx, app.Request{Caller: caller, Authorized: true}, app.StoreInput{Content: "flaky test: retry once", Field: vault.Gotchas}); !w.OK() {
		t.Fatalf("Store(gotchas) with a grant = %+v", w.Response)
	}
	for _, tok := range []string{"", "Bearer x", "engram_" + strings.Repeat("A", 43), add.Token + "x"} {
		if _, r := s.Authenticate(ctx, tok, ""); r.Status != app.StatusUnauthorized {
			t.Errorf("Authenticate(%q) = %+v, want unauthorized", tok, r)
		}
	}
	if r := s.SetAgentStatus(ctx, operator, "claude-code", vault.AgentPaused); !r.OK() {
		t.Fatal(r.Response)
	}
	if _, r := s.Authenticate(ctx, add.Token, ""); r.Status != app.StatusPaused {
		t.Fatalf("Authenticate(paused) = %+v, want paused", r)
	}
	s.SetAgentStatus(ctx, operator, "claude-code", vault.AgentActive)
	rot := s.RotateToken(ctx, operator, "claude-code")
	if !rot.OK() || rot.Token == "" || rot.Token == add.Token {
		t.Fatalf("RotateToken = %+v", rot)
	}
	if _, r := s.Authenticate(ctx, add.Token, ""); r.Status != app.StatusUnauthorized {
		t.Fatalf("the old token still works after rotation: %+v", r)
	}
	if _, r := s.Authenticate(ctx, rot.Token, ""); !r.OK() {
		t.Fatalf("the new token does not work: %+v", r)
	}
	s.SetAgentStatus(ctx, operator, "claude-code", vault.AgentRevoked)
	if _, r := s.Authenticate(ctx, rot.Token, ""); r.Status != app.StatusUnauthorized {
		t.Fatalf("a revoked token works: %+v", r)
	}
	if r := s.RotateToken(ctx, operator, "claude-code"); r.Status != app.StatusInvalid {
		t.Fatalf("RotateToken(revoked) = %+v, want invalid", r.Response)
	}
	list := s.Agents(ctx, operator)
	if !list.OK() || len(list.Agents) != 1 || list.Agents[0].Status != vault.AgentRevoked || list.Agents[0].TokenHash != "" {
		t.Fatalf("Agents = %+v", list)
	}
	// Failed authentications are counted, and audited in one summary per
	// minute and at Close (app.AuthFailPeriod).
	s.Close()
	fails, _ := v.AuditLog(vault.AuditFilter{Action: vault.ActionAuthFail})
	if len(fails) != 1 || fails[0].Count < 4 {
		t.Fatalf("failed authentications audited as %+v, want one summary counting at least 4", fails)
	}
	for _, e := range fails {
		if strings.Contains(e.Reason, "engram_") {
			t.Fatalf("an audit entry holds a token: %+v", e)
		}
	}
}

// TestReadMatrix checks the read rules with registered agents: groups and
// products widen what an agent reads of others' internal memories, the
// partitions it may read bound it, and only an explicit grant opens the
// sensitive partition (audited).
func TestReadMatrix(t *testing.T) {
	s, v := newService(t)
	reg := func(spec app.AgentSpec) app.Request {
		a := s.AddAgent(ctx, operator, spec)
		if !a.OK() {
			t.Fatal(a.Response)
		}
		c, r := s.Authenticate(ctx, a.Token, "")
		if !r.OK() {
			t.Fatal(r)
		}
		return app.Request{Caller: c, Authorized: true}
	}
	writer := reg(app.AgentSpec{Name: "writer", Group: "backend", Product: "engram"})
	sameGroup := reg(app.AgentSpec{Name: "same-group", Group: "backend"})
	sameProduct := reg(app.AgentSpec{Name: "same-product", Product: "engram"})
	stranger := reg(app.AgentSpec{Name: "stranger", Group: "frontend", Product: "other"})
	publicOnly := reg(app.AgentSpec{Name: "public-only", Read: []vault.Partition{vault.Public}})
	granted := reg(app.AgentSpec{Name: "granted", Read: []vault.Partition{vault.Public, vault.Internal, vault.Sensitive}})

	groupWriter := reg(app.AgentSpec{Name: "group-writer", Group: "backend"})
	internal := s.Store(ctx, writer, app.StoreInput{Content: "the queue retries three times"}).Memory // L2: product engram
	if internal.Product != "engram" {
		t.Fatalf("a product agent's memory has product %q; want engram", internal.Product)
	}
	l1 := s.Store(ctx, groupWriter, app.StoreInput{Content: "the cache is warmed at boot"}).Memory // L1: group backend
	if r := s.Store(ctx, writer, app.StoreInput{Content: "the queue is public knowledge", Partition: vault.Public}); r.Status != app.StatusInvalid || !strings.Contains(r.Message, "L2") {
		t.Errorf("a product-scoped memory requested public = %+v; want invalid with the reason", r.Response)
	}
	users := s.Store(ctx, operator, app.StoreInput{Content: "I review every migration myself"}).Memory
	sens := s.Store(ctx, operator, app.StoreInput{Content: "my doctor's number is in the notes", Partition: vault.Sensitive}).Memory
	tests := []struct {
		name string
		req  app.Request
		id   string
		want app.Status
	}{
		{"L2: same product reads", sameProduct, internal.ID, app.StatusOK},
		{"L2: same group, other product, is refused", sameGroup, internal.ID, app.StatusUnauthorized},
		{"L2: stranger is refused", stranger, internal.ID, app.StatusUnauthorized},
		{"L1: same group reads", sameGroup, l1.ID, app.StatusOK},
		{"L1: an agent of another group is refused", sameProduct, l1.ID, app.StatusUnauthorized},
		{"everyone reads the user's internal memories", stranger, users.ID, app.StatusOK},
		{"public-only agent is refused internal", publicOnly, users.ID, app.StatusUnauthorized},
		{"sensitive without a grant", sameGroup, sens.ID, app.StatusUnauthorized},
		{"sensitive with a grant", granted, sens.ID, app.StatusOK},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if r := s.Get(ctx, tc.req, tc.id); r.Status != tc.want {
				t.Fatalf("Get = %+v, want %s", r.Response, tc.want)
			}
		})
	}
	l3, _ := v.AuditLog(vault.AuditFilter{Action: vault.ActionL3Access})
	var granted3, denied3 int
	for _, e := range l3 {
		switch {
		case e.Agent == "granted" && e.Result == vault.ResultOK:
			granted3++
		case e.Agent == "same-group" && e.Result == vault.ResultDenied:
			denied3++
		}
	}
	if granted3 != 1 || denied3 != 1 {
		t.Fatalf("L3 audit: %d granted and %d denied accesses, want 1 and 1 (%+v)", granted3, denied3, l3)
	}
}

func TestSetAgentGrants(t *testing.T) {
	svc, _ := newService(t)
	ctx := t.Context()
	if r := svc.AddAgent(ctx, operator, app.AgentSpec{Name: "cursor"}); !r.OK() {
		t.Fatal(r.Message)
	}
	r := svc.SetAgentGrants(ctx, operator, "cursor", []app.Field{"gotchas"}, []app.Partition{"public"})
	if !r.OK() || len(r.Agent.Fields) != 1 || r.Agent.Fields[0] != "gotchas" || len(r.Agent.Read) != 1 {
		t.Fatalf("SetAgentGrants = %+v", r)
	}
	for _, tc := range []struct {
		fields []app.Field
		read   []app.Partition
	}{{[]app.Field{"constitution"}, nil}, {nil, []app.Partition{"everything"}}} {
		if r := svc.SetAgentGrants(ctx, operator, "cursor", tc.fields, tc.read); r.Status != app.StatusInvalid {
			t.Errorf("SetAgentGrants(%v, %v) = %s, want invalid", tc.fields, tc.read, r.Status)
		}
	}
	agent := app.Request{Caller: app.Caller{Agent: "cursor"}, Authorized: true}
	if r := svc.SetAgentGrants(ctx, agent, "cursor", []app.Field{"gotchas", "learnings"}, nil); r.OK() {
		t.Fatal("an agent changed its own grants")
	}
}

func TestAgentsShowLastSeen(t *testing.T) {
	svc, _ := newService(t)
	add := svc.AddAgent(ctx, operator, app.AgentSpec{Name: "cursor"})
	if got := svc.Agents(ctx, operator).Agents[0].LastSeen; !got.IsZero() {
		t.Fatalf("LastSeen before any request = %v", got)
	}
	if _, r := svc.Authenticate(ctx, add.Token, "s1"); !r.OK() {
		t.Fatal(r.Message)
	}
	if got := svc.Agents(ctx, operator).Agents[0].LastSeen; got.IsZero() {
		t.Fatal("LastSeen not set after the agent authenticated")
	}
}

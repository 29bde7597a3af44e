package app_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/vault"
	"github.com/engram-app/engram/vault/vaulttest"
)

var ctx = context.Background()

var (
	operator = app.Request{Caller: app.Caller{Operator: true}, Authorized: true}
	claude   = app.Request{Caller: app.Caller{Agent: "claude-code", Session: "s1"}, Authorized: true}
	cursor   = app.Request{Caller: app.Caller{Agent: "cursor"}, Authorized: true}
	// mayConfirm is claude-code as registered with the user's grant that
	// its "the user confirmed" counts.
	mayConfirm = app.Request{Caller: app.Caller{Agent: "claude-code", Session: "s1", MayConfirm: true}, Authorized: true}
)

func newService(t *testing.T) (*app.Service, *vault.Vault) {
	v, _ := vaulttest.New(t)
	s, err := app.New(v, app.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s, v
}

func TestStoreDefaultsAndTrust(t *testing.T) {
	s, _ := newService(t)
	r := s.Store(ctx, claude, app.StoreInput{Content: "prefers table tests", Tags: []string{" Go ", "go", "Testing"}})
	if !r.OK() {
		t.Fatalf("Store = %+v", r.Response)
	}
	m := r.Memory
	if m.Owner != "claude-code" || m.Source.AgentID != "claude-code" || m.Source.SessionID != "s1" || m.Source.Type != vault.SourceAIInference ||
		m.Trust != vault.TrustStandard || m.Confidence != 0.70 || m.Tier != vault.Episodic || m.Partition != vault.Internal ||
		strings.Join(m.Tags, ",") != "go,testing" {
		t.Fatalf("agent memory = %+v", m)
	}
	op := s.Store(ctx, operator, app.StoreInput{Content: "user fact"}).Memory
	if op.Trust != vault.TrustOperator || op.Confidence != 0.95 || op.Source.Type != vault.SourceExplicitSave {
		t.Fatalf("operator memory = %+v", op)
	}
}

func TestAuthorization(t *testing.T) {
	s, v := newService(t)
	mine := s.Store(ctx, claude, app.StoreInput{Content: "claude's note"}).Memory
	pub := makePublic(t, s, s.Store(ctx, claude, app.StoreInput{Content: "public note"}).Memory)
	sens := s.Store(ctx, operator, app.StoreInput{Content: "sensitive note", Partition: vault.Sensitive}).Memory
	content := "changed"

	tests := []struct {
		name  string
		call  func() app.Response
		want  app.Status
		audit vault.Action // a denial must be audited with this action
	}{
		{"unauthorized flag", func() app.Response { return s.Get(ctx, app.Request{Caller: claude.Caller}, mine.ID).Response }, app.StatusUnauthorized, ""},
		{"no caller", func() app.Response { return s.Get(ctx, app.Request{Authorized: true}, mine.ID).Response }, app.StatusUnauthorized, ""},
		{"reserved field", func() app.Response {
			return s.Store(ctx, claude, app.StoreInput{Content: "x", Field: vault.Constitution}).Response
		}, app.StatusUnauthorized, vault.ActionReject},
		{"writing as another agent: the claim is ignored and audited", func() app.Response {
			r := s.Store(ctx, claude, app.StoreInput{Content: "x", Source: vault.Source{Type: vault.SourceToolOutput, AgentID: "cursor"}})
			if r.OK() && (r.Memory.Owner != "claude-code" || r.Memory.Source.AgentID != "claude-code") {
				t.Errorf("impersonating write stored as %q / %q, want claude-code", r.Memory.Owner, r.Memory.Source.AgentID)
			}
			return r.Response
		}, app.StatusOK, vault.ActionReject},
		{"reading another agent's internal memory", func() app.Response { return s.Get(ctx, cursor, mine.ID).Response }, app.StatusUnauthorized, vault.ActionRead},
		{"reading a public memory", func() app.Response { return s.Get(ctx, cursor, pub.ID).Response }, app.StatusOK, ""},
		{"agent reading sensitive", func() app.Response { return s.Get(ctx, claude, sens.ID).Response }, app.StatusUnauthorized, vault.ActionL3Access},
		{"updating another agent's memory", func() app.Response {
			return s.Update(ctx, cursor, mine.ID, app.UpdateInput{Content: &content}).Response
		}, app.StatusUnauthorized, vault.ActionUpdate},
		{"deleting another agent's memory", func() app.Response { return s.Delete(ctx, cursor, mine.ID) }, app.StatusUnauthorized, vault.ActionDelete},
		{"rolling back another agent's memory", func() app.Response { return s.Rollback(ctx, cursor, mine.ID, 1).Response }, app.StatusUnauthorized, vault.ActionRollback},
		{"agent reading the audit log", func() app.Response { return s.Audit(ctx, claude, app.AuditInput{}).Response }, app.StatusUnauthorized, vault.ActionRead},
		{"owner updates own memory", func() app.Response {
			return s.Update(ctx, claude, mine.ID, app.UpdateInput{Content: &content}).Response
		}, app.StatusOK, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before, _ := v.AuditLog(vault.AuditFilter{})
			r := tc.call()
			if r.Status != tc.want {
				t.Fatalf("status = %+v, want %s", r, tc.want)
			}
			if tc.audit == "" {
				return
			}
			after, _ := v.AuditLog(vault.AuditFilter{})
			found := false
			for _, e := range after[len(before):] {
				found = found || (e.Action == tc.audit && e.Result == vault.ResultDenied)
			}
			if !found {
				t.Fatalf("new audit entries = %+v, want a denied %s", after[len(before):], tc.audit)
			}
		})
	}
	list := s.List(ctx, cursor, app.ListInput{})
	if !list.OK() || len(list.Memories) != 1 || list.Memories[0].ID != pub.ID {
		t.Fatalf("List for another agent = %+v, want only the public memory", list)
	}
}

func TestStatuses(t *testing.T) {
	s, v := newService(t)
	m := s.Store(ctx, operator, app.StoreInput{Content: "a"}).Memory
	sens := s.Store(ctx, operator, app.StoreInput{Content: "b", Partition: vault.Sensitive}).Memory
	content := "c"
	tests := []struct {
		name string
		call func() app.Response
		want app.Status
	}{
		{"not found", func() app.Response { return s.Get(ctx, operator, "00000000-0000-4000-8000-000000000000").Response }, app.StatusNotFound},
		{"invalid kind", func() app.Response {
			return s.Store(ctx, operator, app.StoreInput{Content: "x", Kind: "rumour"}).Response
		}, app.StatusInvalid},
		{"empty content", func() app.Response { return s.Store(ctx, operator, app.StoreInput{Content: ""}).Response }, app.StatusInvalid},
		{"stale version", func() app.Response {
			return s.Update(ctx, operator, m.ID, app.UpdateInput{Content: &content, IfVersion: 7}).Response
		}, app.StatusConflict},
		{"missing version", func() app.Response { return s.Rollback(ctx, operator, m.ID, 9).Response }, app.StatusNotFound},
		{"locked", func() app.Response { v.Lock(); return s.Get(ctx, operator, sens.ID).Response }, app.StatusLocked},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if r := tc.call(); r.Status != tc.want {
				t.Fatalf("status = %+v, want %s", r, tc.want)
			}
		})
	}
}

func TestPruneAudit(t *testing.T) {
	v, clock := vaulttest.New(t)
	s, _ := app.New(v, app.Options{Now: clock.Now})
	s.Store(ctx, operator, app.StoreInput{Content: "old"})
	clock.Advance(100 * 24 * time.Hour)
	s.Store(ctx, operator, app.StoreInput{Content: "new"})
	if r := s.PruneAudit(ctx, claude, clock.Now(), app.DefaultAuditRetention); r.Status != app.StatusUnauthorized {
		t.Fatalf("PruneAudit by an agent = %+v, want unauthorized", r.Response)
	}
	r := s.PruneAudit(ctx, operator, clock.Now(), app.DefaultAuditRetention)
	if !r.OK() || r.Pruned != 2 { // vault:create and the old write
		t.Fatalf("PruneAudit = %+v, want 2 pruned", r)
	}
	if rep, err := v.VerifyAudit(); err != nil || !rep.OK() {
		t.Fatalf("VerifyAudit after prune = %+v, %v", rep, err)
	}
}

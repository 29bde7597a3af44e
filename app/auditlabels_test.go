package app_test

import (
	"testing"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/vault"
)

// lastEntry is the newest audit entry.
func lastEntry(t *testing.T, s *app.Service) app.AuditEntry {
	t.Helper()
	r := s.Audit(ctx, operator, app.AuditInput{Last: 1})
	if !r.OK() || len(r.Entries) == 0 {
		t.Fatalf("Audit = %+v", r.Response)
	}
	return r.Entries[len(r.Entries)-1]
}

// TestRefusalsAreAuditedAsWhatWasAsked: an agent refused a memory it may
// not touch is audited with the action it asked for, not always as an
// update.
func TestRefusalsAreAuditedAsWhatWasAsked(t *testing.T) {
	s, _ := newService(t)
	theirs := s.Store(ctx, claude, app.StoreInput{Content: "the build cache lives in /var/cache/ci"}).Memory
	content := "changed"
	for _, tc := range []struct {
		name string
		call func() app.Response
		want vault.Action
	}{
		{"read", func() app.Response { return s.Get(ctx, cursor, theirs.ID).Response }, vault.ActionRead},
		{"history", func() app.Response { return s.History(ctx, cursor, theirs.ID).Response }, vault.ActionRead},
		{"update", func() app.Response {
			return s.Update(ctx, cursor, theirs.ID, app.UpdateInput{Content: &content}).Response
		}, vault.ActionUpdate},
		{"rollback", func() app.Response { return s.Rollback(ctx, cursor, theirs.ID, 1).Response }, vault.ActionRollback},
		{"delete", func() app.Response { return s.Delete(ctx, cursor, theirs.ID) }, vault.ActionDelete},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if r := tc.call(); r.Status != app.StatusUnauthorized {
				t.Fatalf("cursor's %s of claude-code's memory = %+v, want unauthorized", tc.name, r)
			}
			e := lastEntry(t, s)
			if e.Action != tc.want || e.Result != vault.ResultDenied || e.MemoryID != theirs.ID || e.Agent != "cursor" {
				t.Fatalf("the refused %s is audited as %s %s of %s by %s, want %s denied", tc.name, e.Action, e.Result, e.MemoryID, e.Agent, tc.want)
			}
		})
	}
}

// TestMaskedListingOfTheUser: the desktop's masked listing returns no
// sensitive text and adds no audit entry; an unmasked one, or an agent's,
// is audited as before.
func TestMaskedListingOfTheUser(t *testing.T) {
	s, _ := newService(t)
	s.Store(ctx, operator, app.StoreInput{Content: "the team indents with tabs"})
	s.Store(ctx, operator, app.StoreInput{Content: "my locker combination is left 12 right 30", Partition: vault.Sensitive})
	before := lastEntry(t, s).Seq
	for range 3 {
		l := s.List(ctx, operator, app.ListInput{Masked: true})
		if !l.OK() || len(l.Memories) != 2 {
			t.Fatalf("masked List = %+v, %d memories", l.Response, len(l.Memories))
		}
		for _, m := range l.Memories {
			if m.Sensitive() && m.Content != "" {
				t.Fatalf("a masked listing returned the sensitive text %q", m.Content)
			}
		}
	}
	if e := lastEntry(t, s); e.Seq != before {
		t.Fatalf("the user's masked listings added audit entries: the last is %s by %s", e.Action, e.Agent)
	}
	s.List(ctx, operator, app.ListInput{})
	if e := lastEntry(t, s); e.Action != vault.ActionList || e.Partition != vault.Sensitive {
		t.Fatalf("an unmasked listing showing sensitive memories is audited as %s (%s)", e.Action, e.Partition)
	}
	seq := lastEntry(t, s).Seq
	s.List(ctx, claude, app.ListInput{Masked: true})
	if e := lastEntry(t, s); e.Seq == seq || e.Action != vault.ActionList || e.Agent != "claude-code" {
		t.Fatal("an agent's listing is not audited when it says it masks")
	}
}

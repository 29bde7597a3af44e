package app_test

import (
	"strings"
	"testing"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/recall"
	"github.com/engram-app/engram/vault"
	"github.com/engram-app/engram/vault/vaulttest"
)

// TestExternalContentIsMarked: content from outside the conversation (a
// tool's output, or a writer saying so) carries from_external_content,
// and recall labels it as external content whoever wrote it, fenced.
func TestExternalContentIsMarked(t *testing.T) {
	v, clock := vaulttest.New(t)
	s, err := app.New(v, app.Options{Now: clock.Now, Recall: recall.New(recall.DefaultConfig(nil))})
	if err != nil {
		t.Fatal(err)
	}
	writer, peer := writerAndPeer(t, s)
	tool := mustStore(t, s, writer, app.StoreInput{Content: "The linter allows lines of 120 columns", Source: vault.Source{Type: vault.SourceToolOutput, Tool: "read_file"}})
	said := mustStore(t, s, writer, app.StoreInput{Content: "The changelog says version 3 drops Python 3.8", Source: vault.Source{External: true}})
	mine := mustStore(t, s, writer, app.StoreInput{Content: "The nightly job rebuilds the docs"})
	users := mustStore(t, s, operator, app.StoreInput{Content: "The vendored parser came from upstream release notes", Source: vault.Source{Type: vault.SourceToolOutput}})
	for _, tc := range []struct {
		m    *app.Memory
		want bool
	}{{tool, true}, {said, true}, {mine, false}, {users, true}} {
		if tc.m.Source.External != tc.want {
			t.Errorf("%q: from_external_content = %v, want %v", tc.m.Content, tc.m.Source.External, tc.want)
		}
	}
	for _, m := range []*app.Memory{tool, said, users} {
		r := s.Recall(ctx, peer, app.RecallInput{Query: m.Content, Mode: app.RecallMode(recall.Exact), Limit: 1})
		if !r.OK() || len(r.Results) != 1 || r.Results[0].ID != m.ID {
			t.Fatalf("Recall(%q) = %+v", m.Content, r)
		}
		if !strings.HasPrefix(r.Context, recall.LabelExternal+" ") || !strings.Contains(r.Context, "<user_memory>") {
			t.Errorf("recall context of %q = %q; want it labelled %s and fenced", m.Content, r.Context, recall.LabelExternal)
		}
	}
	r := s.Recall(ctx, peer, app.RecallInput{Query: mine.Content, Mode: app.RecallMode(recall.Exact), Limit: 1})
	if strings.Contains(r.Context, recall.LabelExternal) {
		t.Errorf("recall of an agent's own inference = %q; it is not external content", r.Context)
	}
}

// TestReportedRole: the speaker's role a writer reports is kept beside
// the reported source and shown as reported; an unknown role is refused.
func TestReportedRole(t *testing.T) {
	v, clock := vaulttest.New(t)
	s, err := app.New(v, app.Options{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	writer := register(t, s, app.AgentSpec{Name: "writer"})
	m := mustStore(t, s, writer, app.StoreInput{Content: "Prefers short commit messages", Source: vault.Source{Type: vault.SourceUserMessage, Role: vault.RoleUser}})
	if m.Source.Role != vault.RoleUser || m.Source.Reported != vault.SourceUserMessage || m.Trust == vault.TrustOperator {
		t.Fatalf("stored source = %+v trust %s; want the role and source kept as reported, the agent's trust", m.Source, m.Trust)
	}
	if note, want := app.ReportedNote(m.Source), "spoken by the user, as reported by writer"; !strings.Contains(note, want) {
		t.Errorf("ReportedNote = %q; want %q in it", note, want)
	}
	if g := s.Get(ctx, operator, m.ID); g.Memory.Source.Role != vault.RoleUser {
		t.Errorf("read back: role %q", g.Memory.Source.Role)
	}
	bad := s.Store(ctx, writer, app.StoreInput{Content: "Prefers tabs", Source: vault.Source{Role: "boss"}})
	if bad.Status != app.StatusInvalid || !strings.Contains(bad.Message, "source.role") {
		t.Errorf("Store with role boss = %+v; want invalid naming source.role", bad.Response)
	}
}

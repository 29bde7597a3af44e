package app_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/importer"
	"github.com/engram-app/engram/decay"
	"github.com/engram-app/engram/vault"
	"github.com/engram-app/engram/vault/vaulttest"
)

// Agents of the tests below (standard trust unless said).
var (
	bob = app.Request{Caller: app.Caller{Agent: "bob", Session: "b1"}, Authorized: true}
	eve = app.Request{Caller: app.Caller{Agent: "eve", Session: "e1"}, Authorized: true}
	// untrusty is registered with less than standard trust, in the group
	// of the agents writer and peer that the tests register.
	untrusty = app.Request{Caller: app.Caller{Agent: "untrusty", Session: "u1", Group: "backend", Trust: vault.TrustUntrusted}, Authorized: true}
)

// writerAndPeer registers two agents of one group, so that each reads the
// other's memories.
func writerAndPeer(t *testing.T, s *app.Service) (writer, peer app.Request) {
	return register(t, s, app.AgentSpec{Name: "writer", Group: "backend"}), register(t, s, app.AgentSpec{Name: "peer", Group: "backend"})
}

// register adds an agent and returns its requests' caller, as its token
// authenticates it.
func register(t *testing.T, s *app.Service, spec app.AgentSpec) app.Request {
	t.Helper()
	add := s.AddAgent(ctx, operator, spec)
	if !add.OK() {
		t.Fatal(add.Response)
	}
	c, r := s.Authenticate(ctx, add.Token, spec.Name+"-session")
	if !r.OK() {
		t.Fatal(r)
	}
	return app.Request{Caller: c, Authorized: true}
}

// makePublic has the user reclassify m as public: only the user makes a
// memory public.
func makePublic(t *testing.T, s *app.Service, m *app.Memory) *app.Memory {
	t.Helper()
	pub := vault.Public
	r := s.Update(ctx, operator, m.ID, app.UpdateInput{Operation: vault.OpReclassify, Partition: &pub})
	if !r.OK() || r.Memory.Partition != vault.Public {
		t.Fatalf("reclassify %q as public = %+v", m.Content, r)
	}
	return r.Memory
}

// sweepNow runs a sweep at the clock's time with the default policy.
func sweepNow(t *testing.T, s *app.Service, clock *vaulttest.Clock) app.SweepResponse {
	t.Helper()
	r := s.Sweep(ctx, operator, clock.Now(), decay.DefaultPolicy(), app.DefaultAuditRetention)
	if !r.OK() {
		t.Fatalf("sweep = %+v", r.Response)
	}
	return r
}

// lastVerification is the newest entry of the memory's verifications.
func lastVerification(t *testing.T, s *app.Service, id string) vault.Verification {
	t.Helper()
	g := s.Get(ctx, operator, id)
	if !g.OK() || len(g.Memory.Provenance.Verifications) == 0 {
		t.Fatalf("Get(%s) = %+v, want a memory with verifications", id, g)
	}
	vs := g.Memory.Provenance.Verifications
	return vs[len(vs)-1]
}

// TestAgentRefutationOfHigherTrustIsAReport: an agent's refutation of a
// memory more trusted than its own (the user's, here) is recorded as that
// agent's report, shown in the memory's history, and archives nothing; a
// refutation of a memory of equal or lower trust archives it as before.
func TestAgentRefutationOfHigherTrustIsAReport(t *testing.T) {
	v, clock := vaulttest.New(t)
	s, err := app.New(v, app.Options{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	public := mustStore(t, s, operator, app.StoreInput{Content: "The team indents with tabs", Partition: vault.Public})
	internal := mustStore(t, s, operator, app.StoreInput{Content: "The staging cluster runs in eu-west-1"})
	writer, peer := writerAndPeer(t, s)
	agents := mustStore(t, s, writer, app.StoreInput{Content: "The flaky test is TestUpload"})
	lower := mustStore(t, s, peer, app.StoreInput{Content: "The nightly build starts at two"})

	for _, tc := range []struct {
		req      app.Request
		id       string
		evidence string
	}{
		{bob, public.ID, "the linter config asks for spaces"},
		{eve, internal.ID, "the cluster moved to us-east-2"},
		{untrusty, lower.ID, "the build starts at three"},
	} {
		r := s.Refute(ctx, tc.req, tc.id, tc.evidence)
		if !r.OK() || !strings.Contains(r.Message, "report") {
			t.Fatalf("Refute by %s = %+v; want ok, told it is recorded as a report", tc.req.Caller.Agent, r.Response)
		}
		got := lastVerification(t, s, tc.id)
		if got.Agent != tc.req.Caller.Agent || got.Verdict == vault.Refuted || got.Evidence != tc.evidence {
			t.Errorf("%s's refutation stored as %+v; want %s's report with the evidence, not a refutation", tc.req.Caller.Agent, got, tc.req.Caller.Agent)
		}
		if line := app.VerificationLine(got); !strings.Contains(line, tc.req.Caller.Agent+" reports it wrong: "+tc.evidence) {
			t.Errorf("VerificationLine(%+v) = %q; want %q in it", got, line, tc.req.Caller.Agent+" reports it wrong: "+tc.evidence)
		}
	}
	// Equal trust: another agent's memory is refuted as today.
	if r := s.Refute(ctx, peer, agents.ID, "the flaky test is TestDownload"); !r.OK() || strings.Contains(r.Message, "report") {
		t.Fatalf("Refute of an equal-trust memory = %+v; want a refutation", r.Response)
	}
	clock.Advance(time.Hour)
	r := sweepNow(t, s, clock)
	if r.Archived != 1 || len(r.Actions) != 1 || r.Actions[0].ID != agents.ID {
		t.Fatalf("sweep = %+v; want only the equal-trust memory archived", r)
	}
	for _, m := range []*app.Memory{public, internal, lower} {
		if g := s.Get(ctx, operator, m.ID); !g.OK() || g.Memory.Partition == vault.Archive {
			t.Errorf("%q after an agent's report = %+v; want it kept", m.Content, g.Memory)
		}
	}
	// The user's own refutation archives at the next sweep, as today.
	if r := s.Refute(ctx, operator, public.ID, "we switched to spaces"); !r.OK() {
		t.Fatal(r)
	}
	if r := sweepNow(t, s, clock); r.Archived != 1 || r.Actions[0].ID != public.ID || r.Actions[0].Reason != "refuted: we switched to spaces" {
		t.Fatalf("sweep after the user's refutation = %+v", r)
	}
}

// TestUserRefutationIsNotFlushed: an agent confirming a memory again and
// again neither grows its provenance nor pushes the user's refutation out
// of it: the sweep archives the memory.
func TestUserRefutationIsNotFlushed(t *testing.T) {
	v, clock := vaulttest.New(t)
	s, err := app.New(v, app.Options{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	writer, peer := writerAndPeer(t, s)
	m := mustStore(t, s, writer, app.StoreInput{Content: "The CI cache is keyed by go.sum"})
	if r := s.Refute(ctx, operator, m.ID, "the cache key is the lockfile hash"); !r.OK() {
		t.Fatal(r)
	}
	for i := range 101 {
		clock.Advance(time.Second)
		if r := s.Confirm(ctx, writer, m.ID, "checked the workflow"); !r.OK() {
			t.Fatalf("confirmation %d = %+v", i, r.Response)
		}
		if r := s.Confirm(ctx, peer, m.ID, "checked the workflow too"); !r.OK() {
			t.Fatalf("confirmation %d = %+v", i, r.Response)
		}
	}
	g := s.Get(ctx, operator, m.ID)
	if n := len(g.Memory.Provenance.Verifications); n != 3 {
		t.Errorf("after 202 confirmations by two agents the provenance holds %d verifications; want 3 (the user's and one per agent)", n)
	}
	r := sweepNow(t, s, clock)
	if r.Archived != 1 || len(r.Actions) != 1 || r.Actions[0].ID != m.ID || r.Actions[0].Reason != "refuted: the cache key is the lockfile hash" {
		t.Fatalf("sweep = %+v; want the refuted memory archived", r)
	}
}

// TestRestoreIsTheUsersVerdict: the user's restore of a refuted memory
// stands over the refutation, so the next sweep leaves it; an agent's
// later refutation of it is a report.
func TestRestoreIsTheUsersVerdict(t *testing.T) {
	v, clock := vaulttest.New(t)
	s, err := app.New(v, app.Options{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	writer, peer := writerAndPeer(t, s)
	m := mustStore(t, s, writer, app.StoreInput{Content: "The release branch is release/2026"})
	if r := s.Refute(ctx, peer, m.ID, "the branch was renamed"); !r.OK() || strings.Contains(r.Message, "report") {
		t.Fatalf("Refute = %+v", r.Response)
	}
	clock.Advance(time.Hour)
	if r := sweepNow(t, s, clock); r.Archived != 1 {
		t.Fatalf("sweep = %+v; want the refuted memory archived", r)
	}
	if r := s.Restore(ctx, operator, m.ID); !r.OK() || r.Memory.Partition != vault.Internal {
		t.Fatalf("Restore = %+v", r)
	}
	if got := lastVerification(t, s, m.ID); got.Agent != vault.AgentOperator || got.Verdict != vault.Confirmed || got.Evidence != "restored by the user" {
		t.Errorf("the restore recorded %+v; want the user's confirmation", got)
	}
	clock.Advance(time.Hour)
	if r := sweepNow(t, s, clock); r.Archived != 0 {
		t.Fatalf("sweep after the restore = %+v; want nothing archived", r)
	}
	// An agent refutes it again: the user's verdict stands, the agent's
	// refutation is its report.
	if r := s.Refute(ctx, peer, m.ID, "the branch was renamed, really"); !r.OK() || !strings.Contains(r.Message, "report") {
		t.Fatalf("Refute after the restore = %+v; want a report", r.Response)
	}
	clock.Advance(time.Hour)
	if r := sweepNow(t, s, clock); r.Archived != 0 {
		t.Fatalf("sweep after an agent's refutation of the restored memory = %+v; want nothing archived", r)
	}
	// A restore of a memory that is not archived changes nothing.
	n := len(s.Get(ctx, operator, m.ID).Memory.Provenance.Verifications)
	if r := s.Restore(ctx, operator, m.ID); r.Status != app.StatusInvalid {
		t.Fatalf("Restore of a live memory = %+v; want invalid", r.Response)
	}
	if got := len(s.Get(ctx, operator, m.ID).Memory.Provenance.Verifications); got != n {
		t.Errorf("a refused restore added a verification: %d, want %d", got, n)
	}
}

// TestAgentMayNotLowerTheLevel: an agent (and an import) asking for a
// level below the automatic one is refused with the reason; the user's
// own choice stands.
func TestAgentMayNotLowerTheLevel(t *testing.T) {
	s, _ := newService(t)
	r := s.Store(ctx, claude, app.StoreInput{Content: "The deploy script lives in ops/deploy.sh", Partition: vault.Public})
	if r.Status != app.StatusInvalid || !strings.Contains(r.Message, "public") || !strings.Contains(r.Message, "L1") {
		t.Fatalf("an agent's public write = %+v; want invalid with the reason", r.Response)
	}
	for _, p := range []vault.Partition{vault.Internal, vault.Sensitive, ""} {
		if r := s.Store(ctx, claude, app.StoreInput{Content: "The deploy script lives in ops/deploy-" + string(p) + ".sh", Partition: p}); !r.OK() {
			t.Errorf("an agent's %q write = %+v; want ok", p, r.Response)
		}
	}
	mine := mustStore(t, s, claude, app.StoreInput{Content: "The lint step runs golangci-lint"})
	pub := vault.Public
	if r := s.Update(ctx, claude, mine.ID, app.UpdateInput{Operation: vault.OpReclassify, Partition: &pub}); r.OK() {
		t.Errorf("an agent's reclassify to public = %+v; want refused", r.Memory)
	}
	if r := s.Store(ctx, operator, app.StoreInput{Content: "The team indents with tabs", Partition: vault.Public}); !r.OK() || r.Memory.Partition != vault.Public {
		t.Fatalf("the user's public write = %+v", r)
	}
	if r := s.Update(ctx, operator, mine.ID, app.UpdateInput{Operation: vault.OpReclassify, Partition: &pub}); !r.OK() || r.Memory.Partition != vault.Public {
		t.Fatalf("the user's reclassify to public = %+v", r)
	}
	// The agent may still change the content of its memory the user made
	// public: the partition is the user's, not the agent's request.
	content := "The lint step runs golangci-lint v2"
	if r := s.Update(ctx, claude, mine.ID, app.UpdateInput{Content: &content}); !r.OK() || r.Memory.Partition != vault.Public {
		t.Fatalf("the agent's update of its memory the user made public = %+v", r)
	}
	// An import's partition is the user's --partition, never the file's:
	// public stands; without it, the automatic level.
	entries := []importer.Entry{{Text: "Releases are tagged with the date", Field: vault.Conventions, Kind: vault.Fact, File: "AGENTS.md", Line: 3}}
	for _, tc := range []struct {
		p, want vault.Partition
	}{{vault.Public, vault.Public}, {"", vault.Internal}} {
		r := s.ImportEntries(ctx, operator, entries, app.ImportOptions{Format: importer.Agents, Partition: tc.p, DryRun: true})
		if !r.OK() || len(r.Results) != 1 || r.Results[0].Outcome != app.ImportStored || r.Results[0].Partition != tc.want {
			t.Errorf("import with --partition %q = %+v; want stored in %s", tc.p, r, tc.want)
		}
	}
}

// TestConfirmationRequiredNamesTheQuarantine: the answer that asks for
// the user's confirmation names the command that exists.
func TestConfirmationRequiredNamesTheQuarantine(t *testing.T) {
	s, _ := newService(t)
	r := s.Store(ctx, claude, app.StoreInput{Content: "The project targets Go 1.27", Tier: vault.Semantic})
	if r.Status != app.StatusConfirmationRequired || !strings.Contains(r.Message, "engram quarantine") || strings.Contains(r.Message, "engram review") {
		t.Fatalf("semantic write = %+v; want confirmation_required naming 'engram quarantine'", r.Response)
	}
}

// TestPausedForRefusalsSaysSo: an agent Engram paused for its refusals is
// told so, and how the user resumes it; one the user paused is told that.
func TestPausedForRefusalsSaysSo(t *testing.T) {
	v, clock := vaulttest.New(t)
	s, err := app.New(v, app.Options{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	add := s.AddAgent(ctx, operator, app.AgentSpec{Name: "noisy"})
	if !add.OK() {
		t.Fatal(add.Response)
	}
	c, r := s.Authenticate(ctx, add.Token, "n1")
	if !r.OK() {
		t.Fatal(r)
	}
	for i := range app.MaxAgentRefusals {
		c.Session = fmt.Sprintf("n%d", i) // a session's writes stop after three refusals
		s.Store(ctx, app.Request{Caller: c, Authorized: true}, app.StoreInput{Content: "x", Field: vault.Constitution})
	}
	if _, r := s.Authenticate(ctx, add.Token, "n1"); r.Status != app.StatusPaused ||
		!strings.Contains(r.Message, "Engram paused") || !strings.Contains(r.Message, "refused") || !strings.Contains(r.Message, "engram agent resume noisy") {
		t.Fatalf("Authenticate after the pause = %+v; want paused by Engram for its refusals, with how to resume", r)
	}
	if r := s.SetAgentStatus(ctx, operator, "noisy", vault.AgentActive); !r.OK() {
		t.Fatal(r.Response)
	}
	if r := s.SetAgentStatus(ctx, operator, "noisy", vault.AgentPaused); !r.OK() {
		t.Fatal(r.Response)
	}
	if _, r := s.Authenticate(ctx, add.Token, "n1"); r.Status != app.StatusPaused || !strings.Contains(r.Message, "paused by the user") {
		t.Fatalf("Authenticate after the user's pause = %+v; want paused by the user", r)
	}
}

// TestRefutationEvidenceStaysOutOfTheAudit: the evidence of a refutation
// is text a person wrote about the memory; the archived memory keeps it
// as its note, but the audit log, which outlives a forget, holds only the
// sweep's reason.
func TestRefutationEvidenceStaysOutOfTheAudit(t *testing.T) {
	v, clock := vaulttest.New(t)
	s, err := app.New(v, app.Options{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	const evidence = "the gateway is really named Quillon Vantabridge Ostermark"
	m := mustStore(t, s, operator, app.StoreInput{Content: "The gateway host is edge-one"})
	if r := s.Refute(ctx, operator, m.ID, evidence); !r.OK() {
		t.Fatal(r)
	}
	if r := sweepNow(t, s, clock); r.Archived != 1 {
		t.Fatalf("sweep = %+v; want the refuted memory archived", r)
	}
	if g := s.Get(ctx, operator, m.ID); !g.OK() || g.Memory.Archive == nil || !strings.Contains(g.Memory.Archive.Reason, evidence) {
		t.Fatalf("archived memory = %+v; want the evidence as its note", g.Memory)
	}
	entries, err := v.AuditLog(vault.AuditFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.Contains(e.Reason, "Vantabridge") {
			t.Fatalf("audit entry %d (%s) holds the refutation's evidence: %q", e.Seq, e.Action, e.Reason)
		}
	}
}

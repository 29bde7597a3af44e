package app_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/vault"
	"github.com/engram-app/engram/vault/vaulttest"
)

func TestForgetTopic(t *testing.T) {
	v, _ := vaulttest.New(t)
	s := newRecallService(t, v, &countingEmbedder{})
	a := mustStore(t, s, operator, app.StoreInput{Content: "ORION-PROJECT kicks off in May"})
	b := mustStore(t, s, claude, app.StoreInput{Content: "the orion-project repo uses pnpm"})
	keep := mustStore(t, s, operator, app.StoreInput{Content: "lunch is at noon"})
	// An archived memory that points at one of them keeps a note.
	old := mustStore(t, s, operator, app.StoreInput{Content: "kickoff was planned for April"})
	if _, err := v.Archive(old.ID, "superseded", a.ID, vault.Actor{}); err != nil {
		t.Fatal(err)
	}
	if r := s.FindTopic(ctx, claude, "orion"); r.Status != app.StatusUnauthorized {
		t.Fatalf("FindTopic by an agent = %+v", r.Response)
	}
	found := s.FindTopic(ctx, operator, "orion-project")
	var ids []string
	for _, m := range found.Memories {
		ids = append(ids, m.ID)
	}
	if len(ids) != 2 || !strings.Contains(strings.Join(ids, " "), a.ID) || !strings.Contains(strings.Join(ids, " "), b.ID) {
		t.Fatalf("FindTopic = %v, want %s and %s", ids, a.ID, b.ID)
	}
	r := s.Forget(ctx, operator, ids, "")
	if !r.OK() || r.Purged != 2 {
		t.Fatalf("Forget = %+v", r)
	}
	raw, _ := os.ReadFile(v.Path())
	if strings.Contains(string(raw), "ORION-PROJECT") || strings.Contains(string(raw), "orion-project repo") {
		t.Fatal("forgotten text remains in the vault file")
	}
	if g := s.Get(ctx, operator, keep.ID); !g.OK() {
		t.Fatal("an unrelated memory was lost")
	}
	h := s.History(ctx, operator, old.ID)
	mods := h.Memory.Provenance.Modifications
	if h.Memory.Archive.Pointer != "" || !strings.Contains(mods[len(mods)-1].Reason, "was forgotten") {
		t.Fatalf("the pointing memory's provenance = %+v", mods)
	}
	for _, res := range s.Recall(ctx, operator, app.RecallInput{Query: "orion project"}).Results {
		if res.ID == a.ID || res.ID == b.ID {
			t.Fatalf("recall still finds a forgotten memory: %+v", res)
		}
	}
}

// forgetTopicText is a topic that appears nowhere else in a test vault.
const forgetTopicText = "zanzibar-merger"

// storeTopic stores two memories about forgetTopicText and one unrelated,
// and returns the ids FindTopic finds.
func storeTopic(t *testing.T, s *app.Service) []string {
	t.Helper()
	mustStore(t, s, operator, app.StoreInput{Content: "The ZANZIBAR-MERGER closes in June"})
	mustStore(t, s, operator, app.StoreInput{Content: "the zanzibar-merger lawyers meet on Fridays"})
	mustStore(t, s, operator, app.StoreInput{Content: "lunch is at noon"})
	var ids []string
	for _, m := range s.FindTopic(ctx, operator, forgetTopicText).Memories {
		ids = append(ids, m.ID)
	}
	if len(ids) != 2 {
		t.Fatalf("FindTopic(%q) found %d memories, want 2", forgetTopicText, len(ids))
	}
	return ids
}

// topicInAudit fails t if any audit entry, or the vault file, holds the
// topic's text in any case.
func topicInAudit(t *testing.T, v *vault.Vault) []vault.AuditEntry {
	t.Helper()
	log, err := v.AuditLog(vault.AuditFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range log {
		b, _ := json.Marshal(e)
		if strings.Contains(strings.ToLower(string(b)), "zanzibar") {
			t.Fatalf("audit entry %d holds the forgotten topic: %s", e.Seq, b)
		}
	}
	raw, err := os.ReadFile(v.Path())
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(bytes.ToLower(raw), []byte("zanzibar")) {
		t.Fatal("the vault file holds the forgotten topic's text")
	}
	return log
}

// forgetEntry returns the one memory:forget entry of log.
func forgetEntry(t *testing.T, log []vault.AuditEntry) vault.AuditEntry {
	t.Helper()
	var found []vault.AuditEntry
	for _, e := range log {
		if e.Action == app.ActionForget {
			found = append(found, e)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d memory:forget entries, want 1: %+v", len(found), found)
	}
	return found[0]
}

// TestForgetKeepsTopicOutOfAudit forgets a topic as `memory forget TOPIC`
// does (reason "forget: TOPIC"): no audit entry, and no byte of the vault
// file, may hold the topic; the request is audited with the count and a
// keyed fingerprint of the reason.
func TestForgetKeepsTopicOutOfAudit(t *testing.T) {
	v, _ := vaulttest.New(t)
	s := newRecallService(t, v, &countingEmbedder{})
	ids := storeTopic(t, s)
	if r := s.Forget(ctx, operator, ids, "forget: "+forgetTopicText); !r.OK() || r.Purged != 2 {
		t.Fatalf("Forget = %+v", r)
	}
	log := topicInAudit(t, v)
	e := forgetEntry(t, log)
	want, err := v.Fingerprint("forget: " + forgetTopicText)
	if err != nil || e.Count != 2 || e.ContentHash != want || !vault.IsFingerprint(e.ContentHash) {
		t.Fatalf("memory:forget entry = %+v, want count 2 and fingerprint %s (%v)", e, want, err)
	}
	for _, x := range log {
		if x.Action == vault.ActionPurge && x.Reason != "forget" {
			t.Fatalf("purge audited with reason %q, want \"forget\"", x.Reason)
		}
	}
}

// TestForgetTopicAuditsFingerprint audits the topic's own fingerprint, and none while the
// vault is locked (never a plain hash).
func TestForgetTopicAuditsFingerprint(t *testing.T) {
	t.Run("unlocked", func(t *testing.T) {
		v, _ := vaulttest.New(t)
		s := newRecallService(t, v, &countingEmbedder{})
		ids := storeTopic(t, s)
		if r := s.ForgetTopic(ctx, claude, forgetTopicText, ids); r.Status != app.StatusUnauthorized {
			t.Fatalf("ForgetTopic by an agent = %+v", r.Response)
		}
		if r := s.ForgetTopic(ctx, operator, "  "+forgetTopicText+"\n", ids); !r.OK() || r.Purged != 2 {
			t.Fatalf("ForgetTopic = %+v", r)
		}
		e := forgetEntry(t, topicInAudit(t, v))
		want, _ := v.Fingerprint(forgetTopicText)
		if e.Count != 2 || e.ContentHash != want || e.Reason != "forget topic" || e.Agent != vault.AgentOperator {
			t.Fatalf("memory:forget entry = %+v, want count 2 and the topic's fingerprint %s", e, want)
		}
	})
	t.Run("locked", func(t *testing.T) {
		v, _ := vaulttest.New(t)
		s := newRecallService(t, v, &countingEmbedder{})
		ids := storeTopic(t, s)
		v.Lock()
		if r := s.ForgetTopic(ctx, operator, forgetTopicText, ids); !r.OK() || r.Purged != 2 {
			t.Fatalf("ForgetTopic while locked = %+v", r)
		}
		if e := forgetEntry(t, topicInAudit(t, v)); e.Count != 2 || e.ContentHash != "" {
			t.Fatalf("memory:forget entry while locked = %+v, want count 2 and no content hash", e)
		}
	})
}

// TestConfirmationsKeepRollback (issue 17, item 6, through the service):
// after two edits, twelve confirmations and a run of tag changes, the
// original and both edits are still in the history and roll back. It
// lives here for want of a file of its own.
func TestConfirmationsKeepRollback(t *testing.T) {
	v, _ := vaulttest.New(t)
	s := newRecallService(t, v, &countingEmbedder{})
	contents := []string{"the build runs on Tuesdays", "the build runs on Wednesdays", "the build runs nightly"}
	m := mustStore(t, s, operator, app.StoreInput{Content: contents[0]})
	for _, c := range contents[1:] {
		if r := s.Update(ctx, operator, m.ID, app.UpdateInput{Content: &c}); !r.OK() {
			t.Fatalf("Update = %+v", r.Response)
		}
	}
	for i := range 12 {
		if r := s.Confirm(ctx, operator, m.ID, "still true"); !r.OK() {
			t.Fatalf("Confirm #%d = %+v", i+1, r.Response)
		}
	}
	for i := range 6 {
		if r := s.Update(ctx, operator, m.ID, app.UpdateInput{Operation: app.OpTag, Tags: []string{fmt.Sprint("build-", i)}}); !r.OK() {
			t.Fatalf("tag change #%d = %+v", i+1, r.Response)
		}
	}
	h := s.History(ctx, operator, m.ID)
	have := map[int]bool{}
	var nums []int
	for _, ver := range h.Versions {
		have[ver.Version] = true
		nums = append(nums, ver.Version)
	}
	for n := 1; n <= 3; n++ {
		if !have[n] {
			t.Fatalf("History after 12 confirmations and 6 tag changes keeps versions %v; version %d (%q) is gone", nums, n, contents[n-1])
		}
	}
	for n := 3; n >= 1; n-- {
		if r := s.Rollback(ctx, operator, m.ID, n); !r.OK() || r.Memory.Content != contents[n-1] {
			t.Fatalf("Rollback(%d) = %+v, want %q", n, r.Response, contents[n-1])
		}
	}
}

package vault_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/engram-app/engram/vault"
	"github.com/engram-app/engram/vault/vaulttest"
)

func TestSettingsRoundTripAndSurviveCompaction(t *testing.T) {
	v, _ := vaulttest.New(t)
	if got, err := v.Settings(); err != nil || got != nil {
		t.Fatalf("Settings() on a new vault = %q, %v; want nil, nil", got, err)
	}
	doc := []byte(`{"auto_lock_minutes":5}`)
	if err := v.SetSettings(doc, operator); err != nil {
		t.Fatal(err)
	}
	if _, _, err := v.Compact(t.Context()); err != nil {
		t.Fatal(err)
	}
	got, err := v.Settings()
	if err != nil || string(got) != string(doc) {
		t.Fatalf("Settings() = %q, %v; want %q", got, err, doc)
	}
	log, err := v.AuditLog(vault.AuditFilter{Action: vault.ActionSettings})
	if err != nil || len(log) != 1 || strings.Contains(log[0].Reason, "auto_lock") {
		t.Fatalf("settings audit = %+v, %v; want one entry without the document", log, err)
	}
}

func TestSetSettingsRejectsBadDocuments(t *testing.T) {
	v, _ := vaulttest.New(t)
	if err := v.SetSettings([]byte(`{"a":1}`), operator); err != nil {
		t.Fatal(err)
	}
	for _, doc := range []string{``, `[]`, `null`, `{"a":`, `"text"`, `{"big":"` + strings.Repeat("x", 70<<10) + `"}`} {
		if err := v.SetSettings([]byte(doc), operator); !errors.Is(err, vault.ErrInvalid) {
			t.Errorf("SetSettings(%.20q) = %v, want ErrInvalid", doc, err)
		}
	}
	if got, _ := v.Settings(); string(got) != `{"a":1}` {
		t.Fatalf("a rejected document changed the settings to %q", got)
	}
}

func TestAuditHeadAndAfterSeq(t *testing.T) {
	v, _ := vaulttest.New(t)
	head, err := v.AuditHead()
	if err != nil || head == 0 {
		t.Fatalf("AuditHead() = %d, %v; want the creation entry", head, err)
	}
	mustAdd(t, v, vault.Public, "one")
	mustAdd(t, v, vault.Public, "two")
	newHead, err := v.AuditHead()
	if err != nil || newHead != head+2 {
		t.Fatalf("AuditHead() after two writes = %d, %v; want %d", newHead, err, head+2)
	}
	since, err := v.AuditLog(vault.AuditFilter{AfterSeq: head})
	if err != nil || len(since) != 2 || since[0].Seq != head+1 || since[1].Action != vault.ActionWrite {
		t.Fatalf("AuditLog(AfterSeq %d) = %+v, %v; want the two writes", head, since, err)
	}
}

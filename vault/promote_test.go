package vault_test

import (
	"errors"
	"testing"

	"github.com/engram-app/engram/vault"
	"github.com/engram-app/engram/vault/vaulttest"
)

// TestPromoteOnlyTheJudgedEntry: Promote stores the memory only while the
// quarantine entry is the one the caller read and judged; an entry
// rewritten meanwhile under the same id is refused with ErrConflict and
// nothing changes.
func TestPromoteOnlyTheJudgedEntry(t *testing.T) {
	v, _ := vaulttest.New(t)
	op := vault.Actor{Agent: vault.AgentOperator}
	if err := v.QueuePut("q1", []byte(`{"state":"pending","text":"tabs"}`), false, vault.AuditEntry{Action: vault.ActionQuarantine}); err != nil {
		t.Fatal(err)
	}
	read, err := v.QueueGet("q1")
	if err != nil {
		t.Fatal(err)
	}
	// Rewritten after it was read (a later write queued under the id).
	if err := v.QueuePut("q1", []byte(`{"state":"hostile","text":"curl | sh"}`), false, vault.AuditEntry{Action: vault.ActionQuarantine}); err != nil {
		t.Fatal(err)
	}
	m := vaulttest.Memory(vault.Internal, "tabs")
	if _, err := v.Promote("q1", read.Digest, m, op); !errors.Is(err, vault.ErrConflict) {
		t.Fatalf("Promote of a rewritten entry = %v, want ErrConflict", err)
	}
	if all, _, _ := v.List(vault.ListFilter{}); len(all) != 0 {
		t.Fatalf("a refused Promote stored %d memories", len(all))
	}
	now, err := v.QueueGet("q1")
	if err != nil {
		t.Fatalf("the entry is gone after a refused Promote: %v", err)
	}
	if _, err := v.Promote("q1", now.Digest, m, op); err != nil {
		t.Fatalf("Promote of the entry as read = %v", err)
	}
	if _, err := v.QueueGet("q1"); !errors.Is(err, vault.ErrNotFound) {
		t.Errorf("after Promote the entry = %v, want gone", err)
	}
}

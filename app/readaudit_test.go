package app_test

import (
	"testing"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/vault"
)

// A listing is committed to the audit log with the next write, unless it
// showed sensitive memories: then it is an L3 access, committed before
// the answer and naming the sensitive partition.
func TestListOfSensitiveIsAuditedBeforeTheAnswer(t *testing.T) {
	s, v := newService(t)
	if r := s.Store(ctx, operator, app.StoreInput{Content: "the wiki moved to docs.example.org"}); !r.OK() {
		t.Fatal(r.Response)
	}
	before := v.Changes()
	if r := s.List(ctx, operator, app.ListInput{}); !r.OK() || len(r.Memories) != 1 {
		t.Fatalf("List = %+v", r)
	}
	if got := v.Changes() - before; got != 0 {
		t.Errorf("a listing of plain memories made %d commits before it answered, want 0", got)
	}
	if r := s.Store(ctx, operator, app.StoreInput{Content: "my passport number is in the safe", Partition: vault.Sensitive}); !r.OK() {
		t.Fatal(r.Response)
	}
	before = v.Changes()
	if r := s.List(ctx, operator, app.ListInput{}); !r.OK() || len(r.Memories) != 2 {
		t.Fatalf("List = %+v", r)
	}
	if got := v.Changes() - before; got != 1 {
		t.Errorf("a listing that showed a sensitive memory made %d commits before it answered, want 1", got)
	}
	log, err := v.AuditLog(vault.AuditFilter{Action: vault.ActionList})
	if err != nil {
		t.Fatal(err)
	}
	if len(log) != 2 || log[0].Partition != "" || log[1].Partition != vault.Sensitive {
		t.Errorf("list entries = %+v, want one without a partition, then one naming the sensitive partition", log)
	}
}

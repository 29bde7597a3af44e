package vault_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/engram-app/engram/vault"
	"github.com/engram-app/engram/vault/vaulttest"
)

// TestAddsOneCommit: a batch of new memories commits in one transaction,
// each memory stored, readable and checked as Add stores it, with its
// audit entries chained in the order prepared.
func TestAddsOneCommit(t *testing.T) {
	v, _ := vaulttest.New(t, vaulttest.NoSync)
	b := v.NewAdds()
	var want []vault.Memory
	for i := range 5 {
		p := vault.Internal
		if i == 3 {
			p = vault.Sensitive
		}
		a := operator
		if i == 1 {
			a.Audit = []vault.AuditEntry{{Action: vault.ActionSecretRedacted, Agent: "import:mem0", Result: vault.ResultOK, Reason: "github_token"}}
		}
		m, err := b.Prepare(vaulttest.Memory(p, fmt.Sprintf("batched memory %d", i)), a)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, m)
	}
	if got, err := v.Get(want[0].ID, operator); !errors.Is(err, vault.ErrNotFound) {
		t.Fatalf("before Commit, Get = %+v, %v; want ErrNotFound", got, err)
	}
	before := v.Changes()
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	if n := v.Changes() - before; n != 1 {
		t.Errorf("Commit made %d transactions, want 1", n)
	}
	if b.Len() != 0 {
		t.Errorf("after Commit the batch holds %d memories", b.Len())
	}
	for _, w := range want {
		got, err := v.Get(w.ID, operator)
		if err != nil || got.Content != w.Content || got.Version != 1 || got.Partition != w.Partition || !got.Created.Equal(w.Created) {
			t.Errorf("Get(%s) = %+v, %v; want %+v", w.ID, got, err, w)
		}
	}
	log, err := v.AuditLog(vault.AuditFilter{})
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, e := range log {
		switch e.Action {
		case vault.ActionWrite:
			order = append(order, "write:"+e.MemoryID)
		case vault.ActionSecretRedacted:
			order = append(order, "redacted:"+e.MemoryID)
		}
	}
	wantOrder := []string{"write:" + want[0].ID, "write:" + want[1].ID, "redacted:" + want[1].ID, "write:" + want[2].ID, "write:" + want[3].ID, "write:" + want[4].ID}
	if fmt.Sprint(order) != fmt.Sprint(wantOrder) {
		t.Errorf("audit order %v, want %v", order, wantOrder)
	}
	if r, err := v.VerifyAudit(); err != nil || !r.OK() {
		t.Errorf("VerifyAudit = %+v, %v", r, err)
	}
	if r, err := v.Check(context.Background()); err != nil || len(r.Problems) > 0 {
		t.Errorf("Check = %+v, %v", r, err)
	}
}

// TestAddsAllOrNothing: when one memory of a batch cannot be stored, none
// is, and the audit log holds none of their entries.
func TestAddsAllOrNothing(t *testing.T) {
	v, _ := vaulttest.New(t, vaulttest.NoSync)
	taken, err := v.Add(vaulttest.Memory(vault.Internal, "already here"), operator)
	if err != nil {
		t.Fatal(err)
	}
	head, _ := v.AuditHead()
	b := v.NewAdds()
	first, err := b.Prepare(vaulttest.Memory(vault.Internal, "first of the batch"), operator)
	if err != nil {
		t.Fatal(err)
	}
	clash := vaulttest.Memory(vault.Internal, "second, under a taken id")
	clash.ID = taken.ID
	if _, err := b.Prepare(clash, operator); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Prepare(first, operator); !errors.Is(err, vault.ErrExists) {
		t.Errorf("Prepare of an id already in the batch = %v, want ErrExists", err)
	}
	if err := b.Commit(); !errors.Is(err, vault.ErrExists) {
		t.Fatalf("Commit = %v, want ErrExists", err)
	}
	if _, err := v.Get(first.ID, operator); !errors.Is(err, vault.ErrNotFound) {
		t.Errorf("the first memory of a failed batch: Get = %v, want ErrNotFound", err)
	}
	if got, _ := v.Get(taken.ID, operator); got.Content != "already here" {
		t.Errorf("the memory under the taken id now holds %q", got.Content)
	}
	if h, _ := v.AuditHead(); h != head+2 { // the two reads just above
		t.Errorf("audit head %d, want %d: a failed batch left entries", h, head+2)
	}
}

// TestAddsLocked: a sensitive memory cannot be prepared while the vault
// is locked; a plain one can, and commits.
func TestAddsLocked(t *testing.T) {
	v, _ := vaulttest.New(t, vaulttest.NoSync)
	v.Lock()
	b := v.NewAdds()
	if _, err := b.Prepare(vaulttest.Memory(vault.Sensitive, "my passport number is on file"), operator); !errors.Is(err, vault.ErrLocked) {
		t.Errorf("Prepare of a sensitive memory while locked = %v, want ErrLocked", err)
	}
	m, err := b.Prepare(vaulttest.Memory(vault.Internal, "plain while locked"), operator)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	if got, err := v.Get(m.ID, operator); err != nil || got.Content != m.Content {
		t.Errorf("Get = %+v, %v", got, err)
	}
}

// TestCommitStats: a commit adds one to the file's commit count and the
// pages it wrote to Pages; a batch of many memories is still one commit.
func TestCommitStats(t *testing.T) {
	v, _ := vaulttest.New(t, vaulttest.NoSync)
	before, err := v.CommitStats()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.Add(vaulttest.Memory(vault.Internal, "one memory, one commit"), operator); err != nil {
		t.Fatal(err)
	}
	one, err := v.CommitStats()
	if err != nil {
		t.Fatal(err)
	}
	if one.Commits != before.Commits+1 || one.Pages <= before.Pages {
		t.Fatalf("after one Add: %+v, before %+v; want one more commit and more pages", one, before)
	}
	b := v.NewAdds()
	for i := range 50 {
		if _, err := b.Prepare(vaulttest.Memory(vault.Internal, fmt.Sprintf("batched memory number %d with some words", i)), operator); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	batch, err := v.CommitStats()
	if err != nil {
		t.Fatal(err)
	}
	if batch.Commits != one.Commits+1 || batch.Pages-one.Pages <= one.Pages-before.Pages {
		t.Errorf("after a batch of 50: %+v, after one: %+v; want one more commit writing more pages than one memory's", batch, one)
	}
}

package vault_test

import (
	"bytes"
	"errors"
	"os"
	"testing"

	"github.com/engram-app/engram/vault"
	"github.com/engram-app/engram/vault/vaulttest"
)

func TestArchiveRestore(t *testing.T) {
	for _, p := range vault.LivePartitions {
		t.Run(string(p), func(t *testing.T) {
			v, _ := vaulttest.New(t)
			m := mustAdd(t, v, p, "archive me from "+string(p))
			a, err := v.Archive(m.ID, "expired", "", operator)
			if err != nil || a.Partition != vault.Archive || a.Archive.From != p || a.Version != 2 {
				t.Fatalf("Archive = %+v, %v", a, err)
			}
			if live, _, _ := v.List(vault.ListFilter{}); len(live) != 0 {
				t.Fatalf("an archived memory is listed as live: %+v", live)
			}
			if _, err := v.Archive(m.ID, "again", "", operator); !errors.Is(err, vault.ErrInvalid) {
				t.Fatalf("Archive(archived) = %v, want ErrInvalid", err)
			}
			r, err := v.Restore(m.ID, operator)
			if err != nil || r.Partition != p || r.Archive != nil || r.Content != m.Content {
				t.Fatalf("Restore = %+v, %v", r, err)
			}
		})
	}
}

// TestPurgeLeavesNoTrace purges memories and compacts, then searches the
// vault file's bytes: the text must be gone, from every page.
func TestPurgeLeavesNoTrace(t *testing.T) {
	v, _ := vaulttest.New(t)
	keep := mustAdd(t, v, vault.Internal, "keep this ordinary note")
	plain := mustAdd(t, v, vault.Internal, "PURGE-ME-PLAINTEXT-7f3a the old deploy key location")
	v.Update(plain.ID, vault.OpUpdate, operator, func(m *vault.Memory) error { m.Content = "PURGE-ME-PLAINTEXT-7f3a moved"; return nil })
	sens := mustAdd(t, v, vault.Sensitive, "sensitive note to purge")
	path := v.Path()
	sealedBefore := sealedBytes(t, path, sens.ID)

	if err := v.Purge(plain.ID, "user asked to forget", operator); err != nil {
		t.Fatal(err)
	}
	if err := v.Purge(sens.ID, "sensitive data past its expiry", operator); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(path)
	if !bytes.Contains(raw, []byte("PURGE-ME-PLAINTEXT-7f3a")) {
		t.Log("purged text already gone before compaction (page reuse)")
	}
	before, after, err := v.Compact(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("compacted %d -> %d bytes", before, after)
	raw, _ = os.ReadFile(path)
	if bytes.Contains(raw, []byte("PURGE-ME-PLAINTEXT-7f3a")) {
		t.Fatal("purged plaintext survives compaction")
	}
	if bytes.Contains(raw, sealedBefore) {
		t.Fatal("the purged sensitive record's ciphertext survives compaction")
	}
	if got, err := v.Get(keep.ID, operator); err != nil || got.Content != keep.Content {
		t.Fatalf("after compaction Get(kept) = %q, %v", got.Content, err)
	}
	if _, err := v.Get(plain.ID, operator); !errors.Is(err, vault.ErrNotFound) {
		t.Fatalf("Get(purged) = %v, want ErrNotFound", err)
	}
	log, _ := v.AuditLog(vault.AuditFilter{Action: vault.ActionPurge})
	if len(log) != 2 || log[0].ContentHash == "" {
		t.Fatalf("purge audit = %+v", log)
	}
	if r, err := v.VerifyAudit(); err != nil || !r.OK() {
		t.Fatalf("audit after compaction = %+v, %v", r, err)
	}
}

// sealedBytes returns a slice of the sealed record of id as stored.
func sealedBytes(t *testing.T, path, id string) []byte {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(raw, append([]byte(id), 0x02))
	if i < 0 {
		t.Fatalf("no sealed record for %s", id)
	}
	return bytes.Clone(raw[i+len(id)+20 : i+len(id)+52])
}

func TestVerify(t *testing.T) {
	v, _ := vaulttest.New(t)
	m := mustAdd(t, v, vault.Internal, "the API limit is 100/min")
	got, err := v.Verify(m.ID, vault.Confirmed, "checked the docs", vault.Actor{Agent: "claude-code"})
	if err != nil || len(got.Provenance.Verifications) != 1 || got.Provenance.Verifications[0].Agent != "claude-code" || got.Version != 1 {
		t.Fatalf("Verify = version %d %+v, %v; want version 1 with one verification", got.Version, got.Provenance, err)
	}
	if _, err := v.Verify(m.ID, "MAYBE", "", operator); !errors.Is(err, vault.ErrInvalid) {
		t.Fatalf("Verify(MAYBE) = %v, want ErrInvalid", err)
	}
}

func TestArchiveAll(t *testing.T) {
	v, _ := vaulttest.New(t)
	a := mustAdd(t, v, vault.Internal, "a")
	b := mustAdd(t, v, vault.Sensitive, "b")
	n, err := v.ArchiveAll([]vault.ArchiveRequest{{ID: a.ID, Reason: "expired"}, {ID: b.ID, Reason: "unused"}, {ID: "00000000-0000-4000-8000-000000000000", Reason: "gone"}}, operator)
	if err != nil || n != 2 {
		t.Fatalf("ArchiveAll = %d, %v; want 2", n, err)
	}
	got, _ := v.Get(b.ID, operator)
	if got.Partition != vault.Archive || got.Archive.From != vault.Sensitive || got.Archive.Reason != "unused" {
		t.Fatalf("archived sensitive memory = %+v", got)
	}
	if n, err := v.ArchiveAll([]vault.ArchiveRequest{{ID: a.ID, Reason: "again"}}, operator); err != nil || n != 0 {
		t.Fatalf("ArchiveAll(already archived) = %d, %v; want 0", n, err)
	}
}

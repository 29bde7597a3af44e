package vault

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"

	"filippo.io/age"
)

// TestBackupAuditLog: a backup carries the vault's audit log; import
// verifies its chain and refuses a backup whose log was edited.
func TestBackupAuditLog(t *testing.T) {
	ctx := context.Background()
	v, err := Create(ctx, t.TempDir()+"/v.db", []byte("pw"), CreateOptions{KDF: KDFCost{Time: 1, MemoryKiB: 64, Threads: 1}})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	m := Memory{Content: "the build runs on Fridays", Kind: Fact, Field: Learnings, Tier: Semantic, Partition: Internal,
		Source: Source{Type: SourceExplicitSave}, Trust: TrustOperator, Confidence: 0.9}
	if _, err := v.Add(m, Actor{Agent: AgentOperator}); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := v.Export(ctx, &buf, []byte("bp"), BackupOptions{WorkFactor: 10}, Actor{Agent: AgentOperator}); err != nil {
		t.Fatal(err)
	}
	id, _ := age.NewScryptIdentity("bp")
	ar, err := age.Decrypt(bytes.NewReader(buf.Bytes()), id)
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := io.ReadAll(ar)
	_, audit, err := decodeBackupAudit(plain)
	if err != nil || audit == nil || len(audit.Entries) < 2 || audit.VaultID != v.ID() {
		t.Fatalf("decodeBackupAudit = %+v, %v; want the vault's log", audit, err)
	}
	// An edited entry breaks the chain: import refuses the backup.
	a := *audit
	a.Entries = append([][]byte{}, audit.Entries...)
	a.Entries[1] = bytes.Replace(a.Entries[1], []byte("memory:write"), []byte("memory:read!"), 1)
	if err := a.verify(); err == nil {
		t.Fatal("an edited audit entry verified")
	}
	// A format-1 backup (no audit log) still imports.
	if _, _, err := decodeBackupAudit([]byte("{\"engram_backup\":1,\"vault_id\":\"v\",\"created\":\"\",\"memories\":0}\n")); err != nil {
		t.Fatalf("format 1 backup: %v", err)
	}
	if _, _, err := decodeBackupAudit(append(plain, []byte("{\"memory\":{},\"versions\":[]}\n")...)); !errors.Is(err, ErrBackup) {
		t.Fatalf("a line after the audit log = %v, want ErrBackup", err)
	}
}

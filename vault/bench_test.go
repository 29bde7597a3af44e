package vault_test

import (
	"strings"
	"testing"

	"github.com/engram-app/engram/vault"
	"github.com/engram-app/engram/vault/vaulttest"
)

var content500 = strings.Repeat("The staging deploy needs VPN access first. ", 12)[:500]

// BenchmarkWrite stores a 500-character memory: one bbolt transaction with
// the record, its first version and the audit entry.
func BenchmarkWrite(b *testing.B) {
	for _, sync := range []bool{false, true} {
		for _, p := range vault.Partitions {
			name := string(p) + "/nosync"
			opts := []vaulttest.Option{vaulttest.NoSync}
			if sync {
				name, opts = string(p)+"/fsync", nil
			}
			b.Run(name, func(b *testing.B) {
				v, _ := vaulttest.New(b, opts...)
				m := vaulttest.Memory(p, content500)
				for b.Loop() {
					if _, err := v.Add(m, operator); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func BenchmarkRead(b *testing.B) {
	for _, p := range vault.Partitions {
		b.Run(string(p), func(b *testing.B) {
			v, _ := vaulttest.New(b, vaulttest.NoSync)
			m, _ := v.Add(vaulttest.Memory(p, content500), operator)
			for b.Loop() {
				if _, err := v.Get(m.ID, operator); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkRollback(b *testing.B) {
	for _, p := range []vault.Partition{vault.Internal, vault.Sensitive} {
		b.Run(string(p), func(b *testing.B) {
			v, _ := vaulttest.New(b, vaulttest.NoSync)
			m, _ := v.Add(vaulttest.Memory(p, content500), operator)
			cur, _ := v.Update(m.ID, vault.OpUpdate, operator, func(m *vault.Memory) error { m.Content = "changed"; return nil })
			for b.Loop() {
				// Roll back to the version before the newest, which is always kept.
				next, err := v.Rollback(m.ID, cur.Version-1, operator)
				if err != nil {
					b.Fatal(err)
				}
				cur = next
			}
		})
	}
}

func BenchmarkAuditAppend(b *testing.B) {
	v, _ := vaulttest.New(b, vaulttest.NoSync)
	e := vault.AuditEntry{Action: vault.ActionReject, Agent: "bench", Field: vault.Learnings, Result: vault.ResultDenied, Reason: "bench"}
	for b.Loop() {
		if err := v.Audit(e); err != nil {
			b.Fatal(err)
		}
	}
}

package vault_test

import (
	"errors"
	"testing"

	"github.com/engram-app/engram/vault"
	"github.com/engram-app/engram/vault/vaulttest"
)

func TestAgents(t *testing.T) {
	v, _ := vaulttest.New(t)
	a := vault.Agent{Name: "claude-code", TokenHash: "ab", Status: vault.AgentActive, Fields: []vault.Field{vault.Learnings}, Read: []vault.Partition{vault.Public}, Trust: vault.TrustStandard}
	if err := v.PutAgent(a, vault.AuditEntry{Action: vault.ActionAgent, Agent: vault.AgentOperator, Result: vault.ResultOK, Reason: "add claude-code"}); err != nil {
		t.Fatal(err)
	}
	if err := v.PutAgent(vault.Agent{Name: "cursor", Status: vault.AgentPending}, vault.AuditEntry{}); err != nil {
		t.Fatal(err)
	}
	got, err := v.GetAgent("claude-code")
	if err != nil || got.TokenHash != "ab" || got.Status != vault.AgentActive || len(got.Fields) != 1 {
		t.Fatalf("GetAgent = %+v, %v", got, err)
	}
	if _, err := v.GetAgent("nobody"); !errors.Is(err, vault.ErrNotFound) {
		t.Fatalf("GetAgent(nobody) = %v, want ErrNotFound", err)
	}
	all, err := v.Agents()
	if err != nil || len(all) != 2 || all[0].Name != "claude-code" || all[1].Name != "cursor" {
		t.Fatalf("Agents = %+v, %v", all, err)
	}
	if err := v.PutAgent(vault.Agent{}, vault.AuditEntry{}); !errors.Is(err, vault.ErrInvalid) {
		t.Fatalf("PutAgent(no name) = %v, want ErrInvalid", err)
	}
	if log, _ := v.AuditLog(vault.AuditFilter{Action: vault.ActionAgent}); len(log) != 1 {
		t.Fatalf("agent audit entries = %d, want 1", len(log))
	}
}

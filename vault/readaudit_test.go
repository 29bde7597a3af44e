package vault_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/engram-app/engram/vault"
	"github.com/engram-app/engram/vault/vaulttest"
)

func actions(t *testing.T, v *vault.Vault) string {
	t.Helper()
	log, err := v.AuditLog(vault.AuditFilter{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range log {
		out = append(out, string(e.Action))
	}
	return strings.Join(out, " ")
}

// A read of a plain memory is answered without a commit of its own; its
// entry goes first into the next write transaction. A read of a sealed
// memory commits its L3 entry before it returns.
func TestReadAuditJoinsNextCommit(t *testing.T) {
	v, _ := vaulttest.New(t)
	agent := vault.Actor{Agent: "claude-code"}
	plain, err := v.Add(vaulttest.Memory(vault.Internal, "the deploy script lives in ops/deploy.sh"), agent)
	if err != nil {
		t.Fatal(err)
	}
	secret, err := v.Add(vaulttest.Memory(vault.Sensitive, "PIN 4921"), operator)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		read    func() error
		commits uint64
	}{
		{"get plain", func() error { _, err := v.Get(plain.ID, agent); return err }, 0},
		{"history plain", func() error { _, err := v.History(plain.ID, agent); return err }, 0},
		{"list", func() error {
			return v.Audit(vault.AuditEntry{Action: vault.ActionList, Agent: "claude-code", Result: vault.ResultOK, Count: 1})
		}, 0},
		{"get sealed", func() error { _, err := v.Get(secret.ID, operator); return err }, 1},
		{"history sealed", func() error { _, err := v.History(secret.ID, operator); return err }, 1},
		{"list of the sensitive partition", func() error {
			return v.Audit(vault.AuditEntry{Action: vault.ActionList, Agent: "operator", Partition: vault.Sensitive, Result: vault.ResultOK})
		}, 1},
		{"denied", func() error {
			return v.Audit(vault.AuditEntry{Action: vault.ActionRead, Agent: "claude-code", Result: vault.ResultDenied})
		}, 1},
	} {
		before := v.Changes()
		if err := tc.read(); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := v.Changes() - before; got != tc.commits {
			t.Errorf("%s: %d commits before it returned, want %d", tc.name, got, tc.commits)
		}
	}
	if _, err := v.Add(vaulttest.Memory(vault.Internal, "builds take ninety seconds"), agent); err != nil {
		t.Fatal(err)
	}
	// The waiting entries go ahead of the first commit, the sealed read's.
	want := "vault:create memory:write memory:write memory:read memory:read memory:list l3:access memory:read memory:list memory:read memory:write"
	if got := actions(t, v); got != want {
		t.Errorf("audit actions =\n%s\nwant\n%s", got, want)
	}
	if r, err := v.VerifyAudit(); err != nil || !r.OK() {
		t.Errorf("VerifyAudit = %+v, %v", r, err)
	}
}

// With no write to join, the waiting entries commit together once
// ReadAuditDelay has passed.
func TestReadAuditCommitsWithinDelay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v, _ := vaulttest.New(t)
		m, err := v.Add(vaulttest.Memory(vault.Public, "the wiki moved to docs.example.org"), operator)
		if err != nil {
			t.Fatal(err)
		}
		before := v.Changes()
		for range 3 {
			if _, err := v.Get(m.ID, operator); err != nil {
				t.Fatal(err)
			}
		}
		// In the bubble time.Sleep moves the fake clock (it takes no real
		// time), and synctest.Wait lets the vault's timer finish.
		time.Sleep(vault.ReadAuditDelay - time.Millisecond)
		synctest.Wait()
		if got := v.Changes() - before; got != 0 {
			t.Fatalf("%d commits before ReadAuditDelay passed, want 0", got)
		}
		time.Sleep(time.Millisecond)
		synctest.Wait()
		if got := v.Changes() - before; got != 1 {
			t.Fatalf("%d commits after ReadAuditDelay, want 1 for the three reads", got)
		}
		if got, want := actions(t, v), "vault:create memory:write memory:read memory:read memory:read"; got != want {
			t.Errorf("audit actions = %q, want %q", got, want)
		}
	})
}

// Close commits what waits.
func TestReadAuditCommittedOnClose(t *testing.T) {
	v, _ := vaulttest.New(t)
	m, err := v.Add(vaulttest.Memory(vault.Internal, "standup is at ten"), operator)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.Get(m.ID, operator); err != nil {
		t.Fatal(err)
	}
	path := v.Path()
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	v, err = vault.Open(path, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if got, want := actions(t, v), "vault:create memory:write memory:read"; got != want {
		t.Errorf("audit actions after reopening = %q, want %q", got, want)
	}
}

// A write transaction that took the waiting entries and then failed
// leaves them waiting: the next commit holds them, once.
func TestReadAuditSurvivesRollback(t *testing.T) {
	v, _ := vaulttest.New(t)
	m, err := v.Add(vaulttest.Memory(vault.Internal, "the cache holds an hour"), operator)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.Get(m.ID, operator); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	if _, err := v.Update(m.ID, vault.OpTag, operator, func(*vault.Memory) error { return boom }); !errors.Is(err, boom) {
		t.Fatalf("Update = %v, want boom", err)
	}
	if got, want := actions(t, v), "vault:create memory:write memory:read"; got != want {
		t.Errorf("audit actions = %q, want %q", got, want)
	}
}

// Reads and writes at once, some writes failing: every read is in the
// log exactly once and the chain holds.
func TestReadAuditConcurrent(t *testing.T) {
	v, _ := vaulttest.New(t)
	m, err := v.Add(vaulttest.Memory(vault.Internal, "the release train leaves on Tuesdays"), operator)
	if err != nil {
		t.Fatal(err)
	}
	const workers, each = 6, 40
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				switch i % 4 {
				case 0:
					if _, err := v.Add(vaulttest.Memory(vault.Internal, fmt.Sprintf("worker %d note %d", w, i)), operator); err != nil {
						t.Error(err)
					}
				case 1:
					v.Update(m.ID, vault.OpTag, operator, func(*vault.Memory) error { return errors.New("refused") })
				default:
					if _, err := v.Get(m.ID, operator); err != nil {
						t.Error(err)
					}
				}
			}
		})
	}
	wg.Wait()
	log, err := v.AuditLog(vault.AuditFilter{Action: vault.ActionRead})
	if err != nil {
		t.Fatal(err)
	}
	if want := workers * each / 2; len(log) != want {
		t.Errorf("%d read entries, want %d", len(log), want)
	}
	if r, err := v.VerifyAudit(); err != nil || !r.OK() {
		t.Errorf("VerifyAudit = %+v, %v", r, err)
	}
}

// An audit read that races with another commit of the waiting read
// entries still sees every read answered before it began: it waits for
// the commit that holds them instead of reading past it.
func TestAuditLogSeesReadsBeingCommitted(t *testing.T) {
	v, _ := vaulttest.New(t, vaulttest.NoSync)
	m, err := v.Add(vaulttest.Memory(vault.Internal, "the release train leaves on Tuesdays"), operator)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 300; i++ {
		if _, err := v.Get(m.ID, operator); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for range 2 {
			wg.Go(func() {
				log, err := v.AuditLog(vault.AuditFilter{Action: vault.ActionRead})
				if err != nil {
					t.Error(err)
				} else if len(log) != i {
					t.Errorf("after %d reads the audit log shows %d", i, len(log))
				}
			})
		}
		wg.Wait()
		if t.Failed() {
			return
		}
	}
}

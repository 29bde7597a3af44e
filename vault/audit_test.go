package vault_test

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"
	"time"

	"github.com/engram-app/engram/vault"
	"github.com/engram-app/engram/vault/vaulttest"
	bolt "go.etcd.io/bbolt"
)

func seq(n uint64) []byte {
	var k [8]byte
	binary.BigEndian.PutUint64(k[:], n)
	return k[:]
}

func TestAuditRecordsOperationsWithoutContent(t *testing.T) {
	v, _ := vaulttest.New(t)
	agent := vault.Actor{Agent: "claude-code", Session: "s-1"}
	m, err := v.Add(vaulttest.Memory(vault.Internal, "the deploy script lives in ops/deploy.sh"), agent)
	if err != nil {
		t.Fatal(err)
	}
	s, err := v.Add(vaulttest.Memory(vault.Sensitive, "my bank PIN is 4921 !"), operator)
	if err != nil {
		t.Fatal(err)
	}
	v.Get(m.ID, agent)
	v.Update(m.ID, vault.OpTag, agent, func(m *vault.Memory) error { m.Tags = []string{"ops"}; return nil })
	v.Delete(m.ID, operator)

	log, err := v.AuditLog(vault.AuditFilter{})
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	for _, e := range log {
		actions = append(actions, string(e.Action))
		if strings.Contains(e.Reason, "deploy.sh") || strings.Contains(e.Reason, "PIN is 4921") {
			t.Errorf("audit entry %d holds content: %+v", e.Seq, e)
		}
	}
	want := "vault:create memory:write memory:write memory:read memory:update memory:delete"
	if got := strings.Join(actions, " "); got != want {
		t.Fatalf("audit actions = %q, want %q", got, want)
	}
	// Every memory's content hash is keyed, plaintext or sealed: a plain
	// SHA-256 would outlive the memory and confirm a guess of its text.
	fp, err := v.Fingerprint(m.Content)
	if err != nil {
		t.Fatal(err)
	}
	if log[1].Agent != "claude-code" || log[1].Session != "s-1" || log[1].ContentHash != fp || log[1].Size != len(m.Content) {
		t.Fatalf("write entry = %+v, want content hash %s", log[1], fp)
	}
	if log[2].MemoryID != s.ID || !vault.IsFingerprint(log[2].ContentHash) || log[2].ContentHash == "hmac:"+vault.HashContent(s.Content) {
		t.Fatalf("sensitive write entry hash = %q, want a keyed hash", log[2].ContentHash)
	}
	for _, e := range log {
		if strings.Contains(e.ContentHash, vault.HashContent(m.Content)) || strings.Contains(e.ContentHash, vault.HashContent(s.Content)) {
			t.Errorf("audit entry %d holds a plain SHA-256 of a memory: %+v", e.Seq, e)
		}
		if e.Action == vault.ActionWrite || e.Action == vault.ActionUpdate {
			if !vault.IsFingerprint(e.StateFingerprint) || e.StateFingerprint == e.ContentHash {
				t.Errorf("audit entry %d of a change has state fingerprint %q, want a keyed one", e.Seq, e.StateFingerprint)
			}
		}
	}
	if last, _ := v.AuditLog(vault.AuditFilter{Agent: "claude-code", Last: 1}); len(last) != 1 || last[0].Action != vault.ActionUpdate {
		t.Fatalf("AuditLog(agent, last 1) = %+v", last)
	}
	r, err := v.VerifyAudit()
	if err != nil || !r.OK() || r.Entries != 6 {
		t.Fatalf("VerifyAudit = %+v, %v; want 6 entries, intact", r, err)
	}
	path := v.Path()
	v.Close()
	raw, _ := readFile(path)
	// A long needle with spaces: hex, base64 and ciphertext cannot hold it by chance.
	if bytes.Contains(raw, []byte("PIN is 4921 !")) {
		t.Fatal("vault file holds sensitive content")
	}
}

func TestAuditChainDetectsTampering(t *testing.T) {
	tests := []struct {
		name string
		edit func(tx *bolt.Tx) error
		want string
	}{
		{"entry edited", func(tx *bolt.Tx) error {
			b := tx.Bucket([]byte("audit"))
			e := bytes.Replace(b.Get(seq(3)), []byte(`"agent":"operator"`), []byte(`"agent":"someone"`), 1)
			return b.Put(seq(3), e)
		}, "entry 4 does not link"},
		{"entry deleted", func(tx *bolt.Tx) error { return tx.Bucket([]byte("audit")).Delete(seq(3)) }, "entry 4 follows entry 2"},
		{"last entry deleted", func(tx *bolt.Tx) error { return tx.Bucket([]byte("audit")).Delete(seq(5)) }, "audit head names entry 5"},
		{"entry reordered", func(tx *bolt.Tx) error {
			b := tx.Bucket([]byte("audit"))
			a, c := bytes.Clone(b.Get(seq(2))), bytes.Clone(b.Get(seq(3)))
			b.Put(seq(2), c)
			return b.Put(seq(3), a)
		}, "entries are missing or reordered"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, _ := vaulttest.New(t, vaulttest.SkipCheck)
			for i := 0; i < 4; i++ {
				mustAdd(t, v, vault.Public, "note")
			}
			path := v.Path()
			v.Close()
			tamper(t, path, tc.edit)
			v2, err := vault.Open(path, vault.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer v2.Close()
			r, err := v2.VerifyAudit()
			if err != nil {
				t.Fatal(err)
			}
			if r.OK() || !strings.Contains(strings.Join(r.Problems, "\n"), tc.want) {
				t.Fatalf("VerifyAudit problems = %q, want one containing %q", r.Problems, tc.want)
			}
		})
	}
}

func TestAuditPruneKeepsChainVerifiable(t *testing.T) {
	v, clock := vaulttest.New(t)
	for i := 0; i < 5; i++ {
		mustAdd(t, v, vault.Public, "old")
		clock.Advance(24 * time.Hour)
	}
	clock.Advance(100 * 24 * time.Hour)
	mustAdd(t, v, vault.Public, "new")
	n, err := v.PruneAudit(clock.Now().Add(-90*24*time.Hour), clock.Now().Add(-90*24*time.Hour))
	if err != nil || n != 6 { // vault:create and five writes
		t.Fatalf("PruneAudit = %d, %v; want 6", n, err)
	}
	r, err := v.VerifyAudit()
	if err != nil || !r.OK() || r.First != 7 || r.Entries != 2 {
		t.Fatalf("VerifyAudit after prune = %+v, %v; want entries 7..8 intact", r, err)
	}
	// Pruning again removes nothing: the newest entries are recent.
	if n, err := v.PruneAudit(clock.Now().Add(-90*24*time.Hour), clock.Now().Add(-90*24*time.Hour)); err != nil || n != 0 {
		t.Fatalf("second PruneAudit = %d, %v; want 0", n, err)
	}
}

// TestAuditPruneScrubs: pruned entries are a removal like any other: the
// file keeps no byte of them once closed (entries written before
// fingerprints were keyed hold plain hashes of memories' text).
func TestAuditPruneScrubs(t *testing.T) {
	v, clock := vaulttest.New(t)
	mk := "pruned entry " + newMarker()
	if err := v.Audit(vault.AuditEntry{Action: vault.ActionReject, Agent: "cursor", Result: vault.ResultDenied, Reason: mk}); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Scrub(ctx); err != nil {
		t.Fatal(err)
	}
	clock.Advance(100 * 24 * time.Hour)
	mustAdd(t, v, vault.Public, "new")
	if n, err := v.PruneAudit(clock.Now().Add(-90*24*time.Hour), clock.Now().Add(-90*24*time.Hour)); err != nil || n != 2 {
		t.Fatalf("PruneAudit = %d, %v; want 2", n, err)
	}
	if !v.ScrubPending() {
		t.Error("ScrubPending() = false after pruning, want true")
	}
	path := v.Path()
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	raw, err := readFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte(mk)) {
		t.Error("the file still holds a pruned audit entry")
	}
}

// TestAuditPruneKeepsSensitiveRecords: L3 access records outlive the
// ordinary retention; pruning stops at the first one still to keep.
func TestAuditPruneKeepsSensitiveRecords(t *testing.T) {
	v, clock := vaulttest.New(t)
	mustAdd(t, v, vault.Public, "old public")
	clock.Advance(24 * time.Hour)
	m := mustAdd(t, v, vault.Sensitive, "old sensitive 555-0100")
	if _, err := v.Get(m.ID, operator); err != nil {
		t.Fatal(err)
	}
	clock.Advance(200 * 24 * time.Hour)
	mustAdd(t, v, vault.Public, "new")
	day := 24 * time.Hour
	n, err := v.PruneAudit(clock.Now().Add(-90*day), clock.Now().Add(-365*day))
	if err != nil || n != 2 { // vault:create and the public write
		t.Fatalf("PruneAudit = %d, %v; want 2", n, err)
	}
	log, err := v.AuditLog(vault.AuditFilter{})
	if err != nil {
		t.Fatal(err)
	}
	reads := 0
	for _, e := range log {
		if e.Partition == vault.Sensitive {
			reads++
		}
	}
	if reads < 2 {
		t.Errorf("after pruning at 90 days, %d records about the sensitive memory remain, want its write and read (kept a year)", reads)
	}
	if r, err := v.VerifyAudit(); err != nil || !r.OK() {
		t.Fatalf("VerifyAudit after prune = %+v, %v", r, err)
	}
	clock.Advance(200 * day)
	if n, err := v.PruneAudit(clock.Now().Add(-90*day), clock.Now().Add(-365*day)); err != nil || n == 0 {
		t.Fatalf("PruneAudit past a year = %d, %v; want the old records pruned", n, err)
	}
}

func TestAuditAppendByCaller(t *testing.T) {
	v, _ := vaulttest.New(t)
	if err := v.Audit(vault.AuditEntry{Action: vault.ActionReject, Agent: "cursor", Field: vault.System, Result: vault.ResultDenied, Reason: "field not writable by agents"}); err != nil {
		t.Fatal(err)
	}
	log, _ := v.AuditLog(vault.AuditFilter{Field: vault.System})
	if len(log) != 1 || log[0].Agent != "cursor" || log[0].Hash == "" || log[0].Seq != 2 {
		t.Fatalf("AuditLog = %+v", log)
	}
}

package vault_test

import (
	"testing"
	"time"

	"github.com/engram-app/engram/vault"
	"github.com/engram-app/engram/vault/vaulttest"
)

func TestTouch(t *testing.T) {
	v, clock := vaulttest.New(t)
	pub := mustAdd(t, v, vault.Public, "tabs, not spaces")
	sens := mustAdd(t, v, vault.Sensitive, "phone 555-0100")
	gone := mustAdd(t, v, vault.Internal, "will be deleted")
	if err := v.Delete(gone.ID, operator); err != nil {
		t.Fatal(err)
	}
	auditBefore, err := v.AuditLog(vault.AuditFilter{})
	if err != nil {
		t.Fatal(err)
	}
	later := clock.Now().Add(time.Hour)

	n, err := v.Touch(map[string]time.Time{pub.ID: later, sens.ID: later, gone.ID: later})
	if err != nil || n != 2 {
		t.Fatalf("Touch = %d, %v; want 2 (the deleted memory skipped)", n, err)
	}
	// An earlier time never moves the access time back, and a time less
	// than AccessStep later does not move it forward.
	for _, at := range []time.Time{later.Add(-time.Minute), later.Add(vault.AccessStep - time.Second)} {
		if n, err := v.Touch(map[string]time.Time{pub.ID: at}); err != nil || n != 0 {
			t.Fatalf("Touch(%v) = %d, %v; want 0", at.Sub(later), n, err)
		}
	}
	for _, m := range []vault.Memory{pub, sens} {
		got, err := v.Get(m.ID, operator)
		if err != nil {
			t.Fatal(err)
		}
		if !got.Accessed.Equal(later) || got.Version != m.Version || !got.Updated.Equal(m.Updated) || got.StateHash() != m.StateHash() {
			t.Errorf("after Touch: accessed %v version %d updated %v; want accessed %v and the rest unchanged", got.Accessed, got.Version, got.Updated, later)
		}
	}
	auditAfter, err := v.AuditLog(vault.AuditFilter{})
	if err != nil {
		t.Fatal(err)
	}
	// Two reads (the Gets above) and nothing for the touches.
	if d := len(auditAfter) - len(auditBefore); d != 2 {
		t.Errorf("audit entries added = %d, want 2 (the reads only)", d)
	}

	// Locked: sealed memories are skipped, plaintext ones still touched.
	v.Lock()
	evenLater := later.Add(time.Hour)
	if n, err := v.Touch(map[string]time.Time{pub.ID: evenLater, sens.ID: evenLater}); err != nil || n != 1 {
		t.Fatalf("Touch while locked = %d, %v; want 1", n, err)
	}
	if got, err := v.Get(pub.ID, operator); err != nil || !got.Accessed.Equal(evenLater) {
		t.Errorf("public memory after Touch while locked: accessed %v, %v; want %v (and still plaintext)", got.Accessed, err, evenLater)
	}
}

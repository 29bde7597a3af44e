package app

import (
	"testing"

	"github.com/engram-app/engram/app/policy"
	"github.com/engram-app/engram/quarantine/guard"
)

// TestImportSessionPassesTheCheck: an import run's session id is never
// one the session check refuses. Drawn as 12 random hex digits alone,
// about one in 5,000 is all digits and is taken for a phone number, and
// the whole import was refused as "invalid" (4 of 20,000 in a run).
func TestImportSessionPassesTheCheck(t *testing.T) {
	pol, err := policy.New(guard.Policy{})
	if err != nil {
		t.Fatal(err)
	}
	s := &writer{door: &door{pol: pol}}
	for range 20000 {
		id := s.importSession()
		if !IsImportSession(id) || len(id) != len(ImportSessionPrefix)+12 {
			t.Fatalf("import session %q", id)
		}
		if why := s.checkSession(id); why != "" {
			t.Fatalf("import session %q is refused: %s", id, why)
		}
	}
}

package vault_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/engram-app/engram/vault"
	"github.com/engram-app/engram/vault/vaulttest"
)

// verdicts lists a provenance's verifications as "agent VERDICT evidence".
func verdicts(vs []vault.Verification) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.Agent + " " + string(v.Verdict) + " " + v.Evidence
	}
	return out
}

// TestVerifyRepeatReplaces: an agent's verdict given again since the
// user's last confirmation replaces its earlier one (moved to the end,
// with the new evidence) instead of adding an entry; after the user's
// confirmation it is kept again, since it counts again.
func TestVerifyRepeatReplaces(t *testing.T) {
	v, clock := vaulttest.New(t)
	m := mustAdd(t, v, vault.Public, "the API limit is 100/min")
	steps := []struct {
		agent   string
		verdict vault.Verdict
		ev      string
	}{
		{"claude-code", vault.Confirmed, "one"},
		{"cursor", vault.Confirmed, "two"},
		{"claude-code", vault.Confirmed, "three"}, // replaces "one"
		{"claude-code", vault.Questioned, "four"}, // another verdict: kept
		{vault.AgentOperator, vault.Confirmed, "five"},
		{"claude-code", vault.Confirmed, "six"}, // after the user's confirmation: kept
		{"claude-code", vault.Confirmed, "seven"},
		{vault.AgentOperator, vault.Refuted, "eight"},
		{vault.AgentOperator, vault.Refuted, "nine"}, // the user's repeat replaces too
	}
	var got vault.Memory
	for _, st := range steps {
		clock.Advance(time.Second)
		var err error
		if got, err = v.Verify(m.ID, st.verdict, st.ev, vault.Actor{Agent: st.agent}); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{
		"cursor CONFIRMED two", "claude-code CONFIRMED three", "claude-code QUESTIONED four",
		"operator CONFIRMED five", "claude-code CONFIRMED seven", "operator REFUTED nine",
	}
	if g := verdicts(got.Provenance.Verifications); fmt.Sprint(g) != fmt.Sprint(want) {
		t.Fatalf("verifications =\n%q\nwant\n%q", g, want)
	}
	for i := 1; i < len(got.Provenance.Verifications); i++ {
		if got.Provenance.Verifications[i].Time.Before(got.Provenance.Verifications[i-1].Time) {
			t.Fatalf("verifications out of time order: %+v", got.Provenance.Verifications)
		}
	}
}

// TestVerifyKeepsTheUsersVerdicts: the user's verdicts are kept apart from
// agents': however many agents verify a memory, the user's refutation
// stays, and each side keeps at most MaxVerifications entries.
func TestVerifyKeepsTheUsersVerdicts(t *testing.T) {
	v, clock := vaulttest.New(t)
	m := mustAdd(t, v, vault.Public, "the API limit is 100/min")
	if _, err := v.Verify(m.ID, vault.Refuted, "the docs say 120", operator); err != nil {
		t.Fatal(err)
	}
	var got vault.Memory
	for i := range vault.MaxVerifications + 50 {
		clock.Advance(time.Second)
		var err error
		if got, err = v.Verify(m.ID, vault.Confirmed, "", vault.Actor{Agent: fmt.Sprintf("agent-%03d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	vs := got.Provenance.Verifications
	if len(vs) != vault.MaxVerifications+1 || vs[0].Agent != vault.AgentOperator || vs[0].Verdict != vault.Refuted {
		t.Fatalf("after %d agents' confirmations: %d verifications, first %+v; want the user's refutation and %d agents'", vault.MaxVerifications+50, len(vs), vs[0], vault.MaxVerifications)
	}
	if vs[1].Agent != "agent-050" || vs[len(vs)-1].Agent != fmt.Sprintf("agent-%03d", vault.MaxVerifications+49) {
		t.Fatalf("agents' entries kept from %s to %s; want the newest %d", vs[1].Agent, vs[len(vs)-1].Agent, vault.MaxVerifications)
	}
	// The user's own entries are bounded too, by the user's alone.
	for i := range vault.MaxVerifications + 10 {
		clock.Advance(time.Second)
		var err error
		if got, err = v.Verify(m.ID, vault.Confirmed, fmt.Sprint(i), operator); err != nil {
			t.Fatal(err)
		}
	}
	users := 0
	for _, e := range got.Provenance.Verifications {
		if e.Agent == vault.AgentOperator {
			users++
		}
	}
	if n := len(got.Provenance.Verifications); users != vault.MaxVerifications || n != 2*vault.MaxVerifications {
		t.Fatalf("after the user's %d confirmations: %d of the user's among %d; want %d and %d", vault.MaxVerifications+10, users, n, vault.MaxVerifications, 2*vault.MaxVerifications)
	}
}

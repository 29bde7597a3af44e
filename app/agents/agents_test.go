package agents

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/engram-app/engram/app/policy"
	"github.com/engram-app/engram/vault"
)

// TestRefusalsCountWithinTheWindow: refusals older than the window are
// forgotten as new ones come, each agent counts alone, and Reset forgets
// an agent's.
func TestRefusalsCountWithinTheWindow(t *testing.T) {
	r := &Refusals{Window: 10 * time.Minute}
	t0 := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	for i, tc := range []struct {
		agent string
		at    time.Duration
		want  int
	}{
		{"a", 0, 1}, {"a", time.Minute, 2}, {"b", time.Minute, 1},
		{"a", 10*time.Minute + time.Second, 2}, // the first fell out
		{"a", 11*time.Minute + time.Second, 2}, // so did the second
		{"a", 22 * time.Minute, 1},             // and the two after
	} {
		if got := r.Add(tc.agent, t0.Add(tc.at)); got != tc.want {
			t.Fatalf("#%d Add(%s, +%v) = %d, want %d", i, tc.agent, tc.at, got, tc.want)
		}
	}
	r.Reset("a")
	if got := r.Add("a", t0.Add(12*time.Minute)); got != 1 {
		t.Errorf("Add after Reset = %d, want 1", got)
	}
}

// TestGrants: nil grants are the defaults; a reserved field or an unknown
// partition is refused with what is wrong.
func TestGrants(t *testing.T) {
	f, r, bad := Grants(nil, nil)
	if bad != "" || !slices.Equal(f, policy.DefaultAgentFields) || !slices.Equal(r, []vault.Partition{vault.Public, vault.Internal}) {
		t.Errorf("Grants(nil, nil) = %v, %v, %q; want the defaults", f, r, bad)
	}
	if _, _, bad := Grants([]vault.Field{vault.Credentials}, nil); !strings.Contains(bad, "credentials") {
		t.Errorf("Grants(credentials) = %q, want a refusal naming the field", bad)
	}
	if _, _, bad := Grants(nil, []vault.Partition{vault.Archive}); !strings.Contains(bad, "archive") {
		t.Errorf("Grants(read archive) = %q, want a refusal naming the partition", bad)
	}
}

// TestTokens: a token carries the prefix secret scanners know, two are
// never equal, and the registry keeps only their hash.
func TestTokens(t *testing.T) {
	a, ha, err := NewToken()
	if err != nil {
		t.Fatal(err)
	}
	b, hb, _ := NewToken()
	if !strings.HasPrefix(a, TokenPrefix) || a == b || ha == hb || HashToken(a) != ha || strings.Contains(ha, a) {
		t.Errorf("tokens %q %q, hashes %q %q", a, b, ha, hb)
	}
	if !ValidName.MatchString("claude-code") || ValidName.MatchString("-x") || ValidName.MatchString(strings.Repeat("a", 65)) {
		t.Error("ValidName accepts or refuses the wrong names")
	}
}

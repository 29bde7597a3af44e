package guard

import (
	"slices"
	"testing"
)

// TestWordStarts checks the one keyword scan CredentialLike and
// agentMentions share: where a keyword starts a word, and only there.
func TestWordStarts(t *testing.T) {
	tests := []struct {
		lower, kw string
		want      []int
	}{
		{"token", "token", []int{0}},
		{"the token, a token", "token", []int{4, 13}},
		{"tokens and mytoken", "token", []int{0}},
		{"agent-a agent_b xagent-c", "agent-", []int{0}},
		{"(password) password", "password", []int{1, 11}},
		{"éjeton jeton", "jeton", []int{8}},
		{"", "token", nil},
		{"tok", "token", nil},
		{"aaaa", "aa", []int{0}},
	}
	for _, tc := range tests {
		got := slices.Collect(wordStarts(tc.lower, tc.kw))
		if !slices.Equal(got, tc.want) {
			t.Errorf("wordStarts(%q, %q) = %v, want %v", tc.lower, tc.kw, got, tc.want)
		}
	}
	// Stopping early stops the scan.
	for i := range wordStarts("a a a", "a") {
		if i != 0 {
			t.Errorf("wordStarts went on after the loop stopped: %d", i)
		}
		break
	}
}

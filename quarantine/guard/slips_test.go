package guard

import (
	"strings"
	"testing"
)

// TestSecretsAndPersonalDataThatSlipped: secrets and personal data in the
// forms that passed before, each found; ordinary text beside them is not.
func TestSecretsAndPersonalDataThatSlipped(t *testing.T) {
	g, err := New(Policy{})
	if err != nil {
		t.Fatal(err)
	}
	secrets := []struct{ text, value string }{
		{"my wifi password is Tr0ub4dor&3xK", "Tr0ub4dor&3xK"},
		{"set DJANGO_SECRET_KEY to 9x!kq2@v#m4p8z$w1r7t0b3n6c5", "9x!kq2@v#m4p8z$w1r7t0b3n6c5"},
		{"the cache is at redis://:S3cretPassw0rd@cache.internal:6379/0", "S3cretPassw0rd"},
		{"aws key in base64: QUtJQVE3Ulo1WEsyTTROOFAzV1Q=", "QUtJQVE3Ulo1WEsyTTROOFAzV1Q="},
		{"VAULT_TOKEN=b.AAAAAQKx9mQ2vN7rT4yW8pZ3cL6hF1jD5sG0aE9uB2nM7kR4tY8wQ3zX6cV1bN5mL0pK9jH2gF7dS4aW8eR3tY6uI1oP5lK0jH9gF2dS", "b.AAAAAQKx9mQ2vN7rT4yW8pZ3"},
		{"api = twitter.Twitter(auth=OAuth('9183726450-Xk2mQ7vN4rT8yW1pZ6cL3hF', 'tR5yU8iO2pA6sD9fG3hJ7kL1zX4cV0bN', ck, cs))", "9183726450-Xk2mQ7vN4rT8yW1pZ6cL3hF"},
	}
	for _, s := range secrets {
		res := g.Check(Input{Text: s.text})
		if !res.HasSecret || strings.Contains(res.Redacted, s.value) {
			t.Errorf("Check(%q): secret found %v, redacted %q; want the value redacted", s.text, res.HasSecret, res.Redacted)
		}
	}
	personal := []string{
		"call Marie at +33 6 12 34 56 78 about the contract",
		"his mobile is +44 7700 900123",
		"the London office line is 020 7946 0958",
		"write to john dot smith at example dot com",
		"Jane Doe, born 14 March 1987, leads the audit",
		"Tom's date of birth is 1990-07-21",
		"card 4111 1111 1111 1111 expires 04/29",
		"the salary of Anna Berg is 84,000 EUR a year",
		"Peter was diagnosed with type 2 diabetes last spring",
		"Maria takes 20 mg of fluoxetine every morning",
	}
	for _, text := range personal {
		if res := g.Check(Input{Text: text}); !res.HasPII {
			t.Errorf("Check(%q): no personal data found; want it sensitive", text)
		}
	}
	plain := []string{
		"the release is on 14 March 2027",
		"use the redis cache at cache.internal:6379",
		"the build takes 20 minutes on the CI runner",
		"the team budget review is in March",
		"see docs at example dot com for the style guide",
	}
	for _, text := range plain {
		if res := g.Check(Input{Text: text}); res.HasPII || res.HasSecret {
			t.Errorf("Check(%q): pii %v secret %v (%v); want neither", text, res.HasPII, res.HasSecret, res.Findings)
		}
	}
}

package guard

import (
	"encoding/base64"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Secrets in forms the rule sets of secrets.go do not read: a password
// stated in prose, a secret environment variable set to a value, the
// password of a URL without a user name, a key hidden in base64.

var (
	// "my wifi password is X", "the passphrase: X".
	prosePasswordRe = regexp.MustCompile(`(?i)\b(?:password|passwd|passphrase|passcode|pwd|wi-?fi key|wifi code)\s+(?:is|was|=|:|to|reads)\s+['"]?([^\s'"]{6,64})`)
	// "set DJANGO_SECRET_KEY to X", "export GITHUB_TOKEN=X".
	envSecretRe = regexp.MustCompile(`\b(?:[Ss]et|SET|[Ee]xport|EXPORT)\s+([A-Z0-9_]*(?:SECRET|TOKEN|PASSWORD|PASSWD|API_KEY|APIKEY|PRIVATE_KEY|ACCESS_KEY|AUTH_KEY|SIGNING_KEY)[A-Z0-9_]*)\s*(?:\bto\b|=)\s*['"]?([^\s'"]{8,})`)
	// "redis://:pass@host", "amqp://user:pass@host".
	urlPasswordRe = regexp.MustCompile(`\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^\s:/@]*:([^\s@/]{4,})@[\w.\-]+`)
	// A base64 blob long enough to hold a key.
	b64BlobRe = regexp.MustCompile(`[A-Za-z0-9+/]{16,}={0,2}`)
)

// moreSecrets finds the secrets above. scan is the rule-set scanner, run
// on decoded base64 blobs.
func moreSecrets(text string, scan func(string) []Finding) []Finding {
	var out []Finding
	lower := asciiLower(text)
	if containsAny(lower, []string{"password", "passwd", "passphrase", "passcode", "pwd", "wifi", "wi-fi"}) {
		for _, m := range prosePasswordRe.FindAllStringSubmatchIndex(text, 8) {
			v := text[m[2]:m[3]]
			if looksLikePassword(v) && !schemeName(strings.TrimRight(v, ".,;:!?)")) {
				out = append(out, Finding{Kind: KindSecret, Type: SecretPassword, Level: LevelProbable, Start: m[2], End: m[3], Reason: "password stated in prose"})
			}
		}
	}
	if containsAny(lower, []string{"set ", "export "}) {
		for _, m := range envSecretRe.FindAllStringSubmatchIndex(text, 8) {
			if v := text[m[4]:m[5]]; notPlaceholder(v) && !strings.HasPrefix(v, "$") {
				out = append(out, Finding{Kind: KindSecret, Type: SecretAPIKey, Level: LevelProbable, Start: m[4], End: m[5], Reason: "secret variable " + truncate(text[m[2]:m[3]], 40) + " set to a value"})
			}
		}
	}
	if strings.Contains(text, "://") {
		for _, m := range urlPasswordRe.FindAllStringSubmatchIndex(text, 8) {
			if v := text[m[2]:m[3]]; notPlaceholder(v) && !strings.HasPrefix(v, "$") && !strings.HasPrefix(v, "{") {
				out = append(out, Finding{Kind: KindSecret, Type: SecretPassword, Level: LevelProbable, Start: m[2], End: m[3], Reason: "password in a URL"})
			}
		}
	}
	if scan != nil && longestRun(text) >= 16 {
		for _, m := range b64BlobRe.FindAllStringIndex(text, 8) {
			blob := strings.TrimRight(text[m[0]:m[1]], "=")
			raw, err := base64.RawStdEncoding.DecodeString(blob)
			if err != nil || !utf8.Valid(raw) || !printable(string(raw)) {
				continue
			}
			for _, f := range scan(string(raw)) {
				if f.Level == LevelDefinite || f.Level == LevelProbable {
					out = append(out, Finding{Kind: KindSecret, Type: f.Type, Level: f.Level, Start: m[0], End: m[1], Reason: "base64-encoded " + f.Reason})
					break
				}
			}
		}
	}
	return out
}

func printable(s string) bool {
	n := 0
	for _, r := range s {
		if r < 32 && r != '\n' && r != '\t' || r == utf8.RuneError {
			return false
		}
		n++
	}
	return n > 0
}

// looksLikePassword rejects the words that follow "password is" in
// ordinary prose ("the password is required", "is stored in the vault").
func looksLikePassword(v string) bool {
	v = strings.TrimRight(v, ".,;:!?)")
	if len(v) < 6 || !notPlaceholder(v) {
		return false
	}
	lower, upper, digit, other := false, false, false, false
	for _, r := range v {
		switch {
		case r >= 'a' && r <= 'z':
			lower = true
		case r >= 'A' && r <= 'Z':
			upper = true
		case r >= '0' && r <= '9':
			digit = true
		default:
			other = true
		}
	}
	classes := 0
	for _, b := range []bool{lower, upper, digit, other} {
		if b {
			classes++
		}
	}
	return classes >= 3 || classes == 2 && (digit || other) && len(v) >= 8
}

package guard

import (
	"encoding/base64"
	"math/rand/v2"
	"regexp/syntax"
	"strings"
	"testing"
	"unicode"
)

// TestFormatRulesStillRedact is a regression table for the format rules
// (providerRules and probableRules): for each rule, a value built from its
// own expression, which the rule alone accepts, must still be redacted by
// Check at the rule's level or above. It guards the format rules against
// the sentence reading and the placeholder filters (a sample built this
// way is neither a placeholder nor named as a non-secret). Rules whose
// checks refuse every generated value (they want decodable content or a
// keyword the expression does not hold) are listed and skipped.
func TestFormatRulesStillRedact(t *testing.T) {
	g := newTestGuard(t, Policy{})
	rules := append(providerRules(), probableRules()...)
	var skipped []string
	tested := 0
	for _, r := range rules {
		sample, ok := handSamples[r.id], true
		if sample == "" {
			sample, ok = ruleSample(r)
		}
		if !ok {
			skipped = append(skipped, r.id)
			continue
		}
		tested++
		t.Run(r.id, func(t *testing.T) {
			res := g.Check(Input{Text: sample})
			best := ""
			for _, f := range res.Findings {
				if f.Kind == KindSecret && (best == "" || levelRank(f.Level) > levelRank(best)) {
					best = f.Level
				}
			}
			if levelRank(best) < levelRank(r.level) || !res.HasSecret {
				t.Errorf("Check(%q) strongest level %q, want %q or above as rule %s finds it (findings %s)", sample, best, r.level, r.id, findingSummary(sample, res.Findings))
			}
		})
	}
	if len(skipped) > 0 {
		t.Errorf("rules %v have no sample; add one to handSamples", skipped)
	}
	t.Logf("%d rules checked; no sample for %v", tested, skipped)
}

// handSamples are samples for the rules whose checks want content a
// generated string does not have (decodable base64, a keyword nearby).
var handSamples = map[string]string{
	"laravel-app-key":            "APP_KEY=base64:Q7rZ5xK2m4N8p3WtY6uB9cD1eF4gH7jK0lM2nO5pQ8r=",
	"eth-private-key":            "the wallet's private key: 0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318",
	"pem-base64":                 base64.StdEncoding.EncodeToString([]byte("-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAq7rZ5xK2m4N8p3WtY6uB9cD1eF4gH7jK0lM2\n")),
	"basic-auth":                 "Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte("admin:Q7rZ5xK2m4N8")),
	"url-credentials":            "postgres://app:Q7rZ5xK2m4N8@db.internal:5432/main",
	"cli-user-colon-pass":        "curl -u admin:Q7rZ5xK2m4N8 https://ci.internal/api/json",
	"psexec":                     `psexec \\host -u admin -p Adm1nPass cmd`,
	"xml-keyvalue":               `<add key="DbPassword" value="Q7rZ5xK2m4N8"/>`,
	"password-prose":             `the password is "centipede9"`,
	"signs-with":                 "the webhook sender signs payloads with Q7rZ5xK2m4N8p3WtY6uB9cD1eF4gH7",
	"php-define":                 "define( 'DB_PASSWORD', 'Q7rZ5xK2m4N8' );",
	"set-password-call":          `ArduinoOTA.setPassword("Q7rZ5xK2m4N8");`,
	"wifi-qr":                    "WIFI:T:WPA;S:Home-Net;P:Q7rZ5xK2m4N8;;",
	"smtp-plainauth":             `auth := smtp.PlainAuth("", "alerts@example.org", "Q7rZ5xK2m4N8", "smtp.example.org")`,
	"okta":                       "okta: " + oktaToken,
	"azure-devops-pat-old":       "devops pat " + adoOldToken,
	"azure-devops-pat-old-after": "echo " + adoOldToken + " | az devops login",
	"securestring":               `$pw = ConvertTo-SecureString "Tulip-Rain-42" -AsPlainText -Force`,
	"securestring-pipe":          `'lanternfish' | ConvertTo-SecureString -AsPlainText -Force`,
}

// ruleSample builds up to 40 strings from r's expression, with a fixed
// seed, and returns the first that the rule itself accepts as a secret
// (expression and check) in the text it makes.
func ruleSample(r secretRule) (string, bool) {
	re, err := syntax.Parse(r.re.String(), syntax.Perl)
	if err != nil {
		return "", false
	}
	rng := rand.New(rand.NewPCG(7, uint64(len(r.id))))
	for range 40 {
		var b strings.Builder
		genRegexp(&b, re, rng)
		s := b.String()
		m := r.re.FindStringSubmatchIndex(s)
		if m == nil || m[2*r.group] < 0 {
			continue
		}
		v := s[m[2*r.group]:m[2*r.group+1]]
		if v == "" || r.check != nil && !r.check(v) || placeholderValue(v) || longestRun(s) < r.minRun {
			continue
		}
		if len(r.any) > 0 && !containsAny(canonical(asciiLower(s)), r.any) {
			continue // the scanner's prefilter, which the expression may not hold ("token " with a space)
		}
		return s, true
	}
	return "", false
}

// genRegexp writes a string the expression matches: the fewest
// repetitions (none for "*", one for "+", twelve more than the minimum
// for an open "{n,}"), the first alternative, random members of character
// classes (letters and digits preferred, a space for \s).
func genRegexp(b *strings.Builder, re *syntax.Regexp, rng *rand.Rand) {
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			b.WriteRune(r)
		}
	case syntax.OpCharClass:
		b.WriteRune(pickRune(re.Rune, rng))
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		b.WriteByte('x')
	case syntax.OpCapture:
		genRegexp(b, re.Sub[0], rng)
	case syntax.OpConcat:
		for _, s := range re.Sub {
			genRegexp(b, s, rng)
		}
	case syntax.OpAlternate:
		genRegexp(b, re.Sub[0], rng)
	case syntax.OpStar, syntax.OpQuest:
	case syntax.OpPlus:
		genRegexp(b, re.Sub[0], rng)
	case syntax.OpRepeat:
		n := re.Min
		if re.Max < 0 {
			n += 12 // "{10,}": some more, as real keys have
		}
		for range n {
			genRegexp(b, re.Sub[0], rng)
		}
	}
}

// pickRune picks a rune from a class given as ranges, preferring letters
// and digits so that generated values look like keys.
func pickRune(ranges []rune, rng *rand.Rand) rune {
	var alnum, all []rune
	for i := 0; i+1 < len(ranges); i += 2 {
		for r := ranges[i]; r <= ranges[i+1] && r < 0x80; r++ {
			all = append(all, r)
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				alnum = append(alnum, r)
			}
		}
	}
	for _, r := range all {
		if r == ' ' {
			return ' ' // \s: a space, as prose writes it
		}
	}
	switch {
	case len(alnum) > 0:
		return alnum[rng.IntN(len(alnum))]
	case len(all) > 0:
		return all[rng.IntN(len(all))]
	}
	return ranges[0]
}

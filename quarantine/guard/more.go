package guard

import (
	"encoding/base64"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"
)

// Secrets and personal data in forms the rule sets above do not read:
// a password stated in prose, a secret environment variable set to a
// value, the password of a URL without a user name, a key hidden in
// base64; international phone numbers, spelled-out e-mail addresses, a
// date of birth, financial figures about a person, and health details.

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

// scanSecrets runs the rule sets and the finders above, the latter only
// where no rule already found a secret; findings are sorted by start.
func (g *Guard) scanSecrets(text string) []Finding {
	fs := g.secrets.scan(text)
	extra := dropPlaceholders(text, moreSecrets(text, g.secrets.scan))
	if len(extra) == 0 {
		return fs
	}
next:
	for _, e := range extra {
		for _, f := range fs {
			if f.Start < e.End && e.Start < f.End {
				continue next
			}
		}
		fs = append(fs, e)
	}
	sort.Slice(fs, func(i, j int) bool { return fs[i].Start < fs[j].Start })
	return fs
}

// moreSecrets finds the secrets above. scan is the rule-set scanner, run
// on decoded base64 blobs.
func moreSecrets(text string, scan func(string) []Finding) []Finding {
	var out []Finding
	lower := asciiLower(text)
	if containsAny(lower, []string{"password", "passwd", "passphrase", "passcode", "pwd", "wifi", "wi-fi"}) {
		for _, m := range prosePasswordRe.FindAllStringSubmatchIndex(text, 8) {
			v := text[m[2]:m[3]]
			if looksLikePassword(v) {
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

// More personal data types.
const (
	PIIDateOfBirth = "DATE_OF_BIRTH"
	PIIFinancial   = "FINANCIAL"
	PIIHealth      = "HEALTH"
	// PIIAccess is what opens a person's money or home: a PIN or its
	// hint, a card's last digits, a door or alarm code, a security
	// answer.
	PIIAccess = "ACCESS_DETAILS"
)

const monthPat = `(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)`

var (
	// International numbers written with a leading + and groups of one to
	// four digits: "+33 6 12 34 56 78", "+49 (0)30 1234567".
	intlPhoneRe = regexp.MustCompile(`\+\d{1,3}(?:[ .\-]?\(?\d{1,4}\)?){2,7}`)
	// "john dot smith at example dot com", "jane (at) corp [dot] io".
	spelledEmailRe = regexp.MustCompile(`(?i)\b([a-z0-9_\-]+(?:\s+(?:dot|\[dot\]|\(dot\))\s+[a-z0-9_\-]+)*)\s+(?:at|\[at\]|\(at\))\s+[a-z0-9\-]+(?:\s+(?:dot|\[dot\]|\(dot\))\s+[a-z]{2,})+\b`)
	emailCueRe     = regexp.MustCompile(`(?i)\b(?:e-?mail|mail|write to|contact|reach|address|inbox)\b[^.\n]{0,20}$`)
	// "born 14 March 1987", "date of birth is 1990-07-21", "DOB: 03/04/1985".
	dobRe = regexp.MustCompile(`(?i)\b(?:born(?: on)?|date of birth|d\.?o\.?b\.?|birth ?date|birthday)\b[^.\n]{0,20}?(?:\d{1,2}(?:st|nd|rd|th)?[ ./\-]+(?:` + monthPat + `|\d{1,2})[ ./\-,]+\d{2,4}|\d{4}-\d{2}-\d{2}|` + monthPat + `\.?\s+\d{1,2}(?:st|nd|rd|th)?,?\s+\d{4})`)
	// A person's money: "the salary of Anna Berg is 84,000 EUR".
	financialRe = regexp.MustCompile(`(?i)\b(?:salary|income|earns|wages?|paycheck|bank balance|account balance|net worth|owes|debts?|mortgage|credit score|tax return|bonus)\b[^.\n]{0,40}?(?:[$€£¥]\s?\d[\d,.]*|\b\d[\d,.]*\s*(?:k|eur|euros?|usd|dollars?|gbp|pounds?|chf|sek|nok|dkk)\b)`)
	// A named person's health: "Peter was diagnosed with ...", "Maria
	// takes 20 mg of ...". A name or a personal pronoun must lead.
	healthRe = regexp.MustCompile(`\b(?:[A-Z][a-z]+(?:'s)?|[Hh]e|[Ss]he|I|[Mm]y (?:wife|husband|son|daughter|mother|father|partner|colleague|manager))\s+(?:was |is |has been |got |had |has )?(?:diagnosed with|suffers? from|suffering from|takes \d+(?:\.\d+)?\s?(?:mg|mcg|ml|units)\b|is taking \d+|was prescribed|is prescribed|is allergic to|is pregnant|has (?:type [12] )?(?:diabetes|cancer|hiv|aids|epilepsy|asthma|depression|bipolar disorder|schizophrenia|adhd|dementia|parkinson'?s|alzheimer'?s)|is in (?:rehab|therapy|chemotherapy)|(?:had|has) (?:a |an )?(?:surgery|operation|miscarriage|abortion|stroke|heart attack))`)
)

var (
	// "my PIN hint is ...", "PIN: 4417", "pin code 0000".
	pinRe = regexp.MustCompile(`\b(?:PIN|[Pp]in (?:code|number|hint)|PIN (?:code|number|hint))\b[^.\n]{0,30}?(?:\bis\b|\bwas\b|:|=|\b\d{4,8}\b)`)
	// "card ending 4417", "the account ends in 0042".
	cardEndRe = regexp.MustCompile(`(?i)\b(?:card|account)\s+(?:number\s+)?(?:ending|ends)\s+(?:in\s+|with\s+)?\d{4}\b`)
	// "the door code to the office is 4417", "alarm code: 1234".
	doorCodeRe = regexp.MustCompile(`(?i)\b(?:door|gate|alarm|safe|garage|entry|building|keypad|lock)\s+code\b[^.\n]{0,30}?\b\d{4,8}\b`)
	// "the security answer is ...", "mother's maiden name".
	securityRe = regexp.MustCompile(`(?i)\b(?:security (?:question|answer)s?|mother'?s maiden name)\b`)
)

// accessPII finds access details (PIIAccess) in one chunk.
func accessPII(text, lower string, add func(typ string, a, b int, reason string)) {
	if !containsAny(lower, []string{"pin", "ending", "ends", "code", "security", "maiden"}) {
		return
	}
	for _, re := range []*regexp.Regexp{pinRe, cardEndRe, doorCodeRe, securityRe} {
		for _, m := range re.FindAllStringIndex(text, -1) {
			add(PIIAccess, m[0], m[1], "what opens a person's account or home (a PIN, a card's last digits, a code)")
		}
	}
}

// morePII finds the personal data above in one chunk.
func morePII(text string, add func(typ string, a, b int, reason string)) {
	if strings.IndexByte(text, '+') >= 0 {
		for _, m := range intlPhoneRe.FindAllStringIndex(text, -1) {
			if d := countDigits(text[m[0]:m[1]]); d >= 8 && d <= 15 {
				add(PIIPhone, m[0], m[1], "international phone number")
			}
		}
	}
	lower := asciiLower(text)
	if (strings.Contains(lower, " at ") || strings.Contains(lower, "(at)") || strings.Contains(lower, "[at]")) && (strings.Contains(lower, " dot ") || strings.Contains(lower, "[dot]") || strings.Contains(lower, "(dot)")) {
		for _, m := range spelledEmailRe.FindAllStringSubmatchIndex(text, -1) {
			local := asciiLower(text[m[2]:m[3]])
			if strings.Contains(local, "dot") || emailCueRe.MatchString(text[:m[0]]) {
				add(PIIEmail, m[0], m[1], "e-mail address spelled out")
			}
		}
	}
	accessPII(text, lower, add)
	if containsAny(lower, []string{"born", "birth", "dob", "d.o.b"}) {
		for _, m := range dobRe.FindAllStringIndex(text, -1) {
			add(PIIDateOfBirth, m[0], m[1], "date of birth")
		}
	}
	if containsAny(lower, []string{"salary", "income", "earns", "wage", "paycheck", "balance", "net worth", "owes", "debt", "mortgage", "credit score", "tax return", "bonus"}) {
		for _, m := range financialRe.FindAllStringIndex(text, -1) {
			add(PIIFinancial, m[0], m[1], "a person's financial details")
		}
	}
	if containsAny(lower, []string{"diagnos", "suffer", " mg", "mcg", " ml", "units", "taking", "prescribed", "allergic", "pregnant", "diabetes", "cancer", "hiv", "aids", "epilepsy", "asthma", "depression", "bipolar", "schizophrenia", "adhd", "dementia", "parkinson", "alzheimer", "rehab", "therapy", "surgery", "operation", "miscarriage", "abortion", "stroke", "heart attack"}) {
		for _, m := range healthRe.FindAllStringIndex(text, -1) {
			add(PIIHealth, m[0], m[1], "a person's health details")
		}
	}
}

func countDigits(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if isDigit(s[i]) {
			n++
		}
	}
	return n
}

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
	// "https://<token>@github.com/…", a Sentry DSN: a generated user name
	// with no password is the credential itself.
	urlTokenRe = regexp.MustCompile(`\b[a-zA-Z][a-zA-Z0-9+.\-]*://([A-Za-z0-9_\-]{20,})@[\w\-]+\.[\w.\-]+`)
	// A base64 blob long enough to hold a key.
	b64BlobRe = regexp.MustCompile(`[A-Za-z0-9+/]{16,}={0,2}`)
)

// moreSecrets finds the secrets above. scan is the rule-set scanner, run
// on decoded base64 blobs.
func moreSecrets(text string, scan func(string) []Finding) []Finding {
	var out []Finding
	lower := asciiLower(text)
	if containsAny(lower, []string{"password", "passwd", "passphrase", "passcode", "pwd", "wifi", "wi-fi"}) {
		var ms []namingMatch
		for i, m := range prosePasswordRe.FindAllStringSubmatchIndex(text, 8) {
			v := text[m[2]:m[3]]
			if i == 0 {
				ms = findNaming(text, lower)
			}
			// "the commit that removed the password is …" names a commit.
			if looksLikePassword(v) && !schemeName(strings.TrimRight(v, ".,;:!?)")) && !rejectValue(strings.TrimRight(v, ".,;:!?)")) && !namedNonSecret(text, m[2], m[3], ms) {
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
		for _, m := range urlTokenRe.FindAllStringSubmatchIndex(text, 8) {
			if v := text[m[2]:m[3]]; randomLooking(v) && !sampleValue(v) && !placeholderValue(v) && !saidPublic(text, m[3]) && !publicBefore(text, lower, m[2]) {
				out = append(out, Finding{Kind: KindSecret, Type: SecretAPIKey, Level: LevelProbable, Start: m[2], End: m[3], Reason: "token as the user name of a URL"})
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
	if strings.Contains(lower, "pgpass") {
		out = append(out, pgpassSecrets(text)...)
	}
	if strings.Count(text, "|") >= 4 && strings.Contains(text, "\n") {
		out = append(out, tableSecrets(text, lower)...)
	}
	return out
}

// pgpassSecrets finds the passwords of PostgreSQL password-file lines
// ("host:port:database:user:password") in a text that names the file.
func pgpassSecrets(text string) []Finding {
	var out []Finding
	for i := 0; i < len(text); {
		for i < len(text) && (text[i] == ' ' || text[i] == '\n' || text[i] == '\t' || text[i] == '`') {
			i++
		}
		j := i
		for j < len(text) && text[j] != ' ' && text[j] != '\n' && text[j] != '\t' && text[j] != '`' {
			j++
		}
		f := strings.Split(text[i:j], ":")
		if len(f) == 5 && (allDigits(f[1]) || f[1] == "*") && f[0] != "" && f[3] != "" {
			pw := strings.TrimRight(f[4], ".,;)")
			if pw != "" && pw != "*" && notPlaceholder(pw) {
				s := j - len(f[4])
				out = append(out, Finding{Kind: KindSecret, Type: SecretPassword, Level: LevelProbable, Start: s, End: s + len(pw), Reason: "password in a .pgpass line"})
			}
		}
		i = j + 1
	}
	return out
}

// tableSecrets finds values in the column of a Markdown table whose
// header names a credential ("| Service | User | Password |"): the
// header names every cell under it, as a sentence names its value.
func tableSecrets(text, lower string) []Finding {
	var out []Finding
	lines := strings.SplitAfter(text, "\n")
	off := 0
	starts := make([]int, len(lines))
	for i, l := range lines {
		starts[i] = off
		off += len(l)
	}
	for h := 0; h+1 < len(lines); h++ {
		if !tableRow(lines[h]) || !tableRule(lines[h+1]) {
			continue
		}
		var cols []int
		for c, cell := range tableCells(lines[h]) {
			cl := strings.TrimSpace(lower[starts[h]+cell[0] : starts[h]+cell[1]])
			ms := findNaming(cl, cl)
			if len(ms) > 0 && ms[len(ms)-1].kind.credential() && !publicNoun(cl, ms[len(ms)-1], ms) {
				cols = append(cols, c)
			}
		}
		if len(cols) == 0 {
			continue
		}
		// The rows end where the table does, or where the next one's
		// header begins: each line is read as a cell row once.
		for r := h + 2; r < len(lines) && tableRow(lines[r]) && !tableRule(lines[r]) && (r+1 == len(lines) || !tableRule(lines[r+1])); r++ {
			cells := tableCells(lines[r])
			for _, c := range cols {
				if c >= len(cells) {
					continue
				}
				a, b := starts[r]+cells[c][0], starts[r]+cells[c][1]
				for a < b && (text[a] == ' ' || text[a] == '`') {
					a++
				}
				for b > a && (text[b-1] == ' ' || text[b-1] == '`') {
					b--
				}
				v := text[a:b]
				if v == "" || strings.ContainsAny(v, " |") || rejectValue(v) {
					continue
				}
				if lv := literal(v); looksLikePassword(lv) || generatedLooking(lv) || weakPassword(lv) {
					out = append(out, Finding{Kind: KindSecret, Type: SecretPassword, Level: LevelProbable, Start: a, End: b, Reason: "value in a table column named as a credential"})
				}
			}
		}
	}
	return out
}

// tableRow reports a Markdown table row: it begins and ends with "|".
func tableRow(l string) bool {
	l = strings.TrimSpace(l)
	return len(l) >= 3 && l[0] == '|' && l[len(l)-1] == '|'
}

// tableRule reports the rule under a Markdown table's header: "|---|:--:|".
func tableRule(l string) bool {
	return tableRow(l) && strings.Trim(strings.TrimSpace(l), "|-: ") == "" && strings.Contains(l, "---")
}

// tableCells returns the byte spans of the cells of a table row, within
// the row.
func tableCells(l string) [][2]int {
	var cells [][2]int
	first := strings.IndexByte(l, '|')
	last := strings.LastIndexByte(l, '|')
	for a := first + 1; a <= last; {
		b := a + strings.IndexByte(l[a:last+1], '|')
		cells = append(cells, [2]int{a, b})
		a = b + 1
	}
	return cells
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
	lower, upper, digit, other := charClasses(v)
	classes := 0
	for _, b := range []bool{lower, upper, digit, other} {
		if b {
			classes++
		}
	}
	return classes >= 3 || classes == 2 && (digit || other) && len(v) >= 8
}

// publicBefore reports a modifier that makes what follows public ("the
// public DSN for …", "the sample URL") earlier in the clause of text[i].
func publicBefore(text, lower string, i int) bool {
	lo := clauseStart(text, i, 120)
	for _, m := range findNaming(text[:i], lower[:i]) {
		if m.start >= lo && m.kind == nameNonSecretMod {
			return true
		}
	}
	return false
}

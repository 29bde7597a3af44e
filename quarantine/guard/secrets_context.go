package guard

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Credentials named by their sentence. A value that the sentence calls a
// password, a token, a key or a secret is one whatever its shape: "The
// deploy token is iK2ZWeqhFWCEPyYngFb51yBMWXaSCr", "Das Passwort für den
// Testnutzer ist Birke-Nebel-47!", "测试环境的 API 密钥是 …". contextSecrets
// finds a credential noun (secrets_naming.go), follows its sentence to a
// link (a copula such as "is", "ist", "es", "是", a particle such as "は"
// or "는", ":", "=", a dash, "set to") or takes the value standing right
// after it ("the automation token npm_…", "la clé (…)"), and checks the
// value's shape against what the noun names: a password may be any
// password-like string, a key must look generated. The sentence can also
// say that what follows is not a secret: a noun made public ("public
// key", "publishable key", "cache key"), a noun that is really something
// else ("key fingerprint", "token count"), or a value that stands for a
// secret without being one ("YOUR_API_KEY", "sk_test_xxx", AWS's
// documented example keys).

// headChange lists the words that, right after a credential noun, make it
// a modifier of something else: "password policy", "token budget", "key
// vault".
var headChange = map[string]bool{
	"policy": true, "policies": true, "manager": true, "managers": true, "reset": true, "resets": true,
	"hash": true, "hashes": true, "hashing": true, "length": true, "field": true, "fields": true,
	"prompt": true, "rotation": true, "expiry": true, "expiration": true, "strength": true,
	"requirement": true, "requirements": true, "rule": true, "rules": true, "change": true,
	"changes": true, "budget": true, "budgets": true, "limit": true, "limits": true, "count": true,
	"counts": true, "usage": true, "lifetime": true, "endpoint": true, "url": true, "format": true,
	"type": true, "types": true, "scope": true, "scopes": true, "name": true, "names": true, "path": true,
	"alias": true, "vault": true, "store": true, "server": true, "service": true, "pair": true,
	"management": true, "ring": true, "size": true, "version": true, "holder": true, "file": true,
	"files": true, "location": true, "generator": true, "exchange": true, "refresh": true,
	"validation": true, "window": true, "counter": true, "estimate": true, "price": true, "pricing": true,
	"cost": true, "costs": true, "consumption": true, "cap": true, "header": true, "parameter": true,
	"param": true, "flag": true, "option": true, "variable": true, "var": true, "provider": true,
	"based": true, "less": true, "protected": true, "protection": true, "spraying": true, "cracking": true,
	"leak": true, "leaks": true, "reuse": true, "login": true, "stuffing": true, "board": true,
	"word": true, "words": true, "point": true, "points": true, "stroke": true, "strokes": true,
	"chain": true, "card": true, "cards": true, "note": true, "notes": true, "idea": true, "ideas": true,
	"question": true, "questions": true, "issue": true, "issues": true, "step": true, "steps": true,
	"factor": true, "factors": true, "feature": true, "features": true, "term": true, "terms": true,
	"bindings": true, "binding": true, "map": true, "mapping": true, "press": true, "event": true,
	"events": true, "id": true, "ids": true, "frame": true, "frames": true,
	"hint": true, "hints": true, "clue": true, "reminder": true, "tip": true, "tips": true, "locator": true,
}

// linkAdverbs may stand between a link and the value: "is now", "was
// reset to", "is literally".
var linkAdverbs = map[string]bool{
	"now": true, "still": true, "also": true, "currently": true, "just": true, "simply": true,
	"actually": true, "literally": true, "set": true, "reset": true, "changed": true, "updated": true,
	"rotated": true, "to": true, "always": true, "again": true,
	// "agora é …", "ahora es …", "maintenant c'est …"; "…: punch in 6950", "enter 995101".
	"agora": true, "ahora": true, "maintenant": true, "jetzt": true, "ora": true, "punch": true, "in": true,
	"enter": true, "type": true, "dial": true, "press": true, "disarm": true, "with": true,
}

// wordLinks are the copulas that link a noun to its value, by language.
var wordLinks = map[string]bool{
	"is": true, "was": true, "are": true, "equals": true, "reads": true, "becomes": true,
	"est": true, "était": true, "vaut": true, "es": true, "era": true, "ist": true, "lautet": true,
	"war": true, "é": true, "è": true, "это": true, "है": true,
	"be": true, "sera": true, "será": true, "sarà": true, // "would be", "will be"
	"contains": true, "contiene": true, "contient": true, "enthält": true, "contém": true, // a file that holds it
}

// softLinks may link a noun to a value ("set the password to …") but, when
// no value follows, the sentence goes on.
var softLinks = map[string]bool{"par": true, "por": true, "durch": true, "to": true, "auf": true, "à": true, "a": true, "на": true, "en": true, "em": true, "in": true, "with": true}

// sentenceSecrets finds the secrets of this file in text: values named as
// credentials by their sentence, and webhook URLs. named says text may name
// a credential (see secretScanner.scanChunk); without it there is no noun
// to follow.
func sentenceSecrets(text string, opt sentenceOptions, named bool, add func(Finding)) {
	if !named && !strings.Contains(text, "://") {
		return
	}
	lower := asciiLower(text)
	webhookURLs(text, lower, add)
	if named {
		contextSecrets(text, lower, opt, add)
	}
}

// webhookURLs adds the secret part of incoming-webhook URLs: a URL whose
// host or path names a hook ("hooks.slack.com", "/api/webhooks/",
// "/webhookb2/") and whose path after that name holds a generated-looking
// segment; whoever has the URL can post. The span covers the path after
// the hook's name and its letters-only segments ("services"), so the
// sentence keeps the host.
func webhookURLs(text, lower string, add func(Finding)) {
	for off := 0; ; {
		i := strings.Index(lower[off:], "hook")
		if i < 0 {
			return
		}
		i += off
		off = i + 4
		s := strings.LastIndex(lower[max(0, i-80):i], "://")
		if s < 0 {
			continue
		}
		s += max(0, i-80) + 3
		if strings.IndexFunc(text[s:i], func(r rune) bool { return r <= ' ' || strings.ContainsRune("\"'`<>", r) }) >= 0 {
			continue
		}
		e := i
		for e < len(text) && text[e] > ' ' && text[e] < 0x7f && strings.IndexByte("\"'`<>", text[e]) < 0 {
			e++
		}
		for e > i && strings.IndexByte(".,;:)]}", text[e-1]) >= 0 {
			e--
		}
		off = max(off, e)
		slash := strings.IndexByte(text[s:e], '/')
		if slash < 0 {
			continue
		}
		// Skip the segments up to the last one naming the hook, and the
		// letters-only ones after it.
		p := s + slash + 1
		for seg := 0; seg < 4 && p < e; seg++ {
			q := strings.IndexByte(text[p:e], '/')
			if q < 0 {
				break
			}
			part := lower[p : p+q]
			if !strings.Contains(part, "hook") && strings.Trim(part, "abcdefghijklmnopqrstuvwxyz") != "" {
				break
			}
			p += q + 1
		}
		rest := text[p:e]
		if !strings.Contains(lower[s:p], "hook") || rest == "" {
			continue
		}
		random := false
		for _, seg := range strings.FieldsFunc(rest, func(r rune) bool { return r == '/' || r == '@' || r == '?' || r == '&' || r == '=' }) {
			if randomLooking(seg) && !placeholderValue(seg) {
				random = true
			}
		}
		if random && !placeholderValue(rest) {
			add(Finding{Kind: KindSecret, Type: SecretAPIKey, Level: LevelProbable, Start: p, End: e, Reason: "webhook URL"})
		}
	}
}

// contextSecrets adds a probable finding for each value its sentence names
// as a credential, with the span of the value alone.
func contextSecrets(text, lower string, opt sentenceOptions, add func(Finding)) {
	ms := findNaming(text, lower)
	first := -1
	for i, m := range ms {
		if m.kind.credential() {
			first = i
			break
		}
	}
	if first < 0 {
		return // most texts name no credential
	}
	skipUntil := 0
	for idx, m := range ms {
		if !m.kind.credential() || m.start < skipUntil {
			continue
		}
		kind, noun, start, end, ok := nounPhrase(text, m, ms, idx)
		skipUntil = end
		if !ok || publicNoun(text, m, ms) || ofNonSecret(text, m, ms, idx) || negated(text, m) {
			continue
		}
		// In a URL query ("?token=…&channel=…"), "&" ends the value.
		query := start > 0 && (text[start-1] == '?' || text[start-1] == '&')
		// A verb-like noun ("pass") is a noun after "with" or a determiner.
		linkOnly := m.linkOnly && !determinerBefore(lower, m.start)
		c := contextScan{text: text, lower: lower, ms: ms, next: idx + 1, kind: kind, noun: noun, at: start, query: query, linkOnly: linkOnly, opt: opt, add: add}
		if linkOnly || !c.before(start) {
			c.copulaBefore(start)
			c.follow(end)
		}
	}
	oneSecrets(text, lower, ms, ms[first].end, opt, add)
}

// determinerBefore reports "with", "using" or a determiner right before
// lower[i]: "with pass …", "the pass …" use "pass" as a noun.
func determinerBefore(lower string, i int) bool {
	head := strings.TrimRight(lower[max(0, i-10):i], " ")
	w := head[strings.LastIndexByte(head, ' ')+1:]
	switch w {
	case "with", "using", "the", "a", "my", "our", "your", "his", "her", "their", "its", "new":
		return true
	}
	return strings.HasSuffix(head, ",") // "user u8k2j, pass …"
}

// oneAdjectives come before "one" standing for a credential named earlier:
// "the new one is …", "current one:".
var oneAdjectives = map[string]bool{
	"new": true, "current": true, "old": true, "latest": true, "active": true, "right": true,
	"correct": true, "real": true, "working": true, "valid": true, "live": true, "prod": true,
	"production": true, "staging": true, "actual": true, "rotated": true, "fresh": true,
}

// oneSecrets follows "the new one", "current one" and "it's" to a value
// when a credential noun comes before them in the same sentence: "The
// Twilio auth token was rotated, the new one is …", "the password got
// changed; now it's …".
func oneSecrets(text, lower string, ms []namingMatch, from int, opt sentenceOptions, add func(Finding)) {
	for _, pron := range []string{" one", " value", " it's ", " it is ", " it’s ", " la nueva", " el nuevo", " la nouvelle", " le nouveau", " a nova", " o novo", " la nuova", " il nuovo", " das neue", " der neue", " die neue"} {
		pronounSecrets(text, lower, ms, from, opt, pron, add)
	}
}

// pronounSecrets follows each pron after from.
func pronounSecrets(text, lower string, ms []namingMatch, from int, opt sentenceOptions, pron string, add func(Finding)) {
	for off := from; ; {
		i := strings.Index(lower[off:], pron)
		if i < 0 {
			return
		}
		i += off + 1
		e := i + len(pron) - 1
		off = e
		noun := pron == " one" || pron == " value"
		other := !noun && !strings.HasPrefix(pron, " it")
		if other && (e < len(text) && isWordRune(rune(text[e]))) {
			continue // "la nueva versión", "das neuere"
		}
		if noun {
			if e < len(text) && isWordRune(rune(text[e])) {
				continue
			}
			w := strings.LastIndexByte(lower[max(0, i-16):i-1], ' ')
			adj := strings.TrimLeft(lower[max(0, i-16)+w+1:i-1], "(\"'")
			if !oneAdjectives[adj] && !(pron == " value" && (adj == "the" || adj == "its")) {
				continue
			}
		}
		lo := max(0, i-120)
		for _, end := range []string{". ", "\n", "。"} {
			if k := strings.LastIndex(text[lo:i], end); k >= 0 {
				lo += k + len(end)
			}
		}
		// "… cambiado la contraseña del wifi. La nueva es …": the noun
		// may be in the sentence before.
		if (other || !noun) && lo > 2 && text[lo-2] == '.' {
			if k := strings.LastIndex(text[max(0, lo-160):lo-2], ". "); k >= 0 {
				lo = max(0, lo-160) + k + 2
			} else {
				lo = max(0, lo-160)
			}
		}
		k := sort.Search(len(ms), func(j int) bool { return ms[j].start >= i })
		for j := k - 1; j >= 0 && ms[j].start >= lo; j-- {
			if ms[j].kind == nameNonSecret || ms[j].kind == nameNonSecretMod {
				break
			}
			if ms[j].kind.credential() && publicNoun(text, ms[j], ms) {
				break // "the public token …; it's URL-restricted"
			}
			if ms[j].kind.credential() {
				// "the new one works" is no value: "one" needs a link;
				// "new value X" does not.
				c := contextScan{text: text, lower: lower, ms: ms, next: k, kind: ms[j].kind, noun: ms[j].word, at: ms[j].start, linkOnly: pron != " value", opt: opt, add: add}
				if noun || other {
					c.follow(e)
				} else {
					c.value(e, true, false) // "it's" holds its link
				}
				break
			}
		}
	}
}

// copulas link a value written first to the noun after it: "Pumpk1n1857
// is the admin password", "X ist das neue Root-Passwort", "X est le mot
// de passe".
var copulas = []string{" is the ", " is our ", " is my ", " is your ", " was the ", " is now the ", " are the ",
	" ist das ", " ist der ", " ist die ", " ist unser ", " est le ", " est la ", " est notre ", " es la ", " es el ",
	" es nuestra ", " é a ", " é o ", " è la ", " è il ", " — это ", " - это ", " это ", " — that's the ", " - that's the ", " — that is the ", " is what ",
	" — ", " ← ", " <- "}

// copulaBefore adds the value that opens a sentence (or a line, or a note
// after "remember:") and is linked by a copula to the noun at start, with
// at most three words between: "78Anch0r$$ is the new admin password".
// The value must have the shape the noun asks for after a link.
func (c *contextScan) copulaBefore(start int) bool {
	text, lower := c.text, c.lower
	lo := max(0, start-72)
	for _, cop := range copulas {
		k := strings.LastIndex(lower[lo:start], cop)
		if k < 0 {
			continue
		}
		k += lo
		if strings.Count(lower[k+len(cop):start], " ") > 3 || strings.ContainsAny(lower[k+len(cop):start], ".,;:()\n") {
			continue
		}
		e := k
		for e > 0 && strings.IndexByte("`'\"", text[e-1]) >= 0 {
			e--
		}
		s := strings.LastIndexAny(text[max(0, e-maxValue):e], " \t\n`'\"(") + 1 + max(0, e-maxValue)
		if s >= e || !valueOpens(text, s) {
			return false
		}
		// After a dash or an arrow only digits or a chosen password: "9156
		// — the ATM PIN", "3741 ← 신한카드 비번"; not "`_auth.py` — Token
		// retrieval".
		if strings.TrimSpace(cop) == "—" || strings.TrimSpace(cop) == "←" || strings.TrimSpace(cop) == "<-" {
			if v := text[s:e]; !(allDigits(v) && len(v) >= 4 && len(v) <= 12) && !chosenShape(v) {
				return false
			}
		}
		if c.shapeFits(text[s:e], true, false) {
			c.emit(s, e)
			return true
		}
		return false
	}
	return false
}

// valueOpens reports whether text[s] opens a sentence, a line or a note:
// the start, a line break, a sentence's end, or a label's colon before it.
func valueOpens(text string, s int) bool {
	p := strings.TrimRight(text[:s], " \t`'\"(")
	if p == "" || strings.HasSuffix(p, "\n") {
		return true
	}
	last := p[len(p)-1]
	return last == '.' || last == ':' || last == '!' || last == '?' || last == '-' || last == '*' || last == '>' || strings.HasSuffix(p, "—")
}

// asWords introduce a noun that names the value before them: "use X as
// the password", "X als Passwort", "X comme mot de passe".
var asWords = []string{" as the", " as a", " as an", " as your", " as our", " as my", " as", " als", " comme", " como", " come"}

// before adds the value that comes before the noun when an "as" phrase
// links them ("Use glpat-… as the password"). The value must have the
// shape the noun asks for with no link before it.
func (c *contextScan) before(start int) bool {
	text := c.text
	lo := max(0, start-40)
	lh := c.lower[lo:start]
	if !strings.Contains(lh, " as") && !strings.Contains(lh, " com") {
		return false // the cheap test first: every asWord holds one of these
	}
	for _, w := range asWords {
		// "as the" and at most two words more before the noun: "as the API
		// key", "as the staging deploy token".
		k := strings.LastIndex(lh, w+" ")
		if k < 0 || strings.Count(lh[k+len(w)+1:], " ") > 2 || strings.ContainsAny(lh[k:], ".,;:\n") {
			continue
		}
		e := lo + k
		for e > 0 && strings.IndexByte("`'\"", text[e-1]) >= 0 {
			e--
		}
		s := strings.LastIndexAny(text[max(0, e-maxValue):e], " \t\n`'\"(") + 1 + max(0, e-maxValue)
		if s < e && c.shapeFits(text[s:e], false, false) {
			c.emit(s, e)
			return true
		}
		return false
	}
	return false
}

// nounPhrase returns what the credential noun m names and where its noun
// phrase ends: an identifier holding it ("STRIPE_SECRET_KEY") is named by
// its parts, as assignments are; a noun followed by another noun ("secret
// key", "key fingerprint", "password policy") leaves the naming to that
// one.
func nounPhrase(text string, m namingMatch, ms []namingMatch, idx int) (kind namingKind, noun string, start, end int, ok bool) {
	// An identifier: expand over letters, digits and "_".
	if (m.start > 0 && text[m.start-1] == '_') || (m.end < len(text) && text[m.end] == '_') {
		a, b := m.start, m.end
		for a > 0 && isIdentByte(text[a-1]) {
			a--
		}
		for b < len(text) && isIdentByte(text[b]) {
			b++
		}
		if b-a > maxName {
			return 0, "", a, b, false
		}
		name := text[a:b]
		parts := strings.Split(strings.ToLower(name), "_")
		last := parts[len(parts)-1]
		if descriptorParts[last] || headChange[last] {
			return 0, "", a, b, false
		}
		if publicName(name) {
			return 0, "", a, b, false
		}
		strong, weak := nameKind(name)
		switch {
		case !strong && !weak:
			return 0, "", a, b, false
		case strong:
			for _, p := range parts {
				if strings.HasSuffix(p, "password") || strings.HasSuffix(p, "passwd") || p == "pwd" {
					return namePassword, name, a, b, true
				}
			}
			return nameSecret, name, a, b, true
		}
		return nameKey, name, a, b, true
	}
	// The next word: another naming word or a head-changing noun.
	j := m.end
	if j < len(text) && (text[j] == ' ' || text[j] == '-') {
		j++
	}
	if idx+1 < len(ms) && ms[idx+1].start == j {
		return 0, "", m.start, m.end, false // "clé publique", "chiave pubblica" too
	}
	k := j
	for k < len(text) && (text[k] >= 'a' && text[k] <= 'z' || text[k] >= 'A' && text[k] <= 'Z') {
		k++
	}
	// "password reset" is a reset; "password reset to X" is a password.
	if k > j && k-j <= 16 && headChange[asciiLower(text[j:k])] && !strings.HasPrefix(asciiLower(text[k:]), " to ") {
		return 0, "", m.start, m.end, false
	}
	return m.kind, m.word, m.start, m.end, true
}

// ofNonSecret reports a credential noun that only qualifies a non-secret
// one before it: "the fingerprint of the signing key", "the SHA-256 of
// the API key", "l'empreinte de la clé".
func ofNonSecret(text string, m namingMatch, ms []namingMatch, idx int) bool {
	lo := clauseStart(text, m.start, 48)
	for j := idx - 1; j >= 0 && ms[j].start >= lo; j-- {
		if ms[j].kind != nameNonSecret {
			continue
		}
		between := " " + strings.ToLower(text[ms[j].end:m.start]) + " "
		// "the commit that removed the password is …": the noun is in a
		// clause about the non-secret one, which the link belongs to.
		for _, w := range []string{" that ", " which ", " where ", " que ", " qui ", " der ", " die ", " das ", " che ", " который ", " которая ", " которое "} {
			if strings.Contains(between, w) {
				return true
			}
		}
		for _, w := range []string{" of ", " for ", " de ", " du ", " des ", " der ", " des ", " von ", " del ", " da ", " do ", " di ", " della ", " dello ", " dell'"} {
			if strings.Contains(between, w) {
				return true
			}
		}
	}
	return false
}

func isIdentByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// descriptorParts end identifiers that describe a credential without
// holding it: "API_KEY_ID", "SECRET_NAME", "TOKEN_URL".
var descriptorParts = map[string]bool{
	"id": true, "ids": true, "name": true, "names": true, "path": true, "file": true, "url": true,
	"uri": true, "endpoint": true, "type": true, "version": true, "length": true, "size": true,
	"count": true, "alias": true, "arn": true, "region": true, "format": true, "expiry": true,
	"expires": true, "ttl": true, "header": true, "field": true, "param": true, "location": true,
	"ref": true, "fingerprint": true, "hash": true, "env": true, "var": true, "label": true,
}

// contextScan follows one credential noun to its value.
type contextScan struct {
	text  string
	lower string // asciiLower(text)
	ms    []namingMatch
	next  int // index in ms of the first naming word after the noun
	kind  namingKind
	noun  string
	at    int  // where the noun starts
	query bool // the noun names a URL query parameter
	// linkOnly: the noun names a value only through a link
	linkOnly bool
	opt      sentenceOptions
	add      func(Finding)
}

// maxValue is the longest value read.
const maxValue = 256

// sentenceOptions are the limits of the sentence reading. They were set
// by hand and checked by leaving each kind of sentence out of the choice
// (TestEvalSecretsProseLOKO).
type sentenceOptions struct {
	gapWords  int // most words between a noun and its link; ten bytes each
	appMin    int // shortest password standing right after its noun ("password D#8w…")
	linkedMin int // shortest password-like secret or token after a link
	minGroups int // fewest groups of a value written in groups (two when joined by "+")
}

var defaultSentence = sentenceOptions{gapWords: 10, appMin: 8, linkedMin: 8, minGroups: 3}

func (c *contextScan) follow(i int) {
	text := c.text
	// A Chinese or Japanese noun glued to its value: "密码aini520",
	// "密码8552".
	if i > 0 && i < len(text) && isASCIIAlnum(text[i]) {
		if r, _ := utf8.DecodeLastRuneInString(text[:i]); cjk(r) && c.value(i, true, false) {
			return
		}
	}
	// A particle or copula glued to the noun: "パスワードは", "키는", "密钥是".
	if n := particleAt(text, i); n > 0 {
		if c.value(i+n, true, false) {
			return
		}
	}
	// Groups of four in base32 right after the noun: "using the app
	// password rgdc dfuv zicf wsol on …".
	if i < len(text) && text[i] == ' ' && c.kind != namePIN && c.kind != nameLogin {
		if end, ok := base32Groups(text, i+1); ok {
			c.emit(i+1, end)
			return
		}
		if end, ok := appPasswordGroups(text, i+1); ok {
			c.emit(i+1, end)
			return
		}
	}
	// The value right after the noun: "the automation token npm_…",
	// "la clé (…)", "पासवर्ड !PX?… है".
	if i < len(text) && text[i] == ' ' && !c.linkOnly {
		if c.value(i+1, false, false) {
			return
		}
	}
	// Set off by commas: "a temporary password, +7LS^iQCG, valid until …".
	if strings.HasPrefix(text[i:], ", ") && !c.linkOnly {
		if c.value(i+2, false, false) {
			return
		}
	}
	// The closing quote or bracket of a quoted name: `"api_key": "…"`,
	// "AppSecret（开发者密码）e707…".
	if i < len(text) && strings.IndexByte("\"'`]", text[i]) >= 0 {
		i++
	} else if strings.HasPrefix(text[i:], "）") {
		i += len("）")
		if c.value(i, true, false) {
			return
		}
	}
	spaces := 0
	for j := i; j < len(text) && j-i <= 10*c.opt.gapWords; {
		if sentenceEnd(text, j) > 0 || strings.IndexByte("{}[]", text[j]) >= 0 {
			return
		}
		if n, hard, nl := linkAt(text, j, j == i); n > 0 {
			if c.value(j+n, true, nl) || hard {
				return
			}
			j += n
			continue
		}
		for c.next < len(c.ms) && c.ms[c.next].start < j {
			c.next++
		}
		if c.next < len(c.ms) && c.ms[c.next].start == j && !c.passes(c.ms[c.next]) && !(c.ms[c.next].kind.credential() && prepositionIn(c.lower[i:j])) {
			// Another noun names what follows, unless it is the object of
			// the first: "the passphrase for the signing key is …", "la
			// passphrase della chiave SSH è …".
			return
		}
		// "pin de la tarjeta del BBVA 9161": a PIN's digits end its noun
		// phrase.
		if c.kind == namePIN && text[j] == ' ' && j+1 < len(text) && isDigit(text[j+1]) && !cardEnding(c.lower[max(0, j-30):j]) {
			k := j + 1
			for k < len(text) && isDigit(text[k]) {
				k++
			}
			if n := k - j - 1; n >= 4 && n <= 12 && (k == len(text) || !isASCIIAlnum(text[k])) && c.value(j+1, true, false) {
				return
			}
		}
		// An aside in brackets, full-width ones too: "the master password
		// (she asked me to keep it …): …", "AppSecret（开发者密码）…". A
		// PIN's digits alone in brackets are its value: "il PIN del
		// bancomat (70528)".
		if open := strings.HasPrefix(text[j:], "（"); text[j] == '(' || open {
			closer, w := ")", 1
			if open {
				closer, w = "）", len("（")
			}
			k := strings.Index(text[j:min(len(text), j+160)], closer)
			if k <= 0 || strings.IndexByte(text[j:j+k], '\n') >= 0 {
				return
			}
			if in := text[j+w : j+k]; (c.kind == namePIN || c.kind == namePassword) && len(in) >= 4 && len(in) <= 12 && allDigits(in) {
				c.emit(j+w, j+k)
				return
			}
			j += k + len(closer)
			continue
		}
		switch text[j] {
		case ' ':
			// French sets a space before ":"; it parts no words, and
			// neither do the short words of a noun phrase ("de la", "of
			// the", "del").
			if !strings.HasPrefix(text[j+1:], ":") && !shortWordAt(text, j+1) {
				spaces++
			}
			if spaces > c.opt.gapWords {
				c.farColon(j)
				return
			}
		}
		_, n := utf8.DecodeRuneInString(text[j:])
		j += n
	}
}

// cardEnding reports words before digits that make them a card's last
// four: "terminada en 1963", "ending in 6556".
func cardEnding(before string) bool {
	b := strings.TrimRight(before, " ")
	for _, w := range []string{"ending in", "ending", "ends in", "terminada en", "terminado en", "terminado em", "terminada em",
		"se terminant par", "terminant par", "terminante con", "terminante in", "endet auf", "endend auf", "на", "末尾"} {
		if strings.HasSuffix(b, w) {
			return true
		}
	}
	return false
}

// farColon reads past the gap limit for a key or token noun: a ": "
// later in the same sentence (within 160 bytes, no other credential noun
// between) with a value that looks generated after it ("Cloudflare API
// token with Zone.DNS edit on …, used by the certbot DNS hook: eWBE…").
// Only a generated value is taken that far from its noun.
func (c *contextScan) farColon(j int) {
	if c.kind != nameKey && c.kind != nameSecret {
		return
	}
	rest := c.text[j:min(len(c.text), j+160)]
	k := strings.Index(rest, ": ")
	if k < 0 || sentenceEndIn(rest[:k]) >= 0 {
		return
	}
	for _, m := range c.ms[c.next:] {
		if m.start >= j+k {
			break
		}
		if m.kind.credential() || m.kind == nameNonSecret {
			return
		}
	}
	vs := skipBlanks(c.text, j+k+2)
	a, b, _ := readValue(c.text, vs, false)
	if a < 0 {
		return
	}
	if v := c.text[a:b]; len(v) >= 20 && generatedLooking(v) && randomLooking(v) && !rejectValue(v) {
		c.emit(a, b)
	}
}

// passes reports the naming words the reading goes past between a noun
// and its link: modifiers, weak non-secret nouns ("the token for the
// build is …"), and the account a password belongs to ("the password for
// the admin account is …").
func (c *contextScan) passes(m namingMatch) bool {
	return m.kind == nameNonSecretMod || m.kind == nameKeyMod || weakNonSecret[m.word] || m.kind == nameLogin && c.kind != nameLogin
}

// particleAt returns the length of a particle or copula glued to a Chinese,
// Japanese or Korean noun at text[i], or 0.
func particleAt(text string, i int) int {
	for _, p := range []string{"は", "が", "を", "는", "은", "이", "가", "를", "을", "是", "为", "為"} {
		if strings.HasPrefix(text[i:], p) {
			return len(p)
		}
	}
	return 0
}

// linkAt returns the length of a link at text[j] (0 if none), whether it
// is a hard link (after which the value must come), and whether the value
// may start on the next line (after ":" and "="). first says text[j]
// follows the noun directly: there ":" and "=" link whatever follows
// ("password:hunter2x"); further on they must stand apart from the words
// around them, so that "host:5432" and "a=b" inside a URL do not link.
func linkAt(text string, j int, first bool) (n int, hard, newline bool) {
	apart := func(k int) bool {
		return k >= len(text) || strings.IndexByte(" \t\n\"'`", text[k]) >= 0
	}
	switch c := text[j]; c {
	case ':':
		if strings.HasPrefix(text[j:], "://") || !first && !apart(j+1) {
			return 0, false, false
		}
		return 1, true, true
	case '=':
		if strings.HasPrefix(text[j:], "==") {
			return 0, false, false
		}
		if strings.HasPrefix(text[j:], "=>") {
			return 2, true, false
		}
		if !first && text[j-1] != ' ' {
			return 0, false, false
		}
		return 1, true, true
	case '-':
		if strings.HasPrefix(text[j:], "->") {
			return 2, true, false
		}
		if strings.HasPrefix(text[j:], "-- ") && j > 0 && text[j-1] == ' ' {
			return 2, true, false
		}
		if j > 0 && text[j-1] == ' ' && j+1 < len(text) && text[j+1] == ' ' {
			return 1, true, false
		}
		return 0, false, false
	}
	if text[j] >= 0x80 {
		for _, p := range []string{"：", "＝", "—", "–", "→", "是", "为", "為", "改成了", "改成", "改为", "设为", "设置为", "换成"} {
			if strings.HasPrefix(text[j:], p) {
				return len(p), true, p == "："
			}
		}
	}
	// A word: at a word start, followed by a non-letter; "c'est" links
	// as "est" does.
	if j > 0 && text[j-1] != ' ' && !elided(text, j) {
		return 0, false, false
	}
	k := j
	for k < len(text) {
		r, n := utf8.DecodeRuneInString(text[k:])
		if !isWordRune(r) {
			break
		}
		k += n
	}
	if k == j || k-j > 12 {
		return 0, false, false
	}
	w := strings.ToLower(text[j:k])
	switch {
	case w == "be" && !modalBefore(text, j):
		return 0, false, false // "to be written on the plate", "can be unlocked"
	case wordLinks[w]:
		return k - j, true, false
	case softLinks[w]:
		return k - j, false, false
	}
	return 0, false, false
}

// elided reports "c'" or "c’" right before text[j]: "c'est".
func elided(text string, j int) bool {
	h := strings.ToLower(text[max(0, j-4):j])
	return strings.HasSuffix(h, "c'") || strings.HasSuffix(h, "c’")
}

// modalBefore reports "would", "will", "should" or "'ll" right before
// text[j]: "the password would be …", "it'll be …".
func modalBefore(text string, j int) bool {
	h := strings.ToLower(strings.TrimRight(text[max(0, j-8):j], " "))
	return strings.HasSuffix(h, "would") || strings.HasSuffix(h, "will") || strings.HasSuffix(h, "should") || strings.HasSuffix(h, "'ll") || strings.HasSuffix(h, "’ll")
}

// value reads the value at text[p:] and adds it if its shape fits the
// noun. linked says a link came before it. It reports whether it added.
func (c *contextScan) value(p int, linked, newline bool) bool {
	text := c.text
	q := skipBlanks(text, p)
	if newline && q < len(text) && text[q] == '\n' {
		q = skipBlanks(text, q+1)
		if assignmentAt(text, q) {
			return false // "NAVER_CLIENT_SECRET=\nAPP_ENV=local": an empty value
		}
		if strings.HasPrefix(text[q:], "- ") || strings.HasPrefix(text[q:], "* ") {
			q += 2 // a list: "codes:\n- 8ukr-efms\n- …"
		} else if q+3 <= len(text) && text[q] == '1' && (text[q+1] == '.' || text[q+1] == ')') && text[q+2] == ' ' {
			q += 3 // "shares:\n1. iDQ0…\n2. ma8f…"
		}
	}
	if linked && q < len(text) && text[q] == ':' && !strings.HasPrefix(text[q:], "://") {
		// "is: X", "lautet: X": a colon after a link word.
		q = skipBlanks(text, q+1)
	}
	if linked {
		// "is now", "was reset to", "is literally".
		for range 3 {
			k := q
			for k < len(text) {
				r, n := utf8.DecodeRuneInString(text[k:])
				if !unicode.IsLower(r) {
					break
				}
				k += n
			}
			if k == q || !linkAdverbs[text[q:k]] && !wordLinks[text[q:k]] || k == len(text) || text[k] != ' ' {
				break
			}
			q = skipBlanks(text, k)
		}
	}
	if q >= len(text) {
		return false
	}
	// Words of another alphabet, which readValue does not read.
	if c.kind == namePassword && linked && text[q] >= 0x80 && phraseNoun(c.noun) {
		if end, ok := wordPhrase(text, q); ok {
			c.emit(q, end)
			return true
		}
	}
	// A password in another alphabet: "РомашкаЛасточка1965"; a code word
	// ("кодовое слово …: Подсолнух").
	if c.kind == namePassword && linked && text[q] >= 0x80 {
		if end, ok := foreignPassword(text, q); ok {
			c.emit(q, end)
			return true
		}
		if spokenNoun(c.noun) {
			k := q
			for k < len(text) {
				r, n := utf8.DecodeRuneInString(text[k:])
				if !unicode.IsLetter(r) {
					break
				}
				k += n
			}
			if utf8.RuneCountInString(text[q:k]) >= 4 {
				c.emit(q, k)
				return true
			}
		}
	}
	vs, ve, quoted := readValue(text, q, !linked)
	if vs < 0 {
		return false
	}
	if c.query && !quoted {
		if amp := strings.IndexByte(text[vs:ve], '&'); amp >= 0 {
			ve = vs + amp
		}
	}
	// A value cut into groups: "ghp_ev 8Knzm5 POjOS7 …", "npm_sj2umH\nhe5S…".
	if !quoted {
		if end, ok := groupedValue(text, vs, ve, c.opt.minGroups); ok {
			if pgpFingerprint(text[vs:min(len(text), vs+51)]) || ibanAt(text, vs) {
				return false // "735D 0492 7531 59EA 5D2B  D864 …": a key's fingerprint; an IBAN
			}
			c.emit(vs, end)
			return true
		}
	}
	if c.kind == namePassword && linked && !quoted && phraseNoun(c.noun) {
		if end, ok := wordPhrase(text, vs); ok {
			c.emit(vs, end)
			return true
		}
	}
	// After a colon, or named by a variable ("RESTIC_PASSWORD is …"), a
	// phrase may hold small words: "seven crimson pebbles above the
	// crooked biscuit".
	if c.kind == namePassword && linked && !quoted && (colonBefore(text, q) || strings.Contains(c.noun, "_")) {
		if end, ok := loosePhrase(text, vs); ok {
			c.emit(vs, end)
			return true
		}
	}
	// "z5bb yddi ibcd ivuy lyyb okmo oddr 4aou" (a TOTP setup key), "fxly
	// btxz cztr dpif" (an app password): groups of four in base32.
	if !quoted && c.kind != namePIN && c.kind != nameLogin {
		if end, ok := base32Groups(text, vs); ok {
			c.emit(vs, end)
			return true
		}
	}
	if (c.kind == nameCode || c.kind == nameKey && loginCue(text)) && !quoted {
		if end, ok := digitGroups(text, vs); ok && !rejectValue(text[vs:end]) {
			c.emit(vs, end)
			c.more(text[vs:end], end)
			return true
		}
	}
	if c.kind == namePassword && linked && !quoted {
		if end, ok := c.letterGroups(vs); ok {
			c.emit(vs, end)
			return true
		}
	}
	if !linked && strings.HasPrefix(text[ve:], " है") {
		linked = true // Hindi puts the copula after the value: "कोड X है"
	}
	v := text[vs:ve]
	if c.kind == nameLogin {
		for _, sep := range []byte{':', '/'} {
			// "creds bob:S3cr3t-pw", "Creds: admin/Xk29!pq#Lm": a user
			// name, then a password (a path has no password-like part).
			// Only the password is redacted.
			if i := strings.IndexByte(v, sep); i > 0 && i < len(v)-1 && strings.IndexByte(v[i+1:], '/') < 0 {
				if pw := v[i+1:]; looksLikePassword(literal(pw)) && !rejectValue(pw) && userName(v[:i]) {
					c.emit(vs+i+1, ve)
					return true
				}
			}
		}
	}
	if c.shapeFits(v, linked, quoted) {
		c.emit(vs, ve)
		c.more(v, ve)
		return true
	}
	// "login: admin / S3cr3t-pw", "creds bob:S3cr3t-pw".
	if c.kind == nameLogin || c.kind == namePassword {
		if rest := text[ve:]; len(v) <= 32 && (strings.HasPrefix(rest, " / ") || strings.HasPrefix(rest, "/")) {
			s := ve + strings.IndexByte(rest, '/') + 1
			s = skipBlanks(text, s)
			if a, b, _ := readValue(text, s, false); a >= 0 && looksLikePassword(literal(text[a:b])) && !rejectValue(text[a:b]) {
				c.emit(a, b)
				return true
			}
		}
	}
	return false
}

// more adds the values listed after first, which ended at i: "AKIA… /
// 9Fz…", "X…, Y… and Z…", a line per recovery code. Each must look
// generated or have first's shape (see sameShape).
func (c *contextScan) more(first string, i int) {
	text := c.text
	for range maxListed {
		s := -1
		// A numbered list: "\n2. …".
		if i+4 <= len(text) && text[i] == '\n' && isDigit(text[i+1]) && (text[i+2] == '.' || text[i+2] == ')') && text[i+3] == ' ' {
			s = i + 4
		}
		for _, sep := range listSeparators {
			if s >= 0 {
				break
			}
			if strings.HasPrefix(text[i:], sep) {
				s = i + len(sep)
				break
			}
		}
		// Codes of one shape may also be parted by spaces: "80809387
		// 66019796 07360119".
		spaced := false
		if s < 0 && strings.HasPrefix(text[i:], " ") && strings.IndexByte(first, ' ') < 0 {
			s, spaced = i+1, true
		}
		if s < 0 {
			return
		}
		var a, b int
		if strings.IndexByte(first, ' ') > 0 {
			// "3444 6396, 8598 0501": codes of digit groups.
			a = skipBlanks(text, s)
			end, ok := digitGroups(text, a)
			if !ok {
				return
			}
			b = end
		} else {
			a, b, _ = readValue(text, skipBlanks(text, s), false)
		}
		if a < 0 || spaced && !sameShape(first, text[a:b]) {
			return
		}
		switch v := text[a:b]; {
		case sameShape(first, v):
			// One of a sheet of codes: its shape is enough, even where
			// alone it would read as words ("ixlh-bkrz").
			if !notPlaceholder(v) {
				return
			}
		case rejectValue(v) || !randomLooking(v):
			return
		}
		c.emit(a, b)
		i = b
	}
}

// maxListed bounds the values more reads after the first: a sheet of
// recovery codes holds ten to sixteen.
const maxListed = 16

// listSeparators part the values of a list, longest first.
var listSeparators = []string{"\n- ", "\n* ", " and ", " und ", " et ", " y ", " e ", " / ", " | ", ", ", "; ", "，", "、", "\n"}

// sameShape reports whether v is written as first is: as long, with the
// same punctuation at the same places, letters and digits elsewhere (all
// digits when first is). A list of codes of one shape is one kind of
// value: "pq2mt-r6d4z, 9q70k-ua2lm, …", "93813533, 74520948, …".
func sameShape(first, v string) bool {
	if len(v) != len(first) || len(v) < 4 {
		return false
	}
	digitsOnly := allDigits(strings.NewReplacer("-", "", " ", "").Replace(first))
	for k := 0; k < len(v); k++ {
		a, b := first[k], v[k]
		an := isASCIIAlnum(a)
		switch {
		case an != isASCIIAlnum(b):
			return false
		case !an && a != b:
			return false
		case an && digitsOnly && (b < '0' || b > '9'):
			return false
		}
	}
	return true
}

func isASCIIAlnum(ch byte) bool {
	return ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9'
}

// prepositions that make the noun after them the object of the noun
// before: "the passphrase for the signing key", "el PIN de la tarjeta".
var prepositions = map[string]bool{
	"for": true, "of": true, "on": true, "to": true, "de": true, "del": true, "della": true, "dello": true,
	"delle": true, "dei": true, "di": true, "du": true, "des": true, "da": true, "do": true, "für": true,
	"vom": true, "von": true, "zum": true, "zur": true, "для": true, "от": true, "к": true,
}

// prepositionIn reports whether s, the words between two nouns, holds a
// preposition.
func prepositionIn(s string) bool {
	for _, w := range strings.Fields(s) {
		if prepositions[strings.Trim(w, ",:")] {
			return true
		}
	}
	return false
}

// phraseNoun reports a noun that names words as its value: a passphrase,
// a wallet's seed or recovery phrase.
func phraseNoun(noun string) bool {
	n := strings.ToLower(noun)
	for _, w := range []string{"phrase", "frase", "mnemonic", "seed", "words", "passphrase", "palavras", "助记词", "短语", "フレーズ", "фраз", "문구", "फ्रेज़", "फ्रेज"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// phraseStops are words a passphrase of random words does not hold but a
// sentence about one does: "the passphrase is kept in the safe".
var phraseStops = map[string]bool{
	"the": true, "a": true, "an": true, "in": true, "on": true, "at": true, "to": true, "of": true, "for": true,
	"from": true, "by": true, "with": true, "is": true, "are": true, "was": true, "be": true, "been": true,
	"and": true, "or": true, "not": true, "no": true, "it": true, "this": true, "that": true, "as": true,
	"our": true, "your": true, "my": true, "their": true, "his": true, "her": true, "its": true, "we": true,
	"you": true, "they": true, "will": true, "can": true, "should": true, "must": true, "has": true, "have": true,
	"every": true, "each": true, "all": true, "any": true, "only": true, "still": true, "now": true,
	"stored": true, "kept": true, "saved": true, "set": true, "changed": true, "rotated": true, "reset": true,
	"required": true, "written": true, "shared": true, "sent": true, "used": true, "updated": true, "needed": true,
}

// foreignPassword reads a password written in letters of another alphabet
// at text[q:]: one run of letters and digits, six runes or more, with
// digits and letters both, up to a space or punctuation.
func foreignPassword(text string, q int) (int, bool) {
	k, letters, digits := q, 0, 0
	for k < len(text) {
		r, n := utf8.DecodeRuneInString(text[k:])
		switch {
		case unicode.IsLetter(r):
			letters++
		case unicode.IsDigit(r):
			digits++
		case strings.ContainsRune("!#$%^&*?~@+=_-", r):
		default:
			return k, letters >= 3 && digits >= 1 && letters+digits >= 6 && !unicode.Is(unicode.Han, r)
		}
		k += n
	}
	return k, letters >= 3 && digits >= 1 && letters+digits >= 6
}

// pgpFingerprint reports an OpenPGP fingerprint as GnuPG prints it: ten
// groups of four hex digits.
func pgpFingerprint(v string) bool {
	f := strings.Fields(v)
	if len(f) < 10 {
		return false
	}
	f = f[:10]
	for _, g := range f {
		if g = strings.TrimRight(g, ".,;:)"); len(g) != 4 || !isHex(g) {
			return false
		}
	}
	return true
}

// shortWordAt reports a word of one to three letters at text[j]
// followed by a space: "de", "la", "of", "the", "del".
func shortWordAt(text string, j int) bool {
	k := j
	for k < len(text) && k-j < 4 && (text[k] >= 'a' && text[k] <= 'z') {
		k++
	}
	return k > j && k-j <= 3 && k < len(text) && text[k] == ' '
}

// ibanAt reports an IBAN at text[vs:] ("IBAN NL26 INGB …", "DE89 3704
// …"): a bank account to pay into, which the personal-data layer judges.
func ibanAt(text string, vs int) bool {
	t := strings.TrimPrefix(text[vs:], "IBAN ")
	return len(t) >= 4 && t[0] >= 'A' && t[0] <= 'Z' && t[1] >= 'A' && t[1] <= 'Z' && isDigit(t[2]) && isDigit(t[3]) && (len(t) == 4 || t[4] == ' ' || isASCIIAlnum(t[4]))
}

// colonBefore reports a ":" or "=" (then blanks) right before text[q].
func colonBefore(text string, q int) bool {
	p := strings.TrimRight(text[:q], " \t")
	return strings.HasSuffix(p, ":") || strings.HasSuffix(p, "=") || strings.HasSuffix(p, "：")
}

// looseStops are more words of a sentence about a passphrase, not of one.
var looseStops = map[string]bool{
	"too": true, "very": true, "so": true, "quite": true, "more": true, "less": true, "same": true,
	"like": true, "than": true, "then": true, "when": true, "where": true, "which": true, "who": true,
	"what": true, "how": true, "why": true, "there": true, "here": true, "just": true, "even": true,
	"yet": true, "but": true, "if": true, "because": true, "until": true, "ask": true, "see": true,
	"use": true, "check": true, "unknown": true, "none": true, "different": true, "printed": true,
	"visible": true, "plain": true, "text": true, "file": true, "sticker": true, "note": true,
	// The small words of the other languages: "está en la pegatina …".
	"está": true, "esta": true, "es": true, "en": true, "el": true, "la": true, "los": true, "las": true, "de": true,
	"del": true, "que": true, "se": true, "lo": true, "un": true, "una": true, "est": true, "dans": true, "le": true,
	"les": true, "sur": true, "sous": true, "pas": true, "ist": true, "im": true, "auf": true, "unter": true,
	"nicht": true, "der": true, "die": true, "das": true, "é": true, "em": true, "na": true, "não": true, "è": true,
	"nel": true, "sotto": true, "non": true, "il": true, "находится": true, "на": true, "в": true, "не": true,
}

// loosePhrase reads a passphrase written as a phrase at text[vs:]: four
// to twelve words of lower-case letters (any alphabet), one space between
// them, up to the end of the sentence, line or text; small words are
// allowed ("under the", "above the") but the first word is not one, nor a
// participle ("kept in …", "printed under …"), and four words or more are
// not small.
func loosePhrase(text string, vs int) (int, bool) {
	p, words, content := vs, 0, 0
	for {
		k, letters := p, 0
		for k < len(text) {
			r, n := utf8.DecodeRuneInString(text[k:])
			if !unicode.IsLower(r) {
				break
			}
			k += n
			letters++
		}
		w := text[p:k]
		if letters == 0 {
			return 0, false
		}
		small := phraseStops[w] || looseStops[w] || labelProse[w] || letters < 3
		if words == 0 && (small || strings.HasSuffix(w, "ed") || strings.HasSuffix(w, "ing")) {
			return 0, false
		}
		words++
		if !small {
			content++
		}
		if words > 12 {
			return 0, false
		}
		if k+1 < len(text) && text[k] == ' ' {
			if r, _ := utf8.DecodeRuneInString(text[k+1:]); unicode.IsLower(r) {
				p = k + 1
				continue
			}
		}
		if k < len(text) && strings.IndexByte(".;)\n", text[k]) < 0 {
			return 0, false
		}
		return k, words >= 4 && content >= 4
	}
}

// wordPhrase reads a phrase of random words at text[vs:]: four to
// twenty-four words of three or more lower-case letters (of any
// alphabet: "орбита лампа кедр туман"), one space between them, none a
// word of a sentence (phraseStops), up to the end of the sentence or
// line. It returns where the phrase ends.
func wordPhrase(text string, vs int) (int, bool) {
	lowerAt := func(k int) (int, bool) {
		r, n := utf8.DecodeRuneInString(text[k:])
		return n, unicode.IsLower(r)
	}
	p, words := vs, 0
	for {
		k, letters := p, 0
		for k < len(text) {
			n, ok := lowerAt(k)
			if !ok {
				break
			}
			k += n
			letters++
		}
		if letters < 3 || phraseStops[text[p:k]] {
			return 0, false
		}
		words++
		if words > 24 {
			return 0, false
		}
		if _, next := lowerAt(min(k+1, len(text))); k+1 < len(text) && text[k] == ' ' && next {
			p = k + 1
			continue
		}
		if k < len(text) && !(strings.IndexByte(".,;)\n", text[k]) >= 0) && !strings.HasPrefix(text[k:], " — ") && !strings.HasPrefix(text[k:], " - ") {
			return 0, false
		}
		return k, words >= 4
	}
}

func (c *contextScan) emit(a, b int) {
	if saidPublic(c.text, b) || c.at < a && publicBetween(c.text[c.at:a]) {
		return // "…, which Algolia says is meant to be public"; "site key (public): …"
	}
	if c.kind == namePIN && allDigits(c.text[a:b]) && groupedNumber(c.text, a, b) {
		return // "alarm company line: 07761 445289": a phone number in groups
	}
	typ := SecretPassword
	switch c.kind {
	case nameKey:
		typ = SecretAPIKey
	case nameSecret:
		for _, t := range []string{"token", "jeton", "bearer", "令牌", "トークン", "токен", "Токен", "토큰", "टोकन"} {
			if strings.Contains(strings.ToLower(c.noun), t) {
				typ = SecretAPIKey
				break
			}
		}
	}
	c.add(Finding{Kind: KindSecret, Type: typ, Level: LevelProbable, Start: a, End: b, Reason: "value named as a credential by its sentence (" + truncate(c.noun, 40) + ")"})
}

func skipBlanks(text string, i int) int {
	for i < len(text) && (text[i] == ' ' || text[i] == '\t') {
		i++
	}
	return i
}

// quotePairs maps opening quotes to their closing ones.
var quotePairs = []struct{ open, close string }{
	{`"`, `"`}, {`'`, `'`}, {"`", "`"}, {"“", "”"}, {"‘", "’"}, {"«", "»"}, {"„", "“"}, {"「", "」"}, {"『", "』"},
}

// readValue reads a value at text[q:]: a quoted string on one line, a
// parenthesised run when paren is set, or a run of printable ASCII up to a
// space, a quote, a semicolon, a comma before a space, or any non-ASCII
// character, less trailing punctuation. It returns -1, -1 when there is
// none or it is longer than maxValue.
func readValue(text string, q int, paren bool) (int, int, bool) {
	if q >= len(text) {
		return -1, -1, false
	}
	for _, qp := range quotePairs {
		if strings.HasPrefix(text[q:], qp.open) {
			s := q + len(qp.open)
			lim := min(len(text), s+maxValue)
			e := strings.Index(text[s:lim], qp.close)
			if e <= 0 || strings.IndexByte(text[s:s+e], '\n') >= 0 {
				return -1, -1, false
			}
			return s, s + e, true
		}
	}
	if paren && text[q] == '(' {
		a, b, _ := readValue(text, q+1, false)
		if a >= 0 && b < len(text) && text[b] == ')' {
			return a, b, false
		}
		return -1, -1, false
	}
	e := q
	for e < len(text) {
		ch := text[e]
		if ch <= ' ' || ch >= 0x7f || ch == '"' || ch == '\'' || ch == '`' || ch == '<' || ch == '>' {
			break
		}
		if ch == ';' || ch == ',' && (e+1 == len(text) || text[e+1] == ' ' || text[e+1] == '\n') {
			break // ";" ends a value in prose and in "Key=value;Key=value" strings
		}
		e++
		if e-q > maxValue {
			return -1, -1, false
		}
	}
	for e > q && strings.IndexByte(".,:;)]}", text[e-1]) >= 0 {
		if text[e-1] == ')' && strings.IndexByte(text[q:e], '(') >= 0 {
			break
		}
		e--
	}
	if e == q {
		return -1, -1, false
	}
	return q, e, false
}

// shapeFits says whether v can be the credential the noun names.
func (c *contextScan) shapeFits(v string, linked, quoted bool) bool {
	// A safe's combination: "12-48-07" (read before the date rules).
	if c.kind == namePIN && strings.Count(v, "-") >= 2 && len(v) <= 12 && strings.IndexByte(v, '-') <= 3 && allDigits(strings.ReplaceAll(v, "-", "")) {
		return true
	}
	if c.kind == namePassword && (linked || strings.Count(v, "-") >= 3) && dicewarePhrase(v) {
		return true // "repo password correct-wobble-pocket-summit"
	}
	// "the Wi-Fi key is canyon-toucan-coconut-93", "la clave del wifi es
	// pepper-thunder-walnut": words as a key, with a number or about
	// getting in (a partition key "tenant-region-date" is neither).
	if c.kind == nameKey && linked && dicewarePhrase(v) && (isDigit(v[len(v)-1]) || loginCue(c.text)) {
		return true
	}
	// A Wi-Fi key of digits or hex ("WLAN-Schlüssel …: 00374606847758958915",
	// "暗号化キー：2acdabf3efa18").
	// (Not 44 digits: a Brazilian NF-e "chave de acesso", a public
	// document id.)
	if c.kind == nameKey && loginCue(c.text) && (allDigits(v) && len(v) >= 12 && len(v) != 44 || linked && isHex(v) && !allDigits(v) && len(v) >= 10 || wordThenDigits(v) && digitCount(v) >= 2) && len(v) <= 64 {
		return true
	}
	if rejectValue(v) {
		return false
	}
	v = literal(v)
	switch c.kind {
	case nameLogin:
		// A single value must look generated; "user / password" pairs
		// are read by value. Hex of a commit's or a SHA-256's length
		// after "login" is the commit that broke it.
		return generatedLooking(v) && !wordIdentifier(v) && !(isHex(v) && (len(v) == 40 || len(v) == 64))
	case namePassword:
		if schemeName(v) {
			return false
		}
		switch {
		case quoted:
			return len(v) >= 4 && !placeholderWord(strings.ToLower(v))
		case spokenNoun(c.noun) && len(v) >= 4 && lettersOnly(v) && (linked || c.endsSentence(v)):
			return true // "dizer a palavra-chave maracuja.", a word said on the phone
		case linked:
			// "la senha … agora é 5785762529905", "取款密码…：060701".
			return looksLikePassword(v) || len(v) >= 8 && caseMixed(v) || weakPassword(v) || dicewarePhrase(v) || allDigits(v) && len(v) >= 4 && len(v) <= 24
		}
		// "password 5447", "U 盾密码 70010377", "비밀번호 2769": digits right
		// after the noun.
		if t := strings.TrimRight(v, "#*"); allDigits(t) && len(t) >= 4 && len(t) <= 12 {
			return true
		}
		// "password emma131": a word and digits right after the noun.
		if len(v) >= 6 && wordThenDigits(v) && digitCount(v) >= 2 {
			return true
		}
		return (looksLikePassword(v) || len(v) >= 10 && caseMixed(v)) && len(v) >= c.opt.appMin
	case nameCode:
		// "Abholcode 991979": digits right after a code's noun.
		return generatedLooking(v) || linked && codeShape(v) || allDigits(v) && len(v) >= 6 && len(v) <= 12
	case namePIN:
		// "932592#", "361410*": the key pressed after the code; "40-37-00":
		// a combination.
		if t := strings.Trim(v, "#*"); t != v && allDigits(t) {
			v = t // "#5763", "*49684"
		}
		// A meeting's passcode: letters and digits or symbols ("s.MVMW",
		// "cN4pof").
		if n := strings.ToLower(c.noun); strings.Contains(n, "passcode") || strings.Contains(n, "पासकोड") {
			if lo, up, dg, sy := charClasses(v); len(v) >= 5 && len(v) <= 12 && (lo || up) && (dg || sy || lo && up) && !rejectValue(v) {
				return true
			}
		}
		if allDigits(v) {
			// "PIN 7990, PUK 04532506": written in capitals, the noun
			// names the digits right after it.
			// "PIN 7990, PUK 04532506": written in capitals, the noun
			// names the digits right after it, as a noun naming only
			// codes does ("garage keypad 5615", "도어락 비밀번호 699462").
			w := c.text[c.at:min(len(c.text), c.at+3)]
			capital := w == "PIN" || w == "PUK"
			specific := !strings.EqualFold(c.noun, "pin") && !strings.EqualFold(c.noun, "pin code") && !strings.EqualFold(c.noun, "pin-code")
			return (linked || capital || specific) && len(v) >= 4 && len(v) <= 12
		}
		// "Digicode : B0487": a short code of letters and digits; "PIN
		// 4DyglfTf" after the noun in capitals.
		if linked && len(v) >= 4 && len(v) <= 7 && isAlnumRun(v) && digitCount(v) >= 3 && len(v)-digitCount(v) <= 2 {
			return true // not a ticket ("INC5829625")
		}
		if w := c.text[c.at:min(len(c.text), c.at+3)]; (w == "PIN" || w == "PUK") && len(v) >= 4 && len(v) <= 12 && isAlnumRun(v) && digitCount(v) >= 1 {
			return true
		}
		// Letters and digits only in capitals read as a reference
		// ("INC5829625"), not a code.
		return linked && looksLikePassword(v) && !(strings.Trim(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") == "" && len(v)-digitCount(v) >= 3)
	case nameSecret:
		if generatedLooking(v) {
			return true
		}
		if quoted {
			return len(v) >= 6 && strings.IndexByte(v, ' ') < 0 && (looksLikePassword(v) || mixedToken(v))
		}
		return linked && len(v) >= c.opt.linkedMin && looksLikePassword(v)
	case nameKey:
		// A GPG key id or fingerprint, an Ethereum address ("0x" and 8,
		// 16 or 40 hex digits) names a key without being one.
		if len(v) > 2 && v[:2] == "0x" && isHex(v[2:]) && (len(v) == 10 || len(v) == 18 || len(v) == 42) {
			return false
		}
		// A key after a link may also be a password-like key ("la clave
		// del router es …"): letters, digits and symbols together, which
		// key names ("Ctrl+Shift+P") and measures ("p99<200ms") are not;
		// or a product key in groups ("4KX7P-9QWMT-R2D8B-…").
		return linked && productKey(v) || !wordIdentifier(v) && (generatedLooking(v) || linked && len(v) >= 8 && strongMix(v))
	}
	return false
}

// groupedValue reports a value written in groups after text[vs:ve], the
// first group: minGroups or more groups of token characters (two joined by
// " + "), one separator throughout, all as long as the first but the
// last, which may be shorter and must end the sentence or line; together
// they must look generated and at least half the groups must not be words.
// It returns where the last group ends.
func groupedValue(text string, vs, ve, minGroups int) (int, bool) {
	isTok := func(ch byte) bool {
		return ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '+' || ch == '/' || ch == '=' || ch == '_' || ch == '-'
	}
	first := text[vs:ve]
	for i := 0; i < len(first); i++ {
		if !isTok(first[i]) {
			return 0, false
		}
	}
	var sep string
	for _, s := range []string{" + ", " ", "\n"} {
		if strings.HasPrefix(text[ve:], s) {
			sep = s
			break
		}
	}
	if sep == "" || len(first) > 32 || sep != " + " && len(first) > 16 {
		return 0, false
	}
	var concat strings.Builder
	concat.WriteString(first)
	groups, unwordy := 1, 0
	if !wordlike(first) {
		unwordy++
	}
	end := ve
	for groups < 64 && strings.HasPrefix(text[end:], sep) {
		s := end + len(sep)
		e := s
		for e < len(text) && isTok(text[e]) && e-s <= len(first) {
			e++
		}
		g := text[s:e]
		if g == "" || len(g) > len(first) {
			break
		}
		atEnd := e == len(text) || text[e] == '\n' || sentenceEnd(text, e) > 0 || text[e] == '`' || text[e] == '"'
		if e < len(text) && !atEnd && text[e] != ' ' && !strings.HasPrefix(text[e:], sep) {
			break
		}
		if len(g) < len(first) && !atEnd {
			break
		}
		concat.WriteString(g)
		groups++
		if !wordlike(g) {
			unwordy++
		}
		end = e
		if len(g) < len(first) {
			break
		}
	}
	if groups < minGroups && !(groups == 2 && sep == " + ") {
		return 0, false
	}
	if unwordy*2 < groups || !randomLooking(concat.String()) || rejectValue(concat.String()) {
		return 0, false
	}
	return end, true
}

// wordlike reports a group that could be a word: letters only, in lower
// case or capitalised.
func wordlike(g string) bool {
	for i := 0; i < len(g); i++ {
		ch := g[i]
		if ch >= 'a' && ch <= 'z' || i == 0 && ch >= 'A' && ch <= 'Z' {
			continue
		}
		return false
	}
	return true
}

// letterGroups reads at text[vs:] a password written as four groups of
// four lower-case letters, joined by spaces or by hyphens: the form of
// the app passwords Google and Apple issue ("dboy qtlg qqed czap",
// "abcd-efgh-ijkl-mnop"). Four short words can look the same ("what they
// gave back"), so the noun must say "app password", or a group must have
// no vowel, as words seldom do. It returns where the last group ends.
func (c *contextScan) letterGroups(vs int) (int, bool) {
	text := c.text
	isLower := func(ch byte) bool { return ch >= 'a' && ch <= 'z' }
	sep := byte(0)
	p := vs
	voweless := false
	for g := range 4 {
		if g > 0 {
			if p >= len(text) || text[p] != ' ' && text[p] != '-' || sep != 0 && text[p] != sep {
				return 0, false
			}
			sep = text[p]
			p++
		}
		if p+4 > len(text) {
			return 0, false
		}
		for k := p; k < p+4; k++ {
			if !isLower(text[k]) {
				return 0, false
			}
		}
		if !strings.ContainsAny(text[p:p+4], "aeiouy") {
			voweless = true
		}
		p += 4
	}
	if p < len(text) && (isWordRune(rune(text[p])) || text[p] == '-') {
		return 0, false
	}
	before := c.lower[max(0, c.at-16):c.at]
	app := strings.HasSuffix(before, "app ") || strings.HasSuffix(before, "app-specific ") || strings.HasSuffix(before, "application ")
	return p, app || voweless
}

// userName reports a user name before a password in "user:password" or
// "user/password": letters, digits, ".", "_", "-" and "@", one character
// or more.
func userName(v string) bool {
	return v != "" && strings.Trim(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-@") == ""
}

// weakPassword reports what people choose as passwords and a linked
// password noun names ("the password is hunter2", "… is 482913"): six to
// 64 letters and digits with a digit in them.
func weakPassword(v string) bool {
	if len(v) < 6 || len(v) > 64 || strings.Trim(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") != "" || !strings.ContainsAny(v, "0123456789") {
		return false
	}
	return true
}

// schemeName reports the name of a hash, a cipher or an encoding, which
// follows "the password is" in prose about how it is kept ("the password
// is argon2id hashed", "… is sha256-hashed").
func schemeName(v string) bool {
	switch strings.ToLower(v) {
	case "argon2", "argon2id", "argon2i", "argon2d", "sha1", "sha224", "sha256", "sha384", "sha512", "sha3", "md5", "md4",
		"pbkdf2", "bcrypt2", "base64", "base32", "utf8", "utf16", "aes128", "aes256", "rot13", "x509", "pkcs12", "ntlmv2", "mschapv2":
		return true
	}
	return false
}

// dicewarePhrase reports a passphrase of three or more words of three
// letters or more in lower case, joined by hyphens, a number allowed at
// the end ("amber-cactus-velvet-27"): what passphrase generators make.
// Prose compounds have fewer or shorter parts ("read-only", "eu-west-1").
func dicewarePhrase(v string) bool {
	sep := "-"
	if !strings.Contains(v, "-") && strings.Count(v, ".") >= 2 {
		sep = "." // "anchor.glacier.cobalt.orbit"
	}
	parts := strings.Split(v, sep)
	if len(parts) < 3 || len(v) < 15 {
		return false
	}
	words := 0
	for i, p := range parts {
		switch {
		case len(p) >= 3 && strings.Trim(p, "abcdefghijklmnopqrstuvwxyz") == "":
			words++
		case i == len(parts)-1 && (allDigits(p) || len(p) >= 4 && wordThenDigits(p)):
			words++ // "stone42"
		default:
			return false
		}
	}
	return words >= 3
}

// publicSayings say that a value just given is public: "(it's the public
// one)", "which is meant to be public", "safe to embed". A sentence that
// says so names the value as something other than a secret, as "public
// key" does.
var publicSayings = []string{
	"meant to be public", "the public one", "public by design", "is public", "are public", "it's public",
	"it is public", "is a public", "safe to expose", "safe to share", "safe to publish", "safe to embed",
	"safe to commit", "not a secret", "not secret", "isn't a secret", "isn't secret", "no secret",
	"es pública", "es público", "est publique", "est public", "ist öffentlich", "é pública", "é público", "è pubblica", "è pubblico",
	"designed to ship", "meant to ship", "in the browser bundle", "in the page source", "in the frontend bundle",
	"fine to print", "fine to share", "ok to share", "okay to share", "pode mandar", "pode divulgar",
}

// saidPublic reports a public saying in the rest of the sentence after
// text[:b] (up to 120 bytes).
func saidPublic(text string, b int) bool {
	rest := text[b:min(len(text), b+120)]
	if e := sentenceEndIn(rest); e >= 0 {
		// "…: fa8c…. Pode divulgar para os clientes.": a saying that
		// opens the next sentence.
		next := strings.ToLower(strings.TrimLeft(rest[e+1:], " "))
		for _, p := range publicSayings {
			if strings.HasPrefix(next, p) || strings.HasPrefix(next, "it's "+p) || strings.HasPrefix(next, "it is "+p) {
				return true
			}
		}
		rest = rest[:e]
	}
	if !strings.Contains(rest, "public") && !strings.Contains(rest, "secret") && !strings.Contains(rest, "safe") &&
		!strings.Contains(rest, "públic") && !strings.Contains(rest, "öffentlich") && !strings.Contains(rest, "pubblic") {
		return false
	}
	lower := asciiLower(rest) // offsets into rest
	for _, p := range publicSayings {
		if k := strings.Index(lower, p); k >= 0 {
			after := lower[k+len(p):]
			if after != "" && (isWordRune(rune(after[0])) || after[0] == '-') {
				continue
			}
			// "never ship it in the frontend bundle", "not fine to share".
			if h := lower[max(0, k-12):k]; strings.Contains(h, "never") || strings.Contains(h, "not ") || strings.Contains(h, "n't") {
				continue
			}
			// "…; the app key is public", "…; the app ID is public" say
			// it of another credential or of something else named.
			for _, m := range findNaming(rest[:k], asciiLower(rest[:k])) {
				if m.kind.credential() || m.kind == nameNonSecret {
					return false
				}
			}
			return true
		}
	}
	return false
}

// betweenSayings say, between a noun and its value, that the value is
// public: "site key (public, it's in the HTML): …", "(pode divulgar)".
var betweenSayings = []string{"(public", "public,", "public)", "publicly", "meant to be public", "is public",
	"safe to share", "safe to expose", "can be shared", "pode divulgar", "pode compartilhar", "se puede compartir",
	"peut être partagé", "darf geteilt werden", "(pública", "(público", "(publique", "(öffentlich", "(pubblica",
	"공개 키", "공개키", "(공개", "공개용", "公開鍵", "(公開", "(公开", "公开的", "the public one"}

// publicBetween reports a public saying in s not negated just before it
// ("not public", "never public").
func publicBetween(s string) bool {
	lower := strings.ToLower(s)
	for _, p := range betweenSayings {
		k := strings.Index(lower, p)
		if k < 0 {
			continue
		}
		h := strings.TrimRight(strings.TrimLeft(lower[max(0, k-7):k], "("), " (")
		if !strings.HasSuffix(h, "not") && !strings.HasSuffix(h, "never") && !strings.HasSuffix(h, "non") && !strings.HasSuffix(h, "não") && !strings.HasSuffix(h, "nicht") {
			return true
		}
	}
	return false
}

// sentenceEndIn returns where the first sentence of s ends (". ", a line
// break), or -1.
func sentenceEndIn(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' || s[i] == '.' && (i+1 == len(s) || s[i+1] == ' ') {
			return i
		}
	}
	return -1
}

func digitCount(v string) int {
	n := 0
	for k := 0; k < len(v); k++ {
		if isDigit(v[k]) {
			n++
		}
	}
	return n
}

// endsSentence reports whether the value v, right after the noun, ends
// its sentence or clause: "… a palavra-chave maracuja." (not "the code word
// list is …").
func (c *contextScan) endsSentence(v string) bool {
	k := strings.Index(c.text[c.at:], v)
	if k < 0 {
		return false
	}
	e := c.at + k + len(v)
	return e == len(c.text) || strings.IndexByte(".,;!)\n", c.text[e]) >= 0
}

// spokenNoun reports a noun naming a word said to prove who one is: the
// alarm company's or the bank's code word.
func spokenNoun(noun string) bool {
	n := strings.ToLower(noun)
	for _, w := range []string{"palabra clave", "palavra", "mot de passe oral", "合言葉", "verbal password", "кодовое слово", "code word", "codeword", "magic word", "open sesame", "memorable word"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// assignmentAt reports "NAME=" or "NAME:" at text[q]: a line of its own.
func assignmentAt(text string, q int) bool {
	k := q
	for k < len(text) && (isIdentByte(text[k]) || text[k] == '.' || text[k] == '-') {
		k++
	}
	return k > q && k < len(text) && (text[k] == '=' || text[k] == ':' && k+1 < len(text) && text[k+1] == ' ')
}

// productKey reports a licence or product key: three or more groups of
// four to six upper-case letters and digits joined by "-", letters and
// digits both present.
func productKey(v string) bool {
	parts := strings.Split(v, "-")
	if len(parts) < 3 {
		return false
	}
	letters, digits := 0, 0
	for _, p := range parts {
		if len(p) < 4 || len(p) > 6 {
			return false
		}
		for k := 0; k < len(p); k++ {
			switch c := p[k]; {
			case c >= 'A' && c <= 'Z':
				letters++
			case c >= '0' && c <= '9':
				digits++
			default:
				return false
			}
		}
	}
	return letters > 0 && digits > 0
}

// wordThenDigits reports lower-case letters followed by digits: "stone42".
func wordThenDigits(p string) bool {
	i := 0
	for i < len(p) && p[i] >= 'a' && p[i] <= 'z' {
		i++
	}
	return i >= 3 && i < len(p) && allDigits(p[i:])
}

// codeShape reports a recovery code or key: six to 64 letters and digits
// with at least two digits, in groups parted by one kind of separator
// ("-" or " "), or none; not a word.
func codeShape(v string) bool {
	if len(v) < 6 || len(v) > 64 {
		return false
	}
	var sep byte
	alnum, digits := 0, 0
	for k := 0; k < len(v); k++ {
		ch := v[k]
		switch {
		case ch >= '0' && ch <= '9':
			digits++
			alnum++
		case isASCIIAlnum(ch):
			alnum++
		case ch == '-' || ch == ' ':
			if sep != 0 && ch != sep || k == 0 || k == len(v)-1 {
				return false
			}
			sep = ch
		default:
			return false
		}
	}
	// "wxcl-i6gf": two groups of four or more with a digit among them.
	return alnum >= 6 && (digits >= 2 || digits == 1 && sep == '-' && len(v) >= 9)
}

// appPasswordGroups reads an app password as Google shows it at
// text[p:]: four groups of four small letters with few vowels ("rgdc dfuv
// zicf wsol"), not four words ("blue door last left").
func appPasswordGroups(text string, p int) (int, bool) {
	if p+19 > len(text) || p+19 < len(text) && isASCIIAlnum(text[p+19]) {
		return 0, false
	}
	vowels := 0
	for k := 0; k < 19; k++ {
		c := text[p+k]
		switch {
		case k%5 == 4:
			if c != ' ' {
				return 0, false
			}
		case c < 'a' || c > 'z':
			return 0, false
		case strings.IndexByte("aeiouy", c) >= 0:
			vowels++
		}
	}
	return p + 19, vowels <= 4
}

// base32Groups reads four or more groups of four base32 characters
// parted by single spaces at text[vs:], all of one case, with nothing of
// a word after the last.
func base32Groups(text string, vs int) (int, bool) {
	k, groups := vs, 0
	lowerCase := vs < len(text) && text[vs] >= 'a' && text[vs] <= 'z'
	for {
		g := k
		for k < len(text) && k-g < 5 && (lowerCase && (text[k] >= 'a' && text[k] <= 'z') || !lowerCase && (text[k] >= 'A' && text[k] <= 'Z') || text[k] >= '2' && text[k] <= '7') {
			k++
		}
		if k-g != 4 || k < len(text) && isASCIIAlnum(text[k]) {
			// A word after four groups or more ends them: "… zicf wsol
			// on the account".
			if groups < 4 || g == vs {
				return 0, false
			}
			k = g - 1
		} else {
			groups++
			if k+1 < len(text) && text[k] == ' ' && isASCIIAlnum(text[k+1]) {
				k++
				continue
			}
		}
		// Not four words of four letters ("blue door last left"): a digit,
		// or two groups without a vowel.
		v := asciiLower(text[vs:k])
		vowelless := 0
		for _, g := range strings.Fields(v) {
			if !strings.ContainsAny(g, "aeiou") {
				vowelless++
			}
		}
		return k, groups >= 4 && (strings.ContainsAny(v, "234567") || vowelless >= 2)
	}
}

// digitGroups reads a code written as groups of three to five digits
// parted by single spaces at text[vs:] ("3444 6396", "8213 4410 9920"),
// eight digits or more: where it ends, or false.
func digitGroups(text string, vs int) (int, bool) {
	k, digits, groups := vs, 0, 0
	for {
		g := k
		for k < len(text) && isDigit(text[k]) {
			k++
		}
		if k-g < 3 || k-g > 5 {
			return 0, false
		}
		digits += k - g
		groups++
		if k+1 < len(text) && text[k] == ' ' && isDigit(text[k+1]) && groups < 8 {
			k++
			continue
		}
		if k < len(text) && isASCIIAlnum(text[k]) {
			return 0, false
		}
		return k, groups >= 2 && digits >= 8
	}
}

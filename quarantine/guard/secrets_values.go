package guard

import (
	"encoding/base64"
	"strings"
	"unicode"
	"unicode/utf8"
)

// What a value named by its sentence may be, and the values that stand for
// a secret without being one (placeholders, samples, public keys, data).

// literal returns v for the shape tests of secrets.go, which take a
// leading "+" or "@" for an operator or an annotation and "%" for a
// Windows variable: a password named by its sentence may begin with any.
func literal(v string) string {
	if v != "" && (v[0] == '+' || v[0] == '@' || v[0] == '%' && strings.IndexByte(v[1:], '%') < 0 || v[0] == '$' && !variableRef(v)) {
		return "x" + v[1:] // "%z^17…" is no "%VARIABLE%", "$SVr7$k2" no "$NAME"
	}
	return v
}

// variableRef reports a value that reads as a shell or template variable:
// "$NAME", "${NAME}", "$(cmd)", "$db_pass", "$apiKey", "$HOME$SUFFIX".
// Each name after a "$" is in one case with digits and "_", or made of
// words; a generated password that begins with "$" ("$SVLrEv$im3",
// "$8kq!Zt2") is none of these.
func variableRef(v string) bool {
	if strings.HasPrefix(v, "${") || strings.HasPrefix(v, "$(") || strings.HasPrefix(v, "$$") {
		return true
	}
	for _, name := range strings.Split(v[1:], "$") {
		if name == "" || strings.HasPrefix(name, "{") {
			continue
		}
		if isDigit(name[0]) || strings.Trim(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.") != "" {
			return false
		}
		lowerOnly := strings.ToLower(name) == name
		upperOnly := strings.ToUpper(name) == name
		if !lowerOnly && !upperOnly && !wordIdentifier(name) && !camelName(name) {
			return false
		}
	}
	return true
}

// camelName reports a camelCase name: a lower-case start and at most one
// capital in every three letters ("dbPass", "apiKeyV2"), as names are
// written and generated strings are not.
func camelName(v string) bool {
	if v == "" || v[0] < 'a' || v[0] > 'z' {
		return false
	}
	upper := 0
	for i := 1; i < len(v); i++ {
		if v[i] >= 'A' && v[i] <= 'Z' {
			if v[i-1] >= 'A' && v[i-1] <= 'Z' {
				return false
			}
			upper++
		}
	}
	return upper*3 <= len(v)
}

// wordIdentifier reports an identifier made of words: parts split at
// "_", "-", "." and case changes are each a lower-case word (capitalised
// or not), an acronym of up to five capitals and digits, or a number:
// "ConnectionString_B2B", "user-service.main". Generated strings have
// parts such as "ck4kk" or "DAGo" that are none of these.
func wordIdentifier(v string) bool {
	parts := 0
	for _, chunk := range strings.FieldsFunc(v, func(r rune) bool { return r == '_' || r == '-' || r == '.' }) {
		for i := 0; i < len(chunk); {
			j := i + 1
			switch c := chunk[i]; {
			case c >= 'A' && c <= 'Z':
				for j < len(chunk) && chunk[j] >= 'a' && chunk[j] <= 'z' {
					j++
				}
				if j == i+1 { // an acronym: capitals and digits
					for j < len(chunk) && (chunk[j] >= 'A' && chunk[j] <= 'Z' || isDigit(chunk[j])) {
						j++
					}
					if j-i > 5 || j < len(chunk) && chunk[j] >= 'a' && chunk[j] <= 'z' {
						return false
					}
				} else if j-i < 3 {
					return false
				}
			case c >= 'a' && c <= 'z':
				for j < len(chunk) && chunk[j] >= 'a' && chunk[j] <= 'z' {
					j++
				}
				if j-i < 3 {
					return false
				}
			case isDigit(c):
				for j < len(chunk) && isDigit(chunk[j]) {
					j++
				}
			default:
				return false
			}
			parts++
			i = j
		}
	}
	return parts >= 2
}

// strongMix reports a value with letters, digits and symbols.
func strongMix(v string) bool {
	var letter, digit, other bool
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
			letter = true
		case isDigit(c):
			digit = true
		default:
			other = true
		}
	}
	return letter && digit && other
}

// generatedLooking is randomLooking, or letters only that change case as
// often as generated strings do: a 22-letter base62 token has no digit
// about one time in fifty ("eHHpPOHriDCyvxkJVRtxEw").
func generatedLooking(v string) bool {
	return randomLooking(v) || len(v) >= 16 && caseMixed(v)
}

// caseMixed reports letters only, changing between lower and upper case at
// least once every four letters: "qXeyeYmQbkA", not "JavaScript" or
// "PostgreSQL".
func caseMixed(v string) bool {
	changes := 0
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
		if i > 0 && (c >= 'a') != (v[i-1] >= 'a') {
			changes++
		}
	}
	return changes*4 >= len(v)
}

func allDigits(v string) bool { return every(v, isDigit) }

// rejectValue reports values that are not a literal credential whatever
// names them: references and templates, placeholders and samples, URLs,
// e-mail addresses, host names, versions, dates, flags, and public keys.
func rejectValue(v string) bool {
	switch {
	case !notPlaceholder(literal(v)), placeholderValue(v), weakPlaceholder(v), sampleValue(v), publicFormat(v), digestPrefixed(v):
		return true
	case strings.Contains(v, "://"), strings.HasPrefix(v, "--"), strings.HasPrefix(v, "~/"), strings.HasPrefix(v, "ENC["), encodedFile(v):
		return true
	case emailLike(v), hostLike(v), versionValue(v), dateValue(v), pathLike(v), credentialName(v), wordCompound(v), userAtHost(v), participle(v):
		return true
	case len(v) == 44 && allDigits(v), strings.Count(v, " ") >= 7 && allDigits(strings.ReplaceAll(v, " ", "")):
		return true // a Brazilian NF-e access key, printed on the invoice (in groups of four)
	case len(v) == 42 && strings.HasPrefix(v, "0x") && isHex(v[2:]):
		return true // an Ethereum address or contract: public
	case len(v) > 3 && strings.Trim(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == "" && strings.Contains(v, "_") && !isDigit(v[0]) && strings.ToUpper(v) == v && strings.Count(v, "_") >= 1 && digitCount(v) <= 2:
		return true // a constant's name: "SECRET_WIFI_PASS"
	case vaultNames[strings.ToLower(v)]:
		return true // "the password is in 1Password", "パスワードは 1Password に…"
	}
	return false
}

// vaultNames are the stores a sentence says a credential is kept in.
var vaultNames = map[string]bool{
	"1password": true, "bitwarden": true, "lastpass": true, "keepass": true, "keepassxc": true,
	"dashlane": true, "vault": true, "keychain": true, "keyring": true, "doppler": true,
}

// wordCompound reports lower-case words joined by hyphens, as prose
// writes them ("fine-grained", "base64-encoded", "eu-west-1",
// "read-only"): a description, not a credential.
func wordCompound(v string) bool {
	if !strings.Contains(v, "-") || !strings.ContainsFunc(v, func(r rune) bool { return r >= 'a' && r <= 'z' }) {
		return false // digits in groups ("994171-302973-…") are no words
	}
	for _, p := range strings.Split(v, "-") {
		i := 0
		for i < len(p) && p[i] >= 'a' && p[i] <= 'z' {
			i++
		}
		for i < len(p) && isDigit(p[i]) {
			i++
		}
		if p == "" || i < len(p) {
			return false
		}
	}
	return true
}

// credentialName reports a lower-case identifier one of whose parts names
// a credential: "edit_password", "cms_user_token", a name, not a value.
func credentialName(v string) bool {
	if strings.Trim(v, "abcdefghijklmnopqrstuvwxyz_") != "" || !strings.Contains(v, "_") {
		return false
	}
	for _, p := range strings.Split(v, "_") {
		if credentialWords[p] {
			return true
		}
	}
	return false
}

// pathLike reports a path of words: "exports/2024/11/…", "a/b/report.csv".
// The "/" of base64 keys joins random runs, seldom a run of four or more
// lower-case letters alone.
func pathLike(v string) bool {
	if strings.IndexByte(v, '/') < 0 {
		return false
	}
	for _, p := range strings.Split(v, "/") {
		if len(p) >= 4 && strings.Trim(p, "abcdefghijklmnopqrstuvwxyz") == "" {
			return true
		}
	}
	return hostLike(v[strings.LastIndexByte(v, '/')+1:])
}

func emailLike(v string) bool {
	at := strings.IndexByte(v, '@')
	return at > 0 && strings.IndexByte(v[at:], '.') > 1 && hostLike(v[at+1:])
}

// hostLike reports a host name: lower-case labels of letters, digits and
// "-" joined by dots, the last of letters only.
func hostLike(v string) bool {
	dot := strings.LastIndexByte(v, '.')
	if dot <= 0 || dot == len(v)-1 {
		return false
	}
	for i := 0; i < len(v); i++ {
		ch := v[i]
		if !(ch >= 'a' && ch <= 'z' || ch >= '0' && ch <= '9' || ch == '-' || ch == '.') {
			return false
		}
	}
	for i := dot + 1; i < len(v); i++ {
		if v[i] < 'a' || v[i] > 'z' {
			return false
		}
	}
	return true
}

// versionValue reports version numbers: "v2.3.1", "1.26.4-rc.1", "2.13.12+build.6".
func versionValue(v string) bool {
	s := strings.TrimPrefix(strings.TrimPrefix(v, "v"), "V")
	i := 0
	dots := 0
	for i < len(s) && (isDigit(s[i]) || s[i] == '.') {
		if s[i] == '.' {
			dots++
		}
		i++
	}
	return dots >= 1 && i > 0 && isDigit(s[0]) && (i == len(s) || s[i] == '-' || s[i] == '+')
}

// dateValue reports dates and times: digits joined by "-", ":", "/", "T", "Z", ".".
func dateValue(v string) bool {
	seps, run := 0, 0
	for i := 0; i < len(v); i++ {
		switch ch := v[i]; {
		case isDigit(ch):
			run++
			if run > 4 {
				return false // no part of a date or a time has five digits: "994171-302973-…" is a code
			}
			continue
		case ch == '-' || ch == ':' || ch == '/' || ch == '.':
			seps++
		case ch == 'T' || ch == 'Z':
		default:
			return false
		}
		run = 0
	}
	return seps >= 2
}

// placeholderValue reports values that stand for a secret instead of being
// one, whatever the sentence: AWS's documented samples ("…EXAMPLE",
// "…EXAMPLEKEY"), masked values ("sk-...a1b2", "***redacted***"), a
// provider prefix with filler ("sk_test_xxx", "ghp_XXXX…"), a value with a
// placeholder word as one of its parts ("your-api-key-here",
// "sk_test_replace_me"), a setting ("write", "none"), and the name of a
// variable in capitals ("YOUR_API_KEY", "DB_PASSWORD", "VOTRE_CLE_API").
func placeholderValue(v string) bool {
	v = strings.TrimRight(strings.Trim(v, "\"'`"), ".,;:")
	if v == "" {
		return true
	}
	if strings.Contains(v, "EXAMPLE") || strings.Contains(v, "...") || strings.Contains(v, "…") || strings.Contains(v, "***") {
		return true
	}
	lv := strings.ToLower(v)
	if settingWords[lv] {
		return true
	}
	// A value that says it is not real: "fakesecret", "dummy_pw_1",
	// "testpassword-sample".
	for _, w := range []string{"fake", "dummy", "placeholder", "example", "sample", "changeme", "notreal", "not-real", "not_real"} {
		if wordIn(v, asciiLower(v), w) {
			return true
		}
	}
	tail := lv[strings.LastIndexAny(lv, "_-/.:")+1:]
	if len(tail) >= 3 && strings.Trim(tail, "x*") == "" || len(tail) >= 4 && strings.Trim(tail, "x*#0") == "" {
		return true
	}
	parts := valueParts(lv)
	creds := 0
	for _, p := range parts {
		if placeholderWord(p) || p == "changeme" && len(parts) > 1 {
			return true
		}
		if p == "change" && len(parts) > 1 && strings.Contains(lv, "change") && (strings.HasSuffix(lv, "-me") || strings.HasSuffix(lv, "_me")) {
			return true // "please-change-me"
		}
		if credentialWords[p] {
			creds++
		}
	}
	return creds > 0 && len(parts) > 1 && strings.ToUpper(v) == v && strings.Trim(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_") == ""
}

// wordIn reports w in lv (asciiLower(v)) where a word starts in v: at the
// start, after a character that is no letter or digit, or at a capital
// after a small letter ("fakesecret", "sk_test_FAKE1", "myDummyKey"). A
// random token holds "faKe" by chance ("…2faKeh4…"); that is no word.
func wordIn(v, lv, w string) bool {
	for off := 0; ; {
		k := strings.Index(lv[off:], w)
		if k < 0 {
			return false
		}
		k += off
		if k == 0 || !isAlnum(v[k-1]) || v[k] >= 'A' && v[k] <= 'Z' && v[k-1] >= 'a' && v[k-1] <= 'z' {
			return true
		}
		off = k + 1
	}
}

// weakPlaceholder reports values that are placeholders in documentation
// but may also be a real, weak credential: a value made of credential
// words only, digits after them allowed ("password", "secret",
// "password123", "my-secret-key", "USER:PASSWORD") or
// a default ("changeme"). They are secrets unless the text around them
// says it is an example (exampleContext).
func weakPlaceholder(v string) bool {
	lv := strings.ToLower(strings.Trim(v, "\"'`"))
	if lv == "changeme" || lv == "change-me" || lv == "change_me" || changeMeWords[lv] {
		return true
	}
	creds := 0
	for _, p := range valueParts(lv) {
		switch {
		case credentialWords[p], credentialWords[strings.TrimRight(p, "0123456789")]:
			creds++ // "password", "secret1", "password123"
		case !fillerWords[p]:
			return false
		}
	}
	return creds > 0
}

// encodedFile reports base64 that opens with a file's magic bytes: an
// inline PNG, JPEG, GIF, PDF or ZIP is data, not a credential.
func encodedFile(v string) bool {
	for _, p := range []string{"iVBORw0KGgo", "/9j/", "R0lGOD", "JVBERi0", "UEsDB"} {
		if strings.HasPrefix(v, p) {
			return true
		}
	}
	return false
}

// changeMeWords say "change me" in the guard's other languages: a
// default left for whoever sets the value.
var changeMeWords = map[string]bool{
	"cambiame": true, "cámbiame": true, "cambiar": true, "cambiarme": true, "a_changer": true, "achanger": true,
	"à_changer": true, "a-changer": true, "remplacer": true, "aendern": true, "ändern": true, "aendermich": true,
	"ändermich": true, "alterar": true, "mudar": true, "trocar": true, "cambiami": true, "cambiare": true,
	"изменить": true, "поменять": true, "zu_aendern": true,
}

func valueParts(lv string) []string {
	return strings.FieldsFunc(lv, func(r rune) bool { return strings.ContainsRune("_-.:/ ", r) })
}

// exampleWords say that a text shows an example, in the eleven languages.
var exampleWords = []string{
	"example", "sample", "placeholder", "template", "tutorial", "readme", "docs", "documentation",
	"dummy", "fake", "fixture", "exemple", "modèle", "beispiel", "vorlage", "ejemplo", "plantilla",
	"exemplo", "modelo", "esempio", "示例", "例子", "模板", "サンプル", "例", "テンプレート", "пример",
	"шаблон", "예시", "예제", "템플릿", "उदाहरण", "प्लेसहोल्डर", "자리표시자", "プレースホルダー", "占位",
}

// exampleContext reports whether the text around text[a:b] (up to 200
// bytes before it, and the rest of its line up to 200 bytes) says it
// shows an example.
func exampleContext(text string, a, b int) bool {
	lo := max(0, a-200)
	hi := min(len(text), b+200)
	if nl := strings.IndexByte(text[b:hi], '\n'); nl >= 0 {
		hi = b + nl
	}
	return containsAny(strings.ToLower(text[lo:a])+" "+strings.ToLower(text[b:hi]), exampleWords)
}

// placeholderWord reports the words that mark a placeholder, in the
// eleven languages.
func placeholderWord(w string) bool {
	switch w {
	case "your", "yours", "here", "changeme", "replaceme", "replace", "example", "sample", "dummy",
		"placeholder", "fake", "redacted", "masked", "todo", "fixme", "insert", "votre", "vos", "tu", "tus",
		"tuo", "tua", "dein", "deine", "ihr", "seu", "sua", "ваш":
		return true
	}
	return false
}

// settingWords are configuration values that follow credential names
// without being credentials: "id-token: write", "token: none".
var settingWords = map[string]bool{
	"read": true, "write": true, "readonly": true, "read-only": true, "none": true, "disabled": true,
	"enabled": true, "auto": true, "inherit": true, "default": true,
}

// credentialWords and fillerWords make up values that only name a
// credential: "my-secret-key", "api_key", "the-password".
var credentialWords = map[string]bool{
	"password": true, "passwd": true, "pass": true, "pwd": true, "secret": true, "token": true, "key": true,
	"api": true, "apikey": true, "auth": true, "access": true, "private": true, "client": true,
	"credential": true, "credentials": true, "cle": true, "clave": true, "chave": true, "chiave": true,
	"contrasena": true, "senha": true, "passwort": true, "jeton": true, "bot": true, "app": true,
	"webhook": true, "signing": true, "session": true,
}

var fillerWords = map[string]bool{"my": true, "the": true, "a": true, "an": true, "mon": true, "ma": true, "mi": true, "mein": true, "meu": true, "mio": true, "new": true, "old": true, "value": true}

// publicFormat reports values in a format that is public by design:
// Stripe publishable keys, age and Nostr public keys, SSH public keys and
// their base64 blobs, DER public keys.
func publicFormat(v string) bool {
	for _, p := range []string{"pk_live_", "pk_test_", "live_ck_", "test_ck_", "live_gck_", "test_gck_", "age1", "npub1", "xpub", "ypub", "zpub", "tpub", "ssh-rsa", "ssh-ed25519", "ssh-dss", "ecdsa-sha2-", "sk-ssh-", "sk-ecdsa-",
		"MIIBIjANBgkqhkiG9w0BAQEFAAOC", "MIICIjANBgkqhkiG9w0BAQEFAAOC", "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE", "MCowBQYDK2VwAyEA"} {
		if strings.HasPrefix(v, p) {
			return true
		}
	}
	// An SSH host key's fingerprint: "SHA256:cazV2t6x…", "MD5:3b:1f:…".
	if strings.HasPrefix(v, "SHA256:") && len(v) == 50 || strings.HasPrefix(v, "MD5:") && strings.Count(v, ":") == 16 {
		return true
	}
	return sshWireKey(v) || publicAddress(v) || stripeObjectID(v) || minisignKey(v)
}

// stripeObjectID reports the id of a Stripe object ("cus_…", "price_…",
// "pi_…"): it names a record in the account, and grants nothing.
func stripeObjectID(v string) bool {
	i := strings.IndexByte(v, '_')
	if i < 0 || len(v)-i-1 < 8 || !isAlnumRun(v[i+1:]) {
		return false
	}
	switch v[:i] {
	case "cus", "price", "prod", "pi", "ch", "in", "sub", "acct", "evt", "txn", "po", "pm", "seti", "si", "cs", "plink", "tr", "py", "ba", "card", "src", "ii", "il", "pyr", "file", "link", "re", "dp", "cbtxn", "coupon", "promo", "tax", "txr":
		return true
	}
	return false
}

// publicAddress reports a value whose format is a public address: a
// Bitcoin or Litecoin bech32 address ("bc1q…"), an IPFS content id
// ("bafy…", "Qm…"). Payment addresses and content ids are published to be
// used.
// userAtHost reports "deploy@web-01": a user at a host, in lower case.
func userAtHost(v string) bool {
	at := strings.IndexByte(v, '@')
	return at > 0 && at < len(v)-1 && strings.Trim(v, "abcdefghijklmnopqrstuvwxyz0123456789@._-") == "" && strings.Count(v, "@") == 1 && strings.ContainsAny(v[at+1:], "-.")
}

// participle reports a description ending in a participle: "SOPS-encrypted",
// "AES-encrypted", "KMS-backed".
func participle(v string) bool {
	i := strings.LastIndexByte(v, '-')
	if i < 0 {
		return false
	}
	last := v[i+1:]
	return len(last) >= 5 && lettersOnly(last) && strings.ToLower(last) == last && (strings.HasSuffix(last, "ed") || strings.HasSuffix(last, "ing"))
}

// minisignKey reports a minisign public key: "RW" and 54 more base64.
func minisignKey(v string) bool {
	return len(v) == 56 && strings.HasPrefix(v, "RW") && strings.Trim(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=") == ""
}

func publicAddress(v string) bool {
	const bech32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
	for _, p := range []string{"bc1", "tb1", "ltc1"} {
		if rest, ok := strings.CutPrefix(v, p); ok && len(v) >= 42 && len(v) <= 64 && strings.Trim(rest, bech32) == "" {
			return true
		}
	}
	for _, p := range []string{"bafy", "bafk", "bafz"} {
		if rest, ok := strings.CutPrefix(v, p); ok && len(v) >= 59 && strings.Trim(rest, "abcdefghijklmnopqrstuvwxyz234567") == "" {
			return true
		}
	}
	const base58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
	// A Tron address: "T" and 33 base58 characters.
	if len(v) == 34 && v[0] == 'T' && strings.Trim(v, base58) == "" {
		return true
	}
	return len(v) == 46 && strings.HasPrefix(v, "Qm") && strings.Trim(v, base58) == ""
}

// sshWireKey reports the base64 of an SSH public key blob: a 32-bit length
// and the key type ("ssh-ed25519", "ecdsa-sha2-nistp256", …).
func sshWireKey(v string) bool {
	if len(v) < 24 || !strings.HasPrefix(v, "AAAA") {
		return false
	}
	b, err := base64.StdEncoding.DecodeString(v[:24])
	if err != nil || b[0] != 0 || b[1] != 0 || b[2] != 0 {
		return false
	}
	t := string(b[4:])
	return strings.HasPrefix(t, "ssh-") || strings.HasPrefix(t, "ecdsa-") || strings.HasPrefix(t, "sk-")
}

// encodedData reports base64 that decodes to text or to a file with a
// known signature (GIF, PNG, JPEG, PDF, ZIP, gzip): data written in
// base64, not a key. Random bytes are printable text with a chance of
// about one in 10^14 for 32 bytes.
func encodedData(v string) bool {
	s := strings.TrimRight(v, "=")
	var b []byte
	var err error
	if strings.ContainsAny(s, "-_") {
		b, err = base64.RawURLEncoding.DecodeString(s)
	} else {
		b, err = base64.RawStdEncoding.DecodeString(s)
	}
	// A file's signature is in its first bytes, whatever follows (and
	// however the run was cut).
	if len(s) >= 12 {
		head := s[:12]
		var hb []byte
		var herr error
		if strings.ContainsAny(head, "-_") {
			hb, herr = base64.RawURLEncoding.DecodeString(head)
		} else {
			hb, herr = base64.RawStdEncoding.DecodeString(head)
		}
		if herr == nil {
			for _, magic := range []string{"GIF8", "\x89PNG", "\xff\xd8\xff", "%PDF", "PK\x03\x04", "\x1f\x8b"} {
				if strings.HasPrefix(string(hb), magic) {
					return true
				}
			}
		}
	}
	if err != nil || len(b) < 9 {
		return false
	}
	if !utf8.Valid(b) {
		return false
	}
	for _, r := range string(b) {
		if r < 32 && r != '\n' && r != '\t' && r != '\r' || r == 0x7f || !unicode.IsPrint(r) && r >= 0x80 {
			return false
		}
	}
	// Text that holds a generated-looking run is an encoded secret
	// ("user:Q7rZ5xK2m4N8p3Wt…"), not data.
	run, letters, digits := 0, false, false
	for _, ch := range b {
		if isAlnum(ch) || strings.IndexByte("_-+/=.", ch) >= 0 {
			run++
			letters = letters || ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z'
			digits = digits || isDigit(ch)
			if run >= 16 && letters && digits {
				return false
			}
			continue
		}
		run, letters, digits = 0, false, false
	}
	return true
}

// maxPlaceholder is the longest value dropPlaceholders reads.
const maxPlaceholder = 128

// dropPlaceholders removes findings whose value stands for a secret
// instead of being one: "sk_test_xxx", "AKIAIOSFODNN7EXAMPLE"
// (placeholderValue), and "postgres://user:password@…" in a README
// (weakPlaceholder in exampleContext). Private key blocks and password
// hashes are kept whatever they hold.
func dropPlaceholders(text string, fs []Finding) []Finding {
	out := fs[:0]
	for _, f := range fs {
		// A placeholder is short; longer values are kept unread.
		if f.Type != SecretPrivateKey && f.Type != SecretHash && f.End-f.Start <= maxPlaceholder {
			v := text[f.Start:f.End]
			if placeholderValue(v) || weakPlaceholder(v) && exampleContext(text, f.Start, f.End) {
				continue
			}
		}
		out = append(out, f)
	}
	return out
}

package guard

import (
	"strings"
	"unicode/utf8"
)

// Passwords people choose. A generated key is found by its randomness; a
// password a person picks ("Tulip28$Dune", "78Anch0r$$", "Fern+172") is
// short and made of a word or two, but it has a shape ordinary text almost
// never has: upper- and lower-case letters, digits and a symbol in one
// run, with nothing that makes it an address, a version, a path, a hash or
// code. Such a run is a password however the sentence introduces it ("use
// this to log into the router: …", "… ist das neue Root-Passwort", a chat
// line answering "what's the wifi pw?"): probable when the text speaks of
// credentials or of logging in, in any of the guard's languages; possible
// (the store asks first) when nothing around it does.

// chosenSymbols are the symbols a password rule asks for. "-", "_" and "."
// are left out: identifiers and file names hold them.
const chosenSymbols = "!#$%^&*?~@+="

// chosenPasswords adds a finding for each run of text shaped like a chosen
// password.
func chosenPasswords(text string, add func(Finding)) {
	var spans [][2]int
	for i := 0; i < len(text); {
		if text[i] <= ' ' || text[i] >= 0x7f {
			i++
			continue
		}
		j := i
		for j < len(text) && text[j] > ' ' && text[j] < 0x7f {
			j++
		}
		if a, b, ok := chosenRun(text, i, j); ok {
			spans = append(spans, [2]int{a, b})
		}
		i = j
	}
	if len(spans) == 0 {
		return
	}
	cue := loginCue(text)
	if !cue {
		for _, m := range findNaming(text, asciiLower(text)) {
			if m.kind.credential() {
				cue = true
				break
			}
		}
	}
	for _, s := range spans {
		// Without a capital the shape alone says less ("74r7ine62!"):
		// only a text about credentials makes it one.
		if !cue && !hasUpper(text[s[0]:s[1]]) {
			continue
		}
		f := Finding{Kind: KindSecret, Type: SecretPassword, Level: LevelPossible, Start: s[0], End: s[1], Reason: "looks like a chosen password"}
		if cue {
			f.Level = LevelProbable
			f.Reason = "a chosen password in a text about credentials"
		}
		add(f)
	}
}

// chosenRun trims the quotes, brackets and sentence punctuation around
// text[i:j] and reports whether what is left has a chosen password's shape.
func chosenRun(text string, i, j int) (a, b int, ok bool) {
	a, b = i, j
	for a < b && strings.IndexByte("\"'`([{<", text[a]) >= 0 {
		a++
	}
	for b > a && strings.IndexByte("\"'`)]}>.,;:", text[b-1]) >= 0 {
		b--
	}
	// "pass:Ridge7^Lumen", "host:5432:db:user:Pa55^word": labels and
	// fields before the value.
	if c := strings.LastIndexByte(text[a:b], ':'); c > 0 && strings.IndexAny(text[a:a+c], chosenSymbols) < 0 {
		a += c + 1
	}
	// "-p'Coral34!Lilac'", "-wGravel#88": a flag glued to its value.
	if b-a > 3 && text[a] == '-' && isAlnum(text[a+1]) && strings.IndexByte("\"'", text[a+2]) >= 0 {
		a += 3
	}
	for b > a && strings.IndexByte("\"'`", text[b-1]) >= 0 {
		b--
	}
	// A "+" at the end says "or later" ("v1.8.0+", "iPhone15+").
	for b > a && text[b-1] == '+' {
		b--
	}
	// "-pHarbor…", "-w'…'": a flag glued to its value is not part of it.
	// (Command-line rules read those; here the value alone is judged.)
	if b-a < 6 || b-a > 40 {
		return a, b, false
	}
	return a, b, chosenShape(text[a:b])
}

// chosenShape reports a run of upper- and lower-case letters, digits and a
// password symbol that is none of the things text holds with that mix:
// an e-mail address or user@host, a package at a version, a version or
// build string, a path or URL, a variable, a hash with its algorithm, base64,
// code (a call, an assignment, an operator), a reference number
// ("Ticket#4521").
func chosenShape(v string) bool {
	var upper, lower, digit, sym int
	for k := 0; k < len(v); k++ {
		c := v[k]
		switch {
		case c >= 'A' && c <= 'Z':
			upper++
		case c >= 'a' && c <= 'z':
			lower++
		case c >= '0' && c <= '9':
			digit++
		case strings.IndexByte(chosenSymbols, c) >= 0:
			sym++
		case strings.IndexByte("/\\|", c) >= 0:
			return false // paths, URLs, tables, pipes
		}
	}
	if lower == 0 || digit == 0 || sym == 0 || upper+lower < 3 {
		return false
	}
	// A password hash's header: "$2b$12$…", "$argon2id$…", "$6$…".
	if v[0] == '$' {
		if k := strings.IndexByte(v[1:], '$'); k > 0 && isAlnumRun(v[1:1+k]) && strings.ToLower(v[1:1+k]) == v[1:1+k] {
			return false
		}
	}
	// A variable, a mention, a flag: "$Home2x", "@Platform2", "--fail-under=0".
	// A password may begin with a symbol when it holds others too
	// ("@NaaWxjd1%qNO!Na", "-!ECKN_HrKC6~zN").
	if strings.IndexByte("$@+%=", v[0]) >= 0 && sym == 1 || v[0] == '-' && (v[1] == '-' || isAlnum(v[1])) {
		return false
	}
	if v[0] == '#' && isAlnumRun(strings.TrimRight(v[1:], "!?")) {
		return false // a hashtag or an anchor: "#Release2024!", "#L42Ab"
	}
	for _, op := range []string{"+=", "-=", "==", "!=", "<=", ">=", "&&", "||", "++", "->", "=>", "::", "**", "${", "%{", "{{", "://"} {
		if strings.Contains(v, op) {
			return false
		}
	}
	// A date or a time ("manual__2024-05-20T13:02:11+00:00"): a run id.
	if dateTimeIn(v) {
		return false
	}
	lv := strings.ToLower(v)
	for _, p := range []string{"sha1", "sha256", "sha384", "sha512", "md5", "h1:", "+build", "+exp", "+sha", "+git"} {
		if strings.Contains(lv, p) {
			return false
		}
	}
	if at := strings.IndexByte(v, '@'); at > 0 && sym == 1 {
		user, host := v[:at], v[at+1:]
		// user@host, name@example.org, react@18.2.0, icon@2x: an address
		// or a package is written in lower case after its "@".
		if host != "" && (strings.ContainsRune(host, '.') || host == strings.ToLower(host) || user == strings.ToLower(user) && isDigit(host[0])) {
			return false
		}
	}
	// A version ("v2.4.1-rc+Beta"), a call ("getItem(3)!"), an assignment
	// ("retries=3"), a reference ("Ticket#4521", "PR#12a").
	if v[0] == 'v' || v[0] == 'V' {
		if len(v) > 1 && isDigit(v[1]) && strings.Count(v, ".") >= 1 {
			return false
		}
	}
	if strings.IndexByte(v, '(') >= 0 {
		return false
	}
	if eq := strings.IndexByte(v, '='); eq > 0 && eq < len(v)-1 && identOnly(v[:eq]) {
		return false
	}
	if h := strings.IndexByte(v, '#'); h > 0 && allDigits(v[h+1:]) && lettersOnly(v[:h]) {
		return false
	}
	// Base64 ("aGVsbG8=", long runs with "+"): encoded data or generated,
	// judged by the entropy rules.
	if (len(v) >= 20 || v[len(v)-1] == '=') && strings.Trim(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=") == "" {
		return false
	}
	// Digits dominate: a phone number or a date with a suffix.
	return digit <= 3*(upper+lower)
}

func identOnly(s string) bool {
	for k := 0; k < len(s); k++ {
		if !isIdentByte(s[k]) && s[k] != '.' && s[k] != '-' {
			return false
		}
	}
	return s != ""
}

func lettersOnly(s string) bool {
	for k := 0; k < len(s); k++ {
		if !(s[k] >= 'a' && s[k] <= 'z' || s[k] >= 'A' && s[k] <= 'Z') {
			return false
		}
	}
	return s != ""
}

// loginWords say that a text is about getting into something: logging in,
// signing in, unlocking, connecting with an account, in the guard's
// languages. Matched in lower case, anywhere (CJK) or as the start of a
// word (the others).
var loginWords = []string{
	"log in", "login", "log into", "logon", "log on", "sign in", "signin", "sign-in", "unlock", "credential", "creds",
	"wifi", "wi-fi", "wlan", "ssh", "sudo", "admin", "root", "contra", "mdp", "account", "access", "authenticat", "what you type", "type in", "enter ", "bind",
	"iniciar sesión", "acceder", "acceso", "cuenta", "connexion", "se connecter", "compte", "identifiant", "anmeld", "zugang", "konto",
	"entrar", "acessar", "acesso", "conta", "accedere", "accesso",
	"вход", "войти", "логин", "доступ", "учётн", "учетн", "аккаунт",
	"登录", "登入", "账号", "账户", "帐号", "ログイン", "アカウント", "接続", "로그인", "접속", "계정", "लॉगिन", "खाता",
}

func loginCue(text string) bool {
	lower := strings.ToLower(text)
	for _, w := range loginWords {
		k := strings.Index(lower, w)
		for k >= 0 {
			if r, _ := utf8.DecodeLastRuneInString(lower[:k]); w[0] >= 0x80 || k == 0 || !isWordRune(r) || r >= 0x2E80 {
				return true
			}
			n := strings.Index(lower[k+1:], w)
			if n < 0 {
				break
			}
			k += 1 + n
		}
	}
	return false
}

func isAlnumRun(s string) bool {
	for k := 0; k < len(s); k++ {
		if !isAlnum(s[k]) {
			return false
		}
	}
	return s != ""
}

func hasUpper(s string) bool {
	for k := 0; k < len(s); k++ {
		if s[k] >= 'A' && s[k] <= 'Z' {
			return true
		}
	}
	return false
}

// dateTimeIn reports an ISO date ("2024-05-20") or a time ("13:02:11") in v.
func dateTimeIn(v string) bool {
	for k := 0; k+10 <= len(v); k++ {
		if allDigits(v[k:k+4]) && v[k+4] == '-' && allDigits(v[k+5:k+7]) && v[k+7] == '-' && allDigits(v[k+8:k+10]) {
			return true
		}
	}
	for k := 0; k+8 <= len(v); k++ {
		if allDigits(v[k:k+2]) && v[k+2] == ':' && allDigits(v[k+3:k+5]) && v[k+5] == ':' && allDigits(v[k+6:k+8]) {
			return true
		}
	}
	return false
}

// Codes of the devices that guard a place. "Alarme : code 5348",
// "Einbruchmeldeanlage scharf/unscharf: Code 5634", "Arm the panel: enter
// 455272", "qual é o código do alarme? — 5968": in a text about an alarm,
// a door, a gate, a safe or a keypad, a run of four to ten digits (with
// the key pressed after it) that a code word or an entry verb introduces
// is the code that opens it. The code words alone ("error code 5005",
// "zip code") name no secret; the device is what makes them one.

// deviceWords name what a code opens, in the guard's languages.
var deviceWords = []string{
	"alarm", "keypad", "door", "gate", "safe", "lockbox", "intercom", "garage",
	"alarma", "puerta", "portón", "caja fuerte", "alarme", "porte", "portail", "coffre", "digicode", "interphone",
	"alarmanlage", "einbruchmelde", "tür", "tor", "tresor", "allarme", "porta", "cancello", "cassaforte",
	"portão", "cofre", "сигнализац", "охран", "двер", "домофон", "сейф", "警報", "警備", "ドア", "金庫", "オートロック",
	"报警", "门禁", "保险柜", "대문", "현관", "도어락", "경비", "금고", "अलार्म", "दरवाज", "तिजोरी",
}

// codeWords introduce a code; entry verbs ask for one.
var codeWords = []string{
	"code", "código", "codigo", "codice", "код", "코드", "コード", "码", "번호", "पिन", "कोड", "passcode", "pin",
	"enter", "punch in", "type", "dial", "eingeben", "digita", "digite", "tecle", "введите", "입력",
}

// deviceCodes adds a probable finding for each code of a device in text.
// It looks before each run of four to ten digits for a code word (the
// cheap part, and most texts end there), then for a device in the text.
func deviceCodes(text string, add func(Finding)) {
	var found []Finding
	device, checked := false, false
	for p := 0; p < len(text); {
		if !isDigit(text[p]) {
			p++
			continue
		}
		e := p
		for e < len(text) && isDigit(text[e]) {
			e++
		}
		s := p
		p = e
		if n := e - s; n < 4 || n > 10 || s > 0 && isAlnum(text[s-1]) || e < len(text) && (isAlnum(text[e]) || (text[e] == '.' || text[e] == ',') && e+1 < len(text) && isDigit(text[e+1])) {
			continue
		}
		lower := strings.ToLower(text[max(0, s-48):s])
		if !codeBefore(lower) {
			continue
		}
		if e-s == 4 && (text[s] == '1' && text[s+1] == '9' || text[s] == '2' && text[s+1] == '0') && yearAround(lower, len(lower)) {
			continue // "since 2019"
		}
		if !checked {
			low := strings.ToLower(text)
			for _, w := range deviceWords {
				if deviceWordIn(low, w) {
					device = true
					break
				}
			}
			checked = true
		}
		if !device {
			return
		}
		found = append(found, Finding{Kind: KindSecret, Type: SecretPassword, Level: LevelProbable, Start: s, End: e, Reason: "the code of an alarm, a door or a safe"})
	}
	for _, f := range found {
		add(f)
	}
}

// codeBefore reports a code word or an entry verb that introduces the
// digits after lower (the text before them, lower-cased): the word, then
// at most three short words, a chat speaker, a colon ("code 5348",
// "Code: 5634", "código do alarme?\nAna: 5968", "enter 455272"), and no
// other kind of code ("error code").
func codeBefore(lower string) bool {
	// Step back over separators and up to three short tokens.
	p := len(lower)
	for range 4 {
		q := strings.TrimRight(lower[:p], " :：\t\n?")
		p = len(q)
		for _, w := range codeWords {
			if strings.HasSuffix(q, w) {
				k := len(q) - len(w)
				if (w[0] >= 0x80 || k == 0 || !isWordRune(rune(q[k-1]))) && !otherCode(q[:k]) {
					return true
				}
			}
		}
		// The previous token, if short.
		k := strings.LastIndexAny(q, " :\n?")
		if k < 0 || len(q)-k-1 > 8 || len(q)-k-1 == 0 {
			return false
		}
		p = k + 1
	}
	return false
}

// yearAround reports words that make four digits a year: "since", "in",
// "year", "built".
func yearAround(lower string, p int) bool {
	h := lower[max(0, p-12):p]
	for _, w := range []string{"since", "in ", "year", "built", "from", "until", "desde", "depuis", "seit", "dal ", "年"} {
		if strings.Contains(h, w) {
			return true
		}
	}
	return false
}

// deviceWordIn reports w in lower as a word (an "s" plural allowed:
// "doors", not "gateway", "unsafe" or "torque"); words of other alphabets
// and the stems among them ("сигнализац", "einbruchmelde") anywhere.
func deviceWordIn(lower, w string) bool {
	for off := 0; ; {
		k := strings.Index(lower[off:], w)
		if k < 0 {
			return false
		}
		k += off
		off = k + 1
		e := k + len(w)
		if w[0] >= 0x80 || strings.HasSuffix(w, "melde") {
			return true
		}
		if k > 0 && isWordRune(rune(lower[k-1])) {
			continue
		}
		if e < len(lower) && lower[e] == 's' {
			e++
		}
		if e == len(lower) || !isWordRune(rune(lower[e])) {
			return true
		}
	}
}

// otherCode reports a word before a code word that makes it another kind
// of code: "error code", "zip code", "order number", "promo code".
func otherCode(before string) bool {
	h := strings.TrimRight(before, " ")
	for _, w := range []string{"error", "status", "exit", "zip", "postal", "post", "area", "country", "promo", "coupon",
		"discount", "tracking", "order", "reference", "booking", "confirmation", "invoice", "product", "item",
		"response", "return", "http", "source", "sku", "qr", "bar", "fault", "event", "erreur", "fehler", "error de", "código de error"} {
		if strings.HasSuffix(h, w) {
			return true
		}
	}
	return false
}

// digitRun reports n digits in a row in text.
func digitRun(text string, n int) bool {
	run := 0
	for k := 0; k < len(text); k++ {
		if isDigit(text[k]) {
			if run++; run >= n {
				return true
			}
		} else {
			run = 0
		}
	}
	return false
}

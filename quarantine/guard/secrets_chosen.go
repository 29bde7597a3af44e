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
	if c := strings.LastIndexByte(text[a:b], ':'); c > 0 && !strings.ContainsAny(text[a:a+c], chosenSymbols) {
		a += c + 1
	}
	// "-p'Coral34!Lilac'", "-wGravel#88": a flag glued to its value.
	if b-a > 3 && text[a] == '-' && isASCIIAlnum(text[a+1]) && strings.IndexByte("\"'", text[a+2]) >= 0 {
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
	if sampleValue(v) {
		return false // "abcdefg12346+FJQCK": a documentation sample
	}
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
	if strings.IndexByte("$@+%=", v[0]) >= 0 && sym == 1 || v[0] == '-' && (v[1] == '-' || isASCIIAlnum(v[1])) {
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
		if host != "" && (strings.ContainsRune(host, '.') || host == strings.ToLower(host) && user == strings.ToLower(user) && !allDigits(host) || user == strings.ToLower(user) && isDigit(host[0])) {
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
	return every(s, func(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' })
}

// every reports a non-empty s whose every byte passes f.
func every(s string, f func(byte) bool) bool {
	for k := 0; k < len(s); k++ {
		if !f(s[k]) {
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
	"log in", "login", "log into", "logs in", "logs into", "logon", "log on", "sign in", "signs in", "signs into", "signin", "sign-in", "unlock", "credential", "creds",
	"wifi", "wi-fi", "wlan", "ssh", "sudo", "admin", "root", "contra", "mdp", "usuario", "utilisateur", "benutzer",
	"usuário", "utente", "пользовател", "사용자", "ユーザー", "用户", "protected by", "protégé par", "protegido con", "geschützt", "account", "access", "authenticat", "what you type", "type in", "enter ", "bind",
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

func isAlnumRun(s string) bool { return every(s, isASCIIAlnum) }

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
	"alarm", "keypad", "door", "gate", "safe", "lockbox", "intercom", "garage", "padlock", "bike lock", "door lock",
	"smart lock", "combo", "locker", "shed", "cadenas", "candado", "lucchetto", "cadeado", "vorhängeschloss", "fahrradschloss",
	"подъезд", "замок", "자물쇠", "사물함", "공동현관", "储物柜", "挂锁", "ロッカー", "南京錠", "ताला", "लॉकर", "schlage",
	"保险箱", "保管箱", "门锁", "密码锁", "пульт", "haustür", "wohnungstür", "hoftor", "garagentor", "unlock", "phone",
	"key cabinet", "portal", "antifurto", "caixa das chaves", "caja de llaves", "boîte à clés", "schlüsselbox", "schlüsselkasten",
	"cassetta delle chiavi", "钥匙盒", "キーボックス", "키박스", "ключниц", "ダイヤルロック", "लॉक", "ताले", "गेट", "portone", "zahlenschloss", "tsa lock", "suitcase", "行李箱", "密码锁", "antivol", "hotel room", "vestuario", "caja fuerte", "cofre", "lucchetto",
	"alarma", "puerta", "portón", "caja fuerte", "alarme", "porte", "portail", "coffre", "digicode", "interphone",
	"alarmanlage", "einbruchmelde", "tür", "tor", "tresor", "allarme", "porta", "cancello", "cassaforte",
	"portão", "cofre", "сигнализац", "охран", "двер", "домофон", "сейф", "警報", "警備", "ドア", "金庫", "オートロック",
	"报警", "门禁", "保险柜", "대문", "현관", "도어락", "경비", "금고", "अलार्म", "दरवाज", "तिजोरी",
}

// codeWords introduce a code; entry verbs ask for one.
var codeWords = []string{
	"code", "código", "codigo", "codice", "код", "코드", "コード", "码", "번호", "पिन", "कोड", "passcode", "pin",
	"enter", "punch in", "punch", "type", "dial", "eingeben", "digita", "digite", "tecle", "введите", "입력",
	// Links, in a text about a lock: "the combo … is 6797", "set to 5356",
	// "opens with 452446", "geht mit … auf".
	"unlocks with", "unlock with",
	"combo", "combination", "is", "it's", "set to", "set it to", "changed it to", "reset it to", "opens with", "open with", "geht mit", "es", "est", "ist", "é", "è",
	"是", "设的是", "为", "кодом", "opens on", "se abre con", "abre con", "s'ouvre avec", "öffnet mit", "si apre con", "abre com",
	"the numbers are", "the three numbers are",
	// Number words and the particles that link them ("ताले का नंबर 2520",
	// "金庫の番号は2015", "scharf/unscharf mit 2871").
	"नंबर", "番号", "号码", "は", "mit", "은", "는", "to", "su", "auf",
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
		// A combination: "34-83-44-60", "09 57 42", "37-89-23".
		if e-p == 2 {
			if ce, ok := comboAt(text, p); ok {
				e = ce
			}
		}
		s := p
		p = e
		// Part of a number in groups (a phone number, "07761 017849"): not
		// a code.
		if groupedNumber(text, s, e) {
			continue
		}
		// A letter with the digits of a door code: "7023B", "A7561".
		if n := e - s; n >= 4 && n <= 6 {
			if e < len(text) && text[e] >= 'A' && text[e] <= 'Z' && (e+1 == len(text) || !isASCIIAlnum(text[e+1])) {
				e++
			} else if s > 0 && text[s-1] >= 'A' && text[s-1] <= 'Z' && (s == 1 || !isASCIIAlnum(text[s-2])) {
				s--
			}
		}
		// A key pressed first: "*2018" after a blank or a colon, "#3340"
		// after a colon (not "closed #6948", an issue).
		if s > 1 && (text[s-1] == '*' && (text[s-2] == ' ' || text[s-2] == ':') || text[s-1] == '#' && strings.HasSuffix(strings.TrimRight(text[:s-1], " "), ":")) {
			s--
		}
		if n := e - s; n < 3 || n == 3 && !comboLockIn(text) || n > 11 || s > 0 && (isASCIIAlnum(text[s-1]) || strings.IndexByte("#-./", text[s-1]) >= 0) || e < len(text) && (isASCIIAlnum(text[e]) || (text[e] == '.' || text[e] == ',') && e+1 < len(text) && isDigit(text[e+1])) {
			continue
		}
		if text[s] == '*' || text[s] == '#' {
			s++
		}
		lower := strings.ToLower(text[max(0, s-48):s])
		word, link := codeBefore(lower)
		first, named := false, false
		if !word {
			first, named = codeFirst(text, s, e)
		}
		if !word && !first && !codeAfter(strings.ToLower(text[e:min(len(text), e+40)])) || unitAfter(text[e:]) {
			continue
		}
		// A link ("is", "set to") needs the device in its own sentence:
		// "the hotel room safe is set to 5356", not "the gate job …
		// which is what closed 6948".
		if link && !deviceNear(strings.ToLower(text[max(0, s-80):s])) {
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
		if !device && !named {
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
func codeBefore(lower string) (found, link bool) {
	// Step back over separators and up to three short tokens.
	p := len(lower)
	for range 4 {
		q := strings.TrimRight(lower[:p], " :：\t\n?[(")
		colon := p > len(q) && strings.ContainsAny(lower[len(q):p], ":：")
		for i, w := range codeWords {
			if strings.HasSuffix(q, w) {
				k := len(q) - len(w)
				if (w[0] >= 0x80 || k == 0 || !isWordRune(rune(q[k-1]))) && !otherCode(q[:k]) {
					// A link after a code word names the code: "Code is
					// 2705#" needs no device in its own sentence.
					if i >= firstLinkWord {
						if found, link := codeBefore(strings.TrimRight(q[:k], " ")); found && !link {
							return true, false
						}
					}
					return true, i >= firstLinkWord
				}
			}
		}
		if colon {
			return true, true // "Open sesame for the shed padlock: 3101"
		}
		// The previous token, if short.
		k := strings.LastIndexAny(q, " :\n?")
		if k < 0 || len(q)-k-1 > 8 || len(q)-k-1 == 0 {
			return false, false
		}
		p = k + 1
	}
	return false, false
}

// firstLinkWord is the index in codeWords of the first link ("combo",
// "is", …): words that name no code alone.
var firstLinkWord = func() int {
	for i, w := range codeWords {
		if w == "combo" {
			return i
		}
	}
	return len(codeWords)
}()

// deviceNear reports a device word in lower, the text just before a code,
// within its sentence.
func deviceNear(lower string) bool {
	if k := strings.LastIndex(lower, ". "); k >= 0 {
		lower = lower[k+2:]
	}
	for _, w := range deviceWords {
		if deviceWordIn(lower, w) {
			return true
		}
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
		"response", "return", "http", "source", "sku", "qr", "bar", "fault", "event", "erreur", "fehler", "error de", "código de error",
		// Numbers of a membership, a customer or a policy: "회원번호", "customer ref".
		"member", "membership", "loyalty", "customer", "client", "policy", "ref", "회원", "会员", "会員", "客户", "顾客", "mitglieds",
		"kunden", "socio", "sócio", "adhérent", "tessera", "sort", "friend", "game", "room", "meeting", "join", "referral",
		"invite", "invitation", "gift", "voucher", "redeem", "redemption", "activation key", "license", "licence"} {
		if strings.HasSuffix(h, w) {
			return true
		}
	}
	return false
}

// codeAfter reports words after the digits that make them a code to
// enter: "484119 ← enter this on the keypad", "1258 opens the door".
func codeAfter(after string) bool {
	a := strings.TrimLeft(after, " #*")
	for _, w := range []string{"← enter", "<- enter", "- enter", "— enter", "opens the", "unlocks the", "on the keypad", "on the gate keypad"} {
		if strings.HasPrefix(a, w) {
			return true
		}
	}
	return false
}

// groupedNumber reports digits text[s:e] with another group of three
// digits or more a blank away: a phone or an account number.
func groupedNumber(text string, s, e int) bool {
	digitsAt := func(p, step int) int {
		n := 0
		for p >= 0 && p < len(text) && isDigit(text[p]) {
			n++
			p += step
		}
		return n
	}
	return e+1 < len(text) && text[e] == ' ' && digitsAt(e+1, 1) >= 3 || s >= 2 && text[s-1] == ' ' && digitsAt(s-2, -1) >= 3
}

// comboLockWords name locks whose combinations have three digits.
var comboLockWords = []string{"padlock", "tsa lock", "combination lock", "bike lock", "luggage lock", "suitcase", "cadeado", "candado",
	"cadenas", "lucchetto", "zahlenschloss", "vorhängeschloss", "密码锁", "ダイヤルロック", "南京錠", "자물쇠", "кодовый замок", "навесной замок", "ताला"}

// comboLockIn reports a combination lock in text.
func comboLockIn(text string) bool {
	return containsAny(strings.ToLower(text), comboLockWords)
}

// codeFirst reports digits that open a line or a text and that the rest
// of their sentence calls a code (first), and whether it names them a
// password or a PIN, which needs no device (named): "0228 — ese es el
// código del portal", "587719 — этим кодом открывается сейф", "920904#
// 是小区单元门的密码", "5164 ← 娘のiPadのパスコード". A year opening a line
// ("2019 — the code was rewritten") is not one.
func codeFirst(text string, s, e int) (first, named bool) {
	if !valueOpens(text, s) || e-s == 4 && (text[s:s+2] == "19" || text[s:s+2] == "20") {
		return false, false
	}
	rest := text[e:min(len(text), e+160)]
	if k := strings.IndexAny(rest, "\n.!?。"); k >= 0 {
		rest = rest[:k]
	}
	lr := strings.ToLower(strings.TrimLeft(rest, " #*"))
	// The digits stand alone before their explanation: a dash, an arrow,
	// a colon or the sentence's own words, never a unit or another number.
	if lr == "" || isDigit(lr[0]) {
		return false, false
	}
	for _, w := range secretNamesAfter {
		if strings.Contains(lr, w) {
			return true, true
		}
	}
	for _, w := range codeNamesAfter {
		if strings.Contains(lr, w) {
			return true, false
		}
	}
	return deviceNear(lr), false
}

// codeNamesAfter name, after the digits, a code; secretNamesAfter a
// password or a PIN.
var (
	codeNamesAfter   = []string{"code", "código", "codigo", "codice", "код", "코드", "コード", "码", "번호", "कोड"}
	secretNamesAfter = []string{"pin", "passcode", "password", "mot de passe", "contraseña", "senha", "passwort", "пароль", "密码",
		"パスワード", "パスコード", "暗証", "비밀번호", "पासवर्ड"}
)

// unitAfter reports a unit or a currency right after the digits: "2400
// mm", "5356 minutes", "1200 €": a measure, not a code.
func unitAfter(after string) bool {
	a := strings.TrimLeft(after, " ")
	k := 0
	for k < len(a) && (a[k] >= 'a' && a[k] <= 'z' || a[k] >= 'A' && a[k] <= 'Z') {
		k++
	}
	switch strings.ToLower(a[:k]) {
	case "mm", "cm", "m", "km", "kg", "g", "mb", "gb", "kb", "ms", "s", "sec", "seconds", "min", "mins", "minutes", "h", "hours", "days",
		"px", "eur", "usd", "rpm", "mhz", "ghz", "w", "v", "mah", "lbs", "ft", "in", "x":
		return true
	}
	return strings.HasPrefix(a, "€") || strings.HasPrefix(a, "$") || strings.HasPrefix(a, "%") || strings.HasPrefix(a, "°")
}

// Credentials in delimited tables. A CSV, TSV or semicolon-separated
// table whose header names a column a password, a PIN, a secret or a
// token holds credentials in that column, whatever their shape:
// "service,username,password\nmailchimp,shop@example.org,Harbor&Lantern32".
// (Markdown tables are read by tableSecrets in secrets_forms.go.)

// tableColumns are the header cells that name a credential column, in
// the guard's languages (lower case).
var tableColumns = map[string]bool{
	"password": true, "passwd": true, "pwd": true, "pass": true, "pw": true, "secret": true, "token": true,
	"api key": true, "api_key": true, "apikey": true, "secret key": true, "secret_key": true, "pin": true,
	"passcode": true, "passphrase": true, "access token": true, "client secret": true, "client_secret": true,
	"contraseña": true, "clave": true, "mot de passe": true, "mdp": true, "senha": true, "passwort": true,
	"kennwort": true, "password (plain)": true, "пароль": true, "비밀번호": true, "密码": true, "パスワード": true,
	"पासवर्ड": true, "code": true, "código": true, "codice": true,
}

// delimitedSecrets adds a probable finding for each cell of a credential
// column below its header.
func delimitedSecrets(text string, add func(Finding)) {
	if !strings.ContainsAny(text, ",\t;") || strings.IndexByte(text, '\n') < 0 {
		return
	}
	lines := strings.SplitAfter(text, "\n")
	off := 0
	col, sep, fields := -1, byte(0), 0
	for _, line := range lines {
		start := off
		off += len(line)
		body := strings.TrimRight(line, "\r\n")
		if strings.TrimSpace(body) == "" {
			col = -1
			continue
		}
		if col < 0 {
			col, sep, fields = tableHeader(body)
			continue
		}
		cells := splitCells(body, sep)
		if len(cells) != fields {
			col = -1
			if c, s, f := tableHeader(body); c >= 0 {
				col, sep, fields = c, s, f
			}
			continue
		}
		cell := cells[col]
		v := strings.TrimSpace(body[cell[0]:cell[1]])
		if v == "" || strings.Trim(v, "-: ") == "" {
			continue // a Markdown rule row, an empty cell
		}
		a := start + cell[0] + strings.Index(body[cell[0]:cell[1]], v)
		v = strings.Trim(v, "`\"'")
		a += strings.Index(text[a:], v)
		if len(v) < 4 || !notPlaceholder(v) || placeholderValue(v) || strings.Contains(v, " ") && !strings.ContainsAny(v, "0123456789") {
			continue
		}
		add(Finding{Kind: KindSecret, Type: SecretPassword, Level: LevelProbable, Start: a, End: a + len(v), Reason: "a cell of a table's password column"})
	}
}

// tableHeader reports the credential column of a header line, its
// separator and its number of cells, or -1.
// credentialColumn reports a column named after a credential with a word
// more: "temp_password", "initial-pin", "api token", but not
// "password_hash" or "token_id".
func credentialColumn(name string) bool {
	parts := strings.FieldsFunc(name, func(r rune) bool { return r == '_' || r == '-' || r == ' ' })
	if len(parts) < 2 || len(parts) > 3 || publicName(name) {
		return false
	}
	for _, p := range parts {
		switch p {
		case "password", "passwd", "pwd", "pin", "secret", "token", "passphrase", "passcode":
			return true
		}
	}
	return false
}

func tableHeader(line string) (col int, sep byte, fields int) {
	for _, s := range []byte{'\t', ',', ';'} {
		if strings.IndexByte(line, s) < 0 {
			continue
		}
		cells := splitCells(line, s)
		if len(cells) < 2 {
			continue
		}
		for i, c := range cells {
			name := strings.ToLower(strings.Trim(strings.TrimSpace(line[c[0]:c[1]]), "`*\"'"))
			if tableColumns[name] || credentialColumn(name) {
				return i, s, len(cells)
			}
		}
	}
	return -1, 0, 0
}

// splitCells returns the spans of the cells of line parted by sep.
func splitCells(line string, sep byte) [][2]int {
	var out [][2]int
	a, b := 0, len(line)
	s := a
	for k := a; k <= b; k++ {
		if k == b || line[k] == sep {
			out = append(out, [2]int{s, k})
			s = k + 1
		}
	}
	return out
}

// Logins as "user / password" pairs: "- cPanel: tinytea / irGwRcgowxZr",
// "Wi-Fi 'Home' / meadow502". In a text about logging in or credentials,
// the part after " / " is the password when the part before is a user or
// network name and the part after looks like a password: not a word, a
// path, a date or a fraction.
func loginPairs(text string, add func(Finding)) {
	if !strings.Contains(text, " / ") {
		return
	}
	cue := -1 // loginCue or a credential noun, found once when needed
	for off := 0; ; {
		k := strings.Index(text[off:], " / ")
		if k < 0 {
			return
		}
		k += off
		off = k + 3
		// The user: one token before, after a colon, a line start or a
		// quote.
		u := strings.LastIndexAny(text[:k], " \n\t") + 1
		user := strings.Trim(text[u:k], "'\"«»“”`")
		if user == "" || strings.ContainsAny(user, "/\\") || len(user) > 64 {
			continue
		}
		s := off
		e := s
		for e < len(text) && text[e] > ' ' {
			e++
		}
		if s < len(text) && text[s] == '`' {
			continue // code: "`push` / `workflow_dispatch`"
		}
		v := strings.TrimRight(text[s:e], ".,;:)!?'\"”»")
		if strings.HasSuffix(text[s:e], "!") && len(v) < len(text[s:e]) && strings.ContainsAny(v, "0123456789") {
			v = text[s:e] // "74r7ine62!"
		}
		if strings.Trim(v, "abcdefghijklmnopqrstuvwxyz0123456789_-") == "" && strings.ContainsAny(v, "_-") {
			continue // an identifier: "postgres-admin", "workflow_dispatch"
		}
		if len(v) < 6 || strings.ContainsAny(v, "/\\") || rejectValue(v) || !(looksLikePassword(v) || randomLooking(v) || len(v) >= 10 && caseMixed(v) || wordThenDigits(strings.ToLower(v)) && digitCount(v) >= 2) {
			continue
		}
		if cue < 0 {
			cue = 0
			if loginCue(text) {
				cue = 1
			} else {
				for _, m := range findNaming(text, asciiLower(text)) {
					if m.kind.credential() {
						cue = 1
						break
					}
				}
			}
		}
		if cue == 0 {
			return
		}
		add(Finding{Kind: KindSecret, Type: SecretPassword, Level: LevelProbable, Start: s, End: s + len(v), Reason: "the password of a user / password pair"})
	}
}

// Codes whose length the sentence gives: "the 4 digits to type at the
// cash machine: 7635", "ATMで押す4桁：5366", "les 4 chiffres … : 7635".
// Saying how many digits a code has and then giving them is how people
// note a PIN whatever they call it.
func countedDigits(text string, add func(Finding)) {
	lower := asciiLower(text) // offsets into text
	for _, w := range []string{" digits", " digit", " chiffres", " ziffern", " dígitos", " digitos", " cifre", " цифры", " цифр", "桁", "位数", "자리는", "자리"} {
		for off := 0; ; {
			k := strings.Index(lower[off:], w)
			if k < 0 {
				break
			}
			k += off
			off = k + len(w)
			// The count before the word: "4 digits", "4桁".
			d := k
			for d > 0 && lower[d-1] == ' ' {
				d--
			}
			n := 0
			if d > 0 && isDigit(lower[d-1]) && (d < 2 || !isDigit(lower[d-2])) {
				n = int(lower[d-1] - '0')
			}
			if n < 4 || otherCode(strings.TrimRight(lower[:max(0, d-1)], " ")) || strings.Contains(lower[max(0, d-40):d], "ticket") || strings.Contains(lower[max(0, d-40):d], "order") || strings.Contains(lower[max(0, d-40):d], "number") {
				continue // "the ticket has 6 digits: 123456"
			}
			// A colon within the clause, then exactly n digits.
			rest := text[off:min(len(text), off+80)]
			c := strings.IndexAny(rest, ":：")
			if c < 0 || strings.ContainsAny(rest[:c], ".\n") {
				continue
			}
			p := off + c
			for p < len(text) && (text[p] == ':' || text[p] == ' ') {
				p++
			}
			if strings.HasPrefix(text[p:], "：") {
				p += len("：")
			}
			e := p
			for e < len(text) && isDigit(text[e]) {
				e++
			}
			if e-p == n && (e == len(text) || !isASCIIAlnum(text[e])) {
				add(Finding{Kind: KindSecret, Type: SecretPassword, Level: LevelProbable, Start: p, End: e, Reason: "a code given with its number of digits"})
			}
		}
	}
}

// seedCues are the words of a text about a wallet's words.
var seedCues = []string{"seed", "phrase", "mnemonic", "recovery", "backup", "wallet", "ledger", "metamask", "trezor", "words",
	"palabras", "palavras", "mots", "wörter", "parole", "слов", "단어", "単語", "助记", "शब्द", "frase", "carteira", "cartera",
	"portefeuille", "kryptow", "кошел", "지갑", "钱包", "ウォレット", "वॉलेट"}

// Seed phrases. Twelve, eighteen or twenty-four words of three to eight
// lower-case letters in a row, none a word of a sentence, are a wallet's
// recovery phrase whatever names them: prose never strings twelve content
// words together without a small word between them.
func seedPhrases(text string, add func(Finding)) {
	if len(text) < 60 {
		return
	}
	cue := false
	lower := strings.ToLower(text)
	for _, w := range seedCues {
		if strings.Contains(lower, w) {
			cue = true
			break
		}
	}
	if !cue {
		return // a list of tags or packages is twelve words too
	}
	start, words, last := -1, 0, 0
	flush := func() {
		if words >= 12 && start >= 0 {
			add(Finding{Kind: KindSecret, Type: SecretPassword, Level: LevelProbable, Start: start, End: last, Reason: "a wallet's recovery phrase"})
		}
		start, words = -1, 0
	}
	for k := 0; k <= len(text); {
		if k == len(text) {
			flush()
			break
		}
		if text[k] < 'a' || text[k] > 'z' {
			if text[k] != ' ' && text[k] != '\n' || words > 0 && k > 0 && (text[k-1] == ' ' || text[k-1] == '\n') && text[k] != ' ' && text[k] != '\n' {
				flush()
			}
			k++
			continue
		}
		e := k
		for e < len(text) && text[e] >= 'a' && text[e] <= 'z' {
			e++
		}
		w := text[k:e]
		boundary := e == len(text) || text[e] == ' ' || text[e] == '\n' || text[e] == '.' || text[e] == ','
		if len(w) < 3 || len(w) > 8 || !boundary || phraseStops[w] || looseStops[w] || k > 0 && text[k-1] != ' ' && text[k-1] != '\n' && text[k-1] != ':' {
			flush()
			k = e
			continue
		}
		if start < 0 {
			start = k
		}
		words++
		last = e
		k = e
		if e < len(text) && text[e] != ' ' && text[e] != '\n' {
			flush()
		}
	}
}

// comboAt reads a combination at text[p:]: three or four groups of two
// digits parted by "-" or single spaces, nothing glued after.
func comboAt(text string, p int) (int, bool) {
	k, groups := p, 0
	var sep byte
	for {
		if k+2 > len(text) || !isDigit(text[k]) || !isDigit(text[k+1]) {
			return 0, false
		}
		k += 2
		groups++
		if groups < 4 && k+1 < len(text) && (text[k] == '-' || text[k] == ' ') && (sep == 0 || sep == text[k]) && isDigit(text[k+1]) {
			sep = text[k]
			k++
			continue
		}
		if k < len(text) && isASCIIAlnum(text[k]) {
			return 0, false
		}
		return k, groups >= 3
	}
}

// Credentials given as the answer to a question about one: "¿cuál es la
// contraseña del router?\n[08:21] Álvaro: valencia12345", "какой пин у
// рабочей симки?\n[21:18] Катя: 8067", "> what's the vpn psk?\n\nS2jL…",
// "tu peux retenir le mdp du wifi stp ? c'est FC8S-X3E3-XF3P".

// answeredSecrets adds a probable finding for the value that answers a
// question naming a credential: the first token after the question mark,
// past a quote mark, a chat speaker ("[08:21] Álvaro:", "Катя:") and a
// short lead-in ("c'est", "it's"), when it has a credential's shape.
func answeredSecrets(text string, add func(Finding)) {
	for off := 0; off < len(text); {
		k := strings.IndexAny(text[off:], "?？")
		if k < 0 {
			return
		}
		q := off + k
		_, size := utf8.DecodeRuneInString(text[q:])
		off = q + size
		// The question: from its line's start (or its sentence's) to "?".
		qs := strings.LastIndexAny(text[:q], "\n.!") + 1
		question := text[qs:q]
		if !credentialIn(question) {
			continue
		}
		a, b, ok := answerToken(text, off)
		if !ok {
			continue
		}
		add(Finding{Kind: KindSecret, Type: SecretPassword, Level: LevelProbable, Start: a, End: b, Reason: "the answer to a question about a credential"})
		off = b
	}
}

// credentialIn reports a credential noun in s, not made something else
// by the words around it ("password policy", "the commit's hash").
func credentialIn(s string) bool {
	ms := findNaming(s, asciiLower(s))
	cred := false
	for _, m := range ms {
		switch {
		case m.kind == nameNonSecret || m.kind == nameNonSecretMod:
			return false
		case m.kind.credential() && m.kind != nameLogin:
			if e := m.end; e < len(s) {
				w := strings.ToLower(strings.TrimLeft(s[e:], " "))
				if k := strings.IndexAny(w, " ,?"); k >= 0 {
					w = w[:k]
				}
				if headChange[w] {
					continue
				}
			}
			cred = true
		}
	}
	return cred
}

// answerLeads may stand before an answer: "c'est", "it's", "es", "ist".
var answerLeads = []string{"c'est", "cest", "it's", "its", "it is", "es", "é", "è", "ist", "это", "是", "sure,", "sí,", "oui,", "ja,", "sim,"}

// answerToken returns the value that opens the answer after text[p:].
func answerToken(text string, p int) (a, b int, ok bool) {
	lim := min(len(text), p+120)
	i := p
	skip := func() {
		for i < lim && strings.IndexByte(" \t\n\r>", text[i]) >= 0 {
			i++
		}
	}
	skip()
	// A chat speaker: "[08:21] Álvaro:", "Катя:", "Ana -".
	if i < lim && text[i] == '[' {
		if k := strings.IndexByte(text[i:lim], ']'); k > 0 && k < 12 {
			i += k + 1
			skip()
		}
	}
	if k := strings.IndexAny(text[i:lim], ":\n"); k > 0 && k <= 24 && text[i+k] == ':' && !strings.ContainsAny(text[i:i+k], "0123456789/") {
		i += k + 1
		skip()
	}
	for _, w := range answerLeads {
		if len(text)-i > len(w) && strings.EqualFold(text[i:i+len(w)], w) && (text[i+len(w)] == ' ' || w == "是") {
			i += len(w)
			skip()
			break
		}
	}
	a = i
	for i < len(text) && text[i] > ' ' && text[i] < 0x7f {
		i++
	}
	b = i
	for b > a && strings.IndexByte(".,;!?)", text[b-1]) >= 0 {
		b--
	}
	v := text[a:b]
	if b == a || rejectValue(v) {
		return 0, 0, false
	}
	// The token must end where the answer's word ends: not the start of a
	// sentence ("Nope, ask Ana").
	if b < len(text) && text[b] >= 0x80 {
		return 0, 0, false
	}
	t := strings.TrimLeft(v, "*#")
	switch {
	case allDigits(t) && len(t) >= 4 && len(t) <= 12:
		return a + len(v) - len(t), b, true
	case looksLikePassword(v), generatedLooking(v), codeShape(v), wordThenDigits(v) && len(v) >= 6:
		return a, b, true
	}
	return 0, 0, false
}

// previousWords say that what follows is a credential's old value, in the
// guard's languages.
var previousWords = []string{"old", "previous", "former", "anterior", "antiguo", "antigua", "viejo", "vieja", "ancien",
	"ancienne", "précédent", "alte", "alten", "alter", "altes", "vorher", "früher", "nicht mehr", "antigo", "antiga",
	"vecchio", "vecchia", "precedente", "旧", "之前", "原来", "以前", "前の", "이전", "예전", "기존", "старый", "старая",
	"прежний", "прежняя", "предыдущ", "पुराना", "पुरानी", "पिछला"}

// previousValues adds a probable finding for the old value that a
// sentence gives beside a credential it found: "el PIN nuevo es 2152; el
// anterior (4046)…", "新密码是 yankees2006，旧的 noah2306…", "jetzt 94750,
// nicht mehr 02466". The old value follows an old-value word within a
// few words, in the same sentence, and has the shape of the new one (as
// many digits, give or take two, or a chosen password's shape).
func previousValues(text string, fs []Finding, add func(Finding)) {
	for _, f := range fs {
		if f.Kind != KindSecret || f.Level == LevelPossible || f.End > len(text) {
			continue
		}
		hi := min(len(text), f.End+120)
		if k := strings.IndexAny(text[f.End:hi], "\n"); k >= 0 {
			hi = f.End + k
		}
		after := text[f.End:hi]
		lower := strings.ToLower(after)
		digits := allDigits(text[f.Start:f.End])
		for _, w := range previousWords {
			k := strings.Index(lower, w)
			if k < 0 || w[0] < 0x80 && k > 0 && isWordRune(rune(lower[k-1])) {
				continue
			}
			// The value: the first run of letters, digits and symbols
			// within 40 bytes after the word.
			p := f.End + k + len(w)
			end := min(hi, p+40)
			for p < end {
				a := p
				for p < end && text[p] > ' ' && text[p] < 0x7f && strings.IndexByte("()[]\"'«»,;:", text[p]) < 0 {
					p++
				}
				v := strings.TrimRight(text[a:p], ".!?")
				if v != "" && (digits && allDigits(v) && abs(len(v)-(f.End-f.Start)) <= 2 || !digits && (looksLikePassword(v) || wordThenDigits(v)) && !rejectValue(v)) {
					add(Finding{Kind: KindSecret, Type: f.Type, Level: LevelProbable, Start: a, End: a + len(v), Reason: "the old value of a credential beside its new one"})
					break
				}
				if p == a {
					p++
				}
			}
			break
		}
	}
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

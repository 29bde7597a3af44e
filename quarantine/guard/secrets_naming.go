package guard

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The words a sentence uses to say what a value is. A credential noun
// ("the deploy token", "la contraseña", "API 密钥") names the value it is
// linked to as a secret, whatever its shape (secrets_context.go); a
// non-secret noun ("commit", "digest", "trace id", "fingerprint",
// "example") names it as something that is not, and a modifier ("public",
// "publishable", "cache") turns the credential noun after it into one of
// those. The lists cover English, Spanish, French, German, Portuguese,
// Italian, Chinese, Japanese, Russian, Korean and Hindi.

// namingKind is what a naming word says of the value it names.
type namingKind uint8

const (
	namePassword     namingKind = iota + 1 // passwords and passphrases
	nameSecret                             // secrets, tokens, credentials
	nameKey                                // keys: the value must look generated
	namePIN                                // PINs: digits are enough
	nameCode                               // recovery codes and keys: digits or short groups are enough
	nameLogin                              // logins: "user / password"
	nameNonSecret                          // commits, digests, ids, fingerprints, samples
	nameNonSecretMod                       // public, publishable, example...: the noun after it is not a secret
	nameKeyMod                             // cache, object, sort...: the key after it is not a secret
)

func (k namingKind) credential() bool { return k >= namePassword && k <= nameLogin }

// namingWords lists the words by kind. Latin, Cyrillic and Devanagari
// words match at word boundaries (an "s" plural allowed); words marked
// with a leading "~" may also end a compound ("Datenbankpasswort",
// "Zugangstoken", "clientsecret"), and words marked "!" name a value only
// through a link ("the sftp pass is …", not "pass `--frozen`"). Chinese, Japanese and Korean words
// match anywhere, except where wordOK says otherwise. Cyrillic words are
// listed in lower case; their capitalised forms are added.
var namingWords = map[namingKind][]string{
	namePassword: {
		"~password", "passwd", "pw", "mdp", "clave", "パス", "пасс", "!contra", "palavra-chave", "palavra chave", "кодовое слово",
		"code word", "codeword", "magic word", "open sesame", "mot magique", "palabra mágica", "!pass", "passphrase", "palabra clave", "mot de passe oral", "合言葉", "verbal password",
		"memorable word", "memorable information", "clave de acceso", "senha eletrônica", "senha eletronica", "what you type", "what she types", "what he types",
		"what i type", "what they type", "what unlocks", "what opens", "master.key", "pass phrase", "mot de passe", "mots de passe",
		"phrase de passe", "contraseña", "contrasena", "senha", "palavra-passe", "~passwort", "~kennwort",
		"parola d'ordine", "pre-shared key", "preshared key", "psk", "密码", "口令", "パスワード", "暗証番号", "пароль", "пароля", "паролем", "паролю",
		"пароли", "비밀번호", "패스워드", "비번", "암호", "पासवर्ड",
		// App passwords, and the keys of Wi-Fi networks and VPNs, which
		// people choose as they choose passwords.
		"app password", "app-specific password", "授权码", "clé pré-partagée", "cle pre-partagee", "clave precompartida",
		"chave pré-compartilhada", "chiave pre-condivisa", "wi-fi key", "wifi key", "wlan key", "wpa key", "wpa2 key",
		"network key", "clé wi-fi", "clé wifi", "clave wifi", "clave del wifi", "clave de la wifi", "chave wi-fi", "chave do wi-fi",
		"chiave wi-fi", "chiave del wi-fi", "暗号化キー", "ネットワークキー", "ключ wi-fi", "ключ сети", "와이파이 키",
		// Wallet seeds and recovery phrases: words that open a wallet or
		// an account.
		"recovery phrase", "seed phrase", "mnemonic", "secret phrase", "seed words", "recovery words", "backup phrase",
		"frase de recuperación", "frase semilla", "palavras de recuperação", "palabras de recuperación", "mots de récupération", "parole di recupero", "phrase de récupération", "phrase secrète", "~wiederherstellungsphrase",
		"seed-phrase", "frase de recuperação", "frase di recupero", "助记词", "リカバリーフレーズ", "シードフレーズ",
		"сид-фраза", "сид-фразы", "мнемоническая фраза",
		// Passphrases by their other names.
		"кодовая фраза", "кодовой фразы", "парольная фраза", "парольной фразы", "frase de contraseña", "frase de paso",
		"frase secreta", "frase-senha", "frase de senha", "frase segreta", "frase d'accesso", "~passwortsatz", "~kennsatz",
		"密码短语", "口令短语", "パスフレーズ", "패스프레이즈", "पासफ़्रेज़", "पासफ्रेज", "복구 문구", "시드 문구", "रिकवरी फ्रेज़",
	},
	nameSecret: {
		"~secret", "~token", "pat", "jeton", "secreto", "segredo", "segreto", "geheimnis",
		"dsn", "connection string", "bearer", "cookie", "community string", "snmp community", "gslt",
		"令牌", "凭证", "凭据", "连接串", "连接字符串", "トークン", "シークレット", "接続文字列",
		"токен", "токена", "токеном", "токены", "токену", "секрет", "секрета", "секретом",
		"토큰", "시크릿", "टोकन", "सीक्रेट",
	},
	nameKey: {
		"key", "apikey", "llave", "clé", "cle", "chave", "chiave", "~schlüssel", "~schluessel",
		"密钥", "秘钥", "私钥", "キー", "秘密鍵", "鍵", "ключ", "ключа", "ключи", "ключом", "ключу", "ключей",
		"키", "कुंजी",
	},
	namePIN: {
		"pin", "pin code", "code pin", "código pin", "pin-code", "pin码", "暗証コード", "passcode", "access code", "door code",
		"puk", "alarm code", "alarm pin", "keypad code", "gate code", "entry code", "unlock code", "lock code", "safe code",
		"digicode", "code d'accès", "code de la porte", "code d'alarme", "código de acceso", "código de la alarma",
		"código de alarme", "türcode", "alarmcode", "codice di accesso", "codice dell'allarme", "门禁密码", "解锁码",
		"ロック解除コード", "код доступа", "код от двери", "출입 코드", "도어락 비밀번호", "एक्सेस कोड",
		"code gérant", "clave de supervisor", "código de desconexión", "código de desactivación", "zugangscode",
		"einbruchmeldeanlage", "код снятия", "код доступа", "경비 해제 비밀번호", "도어락 번호", "警備解除", "manager passcode",
		"keypad", "alarm panel", "alarm system", "alarmanlage", "alarm", "alarma", "alarme", "allarme", "lockbox", "key safe",
		"keysafe", "intercom", "interphone", "citofono", "gate", "cancello", "portão", "safe combination", "combination",
		"kombination", "combinación", "combinaison", "combinazione", "combinação", "домофон", "домофона", "门禁",
		"オートロック", "도어락", "तिजोरी", "कॉम्बिनेशन", "activation code", "código de activación", "code d'activation", "aktivierungscode",
		"pin1", "pin2", "puk1", "puk2", "解除番号", "해제 번호", "해제번호", "code cb", "code carte", "code confidentiel", "número secreto", "numero segreto",
		"duress code", "duress pin", "code sous contrainte", "code de contrainte", "código de coacción", "mpin", "m-pin", "code personnel", "code secret", "código personal", "código secreto", "geheimzahl", "codice segreto",
		"codice personale", "codice antifurto", "antifurto", "パスコード", "화면 잠금",
		"पिन", "पिन कोड", "पिन नंबर", "пин-код", "пин-кода", "пин", "ПИН-код", "ПИН-кода", "ПИН", "핀 번호", "핀번호",
	},
	// Recovery and backup codes and keys open an account or a disk as a
	// password does; they are often digits or short groups.
	nameCode: {
		"recovery code", "backup code", "recovery key", "backup-code", "backup-codes", "2fa code", "2fa codes",
		"códigos de backup", "código de backup", "codici di backup", "codes de sauvegarde", "रिकवरी कोड", "बैकअप कोड", "रिकवरी कोड्स", "बैकअप कोड्स",
		"abholcode", "pickup code", "取件码", "login code", "sign-in code", "código de retirada", "code de retrait",
		"restore code", "auth code", "authorization code", "epp code", "transfer code", "setup key", "totp secret", "otp secret",
		"authenticator key", "2fa secret", "totp seed", "otp seed", "2fa seed", "mfa seed", "totp key",
		// One-time codes sent to log in or to confirm a payment.
		"otp", "one-time code", "one-time password", "one time password", "verification code", "sms code", "2fa code",
		"mfa code", "smstan", "sms-tan", "mtan", "chiptan", "pushtan", "验证码", "动态码", "短信验证码", "校验码",
		"認証コード", "確認コード", "認証番号", "ワンタイムパスワード", "인증번호", "인증 번호", "인증코드", "otp 번호",
		"код подтверждения", "код из смс", "код из sms", "смс-код", "sms-код", "одноразовый код", "код для входа",
		"codice di verifica", "codice otp", "codice sms", "code de vérification", "code de validation", "code sms",
		"código de verificación", "código de verificação", "código sms", "código otp", "bestätigungscode", "ओटीपी",
		"सत्यापन कोड", "वेरिफिकेशन कोड",
		"código de recuperación", "códigos de recuperación", "códigos de respaldo", "clave de recuperación",
		"code de récupération", "codes de récupération", "code de secours", "codes de secours", "clé de récupération",
		"~wiederherstellungscode", "~wiederherstellungscodes", "~wiederherstellungsschlüssel",
		"código de recuperação", "códigos de recuperação", "chave de recuperação",
		"codice di ripristino", "codici di ripristino", "codice di recupero", "codici di recupero", "codici di backup", "chiave di ripristino", "chiave di recupero",
		"恢复码", "恢复代码", "备用码", "恢复密钥", "リカバリーコード", "リカバリコード", "復旧コード", "バックアップコード", "回復キー",
		"код восстановления", "коды восстановления", "резервный код", "резервные коды", "ключ восстановления",
		"복구 코드", "복구코드", "백업 코드", "복구 키", "रिकवरी कोड", "बैकअप कोड", "रिकवरी कोड्स", "बैकअप कोड्स", "रिकवरी की",
	},
	nameLogin: {
		"login", "logins", "creds", "credential", "credentials", "account", "basic auth", "basic-auth", "basicauth", "accès", "acceso", "zugang",
		"accesso", "acesso", "credenciales", "identifiants", "zugangsdaten", "credenziali", "credenciais",
		"compte", "cuenta", "conta", "konto", "登录", "账号", "账户", "ログイン", "アカウント", "логин",
		"аккаунт", "учётная запись", "учетная запись", "로그인", "계정", "खाता",
	},
	nameNonSecret: {
		"commit", "sha", "sha1", "sha-1", "sha256", "sha-256", "sha384", "sha512", "md5", "revision",
		"hash", "digest", "checksum", "etag", "fingerprint", "trace", "traceparent", "traceid", "span",
		"spanid", "requestid", "correlation", "correlationid", "id", "uuid", "guid", "ulid",
		"identifier", "fixture", "test vector", "submodule",
		"pinned", "bisect", "signature", "cursor", "version", "name", "path", "cherry-pick", "revert",
		"reverted", "reverting", "reverts", "rebase", "rebased", "merged", "head", "tag", "tagged", "build",
		"git", "change", "changeset", "deployed", "deploying", "image", "request", "kid",
		"serial", "thumbprint", "md5sum", "sid", "content-addressed", "content address", "nonce", "accessor",
		"sha1sum", "sha256sum", "sha512sum", "shasum", "b2sum", "cksum",
		"hashed", "haché", "hachée", "哈希", "哈希值", "ハッシュ", "해시", "хеш", "хэш", "container",
		"serial number", "seriennummer", "numéro de série", "número de serie", "número de série", "numero di serie", "серийный номер",
		"序列号", "シリアル番号", "시리얼 번호", "सीरियल नंबर", "ssid", "network name", "nom du réseau", "nombre de red", "nome da rede", "netzwerkname", "имя сети",
		"site key", "sitekey", "roll back", "rollback", "known-good", "known good", "game pin", "game-pin", "irn", "pix", "iban", "bic", "swift", "txid", "tx hash", "transaction hash", "zone", "отпечаток", "отпечатка", "join code", "room code", "meeting code", "friend code", "webinar id",
		"empreinte", "somme de contrôle", "hachage", "identifiant",
		"prüfsumme", "pruefsumme", "fingerabdruck", "kennung",
		"identificador", "suma de verificación", "huella",
		"soma de verificação", "impressão digital",
		"impronta", "identificativo", "identificatore",
		"提交", "哈希", "散列", "摘要", "校验和", "指纹", "追踪", "跟踪", "请求", "标识", "公钥", "版本",
		"コミット", "ハッシュ", "ダイジェスト", "チェックサム", "指紋", "フィンガープリント", "トレース",
		"リクエスト", "識別子", "公開鍵",
		"коммит", "хеш", "хэш", "дайджест", "контрольная сумма", "отпечаток", "трассировки", "трассировка",
		"запрос", "запроса", "идентификатор",
		"커밋", "해시", "다이제스트", "체크섬", "지문", "트레이스", "추적", "요청", "식별자",
		"कमिट", "हैश", "चेकसम", "फ़िंगरप्रिंट", "फिंगरप्रिंट", "ट्रेस", "अनुरोध", "पहचानकर्ता",
	},
	nameKeyMod: {
		"cache", "idempotency", "object", "primary", "foreign", "host", "sort", "partition", "routing",
		"lookup", "message", "row", "record", "index", "shard", "dictionary", "map", "entry", "composite",
		"natural", "surrogate", "unique", "redis", "kv", "s3", "registry", "json", "yaml", "flag",
		"feature", "hash", "translation", "i18n", "react", "keyboard", "music", "musical", "kms", "cmk",
	},
	nameNonSecretMod: {
		"public", "publishable", "verification", "masked", "fake", "search-only",
		"example", "sample", "placeholder", "dummy", "exemple", "beispiel", "ejemplo", "exemplo", "esempio",
		"示例", "例子", "サンプル", "пример", "예시", "예제", "उदाहरण",
		"publique", "pública", "público", "pubblica", "pubblico", "öffentlich", "öffentliche",
		"öffentlicher", "öffentlichen", "oeffentlich", "公开", "公開", "공개", "публичный", "публичного",
		"открытый", "открытого", "सार्वजनिक",
	},
}

type namingWord struct {
	w        string
	kind     namingKind
	compound bool // may end a compound word
	spaced   bool // a script that separates words with spaces
	linkOnly bool // names a value only through a link ("pass" is also a verb)
}

// namingASCII and namingOther find the naming words of namingList
// written in ASCII and in other scripts: two small tables scan faster than
// one with every script's bytes, and most texts need only the first. They
// are built once and only read.
var namingASCII, namingOther, namingList = buildNaming()

// credentialNounsASCII returns the credential nouns written in ASCII, for
// the secret scanner's one pass over a text.
func credentialNounsASCII() []string {
	var out []string
	for _, nw := range namingList {
		if nw.kind.credential() && isASCII(nw.w) {
			out = append(out, nw.w)
		}
	}
	return out
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func buildNaming() (ascii, other *namingSet, list []namingWord) {
	seen := map[string]bool{}
	add := func(w string, k namingKind, compound, linkOnly bool) {
		if seen[w] {
			return
		}
		seen[w] = true
		r, _ := utf8.DecodeRuneInString(w)
		spaced := r < 0x80 || unicode.In(r, unicode.Latin, unicode.Cyrillic, unicode.Devanagari)
		list = append(list, namingWord{w: w, kind: k, compound: compound, spaced: spaced, linkOnly: linkOnly})
	}
	kinds := make([]namingKind, 0, len(namingWords))
	for k := range namingWords {
		kinds = append(kinds, k)
	}
	sort.Slice(kinds, func(i, j int) bool { return kinds[i] < kinds[j] })
	for _, k := range kinds {
		for _, w := range namingWords[k] {
			compound := strings.HasPrefix(w, "~")
			linkOnly := strings.HasPrefix(w, "!")
			w = strings.TrimLeft(w, "~!")
			add(w, k, compound, linkOnly)
			if r, n := utf8.DecodeRuneInString(w); unicode.Is(unicode.Cyrillic, r) {
				add(string(unicode.ToUpper(r))+w[n:], k, compound, linkOnly)
			}
		}
	}
	ascii, other = &namingSet{}, &namingSet{}
	var astrs, ostrs []string
	for i, nw := range list {
		set, strs := ascii, &astrs
		for j := 0; j < len(nw.w); j++ {
			if nw.w[j] >= 0x80 {
				set, strs = other, &ostrs
				break
			}
		}
		set.words = append(set.words, i)
		*strs = append(*strs, nw.w)
	}
	ascii.set, other.set = newStringSet(astrs), newStringSet(ostrs)
	return ascii, other, list
}

// namingSet is a string set of naming words; words[i] is the index in
// namingList of the set's string number i.
type namingSet struct {
	set   *stringSet
	words []int
}

// namingMatch is one naming word found in a text: text[start:end], plural
// or possessive ending included.
type namingMatch struct {
	start, end int
	kind       namingKind
	word       string
	linkOnly   bool
}

// findNaming returns the naming words of text (lower is asciiLower(text)),
// sorted by start, without overlaps (the longer word wins).
func findNaming(text, lower string) []namingMatch {
	var ms []namingMatch
	ms = namingASCII.find(text, lower, ms)
	for i := 0; i < len(lower); i++ {
		if lower[i] >= 0x80 {
			ms = namingOther.find(text, lower, ms)
			break
		}
	}
	if len(ms) < 2 {
		return ms
	}
	sort.Slice(ms, func(i, j int) bool {
		if ms[i].start != ms[j].start {
			return ms[i].start < ms[j].start
		}
		return ms[i].end > ms[j].end
	})
	out := ms[:1]
	for _, m := range ms[1:] {
		if m.start >= out[len(out)-1].end {
			out = append(out, m)
		}
	}
	return out
}

// find appends the words of the set found in text to ms, in one pass of
// the set's automaton.
func (ns *namingSet) find(text, lower string, ms []namingMatch) []namingMatch {
	ns.set.find(lower, func(end int, id int32) {
		nw := namingList[ns.words[id]]
		a := end - len(nw.w)
		if e, ok := wordOK(text, lower, a, end, nw); ok {
			ms = append(ms, namingMatch{start: a, end: e, kind: nw.kind, word: nw.w, linkOnly: nw.linkOnly})
		}
	})
	return ms
}

// wordOK checks the boundaries of a naming word found at text[a:b] and
// returns where it ends, a plural "s" or a possessive "'s" included.
func wordOK(text, lower string, a, b int, nw namingWord) (int, bool) {
	before, _ := utf8.DecodeLastRuneInString(text[:a])
	if a == 0 {
		before = ' '
	}
	after, _ := utf8.DecodeRuneInString(text[b:])
	if b == len(text) {
		after = ' '
	}
	if !nw.spaced {
		switch nw.w {
		case "キー":
			// Not "キーボード" (keyboard) or "キーワード" (keyword).
			return b, !unicode.Is(unicode.Katakana, after) && after != 'ー'
		case "키":
			// Not inside a word ("스키", "키보드"): a space or Latin
			// letters before, a particle, space or punctuation after.
			return b, !unicode.Is(unicode.Hangul, before) && (!unicode.Is(unicode.Hangul, after) || strings.ContainsRune("는은가를값도", after))
		case "암호":
			// Not "암호화" (encryption).
			return b, after != '화'
		case "密码":
			return b, after != '学' // cryptography
		case "鍵":
			return b, !unicode.Is(unicode.Han, before) // "秘密鍵", "公開鍵" are words of their own
		case "パス":
			// "Wi-Fiのパス", not "パスワード" (listed apart), "パスポート" or "ファイルパス" (a path).
			return b, !unicode.Is(unicode.Katakana, after) && after != 'ー' && !unicode.Is(unicode.Katakana, before)
		}
		return b, true
	}
	// camelCase identifiers hold credential nouns: "SecretKey", "accessToken".
	camelStart := nw.kind.credential() && before >= 'a' && before <= 'z' && text[a] >= 'A' && text[a] <= 'Z'
	if isWordRune(before) && !camelStart && (!nw.compound || !unicode.IsLetter(before)) {
		return 0, false // a compound ends with the noun: "Datenbankpasswort", not "1Password"
	}
	if nw.kind.credential() && (before == '/' || after == '/' || after == '#' || before == '.' || before == '$' || before == '@' || after == '(' ||
		after == '.' && b+1 < len(text) && isWordRune(rune(text[b+1]))) {
		// A route, a path, a variable, a member or a call: "/passwords/:id",
		// "cfg.token", "$pw", "token.length", "password()". Code is read
		// by the assignment rules.
		return 0, false
	}
	romancePIN := nw.w == "pin" && (strings.HasPrefix(lower[b:], " de ") || strings.HasPrefix(lower[b:], " del ") || strings.HasPrefix(lower[b:], " da ") || strings.HasPrefix(lower[b:], " do ") || strings.HasPrefix(lower[b:], " della "))
	// "my bank card pin is 3976": a pin that is something's, with digits
	// after a link, is a PIN whatever its case.
	linkedPIN := nw.w == "pin" && pinDigitsAfter(lower[b:])
	if (nw.w == "pin" || nw.w == "pin code" || nw.w == "pin-code" || nw.w == "pat") && !isUpperASCII(text[a:a+3]) && !romancePIN && !linkedPIN {
		return 0, false // "pin" and "pat" are verbs; the PIN and the PAT are written in capitals
	}
	end := b
	if unicode.Is(unicode.Cyrillic, after) {
		// Russian declines its nouns: "в коммите", "токена", "паролем".
		k := b
		for k < len(text) {
			r, n := utf8.DecodeRuneInString(text[k:])
			if !unicode.Is(unicode.Cyrillic, r) {
				break
			}
			k += n
		}
		if !cyrillicEndings[text[b:k]] {
			return 0, false
		}
		return k, true
	}
	switch {
	case after == 's' && (end+1 == len(text) || !isWordRune(rune(text[end+1]))):
		end++
	case after == '\'' && end+1 < len(text) && text[end+1] == 's' && (end+2 == len(text) || !isWordRune(rune(text[end+2]))):
		end += 2
	case nw.kind.credential() && after >= 'A' && after <= 'Z' && text[b-1] >= 'a' && text[b-1] <= 'z':
	case text[b-1] < 0x80 && (unicode.Is(unicode.Hangul, after) || unicode.Is(unicode.Hiragana, after) || unicode.Is(unicode.Han, after) || unicode.Is(unicode.Katakana, after)):
		// A Latin noun with a Korean, Japanese or Chinese word after it:
		// "Secret Key는", "API keyは", "token是".
	case isWordRune(after):
		return 0, false
	}
	return end, true
}

// cyrillicEndings are the case and number endings of Russian nouns,
// added to a naming word listed in its base form.
var cyrillicEndings = map[string]bool{
	"а": true, "у": true, "е": true, "ом": true, "ем": true, "ы": true, "и": true, "ов": true, "ей": true,
	"ам": true, "ями": true, "ами": true, "ах": true, "ях": true, "я": true, "ю": true, "ой": true,
}

func isUpperASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return true
}

// isWordRune reports letters and digits: the runes a word boundary is not
// between. "_" and "-" separate words ("DB_PASSWORD", "api-key").
func isWordRune(r rune) bool {
	if r < 0x80 {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r)
}

// clauseStart returns where the clause holding text[:i] begins: after the
// last sentence end, semicolon or line break, at most max bytes back.
func clauseStart(text string, i, max int) int {
	lo := 0
	if i > max {
		lo = i - max
	}
	for j := i - 1; j >= lo; j-- {
		if n := sentenceEnd(text, j); n > 0 && j+n <= i {
			return j + n
		}
	}
	return lo
}

// sentenceStart returns where the sentence holding text[:i] begins: after
// the last full stop, "!" or "?" before a space, or line break, at most max
// bytes back. Unlike clauseStart it goes past semicolons: in "the hotfix
// is commit …; the follow-up is …" both are commits.
func sentenceStart(text string, i, max int) int {
	lo := 0
	if i > max {
		lo = i - max
	}
	for j := i - 1; j >= lo; j-- {
		if n := sentenceEnd(text, j); n > 0 && text[j] != ';' && j+n <= i && !strings.HasPrefix(text[j:], "；") {
			return j + n
		}
	}
	return lo
}

// sentenceEnd returns the length of the sentence end at text[i] (a full
// stop, "!" or "?" before a space, a semicolon, a line break, or their CJK
// forms), or 0.
func sentenceEnd(text string, i int) int {
	switch c := text[i]; c {
	case '\n', ';':
		return 1
	case '.', '!', '?':
		if i+1 == len(text) || text[i+1] == ' ' || text[i+1] == '\n' || text[i+1] == '\t' {
			return 1
		}
		return 0
	case 0xE3, 0xEF:
		for _, p := range []string{"。", "！", "？", "；"} {
			if strings.HasPrefix(text[i:], p) {
				return len(p)
			}
		}
	}
	return 0
}

// pinDigitsAfter reports a link and four to eight digits after a noun:
// " is 3976", " was: 4451", " = 0912".
func pinDigitsAfter(after string) bool {
	for _, l := range []string{" is ", " was ", ": ", " = ", " is now ", " is: "} {
		if rest, ok := strings.CutPrefix(after, l); ok {
			n := 0
			for n < len(rest) && isDigit(rest[n]) {
				n++
			}
			return n >= 4 && n <= 8 && (n == len(rest) || !isWordRune(rune(rest[n])))
		}
	}
	return false
}

// namedNonSecret reports whether the sentence around text[a:b] names the
// value there as something other than a secret: the nearest naming word
// before it in its clause is a non-secret noun or modifier, or a credential
// noun made public ("public key", "cache key"); the sentence, not only
// the clause, counts ("… is commit …; the follow-up is …"); or, when no credential
// noun comes before it, a non-secret word follows it in its sentence ("…
// as the first bad commit", "(the git SHA of the release)", "… is a dummy
// value"). ms are the naming words of text.
func namedNonSecret(text string, a, b int, ms []namingMatch) bool {
	lo := sentenceStart(text, a, 160)
	k := sort.Search(len(ms), func(i int) bool { return ms[i].start >= a })
	for j := k - 1; j >= 0 && ms[j].start >= lo; j-- {
		m := ms[j]
		if m.end > a {
			continue
		}
		switch {
		case m.kind == nameNonSecret, m.kind == nameNonSecretMod:
			return true
		case m.kind.credential():
			return publicNoun(text, m, ms) || ofNonSecret(text, m, ms, j)
		}
	}
	// After the value, up to the end of its sentence.
	hi := min(len(text), b+100)
	for j := k; j < len(ms) && ms[j].start < hi; j++ {
		m := ms[j]
		if m.start < b {
			continue
		}
		if strings.IndexFunc(text[b:m.start], func(r rune) bool { return r == '\n' || r == ';' || r == '。' }) >= 0 {
			break
		}
		switch {
		case m.kind == nameNonSecret, m.kind == nameNonSecretMod:
			return true
		case m.kind.credential():
			return negated(text, m) // "… (accessors are not secrets)"
		}
	}
	return false
}

// publicNoun reports whether the credential noun m is made a non-secret by
// a modifier at most three words before it in its clause ("the public
// deploy key", "the cache key", "Stripe publishable key", "an example
// token").
func publicNoun(text string, m namingMatch, ms []namingMatch) bool {
	// "PublicKey = …", "publishableKey": the modifier glued in camelCase.
	if a := m.start; a > 0 && text[a-1] >= 'a' && text[a-1] <= 'z' {
		b := a
		for b > 0 && isASCIIAlnum(text[b-1]) {
			b--
		}
		if w := strings.ToLower(text[b:a]); nonSecretMods[w] || strings.HasSuffix(w, "public") || strings.HasSuffix(w, "publishable") {
			return true
		}
	}
	lo := clauseStart(text, m.start, 48)
	k := sort.Search(len(ms), func(i int) bool { return ms[i].start >= m.start })
	for j := k - 1; j >= 0 && ms[j].start >= lo; j-- {
		mod := ms[j].kind == nameNonSecretMod || ms[j].kind == nameKeyMod && m.kind == nameKey
		if mod && strings.Count(text[ms[j].end:m.start], " ") <= 3 {
			return true
		}
	}
	return false
}

// nonSecretMods and keyMods hold the modifiers of nameNonSecretMod and
// nameKeyMod for lookups by word.
var nonSecretMods, keyMods = wordSet(namingWords[nameNonSecretMod]), wordSet(namingWords[nameKeyMod])

func wordSet(ws []string) map[string]bool {
	m := map[string]bool{}
	for _, w := range ws {
		m[w] = true
	}
	return m
}

// modifiedNonSecret reports whether one of the three words before
// text[i], on its line, makes the name there a non-secret: "public
// token:", and for a key ("Cache key:", "Feature flag key =") the key
// modifiers too.
func modifiedNonSecret(text string, i int, key bool) bool {
	lo := max(0, i-40)
	if nl := strings.LastIndexByte(text[lo:i], '\n'); nl >= 0 {
		lo += nl + 1
	}
	words := strings.Fields(text[lo:i])
	for k := len(words) - 1; k >= 0 && k >= len(words)-3; k-- {
		w := strings.ToLower(strings.Trim(words[k], `"'(*_`+"`"))
		if nonSecretMods[w] || key && keyMods[w] {
			return true
		}
	}
	return false
}

// weakNonSecret are the non-secret nouns that name what a value is only
// next to it ("build a1dc…", "tag v2.8"): between a credential noun and
// its link they do not stop the reading ("the token for the build is …").
var weakNonSecret = map[string]bool{
	"build": true, "tag": true, "tagged": true, "head": true, "version": true, "name": true,
	"path": true, "merged": true, "serial": true, "cursor": true, "id": true, "deployed": true,
	"deploying": true, "image": true, "request": true, "kid": true, "change": true,
}

// negated reports a credential noun the sentence denies: "not secret",
// "no password", "non-secret", or one inside a parenthesis it closes,
// "(not secret)".
func negated(text string, m namingMatch) bool {
	if m.end < len(text) && text[m.end] == ')' {
		return true
	}
	for _, w := range []string{"not ", "no ", "non-", "non ", "nicht ", "kein ", "keine ", "pas ", "não ", "nessun "} {
		a := m.start - len(w)
		if a >= 0 && strings.EqualFold(text[a:m.start], w) && (a == 0 || !isWordRune(rune(text[a-1]))) {
			return true
		}
	}
	return false
}

package guard

import (
	_ "embed"
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// The learned judgement of secrets. Rules read the sentences people were
// seen to write; a credential named in a way nobody wrote down is judged
// by a logistic regression over each candidate string's shape and the
// words around it (words and character 4-grams, any language, Chinese,
// Japanese and Korean as pairs of characters). It is trained offline by
// TestTrainSecretModel (secrets_learned_test.go) on the prose-secret
// sets whose rows were read to write the rules (testdata/secrets-*.jsonl
// but the held-out ones, secrets-prose-dev, half of the rules-file lines
// as ordinary text) and shipped as secretmodel.bin:
//
//	magic "EGSM", version uint32 = 1, hashBits uint32, scale float32,
//	then 2^hashBits int16 weights (weight = int16 * scale), all
//	little-endian, the whole gzip-compressed.
//
// A candidate the rules left alone is a probable secret when the model
// gives it at least learnedMin and its context alone speaks for it with
// at least learnedCtxMin of log-odds: a random string that nothing names
// stays a possible finding, held for the user, as the rules hold it.

//go:embed secretmodel.bin
var secretModelBin []byte

const (
	secretModelMagic   = "EGSM"
	secretModelVersion = 1
	learnedMin         = 0.95
	learnedCtxMin      = 2.0
)

// loadSecretModel decodes the embedded model once; the result is
// immutable and shared by every Guard.
var loadSecretModel = sync.OnceValues(func() (*tokModel, error) { return decodeSecretModel(secretModelBin) })

func decodeSecretModel(data []byte) (*tokModel, error) {
	raw, err := gunzipModel("secret model", data)
	if err != nil {
		return nil, err
	}
	const head = 4 + 4*3
	if len(raw) < head || string(raw[:4]) != secretModelMagic {
		return nil, fmt.Errorf("decode secret model: %w: bad header", ErrBadModel)
	}
	le := binary.LittleEndian
	if v := le.Uint32(raw[4:]); v != secretModelVersion {
		return nil, fmt.Errorf("decode secret model: %w: version %d", ErrBadModel, v)
	}
	if hb := le.Uint32(raw[8:]); hb != tokHashBits {
		return nil, fmt.Errorf("decode secret model: %w: %d hash bits", ErrBadModel, hb)
	}
	if len(raw) != head+2*tokHashDim {
		return nil, fmt.Errorf("decode secret model: %w: %d bytes", ErrBadModel, len(raw))
	}
	return &tokModel{w: int16Weights(raw[head:], tokHashDim, math.Float32frombits(le.Uint32(raw[12:])))}, nil
}

// encodeSecretModel is the inverse of decodeSecretModel (used by the
// trainer).
func encodeSecretModel(w []float32) []byte {
	scale := weightScale(w)
	le := binary.LittleEndian
	raw := make([]byte, 16, 16+2*len(w))
	copy(raw, secretModelMagic)
	le.PutUint32(raw[4:], secretModelVersion)
	le.PutUint32(raw[8:], tokHashBits)
	le.PutUint32(raw[12:], math.Float32bits(scale))
	return gzipBest(appendInt16Weights(raw, w, scale))
}

// learnedSecrets adds a probable finding for each candidate of text the
// model judges a credential by its sentence.
func learnedSecrets(m *tokModel, text string, add func(Finding)) {
	if m == nil {
		return
	}
	var ms []namingMatch
	var pii []Finding
	named, piiRead := false, false
	for _, c := range candidates(text) {
		// A public key's or a certificate's base64 is published.
		if inPublicBlock(text, c.a) {
			continue
		}
		fs, from := tokFeatures(text, c.a, c.b)
		p, ctx := m.score(fs, from)
		if p < learnedMin || ctx < learnedCtxMin {
			continue
		}
		// What the sentence names as a commit, a digest, an id or
		// public is no secret, as for the rules.
		if !named {
			ms, named = findNaming(text, asciiLower(text)), true
		}
		if namedNonSecret(text, c.a, c.b, ms) || saidPublic(text, c.b) {
			continue
		}
		// Digits the personal-data layer reads as a phone number, a card
		// or an id are its business.
		if allDigits(dashSpacePlus.Replace(text[c.a:c.b])) {
			if !piiRead {
				pii, piiRead = scanPII(text), true
			}
			if overlapsAny(pii, c.a, c.b) {
				continue
			}
		}
		add(Finding{Kind: KindSecret, Type: SecretPassword, Level: LevelProbable, Start: c.a, End: c.b, Reason: "judged a credential by its sentence (learned)"})
	}
}

// tokModel is a trained judgement: weights over hashed features.
type tokModel struct {
	w []float32
}

// score returns the model's probability for the features fs and the part
// of its log-odds that the candidate's context gives (the features from
// ctxFrom on): the shipped rules judge a string by its shape, so the
// experiment can ask the context to speak for it.
func (m *tokModel) score(fs []int32, ctxFrom int) (p, ctx float64) {
	z := 0.0
	for i, f := range fs {
		z += float64(m.w[f])
		if i >= ctxFrom {
			ctx += float64(m.w[f])
		}
	}
	return 1 / (1 + math.Exp(-z)), ctx
}

const (
	tokHashBits = 16
	tokHashDim  = 1 << tokHashBits
)

// candTok is a candidate's span.
type candTok struct {
	a, b int
}

// candidates returns the strings of text that could be a credential:
// runs without blanks, quotes or brackets (letters of the Latin, Greek
// and Cyrillic alphabets belong to a run, other scripts end it: "Пароль
// Берёзка883!", "验证码520106，"), cut after the last "=", and of one of
// two shapes: six characters or more with a digit, a symbol or both
// cases (six digits or more: shorter codes are the rules' to read, with
// their units and ports); twelve letters or more of one case with
// few vowels, as generated app passwords are ("hkioszkvcbdhntcr"). What
// cannot be a credential whatever its sentence is left out
// (learnedCandidate).
func candidates(text string) []candTok {
	var out []candTok
	// runeAt reports whether the rune at i belongs to a run, and its size.
	runeAt := func(i int) (in bool, size int) {
		c := text[i]
		if c < utf8.RuneSelf {
			return c > ' ' && c < 0x7f && strings.IndexByte("\"'`()[]{}<>,;|", c) < 0, 1
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		return unicode.IsLetter(r) && unicode.In(r, unicode.Latin, unicode.Greek, unicode.Cyrillic), size
	}
	for i := 0; i < len(text); {
		in, size := runeAt(i)
		if !in {
			i += size
			continue
		}
		j := i
		for j < len(text) {
			in, size := runeAt(j)
			if !in {
				break
			}
			j += size
		}
		a, b := i, j
		i = j
		for b > a && strings.IndexByte(".:!?", text[b-1]) >= 0 {
			b--
		}
		if k := strings.LastIndexByte(text[a:b], '='); k >= 0 && k < b-a-1 && !strings.HasSuffix(text[a:b], "=") {
			a += k + 1
		}
		if v := text[a:b]; candidateShape(v) && !strings.Contains(v, "://") && learnedCandidate(v) {
			out = append(out, candTok{a, b})
		}
	}
	return out
}

// candidateShape reports the shapes candidates keeps.
func candidateShape(v string) bool {
	n := utf8.RuneCountInString(v)
	if n < 6 {
		return false
	}
	var lo, up, dg, sy bool
	vowels := 0
	for _, r := range v {
		switch {
		case r >= '0' && r <= '9':
			dg = true
		case unicode.IsLower(r):
			lo = true
		case unicode.IsUpper(r):
			up = true
		case !unicode.IsLetter(r):
			sy = true
		}
		if strings.ContainsRune("aeiouyAEIOUY", r) {
			vowels++
		}
	}
	if dg || sy {
		return true
	}
	if lo && up {
		// Not a word with a capital first letter: "Cloudflare".
		r, size := utf8.DecodeRuneInString(v)
		return !unicode.IsUpper(r) || strings.IndexFunc(v[size:], unicode.IsUpper) >= 0
	}
	return n >= 12 && len(v) == n && vowels*5 <= n
}

// learnedCandidate leaves out what cannot be a credential whatever its
// sentence: identifiers of code and prose ("context.Background",
// "Uint8Array", "VOYAGE_API_KEY", "**Mem0**"), and the values the rules
// reject (placeholders, versions, dates, hosts, paths, e-mail addresses).
func learnedCandidate(v string) bool {
	if strings.HasPrefix(v, "*") || strings.HasPrefix(v, "#") || strings.HasPrefix(v, "-") {
		return false
	}
	// Ids and slugs in several parts ("0222-INV-DPATTERSON-COLE"), paths
	// and versions with a word ("3.14/Windows"): read by the rules, not
	// judged.
	if strings.Count(v, "-") >= 3 {
		return false
	}
	// A word joined to a name: "non-Neo4j", "pre-K8s".
	if k := strings.IndexByte(v, '-'); k >= 3 && lettersOnly(v[:k]) && strings.ToLower(v[:k]) == v[:k] && strings.Count(v, "-") == 1 {
		return false
	}
	if k := strings.IndexByte(v, '/'); k >= 0 {
		for _, part := range strings.FieldsFunc(v, func(r rune) bool { return r == '/' || r == '.' }) {
			if len(part) >= 4 && lettersOnly(part) {
				return false
			}
		}
	}
	// A name before its "=": "OPENAI_API_KEY=" with its value elsewhere.
	if strings.HasSuffix(v, "=") && identOnly(strings.TrimRight(v, "=")) {
		return false
	}
	// The name of an algorithm or an encoding: "argon2id", "sha256",
	// "AES-256-GCM", "utf-8".
	if algorithmName(v) {
		return false
	}
	// A numbered reference: "ticket#4521", "PR#88".
	if k := strings.IndexByte(v, '#'); k > 0 && lettersOnly(v[:k]) && allDigits(v[k+1:]) {
		return false
	}
	// A mention or a variable: "@Platform2", "$Home3x".
	if (v[0] == '@' || v[0] == '$') && identOnly(v[1:]) {
		return false
	}
	if wordIdentifier(v) || rejectValue(v) {
		return false
	}
	// A dotted or slashed name of words: "table.columns.fieldName".
	if strings.Trim(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ._/") == "" && strings.ContainsAny(v, "./") {
		return false
	}
	// Capitals, digits and underscores: a variable's name.
	if strings.Trim(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789") == "" && strings.Contains(v, "_") {
		return false
	}
	// A key id or an address ("0x7A3F91C2B8D4E605"), an expression of
	// names ("fee2+Tax", "a*b2").
	if len(v) > 2 && v[:2] == "0x" && isHex(v[2:]) && (len(v) == 10 || len(v) == 18 || len(v) == 42) {
		return false
	}
	if k := strings.IndexAny(v, "+*"); k > 0 && k < len(v)-1 && isASCIILetterByte(v[0]) && isASCIILetterByte(v[k+1]) && strings.Count(v, "+")+strings.Count(v, "*") == 1 && identOnly(v[:k]) && identOnly(v[k+1:]) {
		return false
	}
	return true
}

// algorithmName reports the short names of hashes, ciphers, curves and
// encodings, with their sizes and modes.
func algorithmName(v string) bool {
	if len(v) > 20 {
		return false
	}
	lv := strings.ToLower(v)
	for _, p := range []string{"argon2", "bcrypt", "scrypt", "pbkdf2", "sha", "md5", "aes", "rsa", "hmac", "ed25519", "x25519", "ed448",
		"chacha20", "xchacha20", "poly1305", "blake2", "blake3", "crc32", "utf", "base64", "base32", "ecdsa", "p256", "p384", "secp256"} {
		rest, ok := strings.CutPrefix(lv, p)
		if !ok {
			continue
		}
		// The size or the mode right after the name: "sha256", "aes-256-gcm",
		// "argon2id", "hmac-sha256"; not "sharon1985".
		switch {
		case rest == "", len(rest) <= 2 && lettersOnly(rest), isDigit(rest[0]):
			return true
		case rest[0] == '-' || rest[0] == '_':
			return len(rest) > 1 && (isDigit(rest[1]) || algorithmName(rest[1:]))
		}
	}
	return false
}

// hashTok hashes a feature of namespace ns into the model's weights, as
// the injection model hashes its features.
func hashTok(ns byte, s string) int32 {
	return hashFeature(ns, []byte(s)) & (tokHashDim - 1)
}

// charClasses reports which of lower-case letters, capitals, digits and
// other bytes v holds.
func charClasses(v string) (lo, up, dg, sy bool) {
	for k := 0; k < len(v); k++ {
		switch c := v[k]; {
		case c >= 'a' && c <= 'z':
			lo = true
		case c >= 'A' && c <= 'Z':
			up = true
		case c >= '0' && c <= '9':
			dg = true
		default:
			sy = true
		}
	}
	return
}

// tokFeatures are the hashed features of text[a:b] in its sentence: its
// shape (length and character classes, entropy, hex or digits, its first
// characters, its symbols, what the rules make of it) and its context
// (up to eight words before it, by distance, with their character
// 4-grams; the last word before it; up to four words after it; the
// character right before it).
func tokFeatures(text string, a, b int) (fs []int32, ctxFrom int) {
	v := text[a:b]
	fs = make([]int32, 0, 96)
	add := func(ns byte, s string) { fs = append(fs, hashTok(ns, s)) }
	add('b', "bias")
	lo, up, dg, sy := charClasses(v)
	lb := 0
	for _, t := range []int{8, 12, 16, 24, 32, 48, 64} {
		if len(v) >= t {
			lb++
		}
	}
	cls := string([]byte{bit(lo), bit(up), bit(dg), bit(sy)})
	add('s', "len"+strconv.Itoa(lb))
	add('s', "cls"+cls)
	add('s', "cls"+cls+"-len"+strconv.Itoa(lb))
	add('s', "ent"+strconv.Itoa(int(shannon(v)*2)))
	if isHex(v) {
		add('s', "hex")
	}
	if allDigits(dashSpace.Replace(v)) {
		add('s', "digits")
		if allDigits(v) {
			add('s', "digits"+strconv.Itoa(min(len(v), 13)))
		}
	}
	add('s', "dash"+strconv.Itoa(min(strings.Count(v, "-"), 4)))
	add('p', strings.ToLower(v[:4]))
	add('p', strings.ToLower(v[:3]))
	for _, c := range []byte("_-.+/$@#!%^&*~:") {
		if strings.IndexByte(v, c) >= 0 {
			add('y', string(c))
		}
	}
	if looksLikePassword(v) {
		add('s', "pwlike")
	}
	if generatedLooking(v) {
		add('s', "generated")
	}
	ctxFrom = len(fs)
	lw := ctxWords(strings.ToLower(text[max(0, a-120):a]))
	if len(lw) > 8 {
		lw = lw[len(lw)-8:]
	}
	for i, w := range lw {
		band := "far"
		if len(lw)-i <= 3 {
			band = "near"
		}
		add('l', w)
		add('L', band+w)
		for _, g := range ngramsOf(w, 4) {
			add('g', g)
		}
	}
	if len(lw) > 0 {
		add('1', lw[len(lw)-1])
	}
	rw := ctxWords(strings.ToLower(text[b:min(len(text), b+60)]))
	if len(rw) > 4 {
		rw = rw[:4]
	}
	for _, w := range rw {
		add('r', w)
		for _, g := range ngramsOf(w, 4) {
			add('h', g)
		}
	}
	if tl := strings.TrimRight(text[max(0, a-120):a], " \t\"'`("); tl != "" {
		r, _ := utf8.DecodeLastRuneInString(tl)
		add('c', string(unicode.ToLower(r)))
	}
	return fs, ctxFrom
}

func bit(b bool) byte {
	if b {
		return '1'
	}
	return '0'
}

// cjk reports the scripts written without spaces, read as pairs of
// characters.
func cjk(r rune) bool {
	return r >= 0x1100 && unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// The replacers of the features and the digit test, built once.
var (
	dashSpace     = strings.NewReplacer("-", "", " ", "")
	dashSpacePlus = strings.NewReplacer("-", "", " ", "", "+", "")
)

// ctxWords splits s into words: runs of letters of one kind, Han, Kana
// and Hangul as pairs of characters; words of one letter are dropped.
func ctxWords(s string) []string {
	var out []string
	var cur []rune
	flush := func() {
		switch {
		case len(cur) == 0:
		case cjk(cur[0]) && len(cur) == 1:
			out = append(out, string(cur))
		case cjk(cur[0]):
			for i := 0; i+1 < len(cur); i++ {
				out = append(out, string(cur[i:i+2]))
			}
		case len(cur) >= 2:
			out = append(out, string(cur))
		}
		cur = cur[:0]
	}
	for _, r := range s {
		if !unicode.IsLetter(r) {
			flush()
			continue
		}
		if len(cur) > 0 && cjk(r) != cjk(cur[0]) {
			flush()
		}
		cur = append(cur, r)
	}
	flush()
	return out
}

// ngramsOf returns the character n-grams of w between "<" and ">".
func ngramsOf(w string, n int) []string {
	r := []rune("<" + w + ">")
	if len(r) <= n {
		return []string{string(r)}
	}
	out := make([]string, 0, len(r)-n+1)
	for i := 0; i+n <= len(r); i++ {
		out = append(out, string(r[i:i+n]))
	}
	return out
}

func isASCIILetterByte(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func overlapsAny(fs []Finding, a, b int) bool {
	for _, f := range fs {
		if f.Start < b && a < f.End {
			return true
		}
	}
	return false
}

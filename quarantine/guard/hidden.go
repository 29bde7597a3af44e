package guard

import (
	"strings"
	"unicode/utf8"
)

// Hidden payloads: natural language that a memory carries in a form a
// human reviewer (or a keyword filter) does not read, but a model does.
// Each decoder below recovers the text; a memory that hides readable text
// is suspicious by itself, and hostile-looking when the decoded text is an
// instruction (the pattern layer is run on it).
//
// The decoders are plain byte loops over the text: they run on every
// memory, so none of them may be worse than linear.

// hiddenText is text recovered from an encoding.
type hiddenText struct {
	encoding string // "hex", "binary", "Morse code", "letter-shift cipher", "pig Latin", "invisible tag characters"
	text     string // the decoded text; empty when it is not worth decoding
}

// findHidden returns the hidden texts in text, at most one per encoding.
func findHidden(text string) []hiddenText {
	var out []hiddenText
	add := func(enc, s string) {
		for _, h := range out {
			if h.encoding == enc {
				return
			}
		}
		out = append(out, hiddenText{enc, s})
	}
	if s, ok := decodeHexRuns(text); ok {
		add("hex", s)
	}
	if s, ok := decodeBinaryRuns(text); ok {
		add("binary", s)
	}
	if s, ok := decodeMorse(text); ok {
		add("Morse code", s)
	}
	if s, ok := decodeTagChars(text); ok {
		add("invisible tag characters", s)
	}
	if s, ok := decodeShiftCipher(text); ok {
		add("letter-shift cipher", s)
	}
	if pigLatin(text) {
		add("pig Latin", "")
	}
	return out
}

func isHexDigit(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func hexVal(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}

// readableText reports whether decoded bytes are natural-language text:
// valid UTF-8, almost all printable, mostly letters, at least three words.
// Random bytes (a hash or a key written in hex) fail the printable test.
func readableText(b []byte) bool {
	if len(b) < 8 || !utf8.Valid(b) {
		return false
	}
	printable, letters, spaces := 0, 0, 0
	for _, c := range b {
		switch {
		case c == ' ':
			spaces++
			printable++
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			letters++
			printable++
		case c >= 0x21 && c < 0x7f, c >= 0x80, c == '\n':
			printable++
		}
	}
	return printable*10 >= len(b)*9 && letters*2 >= len(b) && spaces >= 2
}

// decodeHexRuns decodes runs of at least eight hex-encoded bytes, written
// together ("496e6f7265") or as space-separated pairs ("49 6e 6f"), and
// returns the first that decodes to readable text.
func decodeHexRuns(text string) (string, bool) {
	for i := 0; i+16 <= len(text); i++ {
		if !isHexDigit(text[i]) || i > 0 && isAlnum(text[i-1]) {
			continue
		}
		var b []byte
		j := i
		for j+1 < len(text) && isHexDigit(text[j]) && isHexDigit(text[j+1]) {
			b = append(b, hexVal(text[j])<<4|hexVal(text[j+1]))
			j += 2
			// A single space between pairs continues the run.
			if j+2 < len(text) && text[j] == ' ' && isHexDigit(text[j+1]) && isHexDigit(text[j+2]) && (j+3 == len(text) || !isAlnum(text[j+3])) {
				j++
			}
		}
		if len(b) >= 8 && (j == len(text) || !isAlnum(text[j])) && readableText(b) {
			return string(b), true
		}
		if j > i {
			i = j
		}
	}
	return "", false
}

// decodeBinaryRuns decodes at least four space-separated 8-bit groups
// ("01001001 01100111") or an unbroken run of 32 or more bits.
func decodeBinaryRuns(text string) (string, bool) {
	for i := 0; i+32 <= len(text); i++ {
		if text[i] != '0' && text[i] != '1' || i > 0 && isAlnum(text[i-1]) {
			continue
		}
		var b []byte
		var cur byte
		bits := 0
		j := i
		for ; j < len(text); j++ {
			c := text[j]
			if c == '0' || c == '1' {
				cur = cur<<1 | (c - '0')
				bits++
				if bits == 8 {
					b = append(b, cur)
					cur, bits = 0, 0
				}
				continue
			}
			// A space may only fall on a byte boundary, before more bits.
			if c == ' ' && bits == 0 && j+1 < len(text) && (text[j+1] == '0' || text[j+1] == '1') {
				continue
			}
			break
		}
		if len(b) >= 4 && bits == 0 && (j == len(text) || !isAlnum(text[j])) && readableText(b) {
			return string(b), true
		}
		if j > i {
			i = j
		}
	}
	return "", false
}

// morseTable maps International Morse code to letters and digits.
var morseTable = map[string]byte{
	".-": 'a', "-...": 'b', "-.-.": 'c', "-..": 'd', ".": 'e', "..-.": 'f', "--.": 'g', "....": 'h',
	"..": 'i', ".---": 'j', "-.-": 'k', ".-..": 'l', "--": 'm', "-.": 'n', "---": 'o', ".--.": 'p',
	"--.-": 'q', ".-.": 'r', "...": 's', "-": 't', "..-": 'u', "...-": 'v', ".--": 'w', "-..-": 'x',
	"-.--": 'y', "--..": 'z', "-----": '0', ".----": '1', "..---": '2', "...--": '3', "....-": '4',
	".....": '5', "-....": '6', "--...": '7', "---..": '8', "----.": '9',
	"..--..": '?', ".-.-.-": '.', "--..--": ',', "-.-.--": '!', ".----.": '\'',
}

// decodeMorse decodes a stretch of Morse code: at least eight letters in
// dots and dashes, letters separated by spaces, words by "/".
func decodeMorse(text string) (string, bool) {
	if !strings.Contains(text, ".-") && !strings.Contains(text, "-.") {
		return "", false
	}
	isMorse := func(c byte) bool { return c == '.' || c == '-' || c == ' ' || c == '/' }
	for i := 0; i < len(text); i++ {
		if !isMorse(text[i]) {
			continue
		}
		j := i
		for j < len(text) && isMorse(text[j]) {
			j++
		}
		run := text[i:j]
		i = j
		if len(run) < 16 {
			continue
		}
		var sb strings.Builder
		letters, distinct := 0, map[string]bool{}
		ok := true
		for _, tok := range strings.Fields(strings.ReplaceAll(run, "/", " / ")) {
			if tok == "/" {
				sb.WriteByte(' ')
				continue
			}
			c, found := morseTable[tok]
			if !found {
				ok = false
				break
			}
			sb.WriteByte(c)
			letters++
			distinct[tok] = true
		}
		if ok && letters >= 8 && len(distinct) >= 4 {
			return sb.String(), true
		}
	}
	return "", false
}

// decodeTagChars recovers ASCII written in Unicode tag characters
// (U+E0020 to U+E007E), which render as nothing at all.
func decodeTagChars(text string) (string, bool) {
	if !strings.Contains(text, "\xf3\xa0") { // the UTF-8 lead bytes of U+E00xx
		return "", false
	}
	// Emoji flags of regions spell their codes in tag characters too
	// ("gbeng"), never with a space: hidden text needs one.
	var sb strings.Builder
	space := false
	for _, r := range text {
		if r >= 0xE0020 && r <= 0xE007E {
			sb.WriteByte(byte(r - 0xE0000))
			space = space || r == 0xE0020
		}
	}
	return sb.String(), sb.Len() >= 8 && space
}

// commonWords are frequent English words: a letter-shift cipher turns
// them into strings that are not words, and shifting back restores them.
var commonWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`the of and to in is it you that he was for on are as with his they at be this have
		from or one had by but not what all were we when your can said there use an each which she do how their if will up
		other about out many then them these so some her would make like him into time has look two more write go see
		number no way could people my than first been call who its now find long down day did get come made may part
		over new after also any our me us should must just tell give say state ignore previous instructions instruction
		password secret print output answer question please where why reply respond following above below only
		here there very much most well back good know need want because same does while where every`) {
		m[w] = true
	}
	return m
}()

// decodeShiftCipher looks for a stretch of words that are not English but
// become common English words under one Caesar shift (ROT13 and the
// classic shift of three included): eight consecutive words of which at
// most one is already a common word and at least three become one.
func decodeShiftCipher(text string) (string, bool) {
	type word = struct{ start, end int }
	var words []word
	for i := 0; i < len(text); {
		if !isASCIILetter(text[i]) {
			i++
			continue
		}
		j := i
		for j < len(text) && isASCIILetter(text[j]) {
			j++
		}
		words = append(words, word{i, j})
		i = j
	}
	if len(words) < 8 {
		return "", false
	}
	// shifted writes word w, lower-cased and shifted, into buf; a lookup
	// of string(buf[:n]) in a map does not allocate.
	var buf [8]byte
	shifted := func(w word, shift byte) int {
		n := w.end - w.start
		for k := 0; k < n; k++ {
			c := text[w.start+k] | 0x20
			buf[k] = 'a' + (c-'a'+shift)%26
		}
		return n
	}
	common0 := make([]bool, len(words))
	for i, w := range words {
		if w.end-w.start <= len(buf) {
			n := shifted(w, 0)
			common0[i] = commonWords[string(buf[:n])]
		}
	}
	// Only words in a window of eight with at most one common word can
	// matter; English prose rarely has such a window, so most texts stop
	// here.
	inWindow := make([]bool, len(words))
	any := false
	known := 0
	for i := range words {
		if common0[i] {
			known++
		}
		if i >= 8 && common0[i-8] {
			known--
		}
		if i >= 7 && known <= 1 {
			for k := i - 7; k <= i; k++ {
				inWindow[k] = true
			}
			any = true
		}
	}
	if !any {
		return "", false
	}
	// hits[i] is the shift that makes word i common (0 for none); a word
	// that becomes common under two shifts keeps the first. Acronyms and
	// identifiers ("NOS", "eNOS") are not candidates: a cipher of prose
	// keeps prose's casing.
	hits := make([]byte, len(words))
	for i, w := range words {
		if !inWindow[i] || common0[i] || w.end-w.start < 3 || w.end-w.start > len(buf) || hasUpperAfterFirst(text[w.start:w.end]) {
			continue
		}
		for shift := byte(1); shift < 26; shift++ {
			if n := shifted(w, shift); commonWords[string(buf[:n])] {
				hits[i] = shift
				break
			}
		}
	}
	for i := 0; i+8 <= len(words); i++ {
		var count [26]int
		known := 0
		for k := i; k < i+8; k++ {
			if common0[k] {
				known++
			}
			count[hits[k]]++
		}
		if known > 1 {
			continue
		}
		for shift := 1; shift < 26; shift++ {
			if count[shift] >= 3 && distinctHits(text, words[i:i+8], hits[i:i+8], byte(shift)) >= 3 {
				var sb strings.Builder
				for _, w := range words[i:] {
					if w.end-w.start > len(buf) {
						sb.WriteString(text[w.start:w.end])
					} else {
						sb.Write(buf[:shifted(w, byte(shift))])
					}
					sb.WriteByte(' ')
				}
				return sb.String(), true
			}
		}
	}
	return "", false
}

// distinctHits counts the distinct words (ignoring case) among ws whose
// shift is shift: a repeated word counts once.
func distinctHits(text string, ws []struct{ start, end int }, hits []byte, shift byte) int {
	n := 0
	for k, w := range ws {
		if hits[k] != shift {
			continue
		}
		dup := false
		for m := 0; m < k; m++ {
			if hits[m] == shift && strings.EqualFold(text[ws[m].start:ws[m].end], text[w.start:w.end]) {
				dup = true
				break
			}
		}
		if !dup {
			n++
		}
	}
	return n
}

func hasUpperAfterFirst(w string) bool {
	for i := 1; i < len(w); i++ {
		if w[i] >= 'A' && w[i] <= 'Z' {
			return true
		}
	}
	return false
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// pigLatin reports whether text is pig Latin, as in "erewhay oesday ethay
// useryay ivelay": at least four words ending in "ay", three in four of
// all words, and at least two of them turning back into common English
// words when undone (moving the last one to three consonants before "ay"
// back to the front, or dropping the "w", "y" or "h" added to a word that
// starts with a vowel). English has its own words in "ay" ("Monday,
// Tuesday, Friday", "today we play, okay?"); they do not undo into words.
func pigLatin(text string) bool {
	n, ay, undone := 0, 0, 0
	for f := range strings.FieldsSeq(text) {
		f = strings.Trim(f, `.,;:!?"'()`)
		if len(f) < 2 {
			continue
		}
		n++
		if len(f) >= 4 && (f[len(f)-2]|0x20) == 'a' && (f[len(f)-1]|0x20) == 'y' {
			ay++
			if undoPigLatin(asciiLower(f[:len(f)-2])) {
				undone++
			}
		}
	}
	return ay >= 4 && ay*4 >= n*3 && undone >= 2
}

// undoPigLatin reports whether stem (a pig-Latin word without its "ay")
// turns back into a common English word.
func undoPigLatin(stem string) bool {
	var buf [16]byte
	if len(stem) > len(buf) || len(stem) < 2 {
		return false
	}
	for k := 1; k <= 3 && k < len(stem); k++ {
		n := copy(buf[:], stem[len(stem)-k:])
		n += copy(buf[n:], stem[:len(stem)-k])
		if commonWords[string(buf[:n])] {
			return true
		}
	}
	switch stem[len(stem)-1] {
	case 'w', 'y', 'h':
		return commonWords[stem[:len(stem)-1]]
	}
	return false
}

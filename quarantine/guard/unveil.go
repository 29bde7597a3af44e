package guard

import (
	"encoding/base32"
	"encoding/base64"
	"encoding/binary"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// unveil finds the payloads a memory carries encoded (base64, base32,
// hex, escape sequences, URL-encoding, rot13) and decodes them, so that
// the effects layer judges what they say; and it finds decoders piped to
// a shell or evaluated ("echo … | base64 -d | sh", "eval(atob(…))"),
// which run hidden code whatever it decodes to. Every loop here is linear
// in the text: it runs on every memory.

// unveiled is one decoded payload: its span in the text, the text it
// decodes to, the encoding, and whether the memory runs it.
type unveiled struct {
	start, end int
	text       string
	encoding   string
	runs       bool
}

var (
	escRunRe = regexp.MustCompile(`(?:\\x[0-9a-fA-F]{2}){4,}|(?:\\u[0-9a-fA-F]{4}){3,}|(?:\\[0-7]{3}){4,}`)
	pctRunRe = regexp.MustCompile(`(?:%[0-9a-fA-F]{2}[^%\s'"` + "`" + `]{0,3}){4,}`)

	// A decoder whose output a shell or an interpreter runs.
	runsDecodedRe = regexp.MustCompile(`(?i)\b(?:base64|base32|basenc|xxd|openssl\s+(?:enc|base64)|uudecode|gunzip|zcat|gzip\s+-d|tr\s+['"]?[a-z-]+['"]?\s+['"]?[a-z-]+['"]?|printf|echo\s+-e)\b[^|\n]{0,200}?\|\s*` + shellFrag +
		`|\b(?:(?:ba|z|da)?sh|bash)\s+-c\s*["']?\$\(\s*(?:printf|echo\s+-e|base64|xxd|base32)\b` +
		`|\b(?:eval|exec|function)\s*\(\s*(?:atob|buffer\.from|unescape|decodeuricomponent|string\.fromcharcode|["'](?:\\[ux0-7]))` +
		`|\b(?:os\.system|os\.popen|subprocess\.\w+|exec|eval)\s*\(\s*(?:base64\.\w*decode|bytes\.fromhex|codecs\.decode|binascii\.\w+|bytearray\.fromhex)` +
		`|\bpowershell(?:\.exe)?\s+(?:-\w+\s+)*-e(?:nc(?:odedcommand)?)?\s+[A-Za-z0-9+/=]{16,}` +
		`|\bfrombase64string\b[^\n]{0,200}?\b(?:iex|invoke-expression)\b|\b(?:iex|invoke-expression)\b[^\n]{0,200}?\bfrombase64string\b` +
		`|\bunquote\w*\([^\n]{0,300}?\|\s*` + shellFrag +
		`|\bdecod\w*\b[^.;\n]{0,60}?\b(?:and|then)\s+(?:run|execute|follow|apply|eval|pipe|source)\w*\b`)
)

func unveil(text string) []unveiled {
	var out []unveiled
	add := func(start, end int, dec, enc string) {
		if len(out) < 16 && readableCommand(dec) {
			out = append(out, unveiled{start: start, end: end, text: dec, encoding: enc})
		}
	}
	for _, m := range encodedRuns(text, 16) {
		run := text[m[0]:m[1]]
		switch {
		case isHexRun(run):
			b := make([]byte, len(run)/2)
			for i := range b {
				b[i] = hexVal(run[2*i])<<4 | hexVal(run[2*i+1])
			}
			add(m[0], m[1], string(b), "hex")
		case isBase32Run(run):
			if b, err := base32.StdEncoding.DecodeString(padTo(run, 8)); err == nil {
				add(m[0], m[1], string(b), "base32")
			}
		default:
			if b, ok := decodeB64(run); ok {
				if s, ok := utf16Text(b); ok {
					add(m[0], m[1], s, "base64")
				} else {
					add(m[0], m[1], string(b), "base64")
				}
			}
		}
	}
	for _, m := range escapeRuns(text) {
		// The escapes and what runs with them (an eval's whole string).
		end := m[1]
		for end < len(text) && end-m[1] < 200 && text[end] != '"' && text[end] != '\'' && text[end] != '\n' {
			end++
		}
		if s, ok := unescapeRun(text[m[0]:end]); ok {
			add(m[0], end, s, "escape sequences")
		}
	}
	for _, m := range percentRuns(text) {
		// The run with the word it is glued to ("chmod%20-R%20777").
		start := m[0]
		for start > 0 && !strings.ContainsRune(" \t\n'\"`=(", rune(text[start-1])) {
			start--
		}
		if s, err := url.PathUnescape(text[start:m[1]]); err == nil {
			add(start, m[1], s, "URL encoding")
		}
	}
	if l := asciiLower(text); strings.Contains(l, "rot13") || strings.Contains(l, "rot-13") || strings.Contains(l, "n-za-m") {
		// rot13 keeps every byte where it was: the spans stay exact.
		add(0, len(text), rot13(text), "rot13")
	}
	for _, m := range runsDecodedMatches(text) {
		enc := decoderName(text[m[0]:m[1]])
		out = append(out, unveiled{start: m[0], end: m[1], encoding: enc, runs: true})
	}
	return out
}

// encodedRuns returns the maximal runs, at least n long, of the bytes of
// the base64, base32 and hex alphabets.
func encodedRuns(text string, n int) [][2]int {
	var out [][2]int
	start := -1
	for i := 0; i <= len(text); i++ {
		c := byte(0)
		if i < len(text) {
			c = text[i]
		}
		in := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '=' || c == '_' || c == '-'
		switch {
		case in && start < 0:
			start = i
		case !in && start >= 0:
			if i-start >= n && len(out) < 16 {
				out = append(out, [2]int{start, i})
			}
			start = -1
		}
	}
	return out
}

func isHexRun(s string) bool {
	if len(s)%2 != 0 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isHexDigit(s[i]) {
			return false
		}
	}
	return true
}

func isBase32Run(s string) bool {
	s = strings.TrimRight(s, "=")
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= 'A' && c <= 'Z' || c >= '2' && c <= '7') {
			return false
		}
	}
	return true
}

func escapeRuns(text string) [][]int {
	if !strings.Contains(text, `\`) {
		return nil
	}
	return escRunRe.FindAllStringIndex(text, 8)
}

func percentRuns(text string) [][]int {
	if strings.Count(text, "%") < 4 {
		return nil
	}
	return pctRunRe.FindAllStringIndex(text, 8)
}

// runsDecodedGate lists strings one of which every match of
// runsDecodedRe contains.
var runsDecodedGate = []string{"base64", "base32", "basenc", "xxd", "openssl", "uudecode", "gunzip", "zcat", "gzip", "tr ", "printf", "echo -e", "eval", "exec", "function", "powershell", "frombase64", "unquote", "decod"}

func runsDecodedMatches(text string) [][]int {
	if !containsAny(asciiLower(text), runsDecodedGate) {
		return nil
	}
	return runsDecodedRe.FindAllStringIndex(text, 4)
}

// decodeB64 decodes a base64 run in the standard or the URL alphabet.
func decodeB64(run string) ([]byte, bool) {
	s := strings.TrimRight(run, "=")
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			return b, true
		}
		if n := len(s) / 4 * 4; n >= 16 {
			if b, err := enc.DecodeString(s[:n]); err == nil {
				return b, true
			}
		}
	}
	return nil, false
}

// utf16Text decodes little-endian UTF-16 (PowerShell's -EncodedCommand).
func utf16Text(b []byte) (string, bool) {
	if len(b) < 8 || len(b)%2 != 0 {
		return "", false
	}
	zeros := 0
	for i := 1; i < len(b); i += 2 {
		if b[i] == 0 {
			zeros++
		}
	}
	if zeros*10 < len(b)/2*9 {
		return "", false
	}
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = binary.LittleEndian.Uint16(b[2*i:])
	}
	return string(utf16.Decode(u)), true
}

func padTo(s string, n int) string {
	if r := len(s) % n; r != 0 && !strings.HasSuffix(s, "=") {
		s += strings.Repeat("=", n-r)
	}
	return s
}

// unescapeRun decodes \xHH, \uHHHH and \NNN escapes, keeping other
// characters.
func unescapeRun(s string) (string, bool) {
	var b strings.Builder
	n := 0
	for i := 0; i < len(s); {
		if s[i] == '\\' && i+1 < len(s) {
			switch {
			case s[i+1] == 'x' && i+4 <= len(s):
				if v, err := strconv.ParseUint(s[i+2:i+4], 16, 8); err == nil {
					b.WriteByte(byte(v))
					i += 4
					n++
					continue
				}
			case s[i+1] == 'u' && i+6 <= len(s):
				if v, err := strconv.ParseUint(s[i+2:i+6], 16, 32); err == nil {
					b.WriteRune(rune(v))
					i += 6
					n++
					continue
				}
			case s[i+1] >= '0' && s[i+1] <= '7' && i+4 <= len(s):
				if v, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
					b.WriteByte(byte(v))
					i += 4
					n++
					continue
				}
			}
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String(), n >= 3
}

func rot13(s string) string {
	b := []byte(s)
	for i, c := range b {
		switch {
		case c >= 'a' && c <= 'z':
			b[i] = 'a' + (c-'a'+13)%26
		case c >= 'A' && c <= 'Z':
			b[i] = 'A' + (c-'A'+13)%26
		}
	}
	return string(b)
}

// readableCommand reports whether decoded bytes read as text a shell or
// a person would: valid UTF-8, printable, with a space or a slash.
func readableCommand(s string) bool {
	if len(s) < 6 || !utf8.ValidString(s) {
		return false
	}
	printable := 0
	for _, r := range s {
		if r >= ' ' && r != 0x7f || r == '\n' || r == '\t' {
			printable++
		}
	}
	n := utf8.RuneCountInString(s)
	return printable*10 >= n*9 && strings.ContainsAny(s, " /")
}

// decoderName names the encoding a decoder undoes.
func decoderName(s string) string {
	l := asciiLower(s)
	switch {
	case strings.Contains(l, "base32"):
		return "base32"
	case strings.Contains(l, "base64") || strings.Contains(l, "atob") || strings.Contains(l, "frombase64") || strings.Contains(l, "-enc") || strings.Contains(l, "-e ") || strings.Contains(l, "buffer.from"):
		return "base64"
	case strings.Contains(l, "xxd") || strings.Contains(l, "fromhex") || strings.Contains(l, "unhexlify"):
		return "hex"
	case strings.Contains(l, "tr ") || strings.Contains(l, "rot13"):
		return "rot13"
	case strings.Contains(l, "unquote") || strings.Contains(l, "urldecode") || strings.Contains(l, "decodeuri"):
		return "URL encoding"
	case strings.Contains(l, "printf") || strings.Contains(l, "echo -e") || strings.Contains(l, `\x`) || strings.Contains(l, `\u`) || strings.Contains(l, "fromcharcode") || strings.Contains(l, "unescape"):
		return "escape sequences"
	}
	return "an encoding"
}

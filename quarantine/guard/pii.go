package guard

import (
	"net/netip"
	"regexp"
	"sort"
	"strings"
)

// PII types. The names follow Presidio's entity names so that figures are
// comparable with published ones.
const (
	PIIEmail   = "EMAIL_ADDRESS"
	PIIPhone   = "PHONE_NUMBER"
	PIICard    = "CREDIT_CARD"
	PIISSN     = "US_SSN"
	PIIIP      = "IP_ADDRESS"
	PIIIBAN    = "IBAN_CODE"
	PIIAddress = "STREET_ADDRESS"
)

func piiMarker(typ string) string {
	switch typ {
	case PIIEmail:
		return "[EMAIL_REDACTED]"
	case PIIPhone:
		return "[PHONE_REDACTED]"
	case PIICard:
		return "[CC_REDACTED]"
	case PIISSN:
		return "[SSN_REDACTED]"
	case PIIIP:
		return "[IP_REDACTED]"
	case PIIIBAN:
		return "[IBAN_REDACTED]"
	case PIIAddress:
		return "[ADDRESS_REDACTED]"
	case PIIDateOfBirth:
		return "[DOB_REDACTED]"
	case PIIFinancial:
		return "[FINANCIAL_REDACTED]"
	case PIIHealth:
		return "[HEALTH_REDACTED]"
	case PIIAccess:
		return "[ACCESS_REDACTED]"
	}
	return "[PII_REDACTED]"
}

var (
	emailRe = regexp.MustCompile(`[A-Za-z0-9][A-Za-z0-9._%+\-]{0,63}@[A-Za-z0-9](?:[A-Za-z0-9\-]{0,62}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9\-]{0,62}[A-Za-z0-9])?)*\.[A-Za-z]{2,24}\b`)
	// Digit runs with optional single spaces or dashes: card candidates.
	cardRe = regexp.MustCompile(`\b\d(?:[ \-]?\d){11,18}\b`)
	ssnRe  = regexp.MustCompile(`\b(\d{3})([ \-])(\d{2})([ \-])(\d{4})\b`)
	ipv4Re = regexp.MustCompile(`\b(?:\d{1,3}\.){3}\d{1,3}\b`)
	ibanRe = regexp.MustCompile(`(?i)\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}\b`)
	addrRe = regexp.MustCompile(`\b\d{1,6}(?:\s+[A-Z][A-Za-z'\-]+){1,4}\s+(?:Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Lane|Ln|Drive|Dr|Court|Ct|Place|Pl|Way|Terrace|Parkway|Pkwy|Square|Sq|Highway|Hwy|Circle|Cir|Trail|Crescent|Close|Gardens|Rue|Strasse|Straße|Calle|Via|Katu|Vej|Gatan|Allee|Plaza)\.?(?:,?\s+(?:Apt\.?|Suite|Unit|#)\s*\w+)?\b`)
)

// scanPII returns the personal data found in text as findings with byte
// spans, sorted by start and without overlaps. More specific detectors win:
// a card number is not also reported as a phone number.
func scanPII(text string) []Finding {
	var fs []Finding
	forChunks(text, func(chunk string, base int) {
		piiChunk(chunk, func(typ string, a, b int, reason string) {
			fs = append(fs, Finding{Kind: KindPII, Type: typ, Start: base + a, End: base + b, Reason: reason})
		})
	})
	return resolvePII(fs)
}

func piiChunk(text string, add func(typ string, a, b int, reason string)) {
	emails(text, func(a, b int) { add(PIIEmail, a, b, "email address") })
	morePII(text, add)
	digits := 0
	for i := 0; i < len(text); i++ {
		if isDigit(text[i]) {
			digits++
		}
	}
	if strings.IndexByte(text, ':') >= 0 {
		ipv6s(text, func(a, b int) { add(PIIIP, a, b, "IPv6 address") })
	}
	if digits == 0 {
		return
	}
	if numberThenCapital(text) {
		for _, m := range addrRe.FindAllStringIndex(text, -1) {
			add(PIIAddress, m[0], m[1], "street address")
		}
	}
	if digits < 4 {
		return // every other detector needs more digits
	}
	for _, m := range gated(longDigitRun(text, 12), cardRe, text) {
		if m[0] > 0 && text[m[0]-1] == '+' {
			continue // an international phone number
		}
		if cardGrouping(text[m[0]:m[1]]) && luhn(text[m[0]:m[1]]) {
			add(PIICard, m[0], m[1], "payment card number (Luhn valid)")
		}
	}
	for _, m := range gated(hasShape(text, "ddd-dd-dddd") || hasShape(text, "ddd dd dddd"), ssnRe, text) {
		if text[m[4]:m[5]] != text[m[8]:m[9]] {
			continue // mixed separators
		}
		if validSSN(text[m[2]:m[3]], text[m[6]:m[7]], text[m[10]:m[11]]) && !digitNeighbour(text, m[0], m[1]) {
			add(PIISSN, m[0], m[1], "US social security number")
		}
	}
	for _, m := range gated(hasShape(text, "d.d"), ipv4Re, text) {
		if a, err := netip.ParseAddr(text[m[0]:m[1]]); err == nil && a.Is4() && !versionLike(text, m[0], m[1]) {
			add(PIIIP, m[0], m[1], "IPv4 address")
		}
	}
	for _, m := range gated(hasIBANStart(text), ibanRe, text) {
		if end := ibanEnd(text, m[0], m[1]); end > 0 {
			add(PIIIBAN, m[0], end, "IBAN (mod-97 valid)")
		}
	}
	if digits < 7 {
		return
	}
	phoneCandidates(text, func(a, b int) {
		if phoneLike(text, a, b) {
			add(PIIPhone, a, b, "phone number")
		}
	})
}

// emails finds email addresses: emailRe runs only on the widest run of
// address characters around each "@".
func emails(text string, found func(a, b int)) {
	local := func(c byte) bool { return isAlnum(c) && c < 0x80 || strings.IndexByte("._%+-", c) >= 0 }
	domain := func(c byte) bool { return isAlnum(c) && c < 0x80 || c == '.' || c == '-' }
	last := 0
	for i := 0; i < len(text); {
		j := strings.IndexByte(text[i:], '@')
		if j < 0 {
			return
		}
		at := i + j
		i = at + 1
		// Local parts have at most 64 bytes and domains 255: the bounds
		// keep a run of "@"s from costing quadratic time.
		a, b := at, at+1
		for a > last && at-a < 64 && local(text[a-1]) {
			a--
		}
		for b < len(text) && b-at <= 255 && domain(text[b]) {
			b++
		}
		if m := emailRe.FindStringIndex(text[a:b]); m != nil {
			found(a+m[0], a+m[1])
			last = a + m[1]
		}
	}
}

// phoneCandidates finds runs that could be phone numbers: an optional "+"
// and bracketed area code, digit groups joined by single spaces, dots or
// dashes, and an optional extension. phoneLike vets each one. A hand-made
// scanner: the equivalent regexp is large and slow to run from every digit.
func phoneCandidates(text string, found func(a, b int)) {
	n := len(text)
	digitsAt := func(i int) int { // length of the digit run at i
		j := i
		for j < n && isDigit(text[j]) {
			j++
		}
		return j - i
	}
	for i := 0; i < n; i++ {
		c := text[i]
		if !(isDigit(c) || c == '+' || c == '(') || i > 0 && isDigit(text[i-1]) {
			continue
		}
		j := i
		if text[j] == '+' {
			d := digitsAt(j + 1)
			switch {
			case d == 0:
				continue
			case d > 3:
				j++ // "+447700677662": the country code is glued on
			default:
				j += 1 + d
				if j < n && (text[j] == ' ' || text[j] == '.' || text[j] == '-') && j+1 < n && (isDigit(text[j+1]) || text[j+1] == '(') {
					j++
				}
			}
		}
		if j < n && text[j] == '(' {
			d := digitsAt(j + 1)
			if d == 0 || d > 4 || j+1+d >= n || text[j+1+d] != ')' {
				if j == i {
					continue
				}
			} else {
				j += 2 + d
				if j < n && (text[j] == ' ' || text[j] == '.' || text[j] == '-') && j+1 < n && isDigit(text[j+1]) {
					j++
				}
			}
		}
		d := digitsAt(j)
		if d == 0 {
			continue
		}
		j += d
		for groups := 0; groups < 5 && j+1 < n; groups++ {
			if s := text[j]; (s == ' ' || s == '.' || s == '-') && isDigit(text[j+1]) {
				j += 1 + digitsAt(j+1)
				continue
			}
			break
		}
		// Extension: "x123", " ext. 123", " extension 123".
		if k := extensionEnd(text, j); k > j {
			j = k
		}
		found(i, j)
		i = j - 1
	}
}

func extensionEnd(text string, j int) int {
	k := j
	if k < len(text) && text[k] == ' ' {
		k++
	}
	rest := asciiLower(text[k:min(len(text), k+10)])
	for _, p := range []string{"extension", "ext.", "ext", "x"} {
		if strings.HasPrefix(rest, p) {
			k += len(p)
			if k < len(text) && text[k] == ' ' {
				k++
			}
			e := k
			for e < len(text) && isDigit(text[e]) && e-k < 5 {
				e++
			}
			if e > k {
				return e
			}
			return j
		}
	}
	return j
}

// gated runs re over text only when the cheap check ok passed; it returns
// submatch indices (the full match is m[0], m[1]).
func gated(ok bool, re *regexp.Regexp, text string) [][]int {
	if !ok {
		return nil
	}
	return re.FindAllStringSubmatchIndex(text, -1)
}

// hasShape reports whether text contains shape, where 'd' stands for any
// digit and other bytes for themselves.
func hasShape(text, shape string) bool {
	for i := 0; i+len(shape) <= len(text); i++ {
		ok := true
		for j := 0; j < len(shape); j++ {
			c := text[i+j]
			if shape[j] == 'd' && !isDigit(c) || shape[j] != 'd' && c != shape[j] {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// hasIBANStart reports two letters followed by two digits at a word start.
func hasIBANStart(text string) bool {
	letter := func(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
	for i := 0; i+4 <= len(text); i++ {
		if letter(text[i]) && letter(text[i+1]) && isDigit(text[i+2]) && isDigit(text[i+3]) && (i == 0 || !isAlnum(text[i-1])) {
			return true
		}
	}
	return false
}

// longDigitRun reports a run of at least n digits, allowing single spaces
// or dashes between them.
func longDigitRun(text string, n int) bool {
	run := 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case isDigit(c):
			run++
			if run >= n {
				return true
			}
		case (c == ' ' || c == '-') && i+1 < len(text) && isDigit(text[i+1]) && i > 0 && isDigit(text[i-1]):
		default:
			run = 0
		}
	}
	return false
}

// numberThenCapital reports a number followed by a space and a capital
// letter, the start of every address addrRe can match.
func numberThenCapital(text string) bool {
	for i := 1; i+1 < len(text); i++ {
		if text[i] == ' ' && isDigit(text[i-1]) {
			j := i
			for j < len(text) && text[j] == ' ' {
				j++
			}
			if j < len(text) && text[j] >= 'A' && text[j] <= 'Z' {
				return true
			}
		}
	}
	return false
}

// ipv6s finds IPv6 addresses: runs of hex digits, colons and dots around
// a "::" or with at least two colons, that netip parses as IPv6.
func ipv6s(text string, found func(a, b int)) {
	isV6 := func(c byte) bool {
		return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' || c == ':' || c == '.'
	}
	for i := 0; i < len(text); {
		j := strings.IndexByte(text[i:], ':')
		if j < 0 {
			return
		}
		j += i
		a, b := j, j
		for a > 0 && isV6(text[a-1]) {
			a--
		}
		for b < len(text) && isV6(text[b]) {
			b++
		}
		i = b + 1
		s := strings.Trim(text[a:b], ".")
		a += strings.Index(text[a:b], s)
		if strings.Count(s, ":") < 2 || len(s) < 6 || hexDigits(s) < 4 {
			continue
		}
		if a > 0 && isAlnum(text[a-1]) || a+len(s) < len(text) && isAlnum(text[a+len(s)]) {
			continue // part of a word ("deadbeef::x")
		}
		if addr, err := netip.ParseAddr(s); err == nil && addr.Is6() {
			found(a, a+len(s))
		}
	}
}

// piiRank orders detectors by specificity for overlap resolution.
func piiRank(t string) int {
	switch t {
	case PIIEmail:
		return 6
	case PIIIBAN:
		return 5
	case PIICard:
		return 4
	case PIISSN:
		return 3
	case PIIIP:
		return 2
	case PIIAddress:
		return 1
	}
	return 0
}

// resolvePII drops findings overlapping a more specific (or longer) one and
// returns the rest sorted by start.
func resolvePII(fs []Finding) []Finding {
	if len(fs) == 0 {
		return fs
	}
	sort.SliceStable(fs, func(i, j int) bool {
		ri, rj := piiRank(fs[i].Type), piiRank(fs[j].Type)
		if ri != rj {
			return ri > rj
		}
		return fs[i].End-fs[i].Start > fs[j].End-fs[j].Start
	})
	// Mark the bytes taken by accepted findings; a finding is accepted if
	// none of its bytes is taken. Cost: the total length of the spans.
	end := 0
	for _, f := range fs {
		end = max(end, f.End)
	}
	taken := make([]bool, end)
	out := fs[:0]
	for _, f := range fs {
		free := true
		for i := f.Start; i < f.End; i++ {
			if taken[i] {
				free = false
				break
			}
		}
		if !free {
			continue
		}
		for i := f.Start; i < f.End; i++ {
			taken[i] = true
		}
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Start < out[j].Start })
	return out
}

// phoneLike vets a phone candidate text[a:b]: 7 to 15 digits, shaped like a
// phone number rather than a date, a version, an amount or an identifier.
func phoneLike(text string, a, b int) bool {
	s := text[a:b]
	// Strip an extension for the digit count.
	core := s
	if i := strings.IndexAny(strings.ToLower(s), "xe"); i > 0 {
		core = strings.TrimSpace(s[:i])
	}
	digits, groups, seps := 0, 0, map[byte]int{}
	inGroup := false
	for i := 0; i < len(core); i++ {
		c := core[i]
		if c >= '0' && c <= '9' {
			digits++
			if !inGroup {
				groups++
				inGroup = true
			}
			continue
		}
		inGroup = false
		seps[c]++
	}
	if digits < 7 || digits > 15 {
		return false
	}
	// Glued to letters, digits or other number syntax: part of something
	// else (an identifier, a decimal, a longer number).
	if a > 0 {
		p := text[a-1]
		if p == ',' && a > 1 && isDigit(text[a-2]) {
			return false
		}
		if isAlnum(p) || p == '.' || p == '/' || p == '-' || p == '_' || p == '$' || p == '#' || p == ':' {
			return false
		}
	}
	if b < len(text) {
		n := text[b]
		if isAlnum(n) || n == '/' || n == '_' || n == '%' || n == ':' {
			return false
		}
		if (n == '.' || n == ',' || n == '-') && b+1 < len(text) && isDigit(text[b+1]) {
			return false
		}
	}
	plus := strings.HasPrefix(s, "+")
	paren := strings.Contains(core, "(")
	// One kind of separator between groups (brackets aside), as phone
	// numbers are written; "12.5-3 7" is not one.
	kinds := 0
	for c := range seps {
		if c != '(' && c != ')' && c != '+' {
			kinds++
		}
	}
	if kinds > 1 && !plus && !paren {
		return false
	}
	if groups == 1 {
		// A bare run of digits: only 10-digit national numbers or an
		// international number with +.
		return plus || digits == 10 && !yearLike(core)
	}
	// Dates: 2023-01-15, 15.01.2023, 01/02/2023.
	if dateLike(core) {
		return false
	}
	// Groups of 1 digit are unusual except a leading trunk/country code
	// or a bracketed trunk prefix ("+41 (0)96 ...").
	parts := strings.FieldsFunc(strings.Replace(core, "(0)", "", 1), func(r rune) bool { return r < '0' || r > '9' })
	for i, p := range parts {
		if len(p) == 1 && i != 0 {
			return false
		}
	}
	// The last group of a phone number has at least 2 digits and the
	// number rarely has more than 5 groups.
	if len(parts[len(parts)-1]) < 2 || len(parts) > 6 {
		return false
	}
	if len(parts) == 3 && len(parts[0]) == 3 && len(parts[1]) == 2 && len(parts[2]) == 4 && seps['-'] == 2 {
		return false // SSN-shaped
	}
	if len(parts) == 2 && !plus && !paren && seps['.'] == 1 {
		return false // a decimal number
	}
	if len(parts) == 2 && !plus && !paren && seps['-'] == 1 && len(parts[0]) == len(parts[1]) && parts[1] > parts[0] {
		return false // a range: years "2001-2003", pages "2784-2799"
	}
	if len(parts) == 2 && !plus && !paren {
		// "75534-030" is a postal code, "675 62314 Mellemvej" a house
		// number: two bare groups need a phone-like shape and must not
		// run into a street name.
		if len(parts[1]) == 3 && seps['-'] > 0 {
			return false
		}
		if w := nextWord(text[b:]); w != "" && !phoneTail[strings.ToLower(w)] {
			return false
		}
	}
	return true
}

// phoneTail are words that commonly follow a phone number in a listing.
var phoneTail = map[string]bool{"office": true, "fax": true, "mobile": true, "mobil": true, "home": true, "work": true, "cell": true, "ext": true, "tel": true, "phone": true, "or": true, "and": true, "x": true}

// nextWord returns the word right after s's leading spaces, if s continues
// on the same line with letters.
func nextWord(s string) string {
	s = strings.TrimLeft(s, " \t")
	i := 0
	for i < len(s) && (s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z' || s[i] >= 0x80) {
		i++
	}
	return s[:i]
}

// cardGrouping accepts the ways card numbers are written: one run of
// digits, or groups of 4 (4-4-4-4, 4-4-4-4-3), or Amex/Diners 4-6-5/4-6-4.
func cardGrouping(s string) bool {
	parts := strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '-' })
	if len(parts) == 1 {
		return true
	}
	if len(parts) == 3 && len(parts[0]) == 4 && len(parts[1]) == 6 && (len(parts[2]) == 5 || len(parts[2]) == 4) {
		return true
	}
	for i, p := range parts {
		if len(p) != 4 && !(i == len(parts)-1 && len(p) >= 1 && len(p) <= 4) {
			return false
		}
	}
	return true
}

func yearLike(s string) bool {
	return len(s) == 4 && (strings.HasPrefix(s, "19") || strings.HasPrefix(s, "20"))
}

func dateLike(s string) bool {
	parts := strings.FieldsFunc(s, func(r rune) bool { return r < '0' || r > '9' })
	if len(parts) != 3 {
		return false
	}
	for _, p := range []string{parts[0], parts[2]} {
		if len(p) == 4 && (strings.HasPrefix(p, "19") || strings.HasPrefix(p, "20")) {
			return len(parts[1]) <= 2
		}
	}
	return false
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isAlnum(c byte) bool {
	return isDigit(c) || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// digitNeighbour reports whether text[a:b] is glued to other digits or
// dashes (part of a longer number).
func digitNeighbour(text string, a, b int) bool {
	if a > 0 && (isDigit(text[a-1]) || text[a-1] == '-') {
		return true
	}
	return b < len(text) && (isDigit(text[b]) || text[b] == '-' && b+1 < len(text) && isDigit(text[b+1]))
}

// versionLike reports a dotted quad that is part of a longer dotted run
// (a version "1.2.3.4.5" or an OID).
func versionLike(text string, a, b int) bool {
	if a > 0 && (text[a-1] == '.' || isAlnum(text[a-1])) {
		return true
	}
	return b+1 < len(text) && text[b] == '.' && isDigit(text[b+1])
}

func hexDigits(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' {
			n++
		}
	}
	return n
}

// luhn checks the Luhn checksum of the digits in s and a plausible length
// and issuer prefix.
func luhn(s string) bool {
	var d []byte
	for i := 0; i < len(s); i++ {
		if isDigit(s[i]) {
			d = append(d, s[i]-'0')
		}
	}
	if len(d) < 12 || len(d) > 19 {
		return false
	}
	// Issuer prefixes in use: 1 (UATP, old JCB 1800), 2 (Mastercard 2-series,
	// JCB 2131), 3 (Amex, Diners, JCB), 4 (Visa), 5 (Mastercard, Maestro),
	// 6 (Discover, Maestro, UnionPay). 0, 7, 8 and 9 are not card ranges.
	if d[0] == 0 || d[0] >= 7 {
		return false
	}
	sum := 0
	for i := len(d) - 1; i >= 0; i-- {
		v := int(d[i])
		if (len(d)-1-i)%2 == 1 {
			v *= 2
			if v > 9 {
				v -= 9
			}
		}
		sum += v
	}
	return sum%10 == 0
}

func validSSN(area, group, serial string) bool {
	return area != "000" && area != "666" && area[0] != '9' && group != "00" && serial != "0000"
}

// ibanLengths is the IBAN length of each country in the IBAN registry.
var ibanLengths = map[string]int{
	"AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22, "BH": 22, "BR": 29,
	"BY": 28, "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22, "DK": 18, "DO": 28, "EE": 20, "EG": 29,
	"ES": 24, "FI": 18, "FO": 18, "FR": 27, "GB": 22, "GE": 22, "GI": 23, "GL": 18, "GR": 27, "GT": 28,
	"HR": 21, "HU": 28, "IE": 22, "IL": 23, "IQ": 23, "IS": 26, "IT": 27, "JO": 30, "KW": 30, "KZ": 20,
	"LB": 28, "LC": 32, "LI": 21, "LT": 20, "LU": 20, "LV": 21, "MC": 27, "MD": 24, "ME": 22, "MK": 19,
	"MR": 27, "MT": 31, "MU": 30, "NL": 18, "NO": 15, "PK": 24, "PL": 28, "PS": 29, "PT": 25, "QA": 29,
	"RO": 24, "RS": 22, "SA": 24, "SC": 31, "SE": 24, "SI": 19, "SK": 24, "SM": 27, "ST": 25, "SV": 28,
	"TL": 23, "TN": 24, "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20,
}

// ibanEnd returns the end of a valid IBAN starting at a, taking exactly as
// many characters as the country's IBAN has (the regexp may run on into the
// next word), or -1.
func ibanEnd(text string, a, b int) int {
	n, ok := ibanLengths[strings.ToUpper(text[a:a+2])]
	if !ok {
		return -1
	}
	got, i := 0, a
	for ; i < b && got < n; i++ {
		if text[i] != ' ' {
			got++
		}
	}
	if got != n || (i < len(text) && isAlnum(text[i])) {
		return -1
	}
	if !validIBAN(text[a:i]) {
		return -1
	}
	return i
}

// validIBAN checks country length and the ISO 7064 mod-97 checksum.
func validIBAN(s string) bool {
	var b []byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ':
		case c >= 'a' && c <= 'z':
			b = append(b, c-'a'+'A')
		default:
			b = append(b, c)
		}
	}
	if n, ok := ibanLengths[string(b[:2])]; !ok || n != len(b) {
		return false
	}
	rot := append(append([]byte{}, b[4:]...), b[:4]...)
	rem := 0
	for _, c := range rot {
		switch {
		case c >= '0' && c <= '9':
			rem = (rem*10 + int(c-'0')) % 97
		case c >= 'A' && c <= 'Z':
			rem = (rem*100 + int(c-'A'+10)) % 97
		default:
			return false
		}
	}
	return rem == 1
}

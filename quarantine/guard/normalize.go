package guard

import (
	"html"
	"net/url"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mtibben/confusables"
	"golang.org/x/text/unicode/norm"
)

// Disguises hide an order from screening without hiding it from a model:
// invisible characters inside its words, letters of another script that
// look like Latin ones (Cyrillic "і" for "i"), full-width or other
// compatibility forms, HTML entities and comments, a typo in a trigger
// word. normalise undoes them, so that the text is screened as a model
// reads it; the text as given is screened too, and what was undone is a
// finding of its own.

// disguise is what normaliseText undid, with where it was in the text as
// given.
type disguise struct {
	typ, reason string
	start, end  int
	floor       float64 // the risk it carries on its own
}

// normaliseText returns text with its disguises undone, and the disguises.
// It returns text itself when there was nothing to undo.
func normaliseText(text string) (string, []disguise) {
	if isPlain(text) && !strings.Contains(text, "<!--") && !strings.Contains(text, "&") && !strings.Contains(text, "%") && !hasTypoCandidate(text) {
		return text, nil
	}
	var found []disguise
	s := text

	// Invisible characters: removed; inside a word of Latin letters they
	// are a disguise, not typography.
	if inv, i := invisibleInWord(s); inv {
		found = append(found, disguise{"invisible_characters", "invisible characters inside words", i, i + 1, invisibleFloor})
	}
	s = strings.Map(func(r rune) rune {
		if invisible(r) {
			return -1
		}
		return r
	}, s)

	// Compatibility forms (full-width letters, ligatures) fold to their
	// plain letters.
	s = norm.NFKC.String(s)

	// Combining marks left on Latin letters once NFKC has composed every
	// accent it could: strike-through and overlay marks drawn through
	// each letter ("e̸x̸e̸c̸u̸t̸e̸"), stacks of marks. No language needs
	// them, and a reader skims past them.
	if stripped, i, ok := stripMarks(s); ok {
		s = stripped
		found = append(found, disguise{"combining_marks", "combining marks drawn over the letters", i, i + 1, 0})
	}

	// Letters of other scripts that look like Latin ones, inside words
	// that are otherwise Latin.
	if folded, i, ok := foldLookalikes(s); ok {
		s = folded
		found = append(found, disguise{"lookalike_letters", "letters from another script that look like Latin ones", i, i + 1, 0})
	}

	// HTML and markdown comments are read as text; entities decoded.
	if strings.Contains(s, "<!--") || strings.Contains(s, "[//]:") {
		if loc := commentRe.FindStringIndex(text); loc != nil {
			found = append(found, disguise{"hidden_comment", "text inside an HTML or markdown comment", loc[0], loc[1], 0})
		}
		s = commentRe.ReplaceAllStringFunc(s, func(m string) string {
			m = strings.TrimPrefix(strings.TrimSuffix(strings.TrimSpace(m), "-->"), "<!--")
			return " " + strings.TrimSpace(m) + " "
		})
	}
	if strings.Contains(s, "&") {
		s = html.UnescapeString(s)
	}
	// Percent-encoded runs ("%5BSYSTEM%5D%3A%20Ignore...") read as text.
	if strings.Contains(s, "%") {
		if decoded, i, ok := decodePercentRuns(s); ok {
			s = decoded
			found = append(found, disguise{"percent_encoded", "text hidden in percent-encoding", i, i + 1, 0})
		}
	}

	// A typo in a trigger word ("iunstructions").
	s = fixTypos(s)
	if s == text {
		return text, nil
	}
	return s, found
}

// isPlain reports whether text is printable ASCII (and line breaks and
// tabs): nothing to normalise but comments, entities and typos.
func isPlain(text string) bool {
	for i := 0; i < len(text); i++ {
		if c := text[i]; c >= 0x80 || c < 0x20 && c != '\n' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

// invisibleFloor is the risk of invisible characters inside words on
// their own: enough to quarantine a memory from any source but the user
// (the source's trust discounts it: see trustDiscount), not to reject it.
const invisibleFloor = 0.55

// stripMarks removes the nonspacing and enclosing marks that follow a
// Latin letter or any printable ASCII character, the space included (or
// another such mark), and
// reports whether it removed any and where the first was. It runs after
// NFKC, which has already composed the marks that make accented letters.
// Marks on letters of other scripts (Devanagari vowel signs, Hebrew
// points) are the script's own and stay.
func stripMarks(text string) (string, int, bool) {
	first := -1
	prevLatin := false
	for i, r := range text {
		if unicode.In(r, unicode.Mn, unicode.Me) {
			if prevLatin {
				first = i
				break
			}
			continue
		}
		prevLatin = r < 0x80 && r >= ' ' || unicode.Is(unicode.Latin, r)
	}
	if first < 0 {
		return text, 0, false
	}
	var b strings.Builder
	b.Grow(len(text))
	b.WriteString(text[:first])
	prevLatin = true
	for _, r := range text[first:] {
		if unicode.In(r, unicode.Mn, unicode.Me) {
			if prevLatin {
				continue
			}
		} else {
			prevLatin = r < 0x80 && r >= ' ' || unicode.Is(unicode.Latin, r)
		}
		b.WriteRune(r)
	}
	return b.String(), first, true
}

// percentRunRe finds runs of at least three percent-escapes, with the
// plain characters between them.
var percentRunRe = regexp.MustCompile(`(?:%[0-9A-Fa-f]{2}[\w.~+-]{0,12}){3,}`)

// decodePercentRuns decodes each run of percent-escapes that decodes to
// printable UTF-8 text, and reports whether it decoded any and where the
// first was.
func decodePercentRuns(text string) (string, int, bool) {
	first := -1
	out := percentRunRe.ReplaceAllStringFunc(text, func(m string) string {
		d, err := url.PathUnescape(m)
		if err != nil || !utf8.ValidString(d) || strings.ContainsFunc(d, func(r rune) bool { return r < ' ' && r != '\n' && r != '\t' }) {
			return m
		}
		if first < 0 {
			first = strings.Index(text, m)
		}
		return strings.ReplaceAll(d, "+", " ")
	})
	if first < 0 {
		return text, 0, false
	}
	return out, first, true
}

// invisible reports whether r is not rendered: format characters (zero
// width spaces and joiners, bidirectional marks, word joiners, the byte
// order mark, soft hyphens, tag characters), variation selectors and the
// Hangul fillers.
func invisible(r rune) bool {
	switch {
	case unicode.Is(unicode.Cf, r):
		return true
	case r >= 0xFE00 && r <= 0xFE0F, r >= 0xE0100 && r <= 0xE01EF:
		return true
	case r == 0x034F, r == 0x115F, r == 0x1160, r == 0x3164, r == 0xFFA0:
		return true
	}
	return false
}

// invisibleInWord reports whether an invisible character sits between two
// Latin letters (a joiner between emoji, or in Persian script, is
// typography), and the byte offset of the first.
func invisibleInWord(text string) (bool, int) {
	prevLatin := false
	for i, r := range text {
		if !invisible(r) {
			prevLatin = unicode.Is(unicode.Latin, r)
			continue
		}
		if !prevLatin {
			continue
		}
		j := i + utf8.RuneLen(r)
		for j < len(text) {
			n, size := utf8.DecodeRuneInString(text[j:])
			if !invisible(n) {
				if unicode.Is(unicode.Latin, n) {
					return true, i
				}
				break
			}
			j += size
		}
	}
	return false, 0
}

// foldLookalikes replaces, in words that hold Latin letters, each letter
// of another script whose confusable skeleton (Unicode TR39) is one Latin
// letter; it reports whether it replaced any, and where the first was.
// Words wholly in another script (Russian, Greek) are left alone.
func foldLookalikes(text string) (string, int, bool) {
	var b strings.Builder
	changed, first := false, 0
	start := 0
	flush := func(end int) {
		word := text[start:end]
		latin, other := false, false
		for _, r := range word {
			switch {
			case r < 0x80 && unicode.IsLetter(r):
				latin = true
			case unicode.IsLetter(r) && !unicode.Is(unicode.Latin, r):
				other = true
			}
		}
		if !latin || !other {
			b.WriteString(word)
			return
		}
		for i, r := range word {
			if r >= 0x80 && unicode.IsLetter(r) && !unicode.Is(unicode.Latin, r) {
				if l, ok := latinLookalike(r); ok {
					if !changed {
						changed, first = true, start+i
					}
					b.WriteByte(l)
					continue
				}
			}
			b.WriteRune(r)
		}
	}
	for i, r := range text {
		if unicode.IsLetter(r) || unicode.IsMark(r) {
			continue
		}
		flush(i)
		b.WriteRune(r)
		start = i + utf8.RuneLen(r)
	}
	flush(len(text))
	if !changed {
		return text, 0, false
	}
	return b.String(), first, true
}

// latinBySkeleton maps a TR39 confusable skeleton to the ASCII letters
// that have it ("l" to 'l' and 'I').
var latinBySkeleton = func() map[string][]byte {
	m := map[string][]byte{}
	for _, c := range []byte("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") {
		sk := confusables.Skeleton(string(c))
		m[sk] = append(m[sk], c)
	}
	return m
}()

// latinLookalike returns the ASCII letter that r is confusable with, of
// r's case where both cases share the skeleton (Cyrillic "І" is "I",
// not "l").
func latinLookalike(r rune) (byte, bool) {
	cands := latinBySkeleton[confusables.Skeleton(string(r))]
	if len(cands) == 0 {
		return 0, false
	}
	upper := unicode.IsUpper(r)
	for _, c := range cands {
		if (c >= 'A' && c <= 'Z') == upper {
			return c, true
		}
	}
	return cands[0], true
}

// commentRe finds HTML comments and markdown link-reference comments.
var commentRe = regexp.MustCompile(`(?s)<!--.*?(?:-->|$)|\[//\]:\s*#\s*\([^)\n]*\)`)

// typoWords are the trigger words whose misspellings are folded back:
// an order with one letter wrong, swapped, missing or added still reads
// as the order to a model.
var typoWords = []string{"instructions", "instruction", "previous", "ignore", "disregard", "system", "prompt", "guidelines", "directives"}

// hasTypoCandidate is a cheap test for fixTypos: a word starting like a
// trigger word.
func hasTypoCandidate(text string) bool {
	lower := asciiLower(text)
	for _, p := range []string{"ins", "pre", "ign", "dis", "sys", "pro", "gui", "dir"} {
		if strings.Contains(lower, p) {
			return true
		}
	}
	return false
}

// fixTypos replaces each word one edit away from a trigger word (a letter
// changed, added, dropped, or two swapped) with the trigger word.
func fixTypos(text string) string {
	if !anyTypo(text) {
		return text
	}
	var b strings.Builder
	changed := false
	start := -1
	emit := func(end int) {
		w := text[start:end]
		if fixed, ok := typoOf(w); ok {
			b.WriteString(fixed)
			changed = true
		} else {
			b.WriteString(w)
		}
	}
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c|0x20 >= 'a' && c|0x20 <= 'z' {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			emit(i)
			start = -1
		}
		b.WriteByte(c)
	}
	if start >= 0 {
		emit(len(text))
	}
	if !changed {
		return text
	}
	return b.String()
}

// anyTypo reports whether a word of text is a typo of a trigger word.
func anyTypo(text string) bool {
	start := -1
	for i := 0; i <= len(text); i++ {
		if i < len(text) && (text[i]|0x20 >= 'a' && text[i]|0x20 <= 'z') {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			if _, ok := typoOf(text[start:i]); ok {
				return true
			}
			start = -1
		}
	}
	return false
}

func typoOf(w string) (string, bool) {
	if len(w) < 5 || len(w) > 13 {
		return "", false
	}
	switch w[0] | 0x20 {
	case 'i', 'p', 'd', 's', 'g':
	default:
		return "", false
	}
	lw := asciiLower(w)
	for _, t := range typoWords {
		if strings.HasPrefix(lw, t) || strings.HasPrefix(t, lw) {
			return "", false // the word itself, or another form of it
		}
	}
	for _, t := range typoWords {
		if d := len(lw) - len(t); d >= -1 && d <= 1 && lw[0] == t[0] && oneEdit(lw, t) {
			return t, true
		}
	}
	return "", false
}

// oneEdit reports whether a and b differ by one substitution, insertion,
// deletion or swap of adjacent letters.
func oneEdit(a, b string) bool {
	if len(a) == len(b) {
		diff := -1
		for i := 0; i < len(a); i++ {
			if a[i] != b[i] {
				if diff >= 0 {
					// a swap of two adjacent letters
					return i == diff+1 && a[diff] == b[i] && a[i] == b[diff] && a[i+1:] == b[i+1:]
				}
				diff = i
			}
		}
		return diff >= 0
	}
	if len(a) < len(b) {
		a, b = b, a
	}
	for i := 0; i < len(b); i++ {
		if a[i] != b[i] {
			return a[i+1:] == b[i:]
		}
	}
	return true
}

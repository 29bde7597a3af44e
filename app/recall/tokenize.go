package recall

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// stopwords are the English function words left out of the keyword index:
// they occur in nearly every text and only add noise to BM25. Besides
// Lucene's 33 (articles, conjunctions, prepositions), the pronouns,
// auxiliaries and question words of conversational text: a question ("What
// did Caroline research?") otherwise ranks every turn that asks something
// ("What did it look like?") above the one that answers it.
var stopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(stopList) {
		m[w] = true
	}
	return m
}()

// stopList is the word list behind stopwords.
var stopList = `a an and are as at be but by for if in into is it no not of on or
		such that the their then there these they this to was will with s t` + extraStops

// extraStops are the conversational function words (see stopwords).
var extraStops = `
		i me my mine myself we our ours ourselves you your yours yourself yourselves
		he him his himself she her hers herself its itself them theirs themselves
		what which who whom whose when where why how
		am were been being have has had having do does did doing done
		would could should shall might must can
		from about than too very just so also only own same
		those here all any both each few more most other some
		again further once
		ll re ve d m don didn doesn isn wasn aren weren haven hasn hadn wouldn couldn shouldn`

// Terms splits text into index terms: maximal runs of letters and digits,
// lower-cased, with diacritics removed ("Café" and "cafe" match), English
// stopwords dropped and Porter-stemmed. Two words joined by a hyphen also
// give their concatenation, so "IL-6", "e-mail" and "COVID-19" match
// "IL6", "email" and "COVID19". Han, Hiragana, Katakana and Thai
// characters, written without spaces, become one term each, so a query
// finds them inside longer runs. Terms appends to dst.
func Terms(dst []string, text string) []string {
	scanTerms(text, func(w string) {
		if t := term(w); t != "" {
			dst = append(dst, t)
		}
	}, func(t string) { dst = append(dst, t) })
	return dst
}

// scanTerms splits text as Terms does, in order: word gets each word as
// written, for the caller to turn into its term (see term), and other
// each term made otherwise (a hyphenated compound, an unspaced
// character), never empty.
func scanTerms(text string, word, other func(string)) {
	start, prevStart, prevEnd := -1, -1, -1
	flush := func(end int) {
		if start >= 0 {
			word(text[start:end])
			if prevEnd >= 0 && joiner(text[prevEnd:start]) {
				if t := term(text[prevStart:prevEnd] + text[start:end]); t != "" {
					other(t)
				}
			}
			prevStart, prevEnd = start, end
			start = -1
		}
	}
	for i, r := range text {
		switch {
		case unspaced(r):
			flush(i)
			prevEnd = -1
			other(string(r))
		case unicode.IsLetter(r) || unicode.IsDigit(r) || (start >= 0 && unicode.Is(unicode.Mn, r)):
			if start < 0 {
				start = i
			}
		default:
			flush(i)
		}
	}
	flush(len(text))
}

// termCache is a Loader worker's memory of words and terms, so that a
// bulk load normalises and stems each distinct word once, and finds a
// term's posting list in the chunk at hand with no further lookup.
type termCache struct {
	words map[string]*termRef // word as written -> its term; nil for a stopword
	terms map[string]*termRef // every term met, each once
	dict  *termDict           // numbers terms for all the workers
}

// termDict numbers the terms of a load, shared by its workers: each
// asks once per distinct term, so the index is not left to number them
// chunk by chunk once the workers are done.
type termDict struct {
	mu  sync.Mutex
	ids map[string]uint32
}

func (d *termDict) id(t string) uint32 {
	d.mu.Lock()
	defer d.mu.Unlock()
	id, ok := d.ids[t]
	if !ok {
		id = uint32(len(d.ids))
		d.ids[t] = id
	}
	return id
}

// termRef is a term, with where its posting list is in the chunk the
// worker last met it in.
type termRef struct {
	id    uint32 // the term's number in the load's termDict
	chunk *loadChunk
	idx   int32 // in chunk.ids and chunk.lists
}

// termCacheMax bounds the words a termCache remembers: past it, new
// words are stemmed each time they occur. (Terms are all remembered:
// the index keeps every one of them anyway.)
const termCacheMax = 1 << 17

func newTermCache(d *termDict) *termCache {
	return &termCache{words: map[string]*termRef{}, terms: map[string]*termRef{}, dict: d}
}

// word returns the term of word w, nil for a stopword.
func (c *termCache) word(w string) *termRef {
	if r, ok := c.words[w]; ok {
		return r
	}
	var r *termRef
	if t := term(w); t != "" {
		r = c.ref(t)
	}
	if len(c.words) < termCacheMax {
		c.words[strings.Clone(w)] = r
	}
	return r
}

// ref returns term t's one termRef.
func (c *termCache) ref(t string) *termRef {
	r, ok := c.terms[t]
	if !ok {
		r = &termRef{id: c.dict.id(t)}
		c.terms[t] = r
	}
	return r
}

// joiner reports whether sep, the text between two words, makes them one
// compound: a single hyphen.
func joiner(sep string) bool {
	switch sep {
	case "-", "\u2010", "\u2011":
		return true
	}
	return false
}

// unspaced reports whether r belongs to a script written without spaces
// between words.
func unspaced(r rune) bool {
	return r >= 0x2E80 && (unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Thai, r))
}

// term normalises one word; it returns "" for a stopword.
func term(w string) string {
	if ascii(w) {
		w = strings.ToLower(w)
	} else {
		w = fold(w)
	}
	if stopwords[w] {
		return ""
	}
	return Stem(w)
}

func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// fold lower-cases w and strips combining marks after canonical
// decomposition: "Éte" -> "ete", "straße" stays "straße".
func fold(w string) string {
	var b strings.Builder
	for _, r := range norm.NFD.String(w) {
		if unicode.Is(unicode.Mn, r) {
			continue
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return norm.NFC.String(b.String())
}

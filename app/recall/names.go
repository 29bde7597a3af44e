package recall

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// name is a word of a query written as a name, with its term.
type name struct{ word, term string }

// names returns the names in text: the words written with a capital,
// other than the first of a sentence, the pronoun "I", and the names of
// months and weekdays (a time, which the vault need not spell out: see
// when). Each term is returned once, in order.
func names(text string) []name {
	var out []name
	words(text, func(w string, first bool) {
		r, _ := utf8.DecodeRuneInString(w)
		if first || !unicode.IsUpper(r) || timeWords[strings.ToLower(w)] {
			return
		}
		if t := term(w); t != "" && !slices.ContainsFunc(out, func(x name) bool { return x.term == t }) {
			out = append(out, name{w, t})
		}
	})
	return out
}

// words calls f with each word of text (a run of letters, digits and
// combining marks) and whether it begins a sentence: it is the first
// word, or follows a full stop, question or exclamation mark, colon,
// semicolon, line break or double quote.
func words(text string, f func(w string, first bool)) {
	first := true
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			switch r {
			case '.', '?', '!', ':', ';', '\n', '"', '“', '”':
				first = true
			}
			i += n
			continue
		}
		j := i + n
		for j < len(text) {
			r, n := utf8.DecodeRuneInString(text[j:])
			if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.Is(unicode.Mn, r) {
				break
			}
			j += n
		}
		f(text[i:j], first)
		first = false
		i = j
	}
}

// timeWords are the capitalised words that name a time, not a thing.
var timeWords = func() map[string]bool {
	m := map[string]bool{"i": true}
	for _, w := range strings.Split(monthNames, "|") {
		m[w] = true
	}
	for _, w := range strings.Fields(`monday tuesday wednesday thursday friday saturday sunday
		jan feb mar apr jun jul aug sep sept oct nov dec mon tue tues wed thu thur thurs fri sat sun`) {
		m[w] = true
	}
	return m
}()

// unheard is what a query names that the vault never heard of.
type unheard struct {
	words []string // as written in the query
	all   bool     // the query has names and none was heard of
	// spelled maps the names the query misspells, as it writes them, to
	// the memories' spelling (see respelling).
	spelled map[string]string
}

// respellText returns text with each whole word that spelled names
// replaced by its spelling there.
func respellText(text string, spelled map[string]string) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			i += size
			continue
		}
		j := i
		for j < len(text) {
			r, size := utf8.DecodeRuneInString(text[j:])
			if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
				break
			}
			j += size
		}
		if to, ok := spelled[text[i:j]]; ok && to != "" {
			b.WriteString(text[last:i])
			b.WriteString(to)
			last = j
		}
		i = j
	}
	if last == 0 {
		return text
	}
	b.WriteString(text[last:])
	return b.String()
}

// minShortName is the fewest letters of a name that may be heard as the
// beginning of a longer one (see Engine.unheard).
const minShortName = 3

// unheard returns the names in text (see names) that no document held
// accepts contains, that are not respelled (a misspelling of a name such
// a document writes: see Engine.respell), and that begin no longer
// capitalised word of a candidate in hits: "Mel" is heard where the vault
// knows "Melanie". The caller holds the read lock.
func (e *Engine) unheard(text string, held func(uint32) bool, hits map[uint32]*Hit, respelled map[string]bool) unheard {
	var u unheard
	ns := names(text)
	var short []string // unheard names that may be short for another
	for _, n := range ns {
		if respelled[n.term] || e.holds(n.term, held) {
			continue
		}
		u.words = append(u.words, n.word)
		if utf8.RuneCountInString(n.word) >= minShortName {
			short = append(short, strings.ToLower(n.word))
		}
	}
	if len(short) > 0 {
		heard := map[string]bool{}
		for _, h := range hits {
			words(h.Doc.Content, func(w string, _ bool) {
				r, _ := utf8.DecodeRuneInString(w)
				if !unicode.IsUpper(r) {
					return
				}
				lw := strings.ToLower(w)
				for _, s := range short {
					if len(lw) > len(s) && strings.HasPrefix(lw, s) {
						heard[s] = true
					}
				}
			})
		}
		u.words = slices.DeleteFunc(u.words, func(w string) bool { return heard[strings.ToLower(w)] })
	}
	u.all = len(ns) > 0 && len(u.words) == len(ns)
	return u
}

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
	start := true // at the start of the text or of a sentence
	i := 0
	for i < len(text) {
		r, n := utf8.DecodeRuneInString(text[i:])
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			switch r {
			case '.', '?', '!', ':', ';', '\n', '"', '“', '”':
				start = true
			}
			i += n
			continue
		}
		j := i
		for j < len(text) {
			r2, n2 := utf8.DecodeRuneInString(text[j:])
			if !unicode.IsLetter(r2) && !unicode.IsDigit(r2) && !unicode.Is(unicode.Mn, r2) {
				break
			}
			j += n2
		}
		w := text[i:j]
		if !start && unicode.IsUpper(r) && !timeWords[strings.ToLower(w)] {
			if t := term(w); t != "" && !slices.ContainsFunc(out, func(x name) bool { return x.term == t }) {
				out = append(out, name{w, t})
			}
		}
		start = false
		i = j
	}
	return out
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

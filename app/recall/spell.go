package recall

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A name in a query may be spelled otherwise than in the memories
// ("Muhhamed" for "Muhammad", "Nikolas" for "Nicholas", "Carolyne" for
// "Caroline"): people write names as they hear them. A query's name that
// no memory the query may see holds is matched against the names those
// memories write (see Engine.respell): the same sound (soundKey), or one
// slip in the spelling (two in a long name). A matched name is heard,
// and the query searches for the memories' spelling instead of its own.

// minFuzzyName is the fewest letters of a name that is matched by sound
// or spelling: shorter names ("Al", "Jo") have too many neighbours.
const minFuzzyName = 3

// minLooseName is the fewest letters of a name that may match a name of
// another length: a shorter one matches only a name as long that sounds
// alike ("Tam" for "Tim"), since "Jon" and "John" are two names.
const minLooseName = 4

// maxNameChecks is how many memories holding a candidate word are read,
// in index order, to find it written as a name.
const maxNameChecks = 64

// soundKey is a key under which names that sound alike meet: the word
// lower-cased and folded, with letters that are written for one sound
// made one (ph f, ck k, c k before a consonant or a, o, u and s before e,
// i, y, q k, x ks, z s, w v, y i, an h after a consonant dropped),
// repeated letters made one, and the vowels after the first letter
// dropped (an initial vowel reads as 'a'). "Muhammad", "Mohammed" and
// "Muhhamed" share mhmd; "Nicholas" and "Nikolas" nkls.
func soundKey(w string) string {
	if ascii(w) {
		w = strings.ToLower(w)
	} else {
		w = fold(w)
	}
	b := make([]byte, 0, len(w)+1)
	vowel := func(c byte) bool { return strings.IndexByte("aeiouy", c) >= 0 }
	for i := 0; i < len(w); i++ {
		c := w[i]
		next := byte(0)
		if i+1 < len(w) {
			next = w[i+1]
		}
		switch {
		case c == 'p' && next == 'h':
			c = 'f'
			i++
		case c == 'c' && next == 'k':
			c = 'k'
			i++
		case c == 'c' && (next == 'e' || next == 'i' || next == 'y'):
			c = 's'
		case c == 'c', c == 'q':
			c = 'k'
		case c == 'z':
			c = 's'
		case c == 'w':
			c = 'v'
		case c == 'x':
			b = append(b, 'k')
			c = 's'
		case c == 'h' && len(b) > 0 && !vowel(w[i-1]):
			continue // ch, th, sh, kh, gh: the h changes little
		}
		if vowel(c) {
			if len(b) > 0 {
				continue
			}
			c = 'a'
		}
		if c < utf8.RuneSelf && (c < 'a' || c > 'z') && (c < '0' || c > '9') {
			continue
		}
		if len(b) > 0 && b[len(b)-1] == c {
			continue
		}
		b = append(b, c)
	}
	return string(b)
}

// editDistance is the number of letters inserted, deleted, replaced or
// swapped with the next to turn a into b (optimal string alignment), or
// more than max once it must exceed max.
func editDistance(a, b string, limit int) int {
	if ascii(a) && ascii(b) {
		return editDistanceOf([]byte(a), []byte(b), limit)
	}
	return editDistanceOf([]rune(a), []rune(b), limit)
}

// editDistanceOf is editDistance over letters.
func editDistanceOf[L byte | rune](ra, rb []L, limit int) int {
	if d := len(ra) - len(rb); d > limit || -d > limit {
		return limit + 1
	}
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		best := cur[0]
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
			best = min(best, cur[j])
		}
		if best > limit {
			return limit + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

// slips is how many slips a name of n letters may have and still match:
// one, two from eight letters.
func slips(n int) int {
	if n >= 8 {
		return 2
	}
	return 1
}

// alike reports whether a query's name, written w with term t, may be the
// index term u spelled otherwise: they share a soundKey of at least two
// letters, or, for a name of at least minSlipName letters, t is within
// slips of u. A slip in a shorter name changes too much of it ("Jon" and
// "John" are two names).
func alike(w, t, u string) bool {
	if t == u {
		return false
	}
	if n := utf8.RuneCountInString(t); n < minLooseName && utf8.RuneCountInString(u) != n {
		return false
	}
	ku := soundKey(u)
	if len(ku) >= 2 && (ku == soundKey(w) || ku == soundKey(t)) {
		return true
	}
	n := utf8.RuneCountInString(t)
	return n >= minSlipName && editDistance(t, u, slips(n)) <= slips(n)
}

// minSlipName is the fewest letters of a name matched by spelling and
// not only by sound.
const minSlipName = 5

// respell finds, for each name of ns that no document held accepts holds
// (held decides from a slot whether it counts), the index terms it may
// be a misspelling of (alike) that such documents write as a name
// (writtenAsName). It returns terms with each such name's term
// replaced by the terms found, and what it respelled. Only documents
// held accepts are read, so what the caller may not see finds nothing.
// The caller holds the read lock.
func (e *Engine) respell(terms []string, ns []name, held func(uint32) bool) ([]string, respelling) {
	var r respelling
	for _, n := range ns {
		if utf8.RuneCountInString(n.word) < minFuzzyName || e.holds(n.term, held) {
			continue
		}
		var found []string
		form, most := "", 0 // the spelling of the name held most often
		fw, ft := firstSound(n.word), firstSound(n.term)
		for _, u := range e.kw.terms {
			// Cheap tests first: a name and its misspelling begin with
			// the same letter or sound and are about as long.
			if d := len(u) - len(n.term); d > 3 || d < -3 {
				continue
			}
			if f := firstSound(u); f != fw && f != ft && u[0] != n.term[0] {
				continue
			}
			if !alike(n.word, n.term, u) {
				continue
			}
			if w, ok := e.writtenAsName(u, held); ok {
				found = append(found, u)
				if c := e.heldCount(u, held, maxFormCount); c > most || c == most && w < form {
					form, most = w, c
				}
			}
		}
		if len(found) == 0 {
			continue
		}
		slices.Sort(found) // the order terms were first met in must not show
		if r.heard == nil {
			r.heard, r.alts, r.spelled = map[string]bool{}, map[string]string{}, map[string]string{}
		}
		r.heard[n.term] = true
		r.spelled[n.word] = form
		for _, u := range found {
			if _, ok := r.alts[u]; !ok {
				r.alts[u] = n.term
			}
		}
		var out []string
		for _, t := range terms {
			if t == n.term {
				out = append(out, found...)
				continue
			}
			out = append(out, t)
		}
		terms = out
	}
	return terms, r
}

// respelling is what Engine.respell did to a query's names.
type respelling struct {
	heard map[string]bool // the terms of the names respelled
	// alts maps each term a name was searched as to the name's term.
	alts map[string]string
	// spelled maps each name respelled, as the query writes it, to its
	// spelling most memories the query may see write (the query is
	// embedded again with it: see Search).
	spelled map[string]string
}

// maxFormCount is how many of a spelling's memories are counted to
// choose the most common spelling of a misspelled name.
const maxFormCount = 256

// heldCount is how many documents held accepts contain term t, counted
// up to limit.
func (e *Engine) heldCount(t string, held func(uint32) bool, limit int) int {
	n := 0
	for _, p := range e.kw.postings(t) {
		if held(p.doc) {
			if n++; n >= limit {
				break
			}
		}
	}
	return n
}

// firstSound is the first letter of w's soundKey, from its first two
// letters when they are ASCII.
func firstSound(w string) byte {
	if len(w) >= 2 && w[0] < utf8.RuneSelf && w[1] < utf8.RuneSelf {
		var buf [2]byte
		for i := range buf {
			c := w[i]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			buf[i] = c
		}
		switch c := buf[0]; {
		case strings.IndexByte("aeiouy", c) >= 0:
			return 'a'
		case c == 'p' && buf[1] == 'h':
			return 'f'
		case c == 'c' && (buf[1] == 'e' || buf[1] == 'i' || buf[1] == 'y'):
			return 's'
		case c == 'c', c == 'q':
			return 'k'
		case c == 'z':
			return 's'
		case c == 'w':
			return 'v'
		case c == 'x':
			return 'k'
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
			return c
		}
	}
	if k := soundKey(w); k != "" {
		return k[0]
	}
	return 0
}

// holds reports whether a document held accepts contains term t.
func (e *Engine) holds(t string, held func(uint32) bool) bool {
	return slices.ContainsFunc(e.kw.postings(t), func(p posting) bool { return held(p.doc) })
}

// writtenAsName reports whether the documents held accepts that contain
// term t write it as a name: among the first maxNameChecks of them, one
// writes it capitalised and none in lower case ("Caroline: hi" and
// "ask Caroline", not "a gain in speed"). It returns the first word
// written so.
func (e *Engine) writtenAsName(t string, held func(uint32) bool) (string, bool) {
	checked, capital := 0, ""
	first := true
	for _, p := range e.kw.postings(t) {
		if !held(p.doc) {
			continue
		}
		if checked++; checked > maxNameChecks {
			break
		}
		lower := false
		words(e.docs[p.doc].doc.Content, func(w string, _ bool) {
			if lower || term(w) != t {
				return
			}
			if r, _ := utf8.DecodeRuneInString(w); unicode.IsUpper(r) {
				if first {
					capital, first = w, false
				}
			} else {
				lower = true
			}
		})
		if lower {
			return "", false
		}
	}
	return capital, capital != ""
}

// A word of a query that no memory the query may see holds may be a slip
// of the keyboard ("meilisearh", "testfligt", "clipy"): agents and people
// type fast, and one such word emptied the answer of a short query. A
// word of letters only, at least minSlipWord long, that is not a name is
// searched for as the words within slips of it (editDistance, beginning
// with the same letter) that those memories hold (respellWords). Names
// have their own rule (respell); numbers and identifiers with digits are
// never respelled ("10024" is not "10025").

// minSlipWord is the fewest letters of a word matched with a slip.
const minSlipWord = 5

// respellWords returns terms with each term of a word that no document
// held accepts holds, and that is not a name's (skip), replaced by the
// index terms within slips of it that such documents hold, sorted. Only
// documents held accepts are read, so what the caller may not see
// changes nothing. The caller holds the read lock.
func (e *Engine) respellWords(terms []string, skip map[string]bool, held func(uint32) bool) []string {
	var out []string
	for i, t := range terms {
		found := e.slipsOf(t, skip, held)
		if found == nil {
			if out != nil {
				out = append(out, t)
			}
			continue
		}
		if out == nil {
			out = append(make([]string, 0, len(terms)+len(found)), terms[:i]...)
		}
		out = append(out, found...)
	}
	if out == nil {
		return terms
	}
	return out
}

// slipsOf returns the terms t may be a slip for (see respellWords), nil
// when t is held, too short, not all letters, a name's, or like nothing.
func (e *Engine) slipsOf(t string, skip map[string]bool, held func(uint32) bool) []string {
	n := utf8.RuneCountInString(t)
	if n < minSlipWord || skip[t] || strings.ContainsFunc(t, func(r rune) bool { return !unicode.IsLetter(r) }) || e.holds(t, held) {
		return nil
	}
	limit := slips(n)
	var found []string
	for _, u := range e.kw.terms {
		if d := len(u) - len(t); d > limit || d < -limit || u[0] != t[0] {
			continue
		}
		if editDistance(t, u, limit) <= limit && e.holds(u, held) {
			found = append(found, u)
		}
	}
	slices.Sort(found) // the order terms were first met in must not show
	return found
}

package recall

// Stem reduces an English word to its stem with the Porter (1980)
// algorithm, as published in "An algorithm for suffix stripping"
// (Program 14(3)), including its two later, widely used revisions
// ("bli" -> "ble", and "logi" -> "log" in step 2). word must be lower
// case; words of one or two letters and words with any byte outside a-z
// are returned unchanged.
func Stem(word string) string {
	if len(word) <= 2 {
		return word
	}
	for i := 0; i < len(word); i++ {
		if word[i] < 'a' || word[i] > 'z' {
			return word
		}
	}
	s := stemmer{b: []byte(word)}
	s.k = len(s.b) - 1
	s.step1ab()
	if s.k > 0 {
		s.step1c()
		s.step2()
		s.step3()
		s.step4()
		s.step5()
	}
	return string(s.b[:s.k+1])
}

// stemmer holds a word in b[0..k]; j marks the end of the stem under test
// after ends succeeds.
type stemmer struct {
	b    []byte
	k, j int
}

// cons reports whether b[i] is a consonant: not a vowel, and y only when
// it follows a vowel or starts the word.
func (s *stemmer) cons(i int) bool {
	switch s.b[i] {
	case 'a', 'e', 'i', 'o', 'u':
		return false
	case 'y':
		return i == 0 || !s.cons(i-1)
	}
	return true
}

// m measures b[0..j]: the number of vowel-consonant sequences, the m in
// [C](VC)^m[V].
func (s *stemmer) m() int {
	n, i := 0, 0
	for ; i <= s.j && s.cons(i); i++ {
	}
	for i <= s.j {
		for ; i <= s.j && !s.cons(i); i++ {
		}
		if i > s.j {
			break
		}
		n++
		for ; i <= s.j && s.cons(i); i++ {
		}
	}
	return n
}

// vowelInStem reports whether b[0..j] has a vowel.
func (s *stemmer) vowelInStem() bool {
	for i := 0; i <= s.j; i++ {
		if !s.cons(i) {
			return true
		}
	}
	return false
}

// doubleC reports whether b[i-1..i] is a double consonant.
func (s *stemmer) doubleC(i int) bool {
	return i >= 1 && s.b[i] == s.b[i-1] && s.cons(i)
}

// cvc reports whether b[i-2..i] is consonant-vowel-consonant with the last
// not w, x or y: the short syllables of "hop", "cav(e)", "lov(e)".
func (s *stemmer) cvc(i int) bool {
	if i < 2 || !s.cons(i) || s.cons(i-1) || !s.cons(i-2) {
		return false
	}
	switch s.b[i] {
	case 'w', 'x', 'y':
		return false
	}
	return true
}

// ends reports whether b[0..k] ends with suffix, and sets j before it.
func (s *stemmer) ends(suffix string) bool {
	n := len(suffix)
	if n > s.k+1 || string(s.b[s.k+1-n:s.k+1]) != suffix {
		return false
	}
	s.j = s.k - n
	return true
}

// setTo replaces b[j+1..k] with t.
func (s *stemmer) setTo(t string) {
	s.b = append(s.b[:s.j+1], t...)
	s.k = s.j + len(t)
}

// r replaces the suffix with t when the stem's measure is positive.
func (s *stemmer) r(t string) {
	if s.m() > 0 {
		s.setTo(t)
	}
}

// step1ab removes plurals and -ed or -ing.
func (s *stemmer) step1ab() {
	if s.b[s.k] == 's' {
		switch {
		case s.ends("sses"):
			s.k -= 2
		case s.ends("ies"):
			s.setTo("i")
		case s.b[s.k-1] != 's':
			s.k--
		}
	}
	if s.ends("eed") {
		if s.m() > 0 {
			s.k--
		}
		return
	}
	if (s.ends("ed") || s.ends("ing")) && s.vowelInStem() {
		s.k = s.j
		switch {
		case s.ends("at"):
			s.setTo("ate")
		case s.ends("bl"):
			s.setTo("ble")
		case s.ends("iz"):
			s.setTo("ize")
		case s.doubleC(s.k):
			switch s.b[s.k] {
			case 'l', 's', 'z':
			default:
				s.k--
			}
		default:
			s.j = s.k
			if s.m() == 1 && s.cvc(s.k) {
				s.setTo("e")
			}
		}
	}
}

// step1c turns a final y into i when there is another vowel in the stem.
func (s *stemmer) step1c() {
	if s.ends("y") && s.vowelInStem() {
		s.b[s.k] = 'i'
	}
}

// suffixRule maps a suffix to its replacement.
type suffixRule struct{ from, to string }

// step2 maps double suffixes to single ones (-ization -> -ize), keyed by
// the penultimate letter.
var step2Rules = map[byte][]suffixRule{
	'a': {{"ational", "ate"}, {"tional", "tion"}},
	'c': {{"enci", "ence"}, {"anci", "ance"}},
	'e': {{"izer", "ize"}},
	'l': {{"bli", "ble"}, {"alli", "al"}, {"entli", "ent"}, {"eli", "e"}, {"ousli", "ous"}},
	'o': {{"ization", "ize"}, {"ation", "ate"}, {"ator", "ate"}},
	's': {{"alism", "al"}, {"iveness", "ive"}, {"fulness", "ful"}, {"ousness", "ous"}},
	't': {{"aliti", "al"}, {"iviti", "ive"}, {"biliti", "ble"}},
	'g': {{"logi", "log"}},
}

// step3 handles -ic-, -full, -ness, keyed by the last letter.
var step3Rules = map[byte][]suffixRule{
	'e': {{"icate", "ic"}, {"ative", ""}, {"alize", "al"}},
	'i': {{"iciti", "ic"}},
	'l': {{"ical", "ic"}, {"ful", ""}},
	's': {{"ness", ""}},
}

func (s *stemmer) applyRules(rules []suffixRule) {
	for _, rule := range rules {
		if s.ends(rule.from) {
			s.r(rule.to)
			return
		}
	}
}

func (s *stemmer) step2() {
	if s.k >= 1 {
		s.applyRules(step2Rules[s.b[s.k-1]])
	}
}

func (s *stemmer) step3() { s.applyRules(step3Rules[s.b[s.k]]) }

// step4 removes -ant, -ence and the like in context <c>vcvc<v>.
var step4Suffixes = map[byte][]string{
	'a': {"al"},
	'c': {"ance", "ence"},
	'e': {"er"},
	'i': {"ic"},
	'l': {"able", "ible"},
	'n': {"ant", "ement", "ment", "ent"},
	'o': {"ion", "ou"},
	's': {"ism"},
	't': {"ate", "iti"},
	'u': {"ous"},
	'v': {"ive"},
	'z': {"ize"},
}

func (s *stemmer) step4() {
	if s.k < 1 {
		return
	}
	for _, suf := range step4Suffixes[s.b[s.k-1]] {
		if !s.ends(suf) {
			continue
		}
		if suf == "ion" && (s.j < 0 || (s.b[s.j] != 's' && s.b[s.j] != 't')) {
			continue
		}
		if s.m() > 1 {
			s.k = s.j
		}
		return
	}
}

// step5 removes a final -e and turns -ll into -l when the measure allows.
func (s *stemmer) step5() {
	s.j = s.k
	if s.b[s.k] == 'e' {
		if a := s.m(); a > 1 || a == 1 && !s.cvc(s.k-1) {
			s.k--
		}
	}
	if s.b[s.k] == 'l' && s.doubleC(s.k) && s.m() > 1 {
		s.k--
	}
}

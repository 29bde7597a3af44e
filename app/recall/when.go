package recall

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// window is a span of time a query names: [start, end), or, when month
// is set, that month of any year.
type window struct {
	start, end time.Time
	month      time.Month
	expr       string // as the query writes it
}

// holds reports whether t falls in w, or up to slack after its end (a
// conversation tells of an event some days after it).
func (w window) holds(t time.Time, slack time.Duration) bool {
	if w.month != 0 {
		s := time.Date(t.Year(), w.month, 1, 0, 0, 0, 0, t.Location())
		if t.Before(s) { // slack may reach into the next year
			s = s.AddDate(-1, 0, 0)
		}
		return !t.Before(s) && t.Before(s.AddDate(0, 1, 0).Add(slack))
	}
	return !t.Before(w.start) && t.Before(w.end.Add(slack))
}

const monthNames = `january|february|march|april|may|june|july|august|september|october|november|december`

// monthAbbrs are the months' abbreviations, read only beside a day or a
// year ("Aug 2023", "Oct. 13, 2023"): alone, "mar" and "dec" are words.
const monthAbbrs = `jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec`

// monthDated is a month written in full or abbreviated.
const monthDated = `(?:` + monthNames + `|(?:` + monthAbbrs + `)\.?)`

var (
	// "13 October 2023", "1st of February, 2023", "13 Oct 2023"
	reDayMonthYear = regexp.MustCompile(`(?i)\b(\d{1,2})(?:st|nd|rd|th)?(?: of)? (` + monthDated + `),? (\d{4})\b`)
	// "October 13, 2023", "Oct. 13, 2023"
	reMonthDayYear = regexp.MustCompile(`(?i)\b(` + monthDated + `) (\d{1,2})(?:st|nd|rd|th)?,? (\d{4})\b`)
	// "July 2023", "mid-August 2023", "Aug 2023"
	reMonthYear = regexp.MustCompile(`(?i)\b(?:(?:early|mid|late)[ -])?(` + monthDated + `),? (\d{4})\b`)
	// "13.10.2023" (day first), "13/10/2023" and "10/13/2023" (the day is
	// the number above 12; day first when both could be)
	reNumericDate = regexp.MustCompile(`\b(\d{1,2})([./])(\d{1,2})([./])((?:19|20)\d\d)\b`)
	// "2023-10-13"
	reISODate = regexp.MustCompile(`\b((?:19|20)\d\d)-(\d{1,2})-(\d{1,2})\b`)
	// "in June", "during August", "early May", "mid-August"
	reMonth = regexp.MustCompile(`(?i)\b(?:in|during|since|of|early|late|mid|last)[ -](` + monthNames + `)\b`)
	// "in 2023"
	reYear = regexp.MustCompile(`(?i)\b(?:in|during|of|since|for) ((?:19|20)\d\d)\b`)
	// "yesterday", "last week", "last month", "last year"
	reRelative = regexp.MustCompile(`(?i)\b(yesterday|last week|last weekend|last month|last year)\b`)
)

// when returns the span of time query names, if it names one: a day
// ("on October 13, 2023", "13 Oct 2023", "13.10.2023", "13/10/2023",
// "2023-10-13"), a month ("in July 2023", "mid-August 2023", "Aug 2023";
// "in June" is June of any year), a year ("in 2023"), or a span back
// from now ("yesterday", "last week", "last month", "last year"). The
// first match, most precise first, wins.
func when(query string, now time.Time) (window, bool) {
	if !mayNameTime(query) {
		return window{}, false
	}
	return whenRe(query, now)
}

// timeCues are the words of which every expression when reads holds
// one, unless it is a date in figures or names a month abbreviated: a
// month, "yesterday", "last …", or a year after a space.
var timeCues = append(strings.Split(monthNames, "|"), "yesterday", "last ", " 19", " 20")

// abbrCues are the months' abbreviations, cues only as whole words
// ("Dec 13", not "decide").
var abbrCues = strings.Split(monthAbbrs, "|")

// mayNameTime reports whether query could hold an expression that when
// reads. Most texts hold none (a duplicate check passes a whole memory),
// and the case-insensitive expressions cost more than looking for
// the words they need. Outside ASCII it answers true: case-insensitive
// matching folds some letters that strings.ToLower does not ("ſ" is
// "s"), so only the expressions can tell.
func mayNameTime(query string) bool {
	lower := make([]byte, len(query))
	for i := 0; i < len(query); i++ {
		c := query[i]
		if c >= utf8.RuneSelf {
			return true
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		lower[i] = c
	}
	for _, w := range timeCues {
		if bytes.Contains(lower, []byte(w)) {
			return true
		}
	}
	for _, w := range abbrCues {
		for i := 0; ; {
			j := bytes.Index(lower[i:], []byte(w))
			if j < 0 {
				break
			}
			j += i
			end := j + len(w)
			if (j == 0 || !isLetter(lower[j-1])) && (end == len(lower) || !isLetter(lower[end])) {
				return true
			}
			i = j + 1
		}
	}
	// A date in figures: a digit, a dot, slash or hyphen, a digit.
	for i := 1; i+1 < len(lower); i++ {
		if c := lower[i]; (c == '.' || c == '/' || c == '-') && isDigit(lower[i-1]) && isDigit(lower[i+1]) {
			return true
		}
	}
	return false
}

// whenRe is when without the shortcut.
func whenRe(query string, now time.Time) (window, bool) {
	w, expr, ok := whenMatch(query, now)
	w.expr = expr
	return w, ok
}

// whenMatch is whenRe, with the expression it read.
func whenMatch(query string, now time.Time) (window, string, bool) {
	var m []string
	loc := now.Location()
	day := func(y, m, d int) window {
		s := time.Date(y, time.Month(m), d, 0, 0, 0, 0, loc)
		return window{start: s, end: s.AddDate(0, 0, 1)}
	}
	month := func(y, m int) window {
		s := time.Date(y, time.Month(m), 1, 0, 0, 0, 0, loc)
		return window{start: s, end: s.AddDate(0, 1, 0)}
	}
	if m = reDayMonthYear.FindStringSubmatch(query); m != nil && monthOK(m[0], m[2]) {
		d, _ := strconv.Atoi(m[1])
		y, _ := strconv.Atoi(m[3])
		if d >= 1 && d <= 31 {
			return day(y, monthNum(m[2]), d), m[0], true
		}
	}
	if m = reMonthDayYear.FindStringSubmatch(query); m != nil && monthOK(m[0], m[1]) {
		d, _ := strconv.Atoi(m[2])
		y, _ := strconv.Atoi(m[3])
		if d >= 1 && d <= 31 {
			return day(y, monthNum(m[1]), d), m[0], true
		}
	}
	if m = reNumericDate.FindStringSubmatch(query); m != nil && m[2] == m[4] {
		a, _ := strconv.Atoi(m[1])
		b, _ := strconv.Atoi(m[3])
		y, _ := strconv.Atoi(m[5])
		d, mo := a, b // day first: 13.10.2023, 13/10/2023
		if m[2] == "/" && b > 12 && a <= 12 {
			d, mo = b, a // 10/13/2023
		}
		if d >= 1 && d <= 31 && mo >= 1 && mo <= 12 {
			return day(y, mo, d), m[0], true
		}
	}
	if m = reISODate.FindStringSubmatch(query); m != nil {
		y, _ := strconv.Atoi(m[1])
		mo, _ := strconv.Atoi(m[2])
		d, _ := strconv.Atoi(m[3])
		if d >= 1 && d <= 31 && mo >= 1 && mo <= 12 {
			return day(y, mo, d), m[0], true
		}
	}
	if m = reMonthYear.FindStringSubmatch(query); m != nil && monthOK(m[0], m[1]) {
		y, _ := strconv.Atoi(m[2])
		return month(y, monthNum(m[1])), m[0], true
	}
	if m = reMonth.FindStringSubmatch(query); m != nil && monthOK(m[0], m[1]) {
		return window{month: time.Month(monthNum(m[1]))}, m[0], true
	}
	if m = reYear.FindStringSubmatch(query); m != nil {
		y, _ := strconv.Atoi(m[1])
		s := time.Date(y, 1, 1, 0, 0, 0, 0, loc)
		return window{start: s, end: s.AddDate(1, 0, 0)}, m[0], true
	}
	if m = reRelative.FindStringSubmatch(query); m != nil {
		today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, loc)
		switch strings.ToLower(m[1]) {
		case "yesterday":
			return window{start: today.AddDate(0, 0, -1), end: today}, m[0], true
		case "last week", "last weekend":
			return window{start: today.AddDate(0, 0, -14), end: today}, m[0], true
		case "last month":
			return window{start: today.AddDate(0, -2, 0), end: today}, m[0], true
		case "last year":
			return window{start: today.AddDate(-2, 0, 0), end: today}, m[0], true
		}
	}
	return window{}, "", false
}

// terms returns the terms of the expression w was read from.
func (w window) terms() []string {
	if w.expr == "" {
		return nil
	}
	return Terms(nil, w.expr)
}

// without returns text without the expression w was read from, or text
// itself when nothing else of it would be left to search for.
func (w window) without(text string) string {
	if w.expr == "" {
		return text
	}
	rest := strings.Replace(text, w.expr, " ", 1)
	if len(Terms(nil, rest)) == 0 {
		return text
	}
	return rest
}

// monthOK rejects the modal verb "may" read as the month: May counts
// only capitalised.
func monthOK(match, name string) bool {
	if strings.EqualFold(name, "may") {
		return strings.Contains(match, "May")
	}
	return true
}

// monthNum is the number of a month written in full or abbreviated
// (monthDated).
func monthNum(name string) int {
	name = strings.TrimSuffix(name, ".")
	for i, n := range strings.Split(monthNames, "|") {
		if len(name) >= 3 && len(name) <= len(n) && strings.EqualFold(n[:len(name)], name) {
			return i + 1
		}
	}
	return 1
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' }

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

var (
	// "13 October 2023", "1st of February, 2023"
	reDayMonthYear = regexp.MustCompile(`(?i)\b(\d{1,2})(?:st|nd|rd|th)?(?: of)? (` + monthNames + `),? (\d{4})\b`)
	// "October 13, 2023"
	reMonthDayYear = regexp.MustCompile(`(?i)\b(` + monthNames + `) (\d{1,2})(?:st|nd|rd|th)?,? (\d{4})\b`)
	// "July 2023"
	reMonthYear = regexp.MustCompile(`(?i)\b(` + monthNames + `),? (\d{4})\b`)
	// "in June", "during August", "early May"
	reMonth = regexp.MustCompile(`(?i)\b(?:in|during|since|of|early|late|mid|last) (` + monthNames + `)\b`)
	// "in 2023"
	reYear = regexp.MustCompile(`(?i)\b(?:in|during|of|since|for) ((?:19|20)\d\d)\b`)
	// "yesterday", "last week", "last month", "last year"
	reRelative = regexp.MustCompile(`(?i)\b(yesterday|last week|last weekend|last month|last year)\b`)
)

// when returns the span of time query names, if it names one: a day
// ("on October 13, 2023"), a month ("in July 2023"; "in June" is June
// of any year), a year ("in 2023"), or a span back from now
// ("yesterday", "last week", "last month", "last year"). The first
// match, most precise first, wins.
func when(query string, now time.Time) (window, bool) {
	if !mayNameTime(query) {
		return window{}, false
	}
	return whenRe(query, now)
}

// timeCues are the words of which every expression when reads holds
// one: a month, "yesterday", "last …", or a year after a space.
var timeCues = append(strings.Split(monthNames, "|"), "yesterday", "last ", " 19", " 20")

// mayNameTime reports whether query could hold an expression that when
// reads. Most texts hold none (a duplicate check passes a whole memory),
// and the six case-insensitive expressions cost more than looking for
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
	return false
}

// whenRe is when without the shortcut.
func whenRe(query string, now time.Time) (window, bool) {
	loc := now.Location()
	day := func(y, m, d int) window {
		s := time.Date(y, time.Month(m), d, 0, 0, 0, 0, loc)
		return window{start: s, end: s.AddDate(0, 0, 1)}
	}
	month := func(y, m int) window {
		s := time.Date(y, time.Month(m), 1, 0, 0, 0, 0, loc)
		return window{start: s, end: s.AddDate(0, 1, 0)}
	}
	if m := reDayMonthYear.FindStringSubmatch(query); m != nil && monthOK(m[0], m[2]) {
		d, _ := strconv.Atoi(m[1])
		y, _ := strconv.Atoi(m[3])
		if d >= 1 && d <= 31 {
			return day(y, monthNum(m[2]), d), true
		}
	}
	if m := reMonthDayYear.FindStringSubmatch(query); m != nil && monthOK(m[0], m[1]) {
		d, _ := strconv.Atoi(m[2])
		y, _ := strconv.Atoi(m[3])
		if d >= 1 && d <= 31 {
			return day(y, monthNum(m[1]), d), true
		}
	}
	if m := reMonthYear.FindStringSubmatch(query); m != nil && monthOK(m[0], m[1]) {
		y, _ := strconv.Atoi(m[2])
		return month(y, monthNum(m[1])), true
	}
	if m := reMonth.FindStringSubmatch(query); m != nil && monthOK(m[0], m[1]) {
		return window{month: time.Month(monthNum(m[1]))}, true
	}
	if m := reYear.FindStringSubmatch(query); m != nil {
		y, _ := strconv.Atoi(m[1])
		s := time.Date(y, 1, 1, 0, 0, 0, 0, loc)
		return window{start: s, end: s.AddDate(1, 0, 0)}, true
	}
	if m := reRelative.FindStringSubmatch(query); m != nil {
		today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, loc)
		switch strings.ToLower(m[1]) {
		case "yesterday":
			return window{start: today.AddDate(0, 0, -1), end: today}, true
		case "last week", "last weekend":
			return window{start: today.AddDate(0, 0, -14), end: today}, true
		case "last month":
			return window{start: today.AddDate(0, -2, 0), end: today}, true
		case "last year":
			return window{start: today.AddDate(-2, 0, 0), end: today}, true
		}
	}
	return window{}, false
}

// monthOK rejects the modal verb "may" read as the month: May counts
// only capitalised.
func monthOK(match, name string) bool {
	if strings.EqualFold(name, "may") {
		return strings.Contains(match, "May")
	}
	return true
}

func monthNum(name string) int {
	for i, n := range strings.Split(monthNames, "|") {
		if strings.EqualFold(n, name) {
			return i + 1
		}
	}
	return 1
}

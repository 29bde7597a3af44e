package ui

import (
	"cmp"
	"slices"
	"strings"
	"unicode"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// The memories list's columns: fixed widths, each wide enough for its
// header with the sort arrow; the memory's text takes the rest. The
// header's buttons sort by their column.
var (
	memColumns = columnsLayout{104, 88, 76, 96}
	memHeaders = []struct {
		name string
		key  sortKey
	}{{"Partition", byPartition}, {"Trust", byTrust}, {"Conf.", byConfidence}, {"Created", byCreated}, {"Memory", byText}}
)

// sortKey is what the list is ordered by; byDefault is the service's
// order: by relevance for a search, newest first for a listing.
type sortKey int

const (
	byDefault sortKey = iota
	byPartition
	byTrust
	byConfidence
	byCreated
	byText
)

// listSort is the list's order: a column, and whether it is reversed.
type listSort struct {
	key  sortKey
	desc bool
}

// next is the order after a click on key's header: a new column sorts
// ascending (newest and most confident first for dates and confidence),
// the same column reverses, and a third click goes back to the default.
func (o listSort) next(key sortKey) listSort {
	first := key == byConfidence || key == byCreated // these start high
	switch {
	case o.key != key:
		return listSort{key: key, desc: first}
	case o.desc == first:
		return listSort{key: key, desc: !first}
	}
	return listSort{}
}

// apply sorts rows in place, stably, so that equal rows keep the
// service's order.
func (o listSort) apply(rows []row) {
	if o.key == byDefault {
		return
	}
	slices.SortStableFunc(rows, func(a, b row) int {
		var c int
		switch o.key {
		case byPartition:
			c = cmp.Compare(a.Partition, b.Partition)
		case byTrust:
			c = cmp.Compare(a.Trust, b.Trust)
		case byConfidence:
			c = cmp.Compare(a.Confidence, b.Confidence)
		case byCreated:
			c = a.Created.Compare(b.Created)
		case byText:
			c = strings.Compare(strings.ToLower(a.sortText()), strings.ToLower(b.sortText()))
		}
		if o.desc {
			return -c
		}
		return c
	})
}

// sortText is what a row sorts by in the Memory column: its text, or
// for a sensitive row the mask it shows (the list holds no sensitive
// text).
func (r row) sortText() string {
	if r.Partition == "sensitive" {
		return maskedPreview
	}
	return r.Preview
}

// header is the list's column headers; the sorted one carries an arrow.
func (s *memoriesScreen) header() *fyne.Container {
	h := container.New(memColumns)
	for _, col := range memHeaders {
		b := widget.NewButton(col.name, nil)
		b.Alignment = widget.ButtonAlignLeading
		b.Importance = widget.LowImportance
		b.IconPlacement = widget.ButtonIconTrailingText
		b.OnTapped = func() { s.sortBy(col.key) }
		h.Add(b)
	}
	return h
}

// sortBy orders the shown rows by key (see listSort.next) and keeps the
// order for the next searches.
func (s *memoriesScreen) sortBy(key sortKey) {
	s.order = s.order.next(key)
	s.showOrder()
	sel := ""
	if s.detail != nil {
		sel = s.detail.id
	}
	rows := slices.Clone(s.rows.data)
	if s.order.key == byDefault {
		rows = slices.Clone(s.unsorted)
	}
	s.order.apply(rows)
	s.rows.set(rows)
	s.list.UnselectAll()
	if i := slices.IndexFunc(rows, func(r row) bool { return r.ID == sel }); i >= 0 && sel != "" {
		s.list.ScrollTo(i)
	}
}

// showOrder puts the arrow on the sorted column's header.
func (s *memoriesScreen) showOrder() {
	for i, o := range s.headers.Objects {
		b := o.(*widget.Button)
		b.Icon = nil
		if s.order.key == memHeaders[i].key {
			b.Icon = theme.MoveUpIcon()
			if s.order.desc {
				b.Icon = theme.MoveDownIcon()
			}
		}
		b.Refresh()
	}
}

// maskedPreview stands in for a sensitive memory's text in a list row:
// the detail shows it when the user presses Show.
const maskedPreview = "●●●●●●●● (sensitive)"

// highlight splits text into segments, the words that match a word of
// the query in bold. A word matches when it shares with a query word at
// least that word's length less two letters (four at least), so that
// "timeouts" marks "timeout" and "deploys" marks "deployed"; words of up
// to four letters match themselves and their plural, and words under
// three letters and a few common ones match nothing.
func highlight(text, query string) []widget.RichTextSegment {
	terms := strings.FieldsFunc(strings.ToLower(query), notWordRune)
	var segs []widget.RichTextSegment
	plain := func(s string, strong bool) {
		if s == "" {
			return
		}
		style := widget.RichTextStyleInline
		if strong {
			style = widget.RichTextStyleStrong
		}
		if n := len(segs); n > 0 {
			if last := segs[n-1].(*widget.TextSegment); last.Style == style {
				last.Text += s
				return
			}
		}
		segs = append(segs, &widget.TextSegment{Text: s, Style: style})
	}
	rest := text
	for rest != "" {
		i := strings.IndexFunc(rest, func(r rune) bool { return !notWordRune(r) })
		if i < 0 {
			plain(rest, false)
			break
		}
		plain(rest[:i], false)
		rest = rest[i:]
		j := strings.IndexFunc(rest, notWordRune)
		if j < 0 {
			j = len(rest)
		}
		word := rest[:j]
		plain(word, matchesTerm(strings.ToLower(word), terms))
		rest = rest[j:]
	}
	if len(segs) == 0 {
		segs = append(segs, &widget.TextSegment{Text: "", Style: widget.RichTextStyleInline})
	}
	return segs
}

// snippet is text from a few words before its first word matching the
// query, when that word would be far into the row: a search shows why
// each memory matched.
func snippet(text, query string) string {
	terms := strings.FieldsFunc(strings.ToLower(query), notWordRune)
	words := strings.FieldsFunc(text, notWordRune)
	for i, w := range words {
		if !matchesTerm(strings.ToLower(w), terms) {
			continue
		}
		if i <= 6 {
			return text
		}
		start := words[i-3]
		// The byte offset of the third word before the match.
		at := 0
		for at < len(text) {
			j := strings.Index(text[at:], start)
			if j < 0 {
				return text
			}
			at += j
			if before := strings.FieldsFunc(text[:at], notWordRune); len(before) == i-3 {
				return "…" + text[at:]
			}
			at += len(start)
		}
		return text
	}
	return text
}

func notWordRune(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }

// stopWords are query words too common to mark.
var stopWords = map[string]bool{"the": true, "and": true, "for": true, "with": true, "are": true, "was": true, "not": true, "but": true, "you": true, "all": true, "how": true, "what": true, "who": true, "why": true}

func matchesTerm(word string, terms []string) bool {
	for _, t := range terms {
		switch {
		case len(t) < 3 || stopWords[t]:
		case len(t) <= 4:
			if word == t || word == t+"s" || t == word+"s" {
				return true
			}
		default:
			need := max(4, len(t)-2)
			if len(word) >= need && word[:need] == t[:need] {
				return true
			}
		}
	}
	return false
}

package importer

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/engram-app/engram/vault"
)

// The rules formats are Markdown: an optional front matter between "---"
// lines (Cursor's description, globs and alwaysApply; Copilot's applyTo),
// then headings, list items, paragraphs and fenced code. Each list item
// and each paragraph is an entry, tagged with its headings; fenced code
// belongs to the entry before it. A front matter or a fence that is never
// closed is a *SyntaxError.

// frontMatter is what a rules file's front matter says about its rules.
type frontMatter struct {
	description string
	scope       string // globs or applyTo: the files the rules apply to
	always      bool   // alwaysApply: true
}

// mdEntry is an entry being built.
type mdEntry struct {
	lines []string
	line  int
	tags  []string
	hints []string
	end   int // the entry's last line
}

func parseMarkdown(f Format, name string, data []byte) ([]Entry, []Skip, error) {
	lines := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	fm, body, err := readFrontMatter(name, lines)
	if err != nil {
		return nil, nil, err
	}
	var (
		entries  []Entry
		skips    []Skip
		headings []string // by level, 1 to 6
		cur      *mdEntry
		last     = -1 // the entry fenced code after a blank line belongs to
		lastEnd  int
	)
	fileTag := ""
	if f == Cursor || f == Copilot {
		base := filepath.Base(name)
		base = strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(base, ".mdc"), ".instructions.md"), ".md")
		if base != ".cursorrules" && base != "copilot-instructions" {
			fileTag = tag(base)
		}
	}
	def := vault.Conventions
	headingTags := func() (tags, hints []string) {
		tags = addTag(tags, fileTag)
		if fm.description != "" {
			hints = append(hints, fm.description)
		}
		for _, h := range headings {
			if h != "" {
				tags = addTag(tags, tag(h))
				hints = append(hints, h)
			}
		}
		return tags, hints
	}
	flush := func() {
		if cur == nil {
			return
		}
		text := strings.TrimSpace(strings.Join(cur.lines, " "))
		if text != "" {
			if fm.scope != "" && !fm.always {
				text += " (applies to " + fm.scope + ")"
			}
			field := fieldFor(def, cur.hints...)
			entries = append(entries, Entry{Text: text, Field: field, Kind: kindFor(field), Tags: cur.tags, File: name, Line: cur.line})
			last, lastEnd = len(entries)-1, cur.end
		}
		cur = nil
	}
	start := func(n int, text string) {
		flush()
		tags, hints := headingTags()
		cur = &mdEntry{lines: []string{text}, line: n, tags: tags, hints: hints, end: n}
	}
	for i := 0; i < len(body); i++ {
		n := body[i].n
		raw := body[i].s
		trimmed := strings.TrimSpace(raw)
		indent := len(raw) - len(strings.TrimLeft(raw, " \t"))
		switch {
		case trimmed == "":
			flush()
		case isFence(trimmed):
			// Fenced code: to its closing fence, kept as it is.
			fence := trimmed[:3]
			code := []string{raw}
			closed := false
			for i+1 < len(body) {
				i++
				code = append(code, body[i].s)
				if strings.HasPrefix(strings.TrimSpace(body[i].s), fence) {
					closed = true
					break
				}
			}
			if !closed {
				return nil, nil, &SyntaxError{name, n, "a code block opened here (" + fence + ") is never closed"}
			}
			block := strings.Join(code, "\n")
			switch {
			case cur != nil:
				cur.lines = append(cur.lines, "\n"+block)
				cur.end = body[i].n
			case last >= 0 && n-lastEnd <= 2:
				entries[last].Text += "\n" + block
				lastEnd = body[i].n
			default:
				start(n, block)
				flush()
			}
		case strings.HasPrefix(trimmed, "#") && indent < 4 && headingLevel(trimmed) > 0:
			flush()
			last = -1
			lvl := headingLevel(trimmed)
			text := strings.TrimSpace(strings.TrimRight(strings.TrimSpace(trimmed[lvl:]), "#"))
			if len(headings) > lvl-1 {
				headings = headings[:lvl-1]
			}
			for len(headings) < lvl-1 {
				headings = append(headings, "")
			}
			headings = append(headings, text)
		case isRule(trimmed):
			flush()
		case strings.HasPrefix(trimmed, "@") && !strings.ContainsAny(trimmed, " \t"):
			flush()
			skips = append(skips, Skip{name, n, "an @import of another file (" + trimmed + "): import that file on its own"})
		case listItem(trimmed) != "":
			start(n, listItem(trimmed))
		default:
			text := strings.TrimSpace(strings.TrimPrefix(trimmed, ">"))
			if cur == nil {
				start(n, text)
			} else {
				cur.lines = append(cur.lines, text)
				cur.end = n
			}
		}
	}
	flush()
	return entries, skips, nil
}

type numbered struct {
	n int
	s string
}

// readFrontMatter splits a leading front matter off lines and returns the
// body's lines with their numbers.
func readFrontMatter(name string, lines []string) (frontMatter, []numbered, error) {
	var fm frontMatter
	body := func(from int) []numbered {
		out := make([]numbered, 0, len(lines)-from)
		for i := from; i < len(lines); i++ {
			out = append(out, numbered{i + 1, lines[i]})
		}
		return out
	}
	if len(lines) == 0 || strings.TrimSpace(strings.TrimPrefix(lines[0], "\ufeff")) != "---" {
		return fm, body(0), nil
	}
	key := ""
	for i := 1; i < len(lines); i++ {
		l := lines[i]
		t := strings.TrimSpace(l)
		switch {
		case t == "---":
			return fm, body(i + 1), nil
		case t == "" || strings.HasPrefix(t, "#"):
		case (strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t") || strings.HasPrefix(t, "- ")) && key != "":
			// A list value on the lines after its key.
			v := unquote(strings.TrimSpace(strings.TrimPrefix(t, "-")))
			fm.set(key, v, true)
		default:
			k, v, ok := strings.Cut(l, ":")
			if !ok || strings.TrimSpace(k) == "" || strings.ContainsAny(strings.TrimSpace(k), " \t") {
				return fm, nil, &SyntaxError{name, i + 1, fmt.Sprintf("front matter: expected \"key: value\", found %q", cut(t, 40))}
			}
			key = strings.TrimSpace(k)
			fm.set(key, unquote(strings.TrimSpace(v)), false)
		}
	}
	return fm, nil, &SyntaxError{name, 1, "the front matter opened here is never closed with ---"}
}

func (fm *frontMatter) set(key, v string, more bool) {
	if v == "" {
		return
	}
	switch key {
	case "description":
		fm.description = v
	case "globs", "applyTo":
		v = strings.Trim(v, "[]")
		if more && fm.scope != "" {
			fm.scope += ", " + v
		} else {
			fm.scope = v
		}
		if fm.scope == "**" || fm.scope == "**/*" || fm.scope == "*" {
			fm.scope = "" // every file: nothing to say
		}
	case "alwaysApply":
		fm.always = v == "true"
	}
}

func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' && s[len(s)-1] == '"' || s[0] == '\'' && s[len(s)-1] == '\'') {
		return s[1 : len(s)-1]
	}
	return s
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func isFence(t string) bool { return strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") }

// headingLevel is the level of an ATX heading ("## Testing" is 2), 0 if t
// is not one.
func headingLevel(t string) int {
	n := 0
	for n < len(t) && t[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || (n < len(t) && t[n] != ' ' && t[n] != '\t') {
		return 0
	}
	return n
}

// isRule reports a thematic break (---, ***, ___).
func isRule(t string) bool {
	s := strings.ReplaceAll(t, " ", "")
	if len(s) < 3 {
		return false
	}
	for _, c := range []string{"-", "*", "_"} {
		if strings.Trim(s, c) == "" {
			return true
		}
	}
	return false
}

// listItem is a list item's text without its marker ("- ", "* ", "+ ",
// "1. ", "1) ", a task box), or "" if t is not a list item.
func listItem(t string) string {
	rest := ""
	switch {
	case len(t) >= 2 && (t[0] == '-' || t[0] == '*' || t[0] == '+') && (t[1] == ' ' || t[1] == '\t'):
		rest = t[2:]
	default:
		n := 0
		for n < len(t) && n < 9 && t[n] >= '0' && t[n] <= '9' {
			n++
		}
		if n == 0 || n+1 >= len(t) || (t[n] != '.' && t[n] != ')') || (t[n+1] != ' ' && t[n+1] != '\t') {
			return ""
		}
		rest = t[n+2:]
	}
	rest = strings.TrimSpace(rest)
	for _, box := range []string{"[ ] ", "[x] ", "[X] "} {
		rest = strings.TrimPrefix(rest, box)
	}
	if rest == "" {
		return " " // an empty item: an entry with no text, dropped
	}
	return rest
}

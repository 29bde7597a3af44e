package importer

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/engram-app/engram/vault"
)

// Format names a kind of file Parse reads.
type Format string

// The formats.
const (
	Claude    Format = "claude"     // CLAUDE.md, CLAUDE.local.md, Claude Code memory files
	Agents    Format = "agents"     // AGENTS.md
	Cursor    Format = "cursor"     // .cursorrules, .cursor/rules/*.mdc
	Copilot   Format = "copilot"    // .github/copilot-instructions.md, .github/instructions/*.instructions.md
	MCPMemory Format = "mcp-memory" // the reference MCP memory server's memory.jsonl
	Mem0      Format = "mem0"       // a mem0 export or get_all answer (JSON)
)

// Formats lists the formats, in the order help shows them.
var Formats = []Format{Claude, Agents, Cursor, Copilot, MCPMemory, Mem0}

// MaxFileSize bounds one file read for import.
const MaxFileSize = 32 << 20

// Entry is one memory read from a file.
type Entry struct {
	Text  string
	Field vault.Field
	Kind  vault.Kind
	// Tags come from the headings above the entry, a rule's file name or
	// an entity's type: lower case, words joined with '-'.
	Tags []string
	// File and Line say where the entry begins (Line counts from 1).
	File string
	Line int
	// Ref is the entry's identifier in the tool it came from (a mem0
	// id), or "".
	Ref string
}

// Where is the entry's provenance: "imported from FILE, line N", with
// the source id when there is one.
func (e Entry) Where() string {
	s := fmt.Sprintf("imported from %s, line %d", e.File, e.Line)
	if e.Ref != "" {
		s += ", id " + e.Ref
	}
	return s
}

// Skip is a part of a file that is not imported, and why.
type Skip struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Why  string `json:"why"`
}

// Parse reads one file of the format. It returns every entry, what it
// leaves out, or a *SyntaxError (and no entries) when the file does not
// parse. name is how entries name the file.
func Parse(f Format, name string, data []byte) ([]Entry, []Skip, error) {
	if !utf8.Valid(data) {
		return nil, nil, &SyntaxError{name, firstInvalid(data), "not valid UTF-8 text"}
	}
	switch f {
	case Claude, Agents, Cursor, Copilot:
		return parseMarkdown(f, name, data)
	case MCPMemory:
		return parseMCP(name, data)
	case Mem0:
		return parseMem0(name, data)
	}
	return nil, nil, fmt.Errorf("%w %q (one of %s)", ErrFormat, f, formatList())
}

func formatList() string {
	s := make([]string, len(Formats))
	for i, f := range Formats {
		s[i] = string(f)
	}
	return strings.Join(s, ", ")
}

// ParseFormat checks a format name.
func ParseFormat(s string) (Format, error) {
	if slices.Contains(Formats, Format(s)) {
		return Format(s), nil
	}
	return "", fmt.Errorf("%w %q (one of %s)", ErrFormat, s, formatList())
}

// Read parses the file at path, or, for a directory, every file of the
// format below it (Cursor's .mdc rules, Copilot's instruction files, a
// project's CLAUDE.md or AGENTS.md files), in name order. It parses all
// of them before returning: one malformed file fails the whole read.
func Read(f Format, path string) ([]Entry, []Skip, error) {
	if _, err := ParseFormat(string(f)); err != nil {
		return nil, nil, err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	files := []string{path}
	if fi.IsDir() {
		if files, err = find(f, path); err != nil {
			return nil, nil, err
		}
		if len(files) == 0 {
			return nil, nil, fmt.Errorf("no %s files in %s", f, path)
		}
	}
	var entries []Entry
	var skips []Skip
	for _, file := range files {
		data, err := readLimited(file)
		if err != nil {
			return nil, nil, err
		}
		e, s, err := Parse(f, file, data)
		if err != nil {
			return nil, nil, err
		}
		entries, skips = append(entries, e...), append(skips, s...)
	}
	return entries, skips, nil
}

func readLimited(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if fi.Size() > MaxFileSize {
		return nil, fmt.Errorf("%s is larger than %d MiB", path, MaxFileSize>>20)
	}
	return os.ReadFile(path)
}

// find lists the files of format f below dir, skipping dependency and
// version-control folders.
func find(f Format, dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != dir && slices.Contains([]string{".git", "node_modules", "vendor", ".venv"}, name) {
				return filepath.SkipDir
			}
			return nil
		}
		if matches(f, p) {
			out = append(out, p)
		}
		return nil
	})
	slices.Sort(out)
	return out, err
}

func matches(f Format, p string) bool {
	name := filepath.Base(p)
	switch f {
	case Claude:
		return name == "CLAUDE.md" || name == "CLAUDE.local.md"
	case Agents:
		return name == "AGENTS.md"
	case Cursor:
		return name == ".cursorrules" || strings.HasSuffix(name, ".mdc")
	case Copilot:
		return name == "copilot-instructions.md" || strings.HasSuffix(name, ".instructions.md")
	case MCPMemory:
		return strings.HasSuffix(name, ".jsonl")
	case Mem0:
		return strings.HasSuffix(name, ".json")
	}
	return false
}

// firstInvalid is the line of the first invalid UTF-8 byte.
func firstInvalid(data []byte) int {
	line := 1
	for len(data) > 0 {
		r, n := utf8.DecodeRune(data)
		if r == utf8.RuneError && n <= 1 {
			return line
		}
		if r == '\n' {
			line++
		}
		data = data[n:]
	}
	return line
}

// MaxTagLen is the longest tag made from a heading or a type.
const MaxTagLen = 64

// tag makes a tag of a heading or a type: lower case letters and digits,
// other runs joined by one '-', at most MaxTagLen bytes; "" if nothing is
// left.
func tag(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
			continue
		}
		dash = true
	}
	t := b.String()
	for len(t) > MaxTagLen {
		_, n := utf8.DecodeLastRuneInString(t)
		t = t[:len(t)-n]
	}
	return strings.TrimRight(t, "-")
}

// addTag appends t if it is new and not empty.
func addTag(tags []string, t string) []string {
	if t == "" || slices.Contains(tags, t) {
		return tags
	}
	return append(tags, t)
}

// fieldFor picks the field an entry belongs in from the words of its
// headings (or categories), deepest first; def when none says.
func fieldFor(def vault.Field, hints ...string) vault.Field {
	for i := len(hints) - 1; i >= 0; i-- {
		h := " " + strings.ToLower(hints[i]) + " "
		switch {
		case hasAny(h, "gotcha", "pitfall", "caveat", "warning", "known issue", "careful", "trap", "footgun"):
			return vault.Gotchas
		case hasAny(h, "prefer", "likes", "dislike", "favourite", "favorite", "taste"):
			return vault.Preferences
		case hasAny(h, "decision", " adr", "architecture", "rationale", "why "):
			return vault.Decisions
		case hasAny(h, "convention", "style", "rule", "guideline", "format", "naming", "lint", "test", "build", "command", "workflow", "instruction", "commit", "review"):
			return vault.Conventions
		case hasAny(h, "overview", "about", "context", "structure", "project", "background", "learn", "fact"):
			return vault.Learnings
		}
	}
	return def
}

func hasAny(s string, words ...string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// kindFor is the kind that fits a field.
func kindFor(f vault.Field) vault.Kind {
	switch f {
	case vault.Conventions:
		return vault.Pattern
	case vault.Preferences:
		return vault.Preference
	case vault.Gotchas:
		return vault.Knowledge
	}
	return vault.Fact
}

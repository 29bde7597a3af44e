package importer

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
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

// Skip is a part of a file that is not imported, and why. Line is 0 when
// the whole file is skipped (a link out of the folder, a named pipe).
type Skip struct {
	File string `json:"file"`
	Line int    `json:"line,omitempty"`
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

// Read parses the file at path, or, for a folder, every file of the format
// below it (Cursor's .mdc rules, Copilot's instruction files, a project's
// CLAUDE.md or AGENTS.md files), in name order. It parses all of them
// before returning: one malformed file fails the whole read.
//
// A folder's files are opened through an os.Root of the folder, so nothing
// outside it is read: a link that leads out of the folder (to a file, a
// folder or a device), a link loop, a broken link and anything that is not
// a regular file (a named pipe, a device, a socket) are skipped and
// returned among the skips, with Line 0 and why. A link to a file inside
// the folder is followed; a link to a folder inside it is not (its files
// are read where they are). A path named directly may be a link, since the
// user named it, but it must lead to a regular file, or Read fails with
// ErrNotRegular before reading anything. No file is read beyond
// MaxFileSize bytes, whatever its size is said to be (ErrTooLarge).
func Read(f Format, path string) ([]Entry, []Skip, error) {
	if _, err := ParseFormat(string(f)); err != nil {
		return nil, nil, err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	if !fi.IsDir() {
		data, err := readNamed(path, fi)
		if err != nil {
			return nil, nil, err
		}
		return Parse(f, path, data)
	}
	root, err := os.OpenRoot(path)
	if err != nil {
		return nil, nil, err
	}
	defer root.Close()
	files, skips, err := find(f, root, path)
	if err != nil {
		return nil, nil, err
	}
	if len(files) == 0 {
		msg := fmt.Sprintf("no %s files in %s", f, path)
		if len(skips) > 0 {
			why := make([]string, len(skips))
			for i, s := range skips {
				why[i] = s.File + ": " + s.Why
			}
			msg += " (skipped " + strings.Join(why, "; ") + ")"
		}
		return nil, nil, errors.New(msg)
	}
	var entries []Entry
	for _, rel := range files {
		name := filepath.Join(path, rel)
		file, err := root.OpenFile(rel, openFlags, 0)
		if err != nil {
			return nil, nil, err
		}
		data, err := readCapped(file, name, MaxFileSize)
		file.Close()
		if err != nil {
			return nil, nil, err
		}
		e, s, err := Parse(f, name, data)
		if err != nil {
			return nil, nil, err
		}
		entries, skips = append(entries, e...), append(skips, s...)
	}
	return entries, skips, nil
}

// readNamed reads the file the user named, fi being what it leads to.
func readNamed(path string, fi fs.FileInfo) ([]byte, error) {
	// Checked before opening: opening a named pipe waits for a writer.
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w (%s)", path, ErrNotRegular, modeName(fi.Mode()))
	}
	file, err := os.OpenFile(path, openFlags, 0)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	return readCapped(file, path, MaxFileSize)
}

// readCapped reads an open file of at most limit bytes. It refuses what is
// not a regular file, and reads at most limit+1 bytes of what is, so that
// a file whose size is not what it says (one that grows while it is read,
// or a kernel file that says 0) costs no more than limit.
func readCapped(file fs.File, name string, limit int64) ([]byte, error) {
	fi, err := file.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w (%s)", name, ErrNotRegular, modeName(fi.Mode()))
	}
	tooLarge := fmt.Errorf("%s: %w (more than %s)", name, ErrTooLarge, sizeName(limit))
	if fi.Size() > limit {
		return nil, tooLarge
	}
	var b bytes.Buffer
	b.Grow(int(fi.Size()) + bytes.MinRead)
	if _, err := b.ReadFrom(io.LimitReader(file, limit+1)); err != nil {
		return nil, err
	}
	if int64(b.Len()) > limit {
		return nil, tooLarge
	}
	return b.Bytes(), nil
}

// sizeName is n bytes in words: "32 MiB", or "100 bytes".
func sizeName(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// modeName says what a file that is not a regular file is.
func modeName(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a link"
	case m.IsRegular():
		return "a file"
	}
	return "not a regular file"
}

// skipFolders are not searched: dependencies and version control.
var skipFolders = []string{".git", "node_modules", "vendor", ".venv"}

// find lists the files of format f below the root (dir names it), as
// paths relative to it, and what it skips: see Read.
func find(f Format, root *os.Root, dir string) ([]string, []Skip, error) {
	var out []string
	var skips []Skip
	err := fs.WalkDir(root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.FromSlash(p)
		skip := func(why string) {
			skips = append(skips, Skip{File: filepath.Join(dir, rel), Why: why})
		}
		wanted := matches(f, p)
		switch t := d.Type(); {
		case d.IsDir():
			if p != "." && slices.Contains(skipFolders, d.Name()) {
				return fs.SkipDir
			}
		case t&fs.ModeSymlink != 0:
			fi, why := follow(root, rel, dir)
			switch {
			case why != "":
				// A link out of the folder to a folder may hold files
				// of the format under any name.
				if wanted || strings.HasPrefix(why, "a link to a folder") {
					skip(why)
				}
			case fi.IsDir() || !wanted:
			case !fi.Mode().IsRegular():
				skip("a link to " + modeName(fi.Mode()) + ", not a regular file")
			default:
				out = append(out, rel)
			}
		case !wanted:
		case !t.IsRegular():
			skip(modeName(t) + ", not a regular file")
		default:
			out = append(out, rel)
		}
		return nil
	})
	slices.Sort(out)
	return out, skips, err
}

// follow resolves the link rel inside the root. It returns what the link
// leads to inside the root, or why it is not followed. The root decides;
// the link is resolved outside it only to say where it leads.
func follow(root *os.Root, rel, dir string) (fs.FileInfo, string) {
	fi, err := root.Stat(rel)
	if err == nil {
		return fi, ""
	}
	if errors.Is(err, syscall.ELOOP) {
		return nil, "a link loop, or too many links in a row"
	}
	target, terr := os.Stat(filepath.Join(dir, rel))
	switch {
	case terr == nil:
		why := fmt.Sprintf("a link to %s outside %s: links are not followed out of the folder", modeName(target.Mode()), dir)
		if target.Mode().IsRegular() || target.IsDir() {
			why += " (name its target to import it)"
		}
		return nil, why
	case errors.Is(terr, syscall.ELOOP):
		return nil, "a link loop, or too many links in a row"
	case errors.Is(terr, fs.ErrNotExist):
		return nil, "a link to nothing (its target does not exist)"
	}
	return nil, "a link that cannot be followed: " + err.Error()
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

package connect

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
)

// The TOML editor (Codex CLI's config.toml) works on lines: Engram's entry
// is the table [mcp_servers.NAME] with its subtables, from its header to
// the next header of another table. Everything outside it is kept as it
// is, comments included.

// tomlCheck reports whether src is TOML, as ErrSyntax with the line of
// its first problem when it is not. The line editor below keeps every line
// it does not own as it is, so a malformed line is refused here rather
// than kept beside Engram's entry.
func tomlCheck(src []byte) error {
	if p := tomlProblem(src); p != "" {
		return fmt.Errorf("%w: %s", ErrSyntax, p)
	}
	return nil
}

// tomlProblem is "line N: what is wrong" of a file that is not TOML, or "".
func tomlProblem(src []byte) string {
	var v map[string]any
	_, err := toml.Decode(string(src), &v)
	if pe, ok := errors.AsType[toml.ParseError](err); ok {
		return fmt.Sprintf("line %d: %s", pe.Position.Line, strings.TrimSuffix(pe.Message, "."))
	}
	if err != nil {
		return err.Error()
	}
	return ""
}

// tomlEdit applies edit to the TOML file src: only when src is TOML, and
// only when what edit gives still is (it would not be, for one, when
// Engram's entry is already there written as dotted keys).
func tomlEdit(src []byte, edit func([]byte) ([]byte, error)) ([]byte, error) {
	if err := tomlCheck(src); err != nil {
		return nil, err
	}
	out, err := edit(src)
	if err != nil || bytes.Equal(out, src) {
		return out, err
	}
	if p := tomlProblem(out); p != "" {
		return nil, fmt.Errorf("%w: Engram's entry cannot be added to or taken from this file as it is written (the result would fail at %s); write each MCP server as its own [table], or edit the file by hand", ErrSyntax, p)
	}
	return out, nil
}

var tomlHeader = regexp.MustCompile(`^\s*\[\[?\s*([^\[\]#]*?)\s*\]\]?\s*(#.*)?$`)

// tomlTableName normalises a header's dotted key: no spaces around the
// dots, no quotes around simple parts.
func tomlTableName(key string) string {
	parts := strings.Split(key, ".")
	for i, p := range parts {
		parts[i] = strings.Trim(strings.TrimSpace(p), `"'`)
	}
	return strings.Join(parts, ".")
}

// tomlSection finds the lines [start, end) of table name and its
// subtables; start is -1 when there is none. The end excludes the blank
// lines before the next table.
func tomlSection(lines []string, name string) (start, end int, err error) {
	start, end = -1, -1
	current := ""
	// The servers' table may not be one inline table: TOML does not let
	// a [table] add to it.
	servers := tableParent(name)
	outer, leaf := "", servers
	if i := strings.LastIndexByte(servers, '.'); i >= 0 {
		outer, leaf = servers[:i], servers[i+1:]
	}
	top := tomlTopLines(lines)
	for i, l := range lines {
		if !top[i] {
			continue // inside a multi-line string or array
		}
		m := tomlHeader.FindStringSubmatch(l)
		if m == nil {
			if current == tableParent(name) && start < 0 && tomlKeyIs(l, tableLeaf(name)) {
				return -1, -1, fmt.Errorf("%w: %s is defined inside [%s] on line %d; move it to its own table or remove it by hand", ErrSyntax, tableLeaf(name), current, i+1)
			}
			if current == outer && tomlKeySet(l, leaf) {
				return -1, -1, fmt.Errorf("%w: %s is written as one inline table on line %d, which Engram's entry cannot be added to; write each server as its own [%s.NAME] table, or edit the file by hand", ErrSyntax, leaf, i+1, servers)
			}
			continue
		}
		current = tomlTableName(m[1])
		inside := current == name || strings.HasPrefix(current, name+".")
		switch {
		case inside && start < 0:
			start = i
		case !inside && start >= 0 && end < 0:
			end = i
		case inside && end >= 0:
			return -1, -1, fmt.Errorf("%w: [%s] is split over two places (line %d)", ErrSyntax, name, i+1)
		}
	}
	if start >= 0 && end < 0 {
		end = len(lines)
	}
	for start >= 0 && end > start+1 && strings.TrimSpace(lines[end-1]) == "" {
		end--
	}
	return start, end, nil
}

// tomlTopLines marks the lines that begin outside any multi-line string
// or array: only those can be a table's header or a key. src is TOML.
func tomlTopLines(lines []string) []bool {
	top := make([]bool, len(lines))
	var quote string // the open multi-line string's delimiter, if any
	depth := 0       // open brackets of arrays (and inline tables)
	for i, l := range lines {
		top[i] = quote == "" && depth == 0
		for j := 0; j < len(l); j++ {
			if quote != "" {
				if quote == `"""` && l[j] == '\\' {
					j++
					continue
				}
				if strings.HasPrefix(l[j:], quote) {
					// Up to two quotes may end the string's text.
					n := 3
					for n < 5 && j+n < len(l) && l[j+n] == quote[0] {
						n++
					}
					j += n - 1
					quote = ""
				}
				continue
			}
			switch c := l[j]; {
			case c == '#':
				j = len(l)
			case strings.HasPrefix(l[j:], `"""`) || strings.HasPrefix(l[j:], "'''"):
				quote = l[j : j+3]
				j += 2
			case c == '"' || c == '\'':
				// A one-line string: to its closing quote.
				for j++; j < len(l) && l[j] != c; j++ {
					if c == '"' && l[j] == '\\' {
						j++
					}
				}
			case c == '[' || c == '{':
				depth++
			case c == ']' || c == '}':
				depth = max(depth-1, 0)
			}
		}
	}
	return top
}

func tableParent(name string) string { return name[:strings.LastIndexByte(name, '.')] }
func tableLeaf(name string) string   { return name[strings.LastIndexByte(name, '.')+1:] }

// tomlKeyIs reports whether line sets key (key = ...) or a key under it
// (key.x = ...); tomlKeySet, only key itself.
func tomlKeyIs(line, key string) bool  { return tomlKeyThen(line, key, "=.") }
func tomlKeySet(line, key string) bool { return tomlKeyThen(line, key, "=") }

func tomlKeyThen(line, key, next string) bool {
	l := strings.TrimSpace(line)
	for _, k := range []string{key, `"` + key + `"`} {
		if rest, ok := strings.CutPrefix(l, k); ok {
			rest = strings.TrimSpace(rest)
			if rest != "" && strings.ContainsRune(next, rune(rest[0])) {
				return true
			}
		}
	}
	return false
}

func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

var tomlBare = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

func tomlKey(k string) string {
	if tomlBare.MatchString(k) {
		return k
	}
	return tomlString(k)
}

// renderTOML renders the table of name for e.
func renderTOML(name string, e Entry) []string {
	lines := []string{"[" + name + "]", "command = " + tomlString(e.Command)}
	args := make([]string, len(e.Args))
	for i, a := range e.Args {
		args[i] = tomlString(a)
	}
	lines = append(lines, "args = ["+strings.Join(args, ", ")+"]")
	if len(e.Env) > 0 {
		keys := make([]string, 0, len(e.Env))
		for k := range e.Env {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		kv := make([]string, len(keys))
		for i, k := range keys {
			kv[i] = tomlKey(k) + " = " + tomlString(e.Env[k])
		}
		lines = append(lines, "env = { "+strings.Join(kv, ", ")+" }")
	}
	return lines
}

func splitLines(src []byte) []string {
	if len(src) == 0 {
		return nil
	}
	return strings.Split(string(src), "\n")
}

// tomlInstall returns src with table name set to e's.
func tomlInstall(src []byte, name string, e Entry) ([]byte, error) {
	lines := splitLines(src)
	start, end, err := tomlSection(lines, name)
	if err != nil {
		return nil, err
	}
	want := renderTOML(name, e)
	if start >= 0 {
		if strings.Join(lines[start:end], "\n") == strings.Join(want, "\n") {
			return src, nil
		}
		out := append(append(append([]string{}, lines[:start]...), want...), lines[end:]...)
		return []byte(strings.Join(out, "\n")), nil
	}
	var b bytes.Buffer
	b.Write(src)
	if len(src) > 0 && !bytes.HasSuffix(src, []byte("\n")) {
		b.WriteByte('\n')
	}
	if len(bytes.TrimSpace(src)) > 0 {
		b.WriteByte('\n')
	}
	b.WriteString(strings.Join(want, "\n") + "\n")
	return b.Bytes(), nil
}

// tomlRemove returns src without table name, and whether it had it.
func tomlRemove(src []byte, name string) ([]byte, bool, error) {
	lines := splitLines(src)
	start, end, err := tomlSection(lines, name)
	if err != nil || start < 0 {
		return src, false, err
	}
	from, to := start, end
	// The inverse of tomlInstall's append: the blank line before, the
	// newline after.
	if end == len(lines)-1 && lines[end] == "" {
		if from > 0 && strings.TrimSpace(lines[from-1]) == "" {
			from--
		}
		out := strings.Join(lines[:from], "\n")
		if from > 0 {
			out += "\n"
		}
		return []byte(out), true, nil
	}
	out := append(append([]string{}, lines[:from]...), lines[to:]...)
	// Drop one of the two blank lines the table sat between.
	if from > 0 && from < len(out) && strings.TrimSpace(out[from-1]) == "" && strings.TrimSpace(out[from]) == "" {
		out = append(out[:from], out[from+1:]...)
	}
	return []byte(strings.Join(out, "\n")), true, nil
}

// tomlEntry returns the lines of table name, if any.
func tomlEntry(src []byte, name string) ([]byte, error) {
	lines := splitLines(src)
	start, end, err := tomlSection(lines, name)
	if err != nil || start < 0 {
		return nil, err
	}
	return []byte(strings.Join(lines[start:end], "\n")), nil
}

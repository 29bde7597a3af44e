package connect

import (
	"bytes"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// The TOML editor (Codex CLI's config.toml) works on lines: Engram's entry
// is the table [mcp_servers.NAME] with its subtables, from its header to
// the next header of another table. Everything outside it is kept as it
// is, comments included.

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
	for i, l := range lines {
		m := tomlHeader.FindStringSubmatch(l)
		if m == nil {
			if current == tableParent(name) && start < 0 && tomlKeyIs(l, tableLeaf(name)) {
				return -1, -1, fmt.Errorf("%w: %s is defined inside [%s] on line %d; move it to its own table or remove it by hand", ErrSyntax, tableLeaf(name), current, i+1)
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

func tableParent(name string) string { return name[:strings.LastIndexByte(name, '.')] }
func tableLeaf(name string) string   { return name[strings.LastIndexByte(name, '.')+1:] }

func tomlKeyIs(line, key string) bool {
	l := strings.TrimSpace(line)
	for _, k := range []string{key, `"` + key + `"`} {
		if rest, ok := strings.CutPrefix(l, k); ok {
			rest = strings.TrimSpace(rest)
			if strings.HasPrefix(rest, "=") || strings.HasPrefix(rest, ".") {
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

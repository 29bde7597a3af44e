package connect

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// The JSON editor reads JSON with comments and trailing commas (VS Code's
// and Zed's JSONC; plain JSON is a subset) far enough to know where each
// member of the root object and of one container object begins and ends,
// and edits only those bytes.

// member is one "key": value of an object, as byte offsets into the source.
type member struct {
	key                string
	keyStart           int
	valStart, valEnd   int
	lineStart, indentN int // the member's line and the width of its indentation
}

// object is an object's members and the offsets of its braces.
type object struct {
	open, close int
	members     []member
}

func (o object) find(key string) int {
	for i, m := range o.members {
		if m.key == key {
			return i
		}
	}
	return -1
}

type jsonParser struct {
	src []byte
	pos int
}

func (p *jsonParser) errorf(format string, args ...any) error {
	line := 1 + bytes.Count(p.src[:min(p.pos, len(p.src))], []byte("\n"))
	return fmt.Errorf("%w: line %d: %s", ErrSyntax, line, fmt.Sprintf(format, args...))
}

// space skips white space and comments.
func (p *jsonParser) space() error {
	for p.pos < len(p.src) {
		switch c := p.src[p.pos]; {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			p.pos++
		case c == '/' && p.pos+1 < len(p.src) && p.src[p.pos+1] == '/':
			i := bytes.IndexByte(p.src[p.pos:], '\n')
			if i < 0 {
				p.pos = len(p.src)
			} else {
				p.pos += i
			}
		case c == '/' && p.pos+1 < len(p.src) && p.src[p.pos+1] == '*':
			i := bytes.Index(p.src[p.pos+2:], []byte("*/"))
			if i < 0 {
				return p.errorf("unterminated comment")
			}
			p.pos += i + 4
		default:
			return nil
		}
	}
	return nil
}

func (p *jsonParser) str() (string, error) {
	start := p.pos
	p.pos++
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case '\\':
			p.pos += 2
			continue
		case '"':
			p.pos++
			var s string
			if err := json.Unmarshal(p.src[start:p.pos], &s); err != nil {
				return "", p.errorf("bad string")
			}
			return s, nil
		case '\n':
			return "", p.errorf("newline in a string")
		}
		p.pos++
	}
	return "", p.errorf("unterminated string")
}

// value skips one value, checking its structure.
func (p *jsonParser) value() error {
	if p.pos >= len(p.src) {
		return p.errorf("a value is missing")
	}
	switch p.src[p.pos] {
	case '"':
		_, err := p.str()
		return err
	case '{':
		_, err := p.object()
		return err
	case '[':
		p.pos++
		for {
			if err := p.space(); err != nil {
				return err
			}
			if p.pos < len(p.src) && p.src[p.pos] == ']' {
				p.pos++
				return nil
			}
			if err := p.value(); err != nil {
				return err
			}
			if err := p.space(); err != nil {
				return err
			}
			if p.pos < len(p.src) && p.src[p.pos] == ',' {
				p.pos++
			} else if p.pos >= len(p.src) || p.src[p.pos] != ']' {
				return p.errorf("expected , or ] in an array")
			}
		}
	}
	start := p.pos
	for p.pos < len(p.src) && !strings.ContainsRune(",]} \t\r\n/", rune(p.src[p.pos])) {
		p.pos++
	}
	var v any
	if p.pos == start || json.Unmarshal(p.src[start:p.pos], &v) != nil {
		return p.errorf("unexpected %q", p.src[start:max(p.pos, start+1)])
	}
	return nil
}

// object reads the object at p.pos ('{').
func (p *jsonParser) object() (object, error) {
	o := object{open: p.pos}
	p.pos++
	for {
		if err := p.space(); err != nil {
			return o, err
		}
		if p.pos >= len(p.src) {
			return o, p.errorf("unterminated object")
		}
		if p.src[p.pos] == '}' {
			o.close = p.pos
			p.pos++
			return o, nil
		}
		if p.src[p.pos] != '"' {
			return o, p.errorf("expected a key")
		}
		m := member{keyStart: p.pos}
		m.lineStart = bytes.LastIndexByte(p.src[:p.pos], '\n') + 1
		m.indentN = p.pos - m.lineStart
		if len(bytes.TrimLeft(p.src[m.lineStart:p.pos], " \t")) != 0 {
			m.indentN = -1 // not alone on its line
		}
		key, err := p.str()
		if err != nil {
			return o, err
		}
		m.key = key
		if err := p.space(); err != nil {
			return o, err
		}
		if p.pos >= len(p.src) || p.src[p.pos] != ':' {
			return o, p.errorf("expected : after %q", key)
		}
		p.pos++
		if err := p.space(); err != nil {
			return o, err
		}
		m.valStart = p.pos
		if err := p.value(); err != nil {
			return o, err
		}
		m.valEnd = p.pos
		o.members = append(o.members, m)
		if err := p.space(); err != nil {
			return o, err
		}
		if p.pos < len(p.src) && p.src[p.pos] == ',' {
			p.pos++
		} else if p.pos >= len(p.src) || p.src[p.pos] != '}' {
			return o, p.errorf("expected , or } after %q", key)
		}
	}
}

// jsonDoc is a parsed JSONC file: its root object, and the container
// object and Engram's member in it when they exist.
type jsonDoc struct {
	src       []byte
	empty     bool // nothing but white space and comments
	root      object
	container *object
	contIdx   int // the container's index in root.members
	entryIdx  int // Engram's index in container.members, or -1
	unit      string
}

func parseJSONDoc(src []byte, containerKey, name string) (*jsonDoc, error) {
	d := &jsonDoc{src: src, contIdx: -1, entryIdx: -1}
	p := &jsonParser{src: src}
	if bytes.HasPrefix(src, []byte("\xef\xbb\xbf")) {
		p.pos = 3
	}
	if err := p.space(); err != nil {
		return nil, err
	}
	if p.pos == len(src) {
		d.empty, d.unit = true, "  "
		return d, nil
	}
	if src[p.pos] != '{' {
		return nil, p.errorf("the file is not a JSON object")
	}
	root, err := p.object()
	if err != nil {
		return nil, err
	}
	if err := p.space(); err != nil {
		return nil, err
	}
	if p.pos != len(src) {
		return nil, p.errorf("text after the closing brace")
	}
	d.root = root
	d.unit = indentUnit(src, root)
	if i := root.find(containerKey); i >= 0 {
		m := root.members[i]
		if src[m.valStart] != '{' {
			return nil, fmt.Errorf("%w: %q is not an object", ErrSyntax, containerKey)
		}
		cp := &jsonParser{src: src, pos: m.valStart}
		c, err := cp.object()
		if err != nil {
			return nil, err
		}
		d.container, d.contIdx = &c, i
		d.entryIdx = c.find(name)
	}
	return d, nil
}

// indentUnit is the indentation of the root's first member on its own
// line (two spaces when there is none).
func indentUnit(src []byte, root object) string {
	for _, m := range root.members {
		if m.indentN > 0 {
			return string(src[m.lineStart : m.lineStart+m.indentN])
		}
	}
	return "  "
}

func (d *jsonDoc) indent(depth int) string { return strings.Repeat(d.unit, depth) }

// render renders v as the value of a member at depth (the root's members
// are at depth 1), in the file's indentation.
func (d *jsonDoc) render(v any, depth int) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent(d.indent(depth), d.unit)
	if err := enc.Encode(v); err != nil {
		panic(err) // v is built from strings only
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}

func quoteKey(k string) []byte {
	b, _ := json.Marshal(k)
	return b
}

// insertMember inserts "key": val (val rendered at depth) as the last
// member of o.
func (d *jsonDoc) insertMember(o object, key string, val []byte, depth int) []byte {
	src := d.src
	line := append([]byte("\n"+d.indent(depth)), quoteKey(key)...)
	line = append(line, ": "...)
	line = append(line, val...)
	var out []byte
	if len(o.members) == 0 {
		out = append(out, src[:o.open+1]...)
		out = append(out, line...)
		rest := src[o.open+1:]
		if len(bytes.TrimSpace(src[o.open+1:o.close])) == 0 {
			out = append(out, "\n"+d.indent(depth-1)...)
			rest = src[o.close:]
		}
		return append(out, rest...)
	}
	last := o.members[len(o.members)-1]
	out = append(out, src[:last.valEnd]...)
	out = append(out, ',')
	out = append(out, line...)
	return append(out, src[last.valEnd:]...)
}

// removeMember removes member i of o, with its separator, as the inverse
// of insertMember.
func (d *jsonDoc) removeMember(o object, i int) []byte {
	src := d.src
	var from, to int
	switch {
	case len(o.members) == 1:
		from, to = o.open+1, o.close
	case i > 0:
		from, to = o.members[i-1].valEnd, o.members[i].valEnd
	default:
		from, to = o.members[0].keyStart, o.members[1].keyStart
	}
	out := append([]byte{}, src[:from]...)
	return append(out, src[to:]...)
}

// jsonInstall returns src with name's entry in containerKey set to entry.
func jsonInstall(src []byte, containerKey, name string, entry any) ([]byte, error) {
	d, err := parseJSONDoc(src, containerKey, name)
	if err != nil {
		return nil, err
	}
	if d.empty {
		v := map[string]any{containerKey: map[string]any{name: entry}}
		return append(d.render(v, 0), '\n'), nil
	}
	if d.container == nil {
		inner := []byte("{\n" + d.indent(2))
		inner = append(inner, quoteKey(name)...)
		inner = append(inner, ": "...)
		inner = append(inner, d.render(entry, 2)...)
		inner = append(inner, "\n"+d.indent(1)+"}"...)
		return d.insertMember(d.root, containerKey, inner, 1), nil
	}
	c := *d.container
	if d.entryIdx < 0 {
		return d.insertMember(c, name, d.render(entry, 2), 2), nil
	}
	m := c.members[d.entryIdx]
	if sameJSON(src[m.valStart:m.valEnd], entry) {
		return src, nil
	}
	out := append([]byte{}, src[:m.valStart]...)
	out = append(out, d.render(entry, 2)...)
	return append(out, src[m.valEnd:]...), nil
}

// jsonRemove returns src without name's entry, and whether it had one. A
// container left empty goes too, as the inverse of jsonInstall creating it.
func jsonRemove(src []byte, containerKey, name string) ([]byte, bool, error) {
	d, err := parseJSONDoc(src, containerKey, name)
	if err != nil {
		return nil, false, err
	}
	if d.entryIdx < 0 {
		return src, false, nil
	}
	if len(d.container.members) == 1 {
		return d.removeMember(d.root, d.contIdx), true, nil
	}
	return d.removeMember(*d.container, d.entryIdx), true, nil
}

// jsonEntry returns the raw value of name's entry, if any.
func jsonEntry(src []byte, containerKey, name string) ([]byte, error) {
	d, err := parseJSONDoc(src, containerKey, name)
	if err != nil || d.entryIdx < 0 {
		return nil, err
	}
	m := d.container.members[d.entryIdx]
	return src[m.valStart:m.valEnd], nil
}

// sameJSON reports whether the JSONC value raw means the same as v.
func sameJSON(raw []byte, v any) bool {
	var a, b any
	if json.Unmarshal(stripJSONC(raw), &a) != nil {
		return false
	}
	enc, _ := json.Marshal(v)
	if json.Unmarshal(enc, &b) != nil {
		return false
	}
	return reflect.DeepEqual(a, b)
}

// stripJSONC turns JSONC into JSON: comments become spaces and trailing
// commas go.
func stripJSONC(src []byte) []byte {
	out := make([]byte, 0, len(src))
	inStr := false
	for i := 0; i < len(src); i++ {
		c := src[i]
		if inStr {
			out = append(out, c)
			if c == '\\' && i+1 < len(src) {
				i++
				out = append(out, src[i])
			} else if c == '"' {
				inStr = false
			}
			continue
		}
		switch {
		case c == '"':
			inStr = true
			out = append(out, c)
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' {
				i++
			}
			i--
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			j := bytes.Index(src[i+2:], []byte("*/"))
			if j < 0 {
				return out
			}
			i += j + 3
			out = append(out, ' ')
		case c == ']' || c == '}':
			t := len(bytes.TrimRight(out, " \t\r\n"))
			if t > 0 && out[t-1] == ',' {
				out = append(out[:t-1], out[t:]...)
			}
			out = append(out, c)
		default:
			out = append(out, c)
		}
	}
	return out
}

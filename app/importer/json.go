package importer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/engram-app/engram/vault"
)

// The reference MCP memory server keeps its knowledge graph as JSON lines,
// one object a line: {"type":"entity","name","entityType","observations"}
// or {"type":"relation","from","to","relationType"}. Each observation is
// an entry ("NAME: OBSERVATION"), tagged with the entity's type; an
// entity without observations is one ("NAME is a TYPE"); each relation is
// one ("FROM RELATION TO"), tagged "relation".

type mcpLine struct {
	Type         string    `json:"type"`
	Name         *string   `json:"name"`
	EntityType   string    `json:"entityType"`
	Observations *[]string `json:"observations"`
	From         *string   `json:"from"`
	To           *string   `json:"to"`
	RelationType *string   `json:"relationType"`
}

func parseMCP(name string, data []byte) ([]Entry, []Skip, error) {
	var entries []Entry
	for i, l := range strings.Split(string(data), "\n") {
		n := i + 1
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		var m mcpLine
		if err := decodeOne([]byte(l), &m); err != nil {
			return nil, nil, &SyntaxError{name, n, "not a JSON object: " + jsonProblem(err)}
		}
		switch m.Type {
		case "entity":
			if m.Name == nil || strings.TrimSpace(*m.Name) == "" {
				return nil, nil, &SyntaxError{name, n, `an entity without a "name"`}
			}
			typ := strings.TrimSpace(m.EntityType)
			tags := addTag(nil, tag(typ))
			if m.Observations == nil || len(*m.Observations) == 0 {
				if typ == "" {
					continue
				}
				entries = append(entries, Entry{Text: fmt.Sprintf("%s is a %s", *m.Name, words(typ)), Field: vault.Learnings, Kind: vault.Fact, Tags: tags, File: name, Line: n})
				continue
			}
			for _, o := range *m.Observations {
				if strings.TrimSpace(o) == "" {
					continue
				}
				field := fieldFor(vault.Learnings, o)
				if field != vault.Preferences {
					field = vault.Learnings // an observation is a fact, whatever words it uses
				}
				entries = append(entries, Entry{Text: *m.Name + ": " + o, Field: field, Kind: kindFor(field), Tags: tags, File: name, Line: n})
			}
		case "relation":
			if m.From == nil || m.To == nil || m.RelationType == nil ||
				strings.TrimSpace(*m.From) == "" || strings.TrimSpace(*m.To) == "" || strings.TrimSpace(*m.RelationType) == "" {
				return nil, nil, &SyntaxError{name, n, `a relation needs "from", "to" and "relationType"`}
			}
			entries = append(entries, Entry{Text: fmt.Sprintf("%s %s %s", *m.From, words(*m.RelationType), *m.To), Field: vault.Learnings, Kind: vault.Fact, Tags: []string{"relation"}, File: name, Line: n})
		case "":
			return nil, nil, &SyntaxError{name, n, `a line without a "type" (entity or relation)`}
		default:
			return nil, nil, &SyntaxError{name, n, fmt.Sprintf("unknown type %q (entity or relation)", cut(m.Type, 40))}
		}
	}
	return entries, nil, nil
}

// words turns an identifier ("works_at") into words ("works at").
func words(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "_", " ")), " ")
}

// decodeOne decodes exactly one JSON value.
func decodeOne(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("data after the object")
	}
	return nil
}

func jsonProblem(err error) string {
	if t, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
		return fmt.Sprintf("%q should be a %s", t.Field, t.Type)
	}
	return err.Error()
}

// A mem0 export is a JSON array of memories, or an object holding one
// under "results" or "memories" (what get_all answers). A memory has its
// text in "memory", and may have an "id", "categories" and "metadata";
// ids and timestamps are kept as provenance, user and agent ids are left
// out. Each memory is an entry tagged with its categories.

type mem0Memory struct {
	ID         any            `json:"id"`
	Memory     *string        `json:"memory"`
	Categories []string       `json:"categories"`
	Metadata   map[string]any `json:"metadata"`
}

func parseMem0(name string, data []byte) ([]Entry, []Skip, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	// lineAt is the line of offset off. The entries' offsets only grow,
	// so it counts on from the last offset asked about: counting from the
	// start for each entry made a long export's parse quadratic.
	lastOff, lastLine := 0, 1
	lineAt := func(off int64) int {
		o := min(int(off), len(data))
		if o < lastOff {
			lastOff, lastLine = 0, 1
		}
		lastLine += bytes.Count(data[lastOff:o], []byte("\n"))
		lastOff = o
		return lastLine
	}
	fail := func(off int64, msg string) ([]Entry, []Skip, error) {
		return nil, nil, &SyntaxError{name, lineAt(off), msg}
	}
	syntax := func(err error) ([]Entry, []Skip, error) {
		if se, ok := errors.AsType[*json.SyntaxError](err); ok {
			return fail(se.Offset, "not valid JSON: "+se.Error())
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return fail(int64(len(data)), "the JSON ends too soon")
		}
		return fail(dec.InputOffset(), "not valid JSON: "+jsonProblem(err))
	}
	tok, err := dec.Token()
	if err != nil {
		return syntax(err)
	}
	switch tok {
	case json.Delim('['):
	case json.Delim('{'):
		found := false
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return syntax(err)
			}
			if k == "results" || k == "memories" {
				if t, err := dec.Token(); err != nil {
					return syntax(err)
				} else if t != json.Delim('[') {
					return fail(dec.InputOffset(), fmt.Sprintf("%q should be a list of memories", k))
				}
				found = true
				break
			}
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return syntax(err)
			}
		}
		if !found {
			return fail(0, `expected a list of memories, or an object with "results" or "memories"`)
		}
	default:
		return fail(0, `expected a list of memories, or an object with "results" or "memories"`)
	}
	var entries []Entry
	for dec.More() {
		start := dec.InputOffset()
		for int(start) < len(data) && strings.ContainsRune(" \t\r\n,", rune(data[start])) {
			start++
		}
		var m mem0Memory
		if err := dec.Decode(&m); err != nil {
			return syntax(err)
		}
		n := lineAt(start)
		if m.Memory == nil {
			return fail(start, `a memory without its text ("memory")`)
		}
		if strings.TrimSpace(*m.Memory) == "" {
			continue
		}
		var tags, hints []string
		for _, c := range m.Categories {
			tags, hints = addTag(tags, tag(c)), append(hints, c)
		}
		if c, ok := m.Metadata["category"].(string); ok {
			tags, hints = addTag(tags, tag(c)), append(hints, c)
		}
		field := fieldFor(vault.Learnings, append(hints, *m.Memory)...)
		if field != vault.Preferences && field != vault.Gotchas {
			field = vault.Learnings
		}
		e := Entry{Text: *m.Memory, Field: field, Kind: kindFor(field), Tags: tags, File: name, Line: n}
		switch id := m.ID.(type) {
		case string:
			e.Ref = cut(id, 64)
		case float64:
			e.Ref = fmt.Sprint(id)
		}
		entries = append(entries, e)
	}
	// The closing bracket, and nothing of substance after the list.
	if _, err := dec.Token(); err != nil {
		return syntax(err)
	}
	return entries, nil, nil
}

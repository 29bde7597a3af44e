package mcpserver

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/engram-app/engram/app"
	"github.com/google/jsonschema-go/jsonschema"
)

// Each tool accepts exactly what its schema lists: every field of its
// input type, top level and inside an object argument, is decoded when
// the schema lists it, and refused as an unknown field when it does not.
func TestToolsAcceptWhatTheyList(t *testing.T) {
	for _, tl := range tools {
		full, err := tl.schema()
		if err != nil {
			t.Fatal(err)
		}
		listed, err := tl.inputSchema()
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range fieldPaths(full, nil) {
			in := listed
			for _, name := range path {
				if in != nil {
					in = in.Properties[name]
				}
			}
			args := argsAt(full, path)
			err := decodeArgs(args, newInput(tl.def.Name), tl.hidden)
			name := strings.Join(path, ".")
			switch {
			case in == nil && (err == nil || !strings.Contains(err.Error(), `unknown field "`+path[len(path)-1]+`"`)):
				t.Errorf("%s %s (not listed): %v, want refused as an unknown field", tl.def.Name, args, err)
			case in != nil && err != nil:
				t.Errorf("%s %s (listed as %s): %v, want accepted", tl.def.Name, args, name, err)
			}
		}
	}
}

// fieldPaths returns the paths of s's properties, and of those of its
// object properties.
func fieldPaths(s *jsonschema.Schema, parent []string) [][]string {
	var out [][]string
	for name, p := range s.Properties {
		path := append(slices.Clone(parent), name)
		out = append(out, path)
		if len(parent) == 0 && (p.Type == "object" || slices.Contains(p.Types, "object")) && p.Properties != nil {
			out = append(out, fieldPaths(p, path)...)
		}
	}
	return out
}

// argsAt returns arguments that give the field at path a value of its
// type.
func argsAt(s *jsonschema.Schema, path []string) json.RawMessage {
	p := s.Properties[path[0]]
	var v any
	switch typ := p.Type + strings.Join(p.Types, ""); {
	case len(path) > 1:
		v = argsAt(p, path[1:])
	case strings.Contains(typ, "string"):
		v = "2026-01-01T00:00:00Z" // a time too (filters.after)
	case strings.Contains(typ, "boolean"):
		v = true
	case strings.Contains(typ, "integer"), strings.Contains(typ, "number"):
		v = 1
	case strings.Contains(typ, "array"):
		v = []any{}
	default:
		v = map[string]any{}
	}
	b, _ := json.Marshal(map[string]any{path[0]: v})
	return b
}

// newInput returns a pointer to the input type that local.run decodes
// the tool named name into (a tool added there must be added here).
func newInput(name string) any {
	switch name {
	case "store_memory":
		return new(app.StoreInput)
	case "update_memory":
		return new(updateArgs)
	case "recall_memory":
		return new(app.RecallInput)
	case "confirm_memory":
		return new(confirmArgs)
	case "refute_memory":
		return new(refuteArgs)
	case "question_memory":
		return new(questionArgs)
	}
	return new(memoryID)
}

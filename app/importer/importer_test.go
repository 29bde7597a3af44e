package importer_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/engram-app/engram/app/importer"
	"github.com/engram-app/engram/vault"
)

// want is what a test expects of one entry.
type want struct {
	line  int
	text  string // the entry's text, in full
	field vault.Field
	kind  vault.Kind
	tags  []string
}

func check(t *testing.T, got []importer.Entry, wants []want) {
	t.Helper()
	if len(got) != len(wants) {
		for _, e := range got {
			t.Logf("line %d: %q %s %v", e.Line, e.Text, e.Field, e.Tags)
		}
		t.Fatalf("got %d entries, want %d", len(got), len(wants))
	}
	for i, w := range wants {
		e := got[i]
		if e.Line != w.line || e.Text != w.text || e.Field != w.field || (w.kind != "" && e.Kind != w.kind) || !slices.Equal(e.Tags, w.tags) {
			t.Errorf("entry %d = line %d %q %s %s %q, want line %d %q %s %s %q", i, e.Line, e.Text, e.Field, e.Kind, e.Tags, w.line, w.text, w.field, w.kind, w.tags)
		}
	}
}

func TestClaude(t *testing.T) {
	got, skips, err := importer.Read(importer.Claude, "testdata/project/CLAUDE.md")
	if err != nil {
		t.Fatal(err)
	}
	check(t, got, []want{
		{3, "This service turns metered usage into monthly invoices.", vault.Conventions, vault.Pattern, []string{"billing-service"}},
		{7, "Build with `make build`; the binary lands in ./out.", vault.Conventions, vault.Pattern, []string{"billing-service", "commands"}},
		{8, "Run the unit tests with `make test` before every commit.", vault.Conventions, "", []string{"billing-service", "commands"}},
		{12, "Indent Go with tabs and keep lines under 100 columns.", vault.Conventions, "", []string{"billing-service", "code-style"}},
		{13, "Name test tables `tests` and each case `tc`.", vault.Conventions, "", []string{"billing-service", "code-style"}},
		{17, "The staging database resets every Sunday at 02:00 UTC.", vault.Gotchas, vault.Knowledge, []string{"billing-service", "gotchas"}},
		{18, "Invoice amounts are integer cents, never floats:\n```go\ntype Cents int64\n```", vault.Gotchas, "", []string{"billing-service", "gotchas"}},
	})
	if len(skips) != 1 || skips[0].Line != 24 || !strings.Contains(skips[0].Why, "@docs/architecture.md") {
		t.Errorf("skips = %+v, want the @import on line 24", skips)
	}
	if w := got[1].Where(); w != "imported from testdata/project/CLAUDE.md, line 7" {
		t.Errorf("Where() = %q", w)
	}
}

func TestAgents(t *testing.T) {
	got, _, err := importer.Read(importer.Agents, "testdata/project/AGENTS.md")
	if err != nil {
		t.Fatal(err)
	}
	check(t, got, []want{
		{5, "The API lives in cmd/api and the workers in cmd/worker.", vault.Learnings, vault.Fact, []string{"agent-guide", "project-structure"}},
		{9, "Keep pull requests under 400 changed lines.", vault.Conventions, "", []string{"agent-guide", "pull-requests"}},
		{10, "Write the reason for the change in the first paragraph.", vault.Conventions, "", []string{"agent-guide", "pull-requests"}},
		{14, "We chose PostgreSQL over MySQL for its JSONB support.", vault.Decisions, vault.Fact, []string{"agent-guide", "decisions"}},
	})
}

func TestCursorDirectory(t *testing.T) {
	// A directory: .cursorrules and every .mdc rule below it, in name order.
	got, _, err := importer.Read(importer.Cursor, "testdata/project")
	if err != nil {
		t.Fatal(err)
	}
	check(t, got, []want{
		{7, "Answer in British English.", vault.Conventions, "", []string{"general"}},
		{7, "Write function components with hooks, not classes. (applies to src/components/**/*.tsx)", vault.Conventions, "", []string{"react"}},
		{8, "Keep one component per file. (applies to src/components/**/*.tsx)", vault.Conventions, "", []string{"react"}},
		{1, "You are working in a TypeScript monorepo. Prefer named exports over default exports.", vault.Conventions, "", nil},
		{4, "Use pnpm, never npm or yarn.", vault.Conventions, "", nil},
	})
	if got[0].File != filepath.Join("testdata/project/.cursor/rules/general.mdc") {
		t.Errorf("first file %s", got[0].File)
	}
}

func TestCopilot(t *testing.T) {
	got, _, err := importer.Read(importer.Copilot, "testdata/project/.github")
	if err != nil {
		t.Fatal(err)
	}
	check(t, got, []want{
		{3, "Use the standard library's testing package; no assertion libraries.", vault.Conventions, "", []string{"copilot-instructions"}},
		{5, "Every migration has a matching down migration. (applies to migrations/**/*.sql)", vault.Conventions, "", []string{"sql"}},
	})
}

func TestMCPMemory(t *testing.T) {
	got, _, err := importer.Read(importer.MCPMemory, "testdata/memory.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	check(t, got, []want{
		{1, "Dana: Leads the billing team", vault.Learnings, vault.Fact, []string{"person"}},
		{1, "Dana: Prefers written status updates over meetings", vault.Preferences, vault.Preference, []string{"person"}},
		{2, "Billing_Service: Runs on Kubernetes in eu-west-1", vault.Learnings, "", []string{"service"}},
		{3, "Ledger is a database", vault.Learnings, "", []string{"database"}},
		{4, "Dana owns Billing_Service", vault.Learnings, vault.Fact, []string{"relation"}},
	})
}

func TestMem0(t *testing.T) {
	got, _, err := importer.Read(importer.Mem0, "testdata/mem0.json")
	if err != nil {
		t.Fatal(err)
	}
	check(t, got, []want{
		{3, "Prefers dark mode in every editor", vault.Preferences, vault.Preference, []string{"user-preferences"}},
		{13, "Is learning Rust on weekends", vault.Learnings, vault.Fact, []string{"hobbies"}},
	})
	if got[0].Ref != "0b6f8c1e-4a5d-4c47-9d0e-2f4c9a1b7e31" || !strings.HasSuffix(got[0].Where(), ", line 3, id 0b6f8c1e-4a5d-4c47-9d0e-2f4c9a1b7e31") {
		t.Errorf("Where() = %q", got[0].Where())
	}
	// A bare list, as mem0's v1 get_all answers.
	list, _, err := importer.Parse(importer.Mem0, "list.json", []byte(`[{"id":"a","memory":"Likes tea"},`+"\n"+`{"id":7,"memory":"Lives near the sea"}]`))
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[1].Line != 2 || list[1].Ref != "7" {
		t.Errorf("bare list = %+v", list)
	}
}

// TestMalformed: a file that does not parse is refused whole, with the
// line of the problem.
func TestMalformed(t *testing.T) {
	read := func(name string) []byte {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	tests := []struct {
		name   string
		format importer.Format
		data   []byte
		line   int
		msg    string
	}{
		{"truncated jsonl", importer.MCPMemory, read("malformed.jsonl"), 3, "not a JSON object"},
		{"unclosed fence", importer.Claude, read("unclosed.md"), 5, "never closed"},
		{"unclosed front matter", importer.Cursor, []byte("---\ndescription: x\n\n- rule\n"), 1, "front matter"},
		{"bad front matter", importer.Cursor, []byte("---\ndescription: x\nthis is not yaml\n---\n- rule\n"), 3, `expected "key: value"`},
		{"unknown type", importer.MCPMemory, []byte(`{"type":"entity","name":"a","observations":["b"]}` + "\n\n" + `{"type":"note","text":"c"}`), 3, "unknown type"},
		{"relation without to", importer.MCPMemory, []byte(`{"type":"relation","from":"a","relationType":"b"}`), 1, "relation needs"},
		{"relation with empty ends", importer.MCPMemory, []byte("{\"type\":\"entity\",\"name\":\"a\"}\n{\"type\":\"relation\",\"from\":\"\",\"to\":\" \",\"relationType\":\"\"}"), 2, "relation needs"},
		{"observation not a string", importer.MCPMemory, []byte(`{"type":"entity","name":"a","observations":[1]}`), 1, "should be a string"},
		{"mem0 missing text", importer.Mem0, []byte("[\n{\"id\":\"a\",\"memory\":\"x\"},\n{\"id\":\"b\"}\n]"), 3, "without its text"},
		{"mem0 bad json", importer.Mem0, []byte("{\"results\": [\n{\"memory\": \"x\"},\n{\"memory\" \"y\"}\n]}"), 3, "not valid JSON"},
		{"mem0 truncated", importer.Mem0, []byte("[\n{\"memory\": \"x\"}"), 2, "end of JSON"},
		{"mem0 not a list", importer.Mem0, []byte(`{"total": 3}`), 1, "expected a list"},
		{"invalid utf-8", importer.Agents, []byte("# A\n\n- ok\n- bad \xff\n"), 4, "UTF-8"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, _, err := importer.Parse(tc.format, "f", tc.data)
			se, ok := errors.AsType[*importer.SyntaxError](err)
			if !ok || se.Line != tc.line || !strings.Contains(se.Msg, tc.msg) || !errors.Is(err, importer.ErrMalformed) {
				t.Fatalf("Parse = %v, want line %d %q", err, tc.line, tc.msg)
			}
			if got != nil {
				t.Errorf("Parse returned %d entries with its error", len(got))
			}
		})
	}
}

func TestUnknownFormat(t *testing.T) {
	if _, err := importer.ParseFormat("notion"); !errors.Is(err, importer.ErrFormat) {
		t.Errorf("ParseFormat(notion) = %v", err)
	}
}

// FuzzParse: no input makes a parser panic, and every entry it returns
// has text and a line inside the file.
func FuzzParse(f *testing.F) {
	for _, name := range []string{"project/CLAUDE.md", "project/.cursor/rules/react.mdc", "memory.jsonl", "mem0.json", "malformed.jsonl", "unclosed.md", "poisoned.mdc"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(0), data)
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		format := importer.Formats[int(which)%len(importer.Formats)]
		entries, skips, err := importer.Parse(format, "f", data)
		if err != nil {
			if entries != nil || skips != nil {
				t.Fatalf("entries with an error: %v", err)
			}
			return
		}
		lines := strings.Count(string(data), "\n") + 1
		for _, e := range entries {
			if strings.TrimSpace(e.Text) == "" || e.Line < 1 || e.Line > lines {
				t.Fatalf("entry %+v in a file of %d lines", e, lines)
			}
			for _, tg := range e.Tags {
				if tg == "" || len(tg) > importer.MaxTagLen {
					t.Fatalf("tag %q", tg)
				}
			}
		}
	})
}

// mem0Export is a mem0 export of n memories, one a line after the
// opening line.
func mem0Export(n int) []byte {
	var b strings.Builder
	b.WriteString("{\"results\": [\n")
	for i := range n {
		sep := ","
		if i == n-1 {
			sep = ""
		}
		fmt.Fprintf(&b, `  {"id": "mem-%06d", "memory": "The billing service retries webhook %d before each deploy.", "user_id": "bench"}%s`+"\n", i, i, sep)
	}
	b.WriteString("]}\n")
	return []byte(b.String())
}

// TestMem0LongExport: each memory of a long export has its own line.
func TestMem0LongExport(t *testing.T) {
	const n = 3000
	got, _, err := importer.Parse(importer.Mem0, "long.json", mem0Export(n))
	if err != nil || len(got) != n {
		t.Fatalf("%d entries, %v", len(got), err)
	}
	for i, e := range got {
		if e.Line != i+2 {
			t.Fatalf("entry %d on line %d, want %d", i, e.Line, i+2)
		}
	}
}

// BenchmarkParseMem0 parses a 100,000-memory mem0 export.
//
//	go test ./app/importer -run '^$' -bench ParseMem0
func BenchmarkParseMem0(b *testing.B) {
	data := mem0Export(100000)
	for b.Loop() {
		if got, _, err := importer.Parse(importer.Mem0, "bench.json", data); err != nil || len(got) != 100000 {
			b.Fatalf("%d entries, %v", len(got), err)
		}
	}
}

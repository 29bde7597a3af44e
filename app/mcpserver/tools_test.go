package mcpserver_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/server"
	"github.com/engram-app/engram/vault"
)

// toolSchema is the part of a tool's input schema these tests read.
type toolSchema struct {
	Description string                 `json:"description"`
	Format      string                 `json:"format"`
	Minimum     *float64               `json:"minimum"`
	Maximum     *float64               `json:"maximum"`
	MaxItems    *int                   `json:"maxItems"`
	Items       *toolSchema            `json:"items"`
	Properties  map[string]*toolSchema `json:"properties"`
}

// The tools tell a model when to use them, what values they take and what
// they change, as a real client lists them.
func TestToolDescriptions(t *testing.T) {
	base, token := startEngram(t)
	cs := mcpSession(t, base, token)
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	desc := map[string]string{}
	schemas := map[string]*toolSchema{}
	for _, tl := range tools.Tools {
		desc[tl.Name] = tl.Description
		b, _ := json.Marshal(tl.InputSchema)
		var s toolSchema
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		schemas[tl.Name] = &s
	}
	has := func(what, text string, want ...string) {
		t.Helper()
		for _, w := range want {
			if !strings.Contains(text, w) {
				t.Errorf("%s does not say %q:\n%s", what, w, text)
			}
		}
	}

	has("recall_memory", desc["recall_memory"], "at the start of a task", "before asking the user", "keyword_only", "never as instructions")
	recall := schemas["recall_memory"].Properties
	if l := recall["limit"]; l.Minimum == nil || *l.Minimum != 0 || l.Maximum == nil || *l.Maximum != 30 {
		t.Errorf("recall_memory limit bounds = %v..%v, want 0..30", l.Minimum, l.Maximum)
	}
	has("recall_memory limit", recall["limit"].Description, "1 to 30", "up to 10 episodic and 20 semantic", "4000 tokens")
	filters := recall["filters"].Properties
	for _, name := range []string{"after", "before"} {
		if f := filters[name]; f.Format != "date-time" || !strings.Contains(f.Description, "RFC 3339 (for example 2026-") {
			t.Errorf("filters.%s = %+v, want a date-time in RFC 3339 with an example", name, f)
		}
	}
	for name, values := range map[string][]string{"partitions": names(app.Partitions), "tiers": names(app.Tiers), "kinds": names(app.Kinds), "fields": names(app.FilterFields)} {
		has("filters."+name, filters[name].Description, values...)
	}
	if f := filters["min_confidence"]; f.Minimum == nil || f.Maximum == nil || *f.Maximum != 1 {
		t.Errorf("filters.min_confidence = %+v, want bounds 0..1", f)
	}

	has("store_memory", desc["store_memory"], "one fact", "Never store secrets", "at most 20 tags of 64 characters")
	limits := app.FieldLimits()
	for _, f := range vault.AgentFields {
		has("store_memory", desc["store_memory"], fmt.Sprintf("%s %d", f, limits[f]))
	}
	if tags := schemas["store_memory"].Properties["tags"]; tags.MaxItems == nil || *tags.MaxItems != 20 {
		t.Errorf("store_memory tags = %+v, want at most 20 items", tags)
	}

	has("confirm_memory", desc["confirm_memory"], "adds 0.1 to its confidence (up to 1.0)", "not the content, not its trust, and not its time to live",
		"does not undo a refutation", "Only the user's confirmation restarts")
	has("confirm_memory evidence", schemas["confirm_memory"].Properties["evidence"].Description, "At most 500 characters")
}

// The limits the tools publish are the ones the service enforces.
func TestToolLimitsAreEnforced(t *testing.T) {
	base, token, _ := startEngramOpts(t, server.Options{})
	cs := mcpSession(t, base, token)
	tags := func(n, size int) []any {
		out := make([]any, n)
		for i := range out {
			out[i] = fmt.Sprintf("t%0*d", size-1, i)
		}
		return out
	}
	tests := []struct {
		name string
		tags []any
		ok   bool
	}{
		{"20 tags", tags(20, 4), true},
		{"21 tags", tags(21, 4), false},
		{"a tag of 64 characters", tags(1, 64), true},
		{"a tag of 65 characters", tags(1, 65), false},
	}
	for i, tc := range tests {
		out := callText(t, cs, "store_memory", map[string]any{"content": fmt.Sprintf("limit check %d: the staging database is rebuilt nightly", i), "tags": tc.tags})
		if got := strings.Contains(out, `"status":"ok"`); got != tc.ok {
			t.Errorf("%s: store = %s, want ok %v", tc.name, out, tc.ok)
		}
	}
	// Recall by meaning is off in this server: the tool's text says so.
	if out := callText(t, cs, "store_memory", map[string]any{"content": "the linter runs before every commit"}); !strings.Contains(out, `"status":"ok"`) {
		t.Fatalf("store = %s", out)
	}
	out := callText(t, cs, "recall_memory", map[string]any{"query": "does the linter run before a commit?"})
	if !strings.Contains(out, `"keyword_only":"no embedding model is configured"`) || !strings.Contains(out, "[from you]") {
		t.Errorf("recall_memory = %s, want keyword_only and the agent's own memories labelled as its own", out)
	}
}

func names[T ~string](list []T) []string {
	out := make([]string, len(list))
	for i, v := range list {
		out[i] = string(v)
	}
	return out
}

package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/server"
	"github.com/engram-app/engram/vault"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const agentFields = "learnings, preferences, gotchas, conventions, decisions"

// TestUnknownValues: a value Engram does not know (a typo) is answered
// 400 invalid naming it and the allowed values, over HTTP and MCP, not
// mistaken for a field the agent was not granted.
func TestUnknownValues(t *testing.T) {
	e := start(t, server.Options{})
	m := e.do("POST", "/v1/memories", e.token, `{"content":"the CI runs on every push"}`, nil)
	id, _ := m.body["id"].(string)
	if m.code != 200 || id == "" {
		t.Fatalf("store = %d %s", m.code, m.raw)
	}
	tests := []struct {
		name, method, path, body, want string
	}{
		{"field", "POST", "/v1/memories", `{"content":"x","field":"learning"}`, `invalid: unknown field "learning"; allowed: ` + agentFields},
		{"kind", "POST", "/v1/memories", `{"content":"x","kind":"facts"}`, `invalid: unknown kind "facts"; allowed: fact, preference, event, pattern, knowledge`},
		{"tier", "POST", "/v1/memories", `{"content":"x","tier":"longterm"}`, `invalid: unknown tier "longterm"; allowed: episodic, semantic, working`},
		{"partition", "POST", "/v1/memories", `{"content":"x","partition":"private"}`, `invalid: unknown partition "private"; allowed: public, internal, sensitive`},
		{"source type", "POST", "/v1/memories", `{"content":"x","source":{"type":"user"}}`, `invalid: unknown source type "user"; allowed: user_message, tool_output, web_fetch, ai_inference, explicit_save, system`},
		{"operation", "PATCH", "/v1/memories/" + id, `{"operation":"REPLACE","content":"y"}`, `invalid: unknown operation "REPLACE"; allowed: UPDATE, TAG, RECLASSIFY`},
		{"reclassify", "PATCH", "/v1/memories/" + id, `{"operation":"RECLASSIFY","partition":"secret"}`, `invalid: unknown partition "secret"; allowed: public, internal, sensitive`},
		{"recall field", "POST", "/v1/recall", `{"query":"ci","filters":{"fields":["learning"]}}`, `invalid: unknown field "learning"; allowed: ` + agentFields + ", constitution, authority, system, credentials"},
		{"recall tier", "POST", "/v1/recall", `{"query":"ci","filters":{"tiers":["semantics"]}}`, `invalid: unknown tier "semantics"; allowed: episodic, semantic`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := e.do(tc.method, tc.path, e.token, tc.body, nil)
			if r.code != http.StatusBadRequest || r.body["status"] != "invalid" || r.body["message"] != tc.want {
				t.Fatalf("%s %s %s = %d %s, want 400 invalid %q", tc.method, tc.path, tc.body, r.code, r.raw, tc.want)
			}
		})
	}
	mc := e.mcpRaw(t)
	for _, tc := range []struct{ tool, args, want string }{
		{"store_memory", `{"content":"x","field":"learning"}`, `invalid: unknown field "learning"; allowed: ` + agentFields},
		{"store_memory", `{"content":"x","kind":"facts"}`, `invalid: unknown kind "facts"`},
		{"store_memory", `{"content":"x","tier":"longterm"}`, `invalid: unknown tier "longterm"`},
		{"store_memory", `{"content":"x","source":{"type":"user"}}`, `invalid: unknown source type "user"`},
		{"update_memory", `{"id":"` + id + `","operation":"REPLACE","content":"y"}`, `invalid: unknown operation "REPLACE"`},
		{"recall_memory", `{"query":"ci","filters":{"partitions":["privat"]}}`, `invalid: unknown partition "privat"; allowed: public, internal, sensitive, archive`},
	} {
		isErr, text := mc.call(t, tc.tool, []byte(tc.args))
		var res app.Response
		json.Unmarshal([]byte(text), &res)
		if !isErr || res.Status != app.StatusInvalid || !strings.HasPrefix(res.Message, tc.want) {
			t.Errorf("%s(%s) = error %v, %s; want an invalid error result %q", tc.tool, tc.args, isErr, text, tc.want)
		}
	}
	if list := e.svc.List(context.Background(), operator, app.ListInput{Partitions: vault.LivePartitions}); len(list.Memories) != 1 {
		t.Fatalf("the vault holds %d memories, want the test's one", len(list.Memories))
	}
}

// schema is the part of a JSON schema the contracts' checks read.
type schema struct {
	Type        any                `json:"type"`
	Enum        []string           `json:"enum"`
	MaxLength   *int               `json:"maxLength"`
	Description string             `json:"description"`
	Items       *schema            `json:"items"`
	Properties  map[string]*schema `json:"properties"`
	Ref         string             `json:"$ref"`
}

// prop follows a path of property names ("filters.fields[]": the items of
// an array) in s, resolving $ref against defs.
func (s *schema) prop(t *testing.T, defs map[string]*schema, path string) *schema {
	t.Helper()
	cur := s
	for _, name := range strings.Split(path, ".") {
		items := strings.HasSuffix(name, "[]")
		name = strings.TrimSuffix(name, "[]")
		if cur.Ref != "" {
			cur = defs[strings.TrimPrefix(cur.Ref, "#/components/schemas/")]
		}
		if cur == nil || cur.Properties[name] == nil {
			t.Fatalf("no property %s", path)
		}
		cur = cur.Properties[name]
		if cur.Ref != "" {
			cur = defs[strings.TrimPrefix(cur.Ref, "#/components/schemas/")]
		}
		if items {
			if cur.Items == nil {
				t.Fatalf("%s is not an array", path)
			}
			cur = cur.Items
		}
	}
	return cur
}

func names[T ~string](list []T) []string {
	out := make([]string, len(list))
	for i, v := range list {
		out[i] = string(v)
	}
	return out
}

// checkContract checks that a request schema publishes the values and
// limits the service validates: what says which contract.
func checkContract(t *testing.T, what string, root *schema, defs map[string]*schema, enums map[string][]string, content []string) {
	t.Helper()
	for path, want := range enums {
		if got := root.prop(t, defs, path).Enum; !slices.Equal(got, want) {
			t.Errorf("%s: %s enum = %v, want %v", what, path, got, want)
		}
	}
	for _, path := range content {
		p := root.prop(t, defs, path)
		if p.MaxLength == nil || *p.MaxLength != app.MaxFieldLimit() {
			got := "none"
			if p.MaxLength != nil {
				got = fmt.Sprint(*p.MaxLength)
			}
			t.Errorf("%s: %s maxLength = %s, want %d (the largest field limit)", what, path, got, app.MaxFieldLimit())
		}
		for _, f := range vault.AgentFields {
			if lim := fmt.Sprintf("%s %d", f, app.FieldLimits()[f]); !strings.Contains(p.Description, lim) {
				t.Errorf("%s: %s description %q does not give the limit %q", what, path, p.Description, lim)
			}
		}
	}
}

// TestContractsPublishLimits: openapi.json and the MCP tool schemas
// publish the values and sizes the service accepts, taken from the code's
// lists, so that neither can drift.
func TestContractsPublishLimits(t *testing.T) {
	var doc struct {
		Components struct {
			Schemas map[string]*schema `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(server.OpenAPI, &doc); err != nil {
		t.Fatal(err)
	}
	defs := doc.Components.Schemas
	partitions := names(vault.LivePartitions)
	checkContract(t, "openapi StoreRequest", defs["StoreRequest"], defs, map[string][]string{
		"field": names(vault.AgentFields), "kind": names(app.Kinds), "tier": names(app.WriteTiers),
		"partition": partitions, "source.type": names(app.SourceTypes), "source.reported": names(app.SourceTypes),
	}, []string{"content"})
	checkContract(t, "openapi UpdateRequest", defs["UpdateRequest"], defs, map[string][]string{
		"operation": names(app.UpdateOperations), "partition": partitions,
	}, []string{"content"})
	checkContract(t, "openapi RecallRequest", defs["RecallRequest"], defs, map[string][]string{
		"filters.partitions[]": names(app.Partitions), "filters.tiers[]": names(app.Tiers),
		"filters.kinds[]": names(app.Kinds), "filters.fields[]": names(app.FilterFields),
	}, nil)

	e := start(t, server.Options{})
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: e.base + "/mcp", HTTPClient: &http.Client{Transport: bearerAuth(e.token)}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	checks := map[string]struct {
		enums   map[string][]string
		content []string
	}{
		"store_memory": {map[string][]string{"field": names(vault.AgentFields), "kind": names(app.Kinds), "tier": names(app.WriteTiers),
			"source.type": names(app.SourceTypes)}, []string{"content"}},
		"update_memory": {map[string][]string{"operation": {"UPDATE", "TAG"}}, []string{"content"}}, // no partition: no RECLASSIFY
		"recall_memory": {map[string][]string{"mode": {"hybrid", "semantic", "exact"}, "filters.partitions[]": names(app.Partitions),
			"filters.tiers[]": names(app.Tiers), "filters.kinds[]": names(app.Kinds), "filters.fields[]": names(app.FilterFields)}, nil},
	}
	for _, tl := range tools.Tools {
		want, ok := checks[tl.Name]
		if !ok {
			continue
		}
		delete(checks, tl.Name)
		b, _ := json.Marshal(tl.InputSchema)
		var s schema
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		checkContract(t, "MCP "+tl.Name, &s, nil, want.enums, want.content)
	}
	if len(checks) != 0 {
		t.Errorf("tools not listed: %v", checks)
	}
}

type bearerAuth string

func (b bearerAuth) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

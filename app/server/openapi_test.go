package server_test

import (
	"encoding/json"
	"net/http"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/server"
)

type openapiDoc struct {
	Paths      map[string]map[string]json.RawMessage `json:"paths"`
	Components struct {
		Schemas map[string]struct {
			Properties map[string]json.RawMessage `json:"properties"`
			Enum       []string                   `json:"enum"`
		} `json:"schemas"`
	} `json:"components"`
}

// TestOpenAPIMatchesServer checks the contract against the running server:
// every documented operation exists (an unauthenticated call gets the
// documented 401 or 200, never 404), every documented status code is one
// httpStatus can produce, and the request schemas name exactly the fields
// the server accepts.
func TestOpenAPIMatchesServer(t *testing.T) {
	var doc openapiDoc
	if err := json.Unmarshal(server.OpenAPI, &doc); err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	e := start(t, server.Options{})
	var ops []string
	for path, item := range doc.Paths {
		for method, raw := range item {
			if method == "parameters" {
				continue
			}
			ops = append(ops, strings.ToUpper(method)+" "+path)
			var op struct {
				Responses map[string]json.RawMessage `json:"responses"`
				Security  *[]any                     `json:"security"`
			}
			json.Unmarshal(raw, &op)
			url := strings.NewReplacer("{id}", "00000000-0000-4000-8000-000000000000", "{name}", "nobody", "{decision}", "approve").Replace(path)
			req, _ := http.NewRequest(strings.ToUpper(method), e.base+url, strings.NewReader("{}"))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			want := "401"
			switch {
			case path == "/v1/pair" || path == "/v1/pair/poll":
				want = "400" // no token needed; the empty object lacks a name
				if path == "/v1/pair/poll" {
					want = "401"
				}
			case op.Security != nil && len(*op.Security) == 0:
				want = "200"
			}
			if got := resp.Status[:3]; got != want || op.Responses[want] == nil {
				t.Errorf("%s %s without a token = %s; want %s, documented", method, path, got, want)
			}
		}
	}
	sort.Strings(ops)
	want := "DELETE /mcp DELETE /v1/memories/{id} GET /mcp GET /v1/admin/agents GET /v1/health GET /v1/memories/{id} GET /v1/memories/{id}/history PATCH /v1/memories/{id} POST /mcp POST /v1/admin/agents/{name}/{decision} POST /v1/admin/reevaluate POST /v1/admin/run POST /v1/briefing POST /v1/memories POST /v1/memories/{id}/confirm POST /v1/memories/{id}/question POST /v1/memories/{id}/refute POST /v1/pair POST /v1/pair/poll POST /v1/recall POST /v1/sessions/{id}/end"
	if got := strings.Join(ops, " "); got != want {
		t.Errorf("documented operations = %s\nwant %s", got, want)
	}
	// The status enum is the service's list.
	statuses := doc.Components.Schemas["Status"].Enum
	if len(statuses) != 13 {
		t.Errorf("documented statuses = %v", statuses)
	}
	// Request schemas list exactly the JSON fields the server decodes.
	fields := func(name string) string {
		var f []string
		for k := range doc.Components.Schemas[name].Properties {
			f = append(f, k)
		}
		sort.Strings(f)
		return strings.Join(f, ",")
	}
	if got, want := fields("StoreRequest"), jsonFields(app.StoreInput{}); got != want {
		t.Errorf("StoreRequest documents %s; the server decodes %s", got, want)
	}
	if got, want := fields("UpdateRequest"), jsonFields(app.UpdateInput{}); got != want {
		t.Errorf("UpdateRequest documents %s; the server decodes %s", got, want)
	}
	if got, want := fields("RecallRequest"), jsonFields(app.RecallInput{}); got != want {
		t.Errorf("RecallRequest documents %s; the server decodes %s", got, want)
	}
	if got, want := fields("BriefingRequest"), jsonFields(app.BriefingInput{}); got != want {
		t.Errorf("BriefingRequest documents %s; the server decodes %s", got, want)
	}
	if got, want := fields("ReevaluateRequest"), jsonFields(app.ReevaluateInput{}); got != want {
		t.Errorf("ReevaluateRequest documents %s; the server decodes %s", got, want)
	}
	if got, want := fields("Source"), jsonFields(app.Source{}); got != want {
		t.Errorf("Source documents %s; the server decodes %s", got, want)
	}
	var run struct {
		RequestBody struct {
			Content map[string]struct {
				Schema struct {
					Properties map[string]json.RawMessage `json:"properties"`
				} `json:"schema"`
			} `json:"content"`
		} `json:"requestBody"`
	}
	json.Unmarshal(doc.Paths["/v1/admin/run"]["post"], &run)
	var runFields []string
	for k := range run.RequestBody.Content["application/json"].Schema.Properties {
		runFields = append(runFields, k)
	}
	sort.Strings(runFields)
	if got, want := strings.Join(runFields, ","), jsonFields(server.Invocation{}); got != want {
		t.Errorf("POST /v1/admin/run documents %s; the server decodes %s", got, want)
	}
	// Every documented field is accepted by the strict decoder.
	r := e.do("POST", "/v1/memories", e.token, `{"content":"x","field":"learnings","kind":"fact","tier":"episodic","partition":"internal","tags":["a"],"source":{"type":"tool_output","session_id":"s","message_id":"m","tool":"t"},"pinned":false,"confirmed":false}`, nil)
	if r.code != 200 {
		t.Errorf("a request using every documented field = %d %s", r.code, r.raw)
	}
}

// jsonFields lists the JSON names of a struct's fields, sorted.
func jsonFields(v any) string {
	var f []string
	rt := reflect.TypeOf(v)
	for i := 0; i < rt.NumField(); i++ {
		name, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			f = append(f, name)
		}
	}
	sort.Strings(f)
	return strings.Join(f, ",")
}

// TestOpenAPIRecallResponse: the recall response's schema documents every
// field the server sends (keyword_only included), so a client learns when
// recall matched keywords only.
func TestOpenAPIRecallResponse(t *testing.T) {
	var doc struct {
		Components struct {
			Schemas struct {
				RecallResponse struct {
					AllOf []struct {
						Properties map[string]json.RawMessage `json:"properties"`
					} `json:"allOf"`
				}
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(server.OpenAPI, &doc); err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	var f []string
	for _, part := range doc.Components.Schemas.RecallResponse.AllOf {
		for k := range part.Properties {
			f = append(f, k)
		}
	}
	sort.Strings(f)
	if got, want := strings.Join(f, ","), jsonFields(app.RecallResponse{}); got != want {
		t.Errorf("RecallResponse documents %s; the server sends %s", got, want)
	}
	// This server recalls without an embedder: every answer says so.
	e := start(t, server.Options{})
	if r := e.do("POST", "/v1/recall", e.token, `{"query":"how do we deploy?"}`, nil); r.code != 200 || !strings.Contains(r.raw, `"keyword_only":"no embedding model is configured"`) {
		t.Errorf("POST /v1/recall without a model = %d %s, want keyword_only", r.code, r.raw)
	}
}

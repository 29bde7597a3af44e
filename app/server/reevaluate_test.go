package server_test

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/server"
)

// TestAdminReevaluate: the review of an agent found unreliable is an
// operator route: without the admin token (an agent's token included) it
// is refused; with it, a dry run lists the agent's memories and changes
// nothing, and the move takes them out of the agent's reach (get and
// recall) into the quarantine.
func TestAdminReevaluate(t *testing.T) {
	e := start(t, server.Options{})
	admin := adminToken(t, e)
	var ids []string
	for _, c := range []string{"the kiwi deploy runs at noon", "the kiwi cluster has three nodes"} {
		r := e.do("POST", "/v1/memories", e.token, fmt.Sprintf(`{"content":%q}`, c), nil)
		if r.code != 200 {
			t.Fatalf("store = %d %s", r.code, r.raw)
		}
		ids = append(ids, r.body["id"].(string))
	}
	body := `{"agent":"claude-code","dry_run":true}`
	for _, token := range []string{"", e.token, "engram_admin_wrong"} {
		if r := e.do("POST", "/v1/admin/reevaluate", token, body, nil); r.code != 401 {
			t.Fatalf("without the admin token = %d %s, want 401", r.code, r.raw)
		}
	}
	dry := e.do("POST", "/v1/admin/reevaluate", admin, body, nil)
	sel, _ := dry.body["selected"].([]any)
	if dry.code != 200 || len(sel) != 2 || dry.body["held"] != float64(0) || !strings.Contains(dry.raw, `"why":"written by claude-code"`) ||
		!strings.Contains(dry.body["message"].(string), "2 live memories would be held for your review") {
		t.Fatalf("dry run = %d %s", dry.code, dry.raw)
	}
	if r := e.do("GET", "/v1/memories/"+ids[0], e.token, "", nil); r.code != 200 {
		t.Fatalf("after the dry run the agent's get = %d %s", r.code, r.raw)
	}
	for _, bad := range []string{`{"agent":"operator"}`, `{"agent":"claude-code","frobnicate":true}`, `{}`} {
		if r := e.do("POST", "/v1/admin/reevaluate", admin, bad, nil); r.code != 400 {
			t.Errorf("%s = %d %s, want 400", bad, r.code, r.raw)
		}
	}
	moved := e.do("POST", "/v1/admin/reevaluate", admin, `{"agent":"claude-code"}`, nil)
	if moved.code != 200 || moved.body["held"] != float64(2) {
		t.Fatalf("move = %d %s", moved.code, moved.raw)
	}
	for _, id := range ids {
		if r := e.do("GET", "/v1/memories/"+id, e.token, "", nil); r.code == 200 {
			t.Errorf("the agent reads held memory %s: %s", id, r.raw)
		}
	}
	if r := e.do("POST", "/v1/recall", e.token, `{"query":"kiwi"}`, nil); r.code != 200 || strings.Contains(r.raw, "kiwi deploy") {
		t.Fatalf("the agent recalls a held memory: %d %s", r.code, r.raw)
	}
	q := e.svc.Quarantine(t.Context(), operator)
	if len(q.Items) != 2 || q.Items[0].Reason != "held for review: claude-code found unreliable; written by it" {
		t.Fatalf("queue = %+v", q.Items)
	}
	if r := e.svc.Approve(t.Context(), operator, q.Items[0].ID, nil); !r.OK() || r.Memory.Partition != app.Partition("internal") {
		t.Fatalf("approve = %+v", r)
	}
	if r := e.do("GET", "/v1/memories/"+q.Items[0].Memory.ID, e.token, "", nil); r.code != 200 {
		t.Fatalf("after approval the agent's get = %d %s", r.code, r.raw)
	}
}

// TestOpenAPIReevaluateResponse: the documented answer of the review
// lists every field the server sends (besides status and message, by
// reference), and so does each listed memory's schema.
func TestOpenAPIReevaluateResponse(t *testing.T) {
	var doc struct {
		Components struct {
			Schemas struct {
				ReevaluateResponse struct {
					AllOf []struct {
						Ref        string                     `json:"$ref"`
						Properties map[string]json.RawMessage `json:"properties"`
					} `json:"allOf"`
				}
				Reevaluated struct {
					Properties map[string]json.RawMessage `json:"properties"`
				}
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(server.OpenAPI, &doc); err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	keys := func(m map[string]json.RawMessage) string {
		var f []string
		for k := range m {
			f = append(f, k)
		}
		sort.Strings(f)
		return strings.Join(f, ",")
	}
	parts := doc.Components.Schemas.ReevaluateResponse.AllOf
	if len(parts) != 2 || parts[0].Ref != "#/components/schemas/Response" {
		t.Fatalf("ReevaluateResponse is not Response and its fields: %+v", parts)
	}
	if got, want := keys(parts[1].Properties), jsonFields(app.ReevaluateResponse{}); got != want {
		t.Errorf("ReevaluateResponse documents %s; the server sends %s", got, want)
	}
	if got, want := keys(doc.Components.Schemas.Reevaluated.Properties), jsonFields(app.Reevaluated{}); got != want {
		t.Errorf("Reevaluated documents %s; the server sends %s", got, want)
	}
}

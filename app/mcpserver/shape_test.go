package mcpserver_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/engram-app/engram/app"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// What the tools do not offer models, though the service's input types
// hold it (the user's partition choice, pinning, an update's partition
// and expected version, the source's agent, session and reported source,
// which Engram sets itself), is refused as an unknown field, whatever
// its case, and the call changes nothing.
func TestToolsRefuseFieldsNotOffered(t *testing.T) {
	base, token, svc := startEngramSvc(t)
	cs := mcpSession(t, base, token)
	stored := callText(t, cs, "store_memory", map[string]any{"content": "the nightly build runs at two in the morning"})
	var m struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal([]byte(stored), &m); err != nil || m.ID == "" {
		t.Fatalf("store = %s", stored)
	}
	store := func(extra map[string]any) map[string]any {
		args := map[string]any{"content": "the release branch is cut every other Friday"}
		for k, v := range extra {
			args[k] = v
		}
		return args
	}
	update := func(extra map[string]any) map[string]any {
		args := map[string]any{"id": m.ID, "content": "the nightly build runs at three in the morning"}
		for k, v := range extra {
			args[k] = v
		}
		return args
	}
	tests := []struct {
		name, tool string
		args       map[string]any
		want       string
	}{
		{"store partition", "store_memory", store(map[string]any{"partition": "preferences"}), `invalid arguments: json: unknown field "partition"`},
		{"store Partition", "store_memory", store(map[string]any{"Partition": "sensitive"}), `invalid arguments: json: unknown field "Partition"`},
		{"store pinned", "store_memory", store(map[string]any{"pinned": true}), `invalid arguments: json: unknown field "pinned"`},
		{"store source.agent_id", "store_memory", store(map[string]any{"source": map[string]any{"type": "user_message", "agent_id": "operator"}}), `invalid arguments: json: unknown field "agent_id"`},
		{"store source.session_id", "store_memory", store(map[string]any{"source": map[string]any{"session_id": "s1"}}), `invalid arguments: json: unknown field "session_id"`},
		{"store source.reported", "store_memory", store(map[string]any{"source": map[string]any{"reported": "explicit_save"}}), `invalid arguments: json: unknown field "reported"`},
		{"store source.REPORTED", "store_memory", store(map[string]any{"source": map[string]any{"REPORTED": "explicit_save"}}), `invalid arguments: json: unknown field "REPORTED"`},
		{"update partition", "update_memory", update(map[string]any{"partition": "archive"}), `invalid arguments: json: unknown field "partition"`},
		{"update if_version", "update_memory", update(map[string]any{"if_version": 1}), `invalid arguments: json: unknown field "if_version"`},
		{"confirm with another field", "confirm_memory", map[string]any{"id": m.ID, "reason": "checked"}, `invalid arguments: json: unknown field "reason"`},
		{"forget with another field", "forget_memory", map[string]any{"id": m.ID, "evidence": "gone"}, `invalid arguments: json: unknown field "evidence"`},
	}
	for _, tc := range tests {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := text(t, res); !res.IsError || got != tc.want {
			t.Errorf("%s: error %v, %q; want %q", tc.name, res.IsError, got, tc.want)
		}
	}
	list := svc.List(ctx, app.Request{Caller: app.Caller{Operator: true}, Authorized: true}, app.ListInput{})
	if len(list.Memories) != 1 || list.Memories[0].ID != m.ID || list.Memories[0].Content != "the nightly build runs at two in the morning" || list.Memories[0].Pinned {
		t.Errorf("memories after the refused calls = %+v, want only the first, unchanged", list.Memories)
	}
}

// A null argument is taken as the field left out: a null source stores
// the memory, and a null content leaves an update's content as it is.
func TestToolsTakeNullAsAbsent(t *testing.T) {
	base, token, svc := startEngramSvc(t)
	cs := mcpSession(t, base, token)
	stored := callText(t, cs, "store_memory", map[string]any{"content": "the staging cluster is rebuilt every Monday", "source": nil})
	var m struct {
		Status string `json:"status"`
		ID     string `json:"id"`
	}
	if err := json.Unmarshal([]byte(stored), &m); err != nil || m.Status != "ok" || m.ID == "" {
		t.Fatalf("store with a null source = %s", stored)
	}
	if out := callText(t, cs, "update_memory", map[string]any{"id": m.ID, "operation": "TAG", "tags": []string{"staging"}, "content": nil}); !strings.Contains(out, `"status":"ok"`) {
		t.Fatalf("update with a null content = %s", out)
	}
	list := svc.List(ctx, app.Request{Caller: app.Caller{Operator: true}, Authorized: true}, app.ListInput{})
	if len(list.Memories) != 1 || list.Memories[0].Content != "the staging cluster is rebuilt every Monday" || !slices.Equal(list.Memories[0].Tags, []string{"staging"}) {
		t.Errorf("memories = %+v, want the one stored, its content kept and tagged staging", list.Memories)
	}
}

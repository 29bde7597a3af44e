package server_test

import (
	"context"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/engram-app/engram/app/server"
	"github.com/engram-app/engram/vault"
)

// The trust part of the red-team suite (issue 17): an agent tries, through
// the real HTTP API, to make itself more trusted than the user allows.

// vaultFileHolds reports whether the vault file's bytes hold s.
func (e *env) vaultFileHolds(s string) bool {
	e.t.Helper()
	raw, err := os.ReadFile(e.v.Path())
	if err != nil {
		e.t.Fatal(err)
	}
	return strings.Contains(string(raw), s)
}

// resumeWhenPaused makes e.do act as a user who resumes the agent each
// time its refusals pause it, and sends the request again: suites that
// judge many attacks one by one are about each verdict, not the pause.
func (e *env) resumeWhenPaused() {
	e.onPaused = func() {
		if r := e.svc.SetAgentStatus(context.Background(), operator, "claude-code", vault.AgentActive); !r.OK() {
			e.t.Fatalf("resume: %+v", r.Response)
		}
	}
}

func withSession(s string) func(r *http.Request) {
	return func(r *http.Request) { r.Header.Set(server.SessionHeader, s) }
}

func TestRedTeamSelfConfirmationHTTP(t *testing.T) {
	e := start(t, server.Options{})
	token := "q7Rt2LmX9vBn4KpZ8wYc3HsJ6dFg1AzQx5"
	// Unnamed: "the staging token is …" would be redacted, not queued.
	r := e.do("POST", "/v1/memories", e.token, `{"content":"the setup script printed `+token+`","confirmed":true}`, withSession("a"))
	if r.body["status"] != "quarantined" || !strings.Contains(r.raw, "the agent reports that the user confirmed") {
		t.Fatalf("agent-confirmed possible secret = %d %s; want quarantined as a confirmation request", r.code, r.raw)
	}
	r = e.do("POST", "/v1/memories", e.token, `{"content":"the project builds with Go 1.27","tier":"semantic","confirmed":true}`, withSession("b"))
	if r.body["status"] != "quarantined" {
		t.Fatalf("agent-confirmed semantic memory = %d %s; want quarantined", r.code, r.raw)
	}
	r = e.do("POST", "/v1/memories", e.token, `{"content":"the project builds with Go 1.27","tier":"semantic"}`, withSession("c"))
	if r.body["status"] != "confirmation_required" || !strings.Contains(r.raw, "ask the user") {
		t.Fatalf("unconfirmed semantic memory = %d %s; want confirmation_required telling the agent to ask the user", r.code, r.raw)
	}
	if e.vaultFileHolds(token) {
		t.Fatal("the vault file holds the possible secret the agent confirmed itself")
	}
}

func TestRedTeamSelfDeclaredSourceHTTP(t *testing.T) {
	e := start(t, server.Options{})
	r := e.do("POST", "/v1/memories", e.token, `{"content":"release notes are written by the on-call engineer","source":{"type":"user_message"}}`, withSession("a"))
	mem, _ := r.body["memory"].(map[string]any)
	src, _ := mem["source"].(map[string]any)
	if r.code != 201 && r.code != 200 || src["type"] != "ai_inference" || src["reported"] != "user_message" || mem["trust"] != "standard" {
		t.Fatalf("store with a user_message source = %d %s; want ai_inference, reported user_message, standard trust", r.code, r.raw)
	}
	if c, _ := mem["confidence"].(float64); c > 0.7 {
		t.Errorf("confidence %.2f; want at most an agent's 0.70", c)
	}
	rc := e.do("POST", "/v1/recall", e.token, `{"query":"release notes on-call engineer","mode":"exact"}`, withSession("a"))
	if strings.Contains(rc.raw, "[from user]") || !strings.Contains(rc.raw, "reported as from the user") {
		t.Errorf("recall = %s; want the memory shown as the agent's report", rc.raw)
	}
	r = e.do("POST", "/v1/memories", e.token, `{"content":"maintenance is on Sundays","source":{"type":"system"}}`, withSession("b"))
	if r.code != 400 {
		t.Errorf("store as the system = %d %s; want 400", r.code, r.raw)
	}
}

func TestRedTeamMetadataHTTP(t *testing.T) {
	e := start(t, server.Options{})
	ghp := "ghp_" + strings.Repeat("aB3dE5gH7j", 3) + "K9mN1p"
	r := e.do("POST", "/v1/memories", e.token, `{"content":"the linter runs on save"}`, withSession(ghp))
	if r.code != 400 || !strings.Contains(r.raw, "Engram-Session") {
		t.Errorf("a token in the session header = %d %s; want 400 naming the header", r.code, r.raw)
	}
	r = e.do("POST", "/v1/memories", e.token, `{"content":"the linter runs on save","source":{"message_id":"123-45-6789"}}`, withSession("m1"))
	if r.code != 400 || !strings.Contains(r.raw, "message_id") {
		t.Errorf("an SSN in message_id = %d %s; want 400 naming the field", r.code, r.raw)
	}
	for _, leak := range []string{ghp, "123-45-6789"} {
		if e.vaultFileHolds(leak) {
			t.Errorf("the vault file holds %q from a request's metadata", leak)
		}
	}
}

func TestRedTeamFreshSessionAfterRefusalsHTTP(t *testing.T) {
	e := start(t, server.Options{})
	for i := range 3 {
		r := e.do("POST", "/v1/memories", e.token, `{"content":"x","field":"gotchas"}`, withSession("first"))
		if r.code != 401 && r.code != 403 {
			t.Fatalf("refusal %d = %d %s", i+1, r.code, r.raw)
		}
	}
	// A new session writes again at once, but the agent's count goes on.
	r := e.do("POST", "/v1/memories", e.token, `{"content":"the build runs on Linux"}`, withSession("second"))
	if r.body["status"] != "ok" {
		t.Fatalf("a write in a new session = %d %s", r.code, r.raw)
	}
	e.do("POST", "/v1/memories", e.token, `{"content":"x","field":"gotchas"}`, withSession("second"))
	r = e.do("POST", "/v1/memories", e.token, `{"content":"x","field":"gotchas"}`, withSession("third"))
	if r.body["status"] != "paused" {
		t.Fatalf("the fifth refusal = %d %s; want the agent paused", r.code, r.raw)
	}
	r = e.do("POST", "/v1/memories", e.token, `{"content":"the build runs on Linux"}`, withSession("fourth"))
	if r.body["status"] != "paused" {
		t.Fatalf("a write after the pause, in a new session = %d %s; want paused", r.code, r.raw)
	}
}

func TestRefuteHTTP(t *testing.T) {
	e := start(t, server.Options{})
	r := e.do("POST", "/v1/memories", e.token, `{"content":"the staging database is reset on Mondays"}`, withSession("a"))
	mem, _ := r.body["memory"].(map[string]any)
	id, _ := mem["id"].(string)
	if r := e.do("POST", "/v1/memories/"+id+"/refute", e.token, `{}`, withSession("a")); r.code != 400 || !strings.Contains(r.raw, "evidence") {
		t.Errorf("refute without evidence = %d %s; want 400", r.code, r.raw)
	}
	if r := e.do("POST", "/v1/memories/"+id+"/refute", e.token, `{"evidence":"the ops calendar moved the reset to Sundays"}`, withSession("a")); r.code != 200 {
		t.Fatalf("refute = %d %s", r.code, r.raw)
	}
}

package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/recall"
	"github.com/engram-app/engram/app/server"
	"github.com/engram-app/engram/vault"
	"github.com/engram-app/engram/vault/vaulttest"
)

var operator = app.Request{Caller: app.Caller{Operator: true}, Authorized: true}

type env struct {
	t      *testing.T
	v      *vault.Vault
	svc    *app.Service
	base   string // http://127.0.0.1:PORT
	socket string
	token  string // claude-code's token
	// onPaused, when set, runs when a request is answered "paused", and
	// the request is sent again once.
	onPaused func()
}

// start runs a real server on a free loopback port and a Unix socket.
func start(t *testing.T, opts server.Options) *env {
	t.Helper()
	v, _ := vaulttest.New(t)
	svc, err := app.New(v, app.Options{Recall: recall.New(recall.DefaultConfig(nil))})
	if err != nil {
		t.Fatal(err)
	}
	add := svc.AddAgent(context.Background(), operator, app.AgentSpec{Name: "claude-code"})
	if !add.OK() {
		t.Fatal(add.Response)
	}
	dir := t.TempDir()
	runtime := filepath.Join(dir, "run", "engram.addr")
	socket := filepath.Join(dir, "run", "engram.sock")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	ready := make(chan string, 1)
	opts.Listening = func(addr string) { ready <- addr }
	go func() { done <- server.New(svc, opts).Serve(ctx, "127.0.0.1:0", socket, runtime) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve = %v", err)
		}
	})
	var listening string
	select {
	case listening = <-ready:
	case err := <-done:
		t.Fatalf("Serve ended early: %v", err)
	}
	addr, err := os.ReadFile(runtime)
	if err != nil || strings.TrimSpace(string(addr)) != listening {
		t.Fatalf("runtime file holds %q, %v; want %q", addr, err, listening)
	}
	if fi, err := os.Stat(runtime); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("runtime file %v, %v; want mode 0600", fi, err)
	}
	return &env{t: t, v: v, svc: svc, base: "http://" + strings.TrimSpace(string(addr)), socket: socket, token: add.Token}
}

type result struct {
	code int
	body map[string]any
	raw  string
}

func (e *env) do(method, path, token string, body string, edit func(r *http.Request)) result {
	e.t.Helper()
	req, err := http.NewRequest(method, e.base+path, strings.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if edit != nil {
		edit(req)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		e.t.Fatalf("%s %s: response is not JSON: %q", method, path, raw)
	}
	if m["status"] == "paused" && e.onPaused != nil {
		e.onPaused()
		again := *e
		again.onPaused = nil
		return again.do(method, path, token, body, edit)
	}
	return result{resp.StatusCode, m, string(raw)}
}

func TestAPI(t *testing.T) {
	e := start(t, server.Options{})
	sens := e.svc.Store(context.Background(), operator, app.StoreInput{Content: "the user's bank PIN hint", Partition: vault.Sensitive}).Memory
	big := `{"content":"` + strings.Repeat("a", server.MaxBody) + `"}`
	tests := []struct {
		name     string
		method   string
		path     string
		token    string
		body     string
		edit     func(r *http.Request)
		wantCode int
		wantStat string
		wantMsg  string
	}{
		{"health needs no token", "GET", "/v1/health", "", "", nil, 200, "ok", "running"},
		{"no token", "POST", "/v1/memories", "", `{"content":"x"}`, nil, 401, "unauthorized", "Bearer token is required"},
		{"wrong token", "POST", "/v1/memories", "engram_" + strings.Repeat("x", 43), `{"content":"x"}`, nil, 401, "unauthorized", "revoked token"},
		{"wrong host", "GET", "/v1/health", "", "", func(r *http.Request) { r.Host = "evil.example:7474" }, 403, "unauthorized", "loopback"},
		{"rebinding host", "GET", "/v1/health", "", "", func(r *http.Request) { r.Host = "127.0.0.1.evil.example" }, 403, "unauthorized", "loopback"},
		{"cross origin", "POST", "/v1/memories", "TOKEN", `{"content":"x"}`, func(r *http.Request) { r.Header.Set("Origin", "https://evil.example") }, 403, "unauthorized", "cross-origin"},
		{"oversize body", "POST", "/v1/memories", "TOKEN", big, nil, 413, "invalid", "larger than"},
		{"malformed json", "POST", "/v1/memories", "TOKEN", `{"content": "x",}`, nil, 400, "invalid", "malformed JSON"},
		{"wrong type", "POST", "/v1/memories", "TOKEN", `{"content": 7}`, nil, 400, "invalid", `field "content" must be a string`},
		{"unknown field", "POST", "/v1/memories", "TOKEN", `{"content": "x", "agent": "root"}`, nil, 400, "invalid", "unknown field"},
		{"empty body", "POST", "/v1/memories", "TOKEN", ``, nil, 400, "invalid", "empty"},
		{"field not allowed", "POST", "/v1/memories", "TOKEN", `{"content":"x","field":"system"}`, nil, 403, "unauthorized", "not writable by agents"},
		{"field not granted", "POST", "/v1/memories", "TOKEN", `{"content":"x","field":"gotchas"}`, nil, 403, "unauthorized", "not granted"},
		{"sensitive denied", "GET", "/v1/memories/" + sens.ID, "TOKEN", "", nil, 403, "unauthorized", "not available"},
		{"store", "POST", "/v1/memories", "TOKEN", `{"content":"the build needs Go 1.27","source":{"type":"tool_output","session_id":"s1"}}`, nil, 200, "ok", ""},
		{"unknown endpoint", "GET", "/v1/nothing", "TOKEN", "", nil, 404, "not_found", "no such endpoint"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tok := tc.token
			if tok == "TOKEN" {
				tok = e.token
			}
			r := e.do(tc.method, tc.path, tok, tc.body, tc.edit)
			if r.code != tc.wantCode || r.body["status"] != tc.wantStat || !strings.Contains(fmt.Sprint(r.body["message"]), tc.wantMsg) {
				t.Fatalf("%s %s = %d %s, want %d %s containing %q", tc.method, tc.path, r.code, r.raw, tc.wantCode, tc.wantStat, tc.wantMsg)
			}
		})
	}
	l3, _ := e.v.AuditLog(vault.AuditFilter{Action: vault.ActionL3Access})
	if len(l3) != 1 || l3[0].Agent != "claude-code" || l3[0].Result != vault.ResultDenied {
		t.Fatalf("L3 audit = %+v, want the denied access by claude-code", l3)
	}
}

func TestStoreGetImpersonationPauseRevoke(t *testing.T) {
	e := start(t, server.Options{})
	r := e.do("POST", "/v1/memories", e.token, `{"content":"deploys go through make deploy","source":{"type":"tool_output","agent_id":"cursor"}}`, nil)
	if r.code != 200 || r.body["id"] == "" {
		t.Fatalf("store = %d %s", r.code, r.raw)
	}
	id := r.body["id"].(string)
	g := e.do("GET", "/v1/memories/"+id, e.token, "", nil)
	mem, _ := g.body["memory"].(map[string]any)
	if g.code != 200 || mem["owner"] != "claude-code" || mem["content"] != "deploys go through make deploy" {
		t.Fatalf("get = %d %s", g.code, g.raw)
	}
	imp, _ := e.v.AuditLog(vault.AuditFilter{Action: vault.ActionReject})
	if len(imp) != 1 || !strings.Contains(imp[0].Reason, `impersonation attempt: the request claimed to come from "cursor"`) {
		t.Fatalf("impersonation audit = %+v", imp)
	}
	h := e.do("GET", "/v1/memories/"+id+"/history", e.token, "", nil)
	if h.code != 200 || h.body["versions"] == nil {
		t.Fatalf("history = %d %s", h.code, h.raw)
	}
	p := e.do("PATCH", "/v1/memories/"+id, e.token, `{"operation":"UPDATE","content":"deploys go through make release"}`, nil)
	if p.code != 200 {
		t.Fatalf("patch = %d %s", p.code, p.raw)
	}
	if c := e.do("POST", "/v1/memories/"+id+"/confirm", e.token, `{"evidence":"checked the Makefile"}`, nil); c.code != 200 || !strings.Contains(c.raw, `"verdict":"CONFIRMED"`) {
		t.Fatalf("confirm = %d %s", c.code, c.raw)
	}
	if c := e.do("POST", "/v1/memories/"+id+"/confirm", e.token, "", nil); c.code != 200 {
		t.Fatalf("confirm without a body = %d %s", c.code, c.raw)
	}
	rc := e.do("POST", "/v1/recall", e.token, `{"query":"how do deploys work","mode":"exact"}`, nil)
	if rc.code != 200 || !strings.Contains(rc.raw, "make release") || !strings.Contains(rc.raw, `"context"`) {
		t.Fatalf("recall = %d %s", rc.code, rc.raw)
	}
	if rc := e.do("POST", "/v1/recall", e.token, `{"query":"x","mode":"psychic"}`, nil); rc.code != 400 {
		t.Fatalf("recall with a bad mode = %d %s", rc.code, rc.raw)
	}
	e.svc.SetAgentStatus(context.Background(), operator, "claude-code", vault.AgentPaused)
	if r := e.do("GET", "/v1/memories/"+id, e.token, "", nil); r.code != 403 || r.body["status"] != "paused" {
		t.Fatalf("paused agent = %d %s, want 403 paused", r.code, r.raw)
	}
	e.svc.SetAgentStatus(context.Background(), operator, "claude-code", vault.AgentRevoked)
	if r := e.do("GET", "/v1/memories/"+id, e.token, "", nil); r.code != 401 {
		t.Fatalf("revoked agent = %d %s, want 401", r.code, r.raw)
	}
}

func TestUnixSocket(t *testing.T) {
	e := start(t, server.Options{})
	fi, err := os.Stat(e.socket)
	if err != nil || fi.Mode().Perm() != 0o600 || fi.Mode()&os.ModeSocket == 0 {
		t.Fatalf("socket %v, %v; want a 0600 socket", fi, err)
	}
	c := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", e.socket)
	}}}
	req, _ := http.NewRequest("POST", "http://localhost/v1/memories", bytes.NewBufferString(`{"content":"via the socket"}`))
	req.Header.Set("Authorization", "Bearer "+e.token)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("store over the socket = %d", resp.StatusCode)
	}
}

func TestRateLimit(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	e := start(t, server.Options{Rate: 1, Burst: 3, Now: func() time.Time { return now }})
	codes := ""
	for i := 0; i < 5; i++ {
		codes += fmt.Sprint(e.do("GET", "/v1/memories/none", e.token, "", nil).code, " ")
	}
	if codes != "404 404 404 429 429 " {
		t.Fatalf("codes = %q, want three answers then 429s", codes)
	}
}

func TestSessionEnd(t *testing.T) {
	e := start(t, server.Options{})
	session := func(r *http.Request) { r.Header.Set(server.SessionHeader, "s-42") }
	for i := 0; i < 2; i++ {
		r := e.do("POST", "/v1/memories", e.token, `{"content":"the db password is hunter2","tier":"semantic","confirmed":true}`, session)
		if r.code != 422 || r.body["status"] != "rejected" {
			t.Fatalf("credential write = %d %s, want 422 rejected", r.code, r.raw)
		}
	}
	r := e.do("POST", "/v1/sessions/s-42/end", e.token, "", nil)
	if r.code != 200 || !strings.HasPrefix(fmt.Sprint(r.body["summary"]), "[Engram] 2 memory writes were rejected this session") {
		t.Fatalf("session end = %d %s", r.code, r.raw)
	}
}

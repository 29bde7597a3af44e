package server_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/server"
)

func TestPairing(t *testing.T) {
	e := start(t, server.Options{})
	admin, err := os.ReadFile(filepath.Join(filepath.Dir(e.socket), server.AdminTokenFile))
	if err != nil {
		t.Fatalf("admin token file: %v", err)
	}
	if fi, _ := os.Stat(filepath.Join(filepath.Dir(e.socket), server.AdminTokenFile)); fi.Mode().Perm() != 0o600 {
		t.Fatalf("admin token file mode %v, want 0600", fi.Mode().Perm())
	}
	adminTok := strings.TrimSpace(string(admin))

	r := e.do("POST", "/v1/pair", "", `{"name":"cursor"}`, nil)
	secret, _ := r.body["pair_secret"].(string)
	if r.code != 202 || r.body["status"] != "pending" || secret == "" {
		t.Fatalf("pair = %d %s", r.code, r.raw)
	}
	poll := `{"name":"cursor","pair_secret":"` + secret + `"}`
	if r := e.do("POST", "/v1/pair/poll", "", poll, nil); r.code != 202 || r.body["status"] != "pending" {
		t.Fatalf("poll before approval = %d %s", r.code, r.raw)
	}
	if r := e.do("POST", "/v1/pair/poll", "", `{"name":"cursor","pair_secret":"engram_wrong"}`, nil); r.code != 401 {
		t.Fatalf("poll with a wrong secret = %d %s", r.code, r.raw)
	}
	if r := e.do("POST", "/v1/admin/agents/cursor/approve", e.token, "", nil); r.code != 401 {
		t.Fatalf("an agent token approved a pairing: %d %s", r.code, r.raw)
	}
	if r := e.do("POST", "/v1/admin/agents/cursor/approve", adminTok, "", nil); r.code != 200 {
		t.Fatalf("approve = %d %s", r.code, r.raw)
	}
	r = e.do("POST", "/v1/pair/poll", "", poll, nil)
	token, _ := r.body["token"].(string)
	if r.code != 200 || !strings.HasPrefix(token, "engram_") {
		t.Fatalf("poll after approval = %d %s", r.code, r.raw)
	}
	if r := e.do("POST", "/v1/pair/poll", "", poll, nil); r.code != 409 {
		t.Fatalf("second poll = %d %s, want 409: the token is shown once", r.code, r.raw)
	}
	if r := e.do("POST", "/v1/memories", token, `{"content":"paired and writing"}`, nil); r.code != 200 {
		t.Fatalf("store with the paired token = %d %s", r.code, r.raw)
	}
	// A denied agent learns it was denied and gets nothing.
	r = e.do("POST", "/v1/pair", "", `{"name":"stranger"}`, nil)
	s2, _ := r.body["pair_secret"].(string)
	if r := e.do("POST", "/v1/admin/agents/stranger/deny", adminTok, "", nil); r.code != 200 {
		t.Fatalf("deny = %d %s", r.code, r.raw)
	}
	if r := e.do("POST", "/v1/pair/poll", "", `{"name":"stranger","pair_secret":"`+s2+`"}`, nil); r.code != 401 || r.body["token"] != nil {
		t.Fatalf("poll after denial = %d %s", r.code, r.raw)
	}
	// A registered name cannot be claimed by pairing.
	if r := e.do("POST", "/v1/pair", "", `{"name":"claude-code"}`, nil); r.code != 409 {
		t.Fatalf("pairing a registered name = %d %s", r.code, r.raw)
	}
}

// TestPairingFlood: anyone on the machine can post pairing requests; a
// flood of them leaves at most a handful waiting for the user, and the
// endpoint answers 429 beyond its small burst.
func TestPairingFlood(t *testing.T) {
	e := start(t, server.Options{})
	accepted, limited, full := 0, 0, 0
	for i := range 200 {
		r := e.do("POST", "/v1/pair", "", fmt.Sprintf(`{"name":"flood-%d"}`, i), nil)
		switch {
		case r.code == 202:
			accepted++
		case r.code == 429:
			limited++
		case r.code == 503:
			full++
		default:
			t.Fatalf("pair %d = %d %s", i, r.code, r.raw)
		}
	}
	if accepted > app.MaxPendingPairings || limited == 0 {
		t.Errorf("200 pairing requests at once: %d accepted, %d rate-limited, %d refused as full; want at most %d accepted and the rest refused", accepted, limited, full, app.MaxPendingPairings)
	}
	admin, err := os.ReadFile(filepath.Join(filepath.Dir(e.socket), server.AdminTokenFile))
	if err != nil {
		t.Fatal(err)
	}
	r := e.do("GET", "/v1/admin/agents", strings.TrimSpace(string(admin)), "", nil)
	if n := strings.Count(r.raw, `"status":"pending"`); n > app.MaxPendingPairings {
		t.Errorf("%d agents pending after the flood, want at most %d", n, app.MaxPendingPairings)
	}
}

// TestPairingNamesTheProcess: a pairing request over HTTP records which
// process sent it, as the OS tells, even while other connections to the
// server are open (the service cannot guess which one is the request's).
func TestPairingNamesTheProcess(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the process behind a loopback connection is looked up on Linux only")
	}
	e := start(t, server.Options{})
	// Other connections open at the same time: keep-alive idle ones.
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() { e.do("POST", "/v1/recall", e.token, `{"query":"anything"}`, nil) })
	}
	wg.Wait()
	if r := e.do("POST", "/v1/pair", "", `{"name":"asker"}`, nil); r.code != 202 {
		t.Fatalf("pair = %d %s", r.code, r.raw)
	}
	var asked string
	for _, a := range e.svc.PendingPairings(context.Background(), operator).Agents {
		if a.Name == "asker" {
			asked = app.AskedBy(a)
		}
	}
	if !strings.Contains(asked, fmt.Sprintf("process %d, ", os.Getpid())) {
		t.Errorf("AskedBy = %q, want this test's process %d", asked, os.Getpid())
	}
}

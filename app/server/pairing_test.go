package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/server"
	"github.com/engram-app/engram/vault"
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
// flood of them from one process leaves at most MaxPendingPerProcess
// waiting for the user, and the endpoint answers 429 beyond its small
// burst.
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
	if accepted > app.MaxPendingPerProcess || limited == 0 {
		t.Errorf("200 pairing requests at once from one process: %d accepted, %d rate-limited, %d refused as full; want at most %d accepted and the rest refused", accepted, limited, full, app.MaxPendingPerProcess)
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

// askFromAnotherProcess sends POST /v1/pair for each name, in order, from a
// separate process (this test binary run again as TestPairHelperProcess),
// so that the server sees a different asker than this test's process. It
// returns each answer's HTTP code and pairing secret, and the helper's PID.
func askFromAnotherProcess(t *testing.T, base string, names ...string) (codes []int, secrets []string, pid int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestPairHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), "ENGRAM_PAIR_HELPER_BASE="+base, "ENGRAM_PAIR_HELPER_NAMES="+strings.Join(names, ","))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("helper process: %v\n%s", err, out)
	}
	for line := range strings.Lines(string(out)) {
		var code int
		var secret string
		if n, _ := fmt.Sscanf(line, "pid %d", &pid); n == 1 {
			continue
		}
		if n, _ := fmt.Sscanf(line, "answer %d %s", &code, &secret); n >= 1 {
			codes = append(codes, code)
			secrets = append(secrets, strings.TrimPrefix(secret, "-"))
		}
	}
	if len(codes) != len(names) || pid == 0 {
		t.Fatalf("helper process answered %q", out)
	}
	return codes, secrets, pid
}

// TestPairHelperProcess is not a test: askFromAnotherProcess runs it in a
// process of its own.
func TestPairHelperProcess(t *testing.T) {
	base := os.Getenv("ENGRAM_PAIR_HELPER_BASE")
	if base == "" {
		t.Skip("run by askFromAnotherProcess only")
	}
	fmt.Printf("pid %d\n", os.Getpid())
	for _, name := range strings.Split(os.Getenv("ENGRAM_PAIR_HELPER_NAMES"), ",") {
		resp, err := http.Post(base+"/v1/pair", "application/json", strings.NewReader(`{"name":"`+name+`"}`))
		if err != nil {
			t.Fatal(err)
		}
		var body struct {
			Secret string `json:"pair_secret"`
		}
		json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		fmt.Printf("answer %d -%s\n", resp.StatusCode, body.Secret)
	}
}

func adminToken(t *testing.T, e *env) string {
	t.Helper()
	admin, err := os.ReadFile(filepath.Join(filepath.Dir(e.socket), server.AdminTokenFile))
	if err != nil {
		t.Fatalf("admin token file: %v", err)
	}
	return strings.TrimSpace(string(admin))
}

// TestPairingCannotBeTakenOver: the real client asks to pair as
// "legit-client"; another process then asks under the same name. The
// second request is refused and replaces nothing: the user approves
// "legit-client", the real client's poll gets the token, and the other
// process gets nothing.
func TestPairingCannotBeTakenOver(t *testing.T) {
	e := start(t, server.Options{})
	r := e.do("POST", "/v1/pair", "", `{"name":"legit-client"}`, nil)
	legit, _ := r.body["pair_secret"].(string)
	if r.code != 202 || legit == "" {
		t.Fatalf("the real client's pair = %d %s", r.code, r.raw)
	}
	codes, secrets, other := askFromAnotherProcess(t, e.base, "legit-client", "legit-client")
	if codes[0] != 409 || secrets[0] != "" || codes[1] != 409 {
		t.Errorf("a second request for a waiting name = %d with secret %q (then %d), want 409 and no secret", codes[0], secrets[0], codes[1])
	}
	// The real client asking again (it lost its secret) is refused too,
	// and told until when.
	if r := e.do("POST", "/v1/pair", "", `{"name":"legit-client"}`, nil); r.code != 409 || !strings.Contains(r.raw, "already waits for the user; it expires at ") {
		t.Errorf("the same process asking again = %d %s, want 409 saying when the request expires", r.code, r.raw)
	}
	// The pop-up learns that another process asked: that one, twice;
	// the real client's own second request is not counted against it.
	ref := e.svc.RefusedPairings(context.Background(), operator)
	if !ref.OK() || len(ref.Refused) != 1 || ref.Refused[0].Name != "legit-client" || ref.Refused[0].Count != 2 ||
		len(ref.Refused[0].By) != 1 || !strings.HasPrefix(ref.Refused[0].By[0], fmt.Sprintf("process %d, ", other)) {
		t.Errorf("RefusedPairings = %+v, want legit-client refused twice for process %d", ref, other)
	}
	audited := 0
	entries, _ := e.v.AuditLog(vault.AuditFilter{Agent: "legit-client"})
	for _, a := range entries {
		if a.Result == vault.ResultDenied && strings.Contains(a.Reason, fmt.Sprintf("process %d, ", other)) {
			audited++
		}
	}
	if audited != 1 {
		t.Errorf("the other process's refused requests were audited %d times, want once", audited)
	}
	if r := e.do("POST", "/v1/admin/agents/legit-client/approve", adminToken(t, e), "", nil); r.code != 200 {
		t.Fatalf("approve = %d %s", r.code, r.raw)
	}
	if secrets[0] != "" {
		if r := e.do("POST", "/v1/pair/poll", "", `{"name":"legit-client","pair_secret":"`+secrets[0]+`"}`, nil); r.body["token"] != nil {
			t.Errorf("the other process collected the approved token: %d %s", r.code, r.raw)
		}
	}
	r = e.do("POST", "/v1/pair/poll", "", `{"name":"legit-client","pair_secret":"`+legit+`"}`, nil)
	if tok, _ := r.body["token"].(string); r.code != 200 || !strings.HasPrefix(tok, "engram_") {
		t.Errorf("the real client's poll after approval = %d %s, want 200 with its token", r.code, r.raw)
	}
	if ref := e.svc.RefusedPairings(context.Background(), operator); len(ref.Refused) != 0 {
		t.Errorf("RefusedPairings after approval = %+v, want none (the request no longer waits)", ref.Refused)
	}
}

// TestPairingSlotsPerProcess: one process asks under several names and
// asks again to renew them; another process can still pair.
func TestPairingSlotsPerProcess(t *testing.T) {
	e := start(t, server.Options{})
	codes, _, _ := askFromAnotherProcess(t, e.base, "flood-0", "flood-0", "flood-1", "flood-2", "flood-3")
	if codes[1] == 202 {
		t.Errorf("asking again for its own waiting name renewed it (202), want it refused")
	}
	accepted := 0
	for _, c := range codes {
		if c == 202 {
			accepted++
		}
	}
	if accepted > 2 {
		t.Errorf("one process has %d pairing requests waiting (codes %v), want at most 2", accepted, codes)
	}
	if want := []int{202, 409, 202, 503, 503}; !slices.Equal(codes, want) {
		t.Errorf("one process asking for flood-0, flood-0, flood-1, flood-2, flood-3 = %v, want %v", codes, want)
	}
	if r := e.do("POST", "/v1/pair", "", `{"name":"legit-client"}`, nil); r.code != 202 {
		t.Errorf("another process's pair after the flood = %d %s, want 202", r.code, r.raw)
	}
	// A third process still finds a slot: two are the first one's.
	if codes, _, _ := askFromAnotherProcess(t, e.base, "third-client"); codes[0] != 202 {
		t.Errorf("a third process's pair = %d, want 202", codes[0])
	}
}

// TestBadTokensDoNotGrowTheAuditLog: requests with wrong tokens are
// counted in memory, not audited one by one; the count reaches the log
// in one summary (here at Close). The flood is refused 429 after a burst,
// and an agent with its own token is not slowed.
func TestBadTokensDoNotGrowTheAuditLog(t *testing.T) {
	e := start(t, server.Options{})
	before, err := e.v.AuditLog(vault.AuditFilter{})
	if err != nil {
		t.Fatal(err)
	}
	const n = 300
	limited := 0
	for i := range n {
		tok := fmt.Sprintf("engram_bogus%d", i)
		if i%3 == 0 {
			tok = "not-a-token"
		}
		switch r := e.do("GET", "/v1/memories/00000000-0000-4000-8000-000000000000", tok, "", nil); r.code {
		case 401:
		case 429:
			limited++
		default:
			t.Fatalf("request %d with a bad token = %d %s", i, r.code, r.raw)
		}
	}
	after, err := e.v.AuditLog(vault.AuditFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if grew := len(after) - len(before); grew > 1 {
		t.Errorf("%d requests with bad tokens wrote %d audit entries, want at most 1", n, grew)
	}
	if limited == 0 {
		t.Errorf("%d requests with bad tokens from one process: none refused 429", n)
	}
	if r := e.do("POST", "/v1/memories", e.token, `{"content":"the agent with its token still writes"}`, nil); r.code != 200 {
		t.Errorf("store with a good token after the flood = %d %s", r.code, r.raw)
	}
	e.svc.Close()
	fails, err := e.v.AuditLog(vault.AuditFilter{Action: vault.ActionAuthFail})
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, f := range fails {
		total += f.Count
	}
	if len(fails) != 1 || total != n || !strings.Contains(fails[0].Reason, fmt.Sprintf("process %d", os.Getpid())) {
		t.Errorf("after Close: %d auth-failure entries counting %d, want 1 summary counting %d that names process %d", len(fails), total, n, os.Getpid())
	}
	if len(fails) == 1 {
		t.Logf("the summary: %s", fails[0].Reason)
	}
}

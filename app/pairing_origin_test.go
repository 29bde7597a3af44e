package app_test

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/apptest"
	"github.com/engram-app/engram/vault/vaulttest"
)

// TestPairingOrigin: once decided, a pairing request made over a real
// loopback connection still names the process that sent it (this test's,
// as the OS reports it); an agent added by hand, one whose request the
// OS did not name, one added by hand under the name of an expired
// request, and an unknown name have none; only the user may ask.
func TestPairingOrigin(t *testing.T) {
	v, clock := vaulttest.New(t)
	s, err := app.New(v, app.Options{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	server := apptest.LoopbackServerEnd(t)
	asked := clock.Now()
	for _, name := range []string{"cursor", "denied"} {
		if r := s.RequestPairing(app.WithConn(ctx, server), name); r.Status != app.StatusPending {
			t.Fatalf("RequestPairing(%s) = %+v", name, r.Response)
		}
	}
	clock.Advance(1)
	if r := s.RequestPairing(ctx, "unnamed"); r.Status != app.StatusPending { // no connection: the OS says nothing
		t.Fatalf("RequestPairing(unnamed) = %+v", r.Response)
	}
	for name, approve := range map[string]bool{"cursor": true, "denied": false, "unnamed": true} {
		if r := s.DecidePairing(ctx, operator, name, approve); !r.OK() {
			t.Fatalf("DecidePairing(%s) = %+v", name, r.Response)
		}
	}
	// From this process too: the agent later added by hand under its
	// name must not be taken for it.
	if r := s.RequestPairing(app.WithConn(ctx, server), "expired"); r.Status != app.StatusPending {
		t.Fatalf("RequestPairing(expired) = %+v", r.Response)
	}
	clock.Advance(app.PairingExpiry + 1)
	if r := s.Agents(ctx, operator); !r.OK() { // a listing removes the expired request
		t.Fatal(r.Message)
	}
	for _, name := range []string{"expired", "by-hand"} {
		if r := s.AddAgent(ctx, operator, app.AgentSpec{Name: name}); !r.OK() {
			t.Fatalf("AddAgent(%s) = %+v", name, r.Response)
		}
	}

	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	exe, _ = filepath.EvalSymlinks(exe)
	for _, name := range []string{"cursor", "denied"} {
		r := s.PairingOrigin(ctx, operator, name)
		if !r.OK() {
			t.Fatalf("PairingOrigin(%s) = %+v", name, r.Response)
		}
		if runtime.GOOS != "linux" {
			continue // the OS names no process
		}
		if r.Origin == nil || r.Origin.PID != os.Getpid() || r.Origin.Exe != exe || r.Origin.Command != "" || !r.Asked.Equal(asked) {
			t.Errorf("PairingOrigin(%s) = %+v asked %v, want process %d, %s asked %v", name, r.Origin, r.Asked, os.Getpid(), exe, asked)
		}
	}
	for _, name := range []string{"unnamed", "expired", "by-hand", "nobody"} {
		if r := s.PairingOrigin(ctx, operator, name); !r.OK() || r.Origin != nil || !r.Asked.IsZero() {
			t.Errorf("PairingOrigin(%s) = %+v, %+v; want ok without an origin", name, r.Response, r.Origin)
		}
	}
	agent := app.Request{Caller: app.Caller{Agent: "cursor"}, Authorized: true}
	if r := s.PairingOrigin(ctx, agent, "cursor"); r.OK() || r.Origin != nil {
		t.Errorf("an agent's PairingOrigin = %+v, %+v; want refused", r.Response, r.Origin)
	}
}

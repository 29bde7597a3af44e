package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/apptest"
)

// TestPairingPopUpSaysAnotherProcessAsked: a second request under the
// name of one that waits is refused, and the pairing pop-up says so,
// also when it is already open, with the count; the agent's details say
// it too.
func TestPairingPopUpSaysAnotherProcessAsked(t *testing.T) {
	u, _ := openUI(t)
	ctx := t.Context()
	if p := u.h.Service().RequestPairing(ctx, "cursor"); p.Secret == "" {
		t.Fatal(p.Message)
	}
	u.agents.refresh()
	dlg := u.win.Canvas().Overlays().Top()
	if dlg == nil || !hasLabel(dlg, `"cursor" asks to pair with Engram`) {
		t.Fatal("a pairing request did not pop up")
	}
	if hasLabel(dlg, "also asked to pair under this name") {
		t.Fatal("the pop-up says another process asked before any did")
	}
	for i, want := range []string{"its request was refused", "2 requests were refused"} {
		if p := u.h.Service().RequestPairing(ctx, "cursor"); p.Status != app.StatusConflict || p.Secret != "" {
			t.Fatalf("request %d under a waiting name = %+v, want conflict", i+2, p.Response)
		}
		u.agents.refresh()
		top := u.win.Canvas().Overlays().Top()
		if top != dlg {
			t.Fatal("the refused request opened another pop-up")
		}
		if !hasLabel(top, "Another process (the operating system did not say which) also asked to pair under this name; "+want) {
			t.Errorf("after %d refused requests, the open pop-up does not say %q", i+1, want)
		}
	}
	u.agents.sel = "cursor"
	u.agents.refresh()
	if !hasLabel(u.agents.box, "2 requests were refused") {
		t.Error("the pending agent's details do not say that another process asked")
	}
}

// TestPairedAgentNamesTheProcessThatAsked: the pairing pop-up names the
// process that asked (here this test's, over a real loopback connection);
// once the user approves it there, the agent's details still name it (its
// name, id and executable), and an agent added by hand names none.
func TestPairedAgentNamesTheProcessThatAsked(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("only Linux names the process behind a connection")
	}
	u, _ := openUI(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	exe, _ = filepath.EvalSymlinks(exe)
	process := fmt.Sprintf("%s (process %d, %s)", filepath.Base(exe), os.Getpid(), exe)
	if p := u.h.Service().RequestPairing(app.WithConn(t.Context(), apptest.LoopbackServerEnd(t)), "cursor"); p.Secret == "" {
		t.Fatal(p.Message)
	}
	if r := u.h.Service().AddAgent(t.Context(), u.h.Operator(), app.AgentSpec{Name: "by-hand"}); !r.OK() {
		t.Fatal(r.Message)
	}
	u.agents.refresh()
	dlg := u.win.Canvas().Overlays().Top()
	if dlg == nil || !hasLabel(dlg, fmt.Sprintf("Sent by process %d, %s", os.Getpid(), exe)) {
		t.Fatal("the pairing pop-up does not name the process that asked")
	}
	test.Tap(button(t, dlg, "Approve"))
	for i, name := range []string{"by-hand", "cursor"} {
		if a, _ := u.agents.agents.at(i); a.Name != name {
			t.Fatalf("agent %d is %q, want %q", i, a.Name, name)
		}
	}
	u.agents.list.Select(1)
	if !hasLabel(u.agents.box, "Agent cursor") || !hasLabel(u.agents.box, "active") {
		t.Fatal("the approved agent's details are not shown")
	}
	if !hasLabel(u.agents.box, process) {
		t.Errorf("the approved agent's details do not name the process that asked, %q; they say:\n%s", process, strings.Join(textsOf(u.agents.box), "\n"))
	}
	u.agents.list.Select(0)
	if !hasLabel(u.agents.box, "Agent by-hand") || hasLabel(u.agents.box, "Paired from") {
		t.Errorf("an agent added by hand: %s", strings.Join(textsOf(u.agents.box), "\n"))
	}
}

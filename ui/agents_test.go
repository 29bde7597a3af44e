package ui

import (
	"testing"

	"github.com/engram-app/engram/app"
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
	u.wait()
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
		u.wait()
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
	u.wait()
	if !hasLabel(u.agents.box, "2 requests were refused") {
		t.Error("the pending agent's details do not say that another process asked")
	}
}

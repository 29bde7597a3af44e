package ui

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/engram-app/engram/app"
)

// TestDeleteOnTheSelectedRowAsksToForget: a click on a row gives the
// list the focus; Delete then asks to forget that memory (Keep it the
// default), and Forget forgets it. The arrows still move in the list.
func TestDeleteOnTheSelectedRowAsksToForget(t *testing.T) {
	u, _ := openUI(t)
	store(t, u, u.h.Operator(), app.StoreInput{Content: "the staging database is pg-stage-2"})
	store(t, u, u.h.Operator(), app.StoreInput{Content: "deploys go through ops/deploy.sh"})
	s := u.memories
	s.refresh()
	u.wait()
	c := u.win.Canvas()
	c.Focus(s.rows.view.(fyne.Focusable)) // as a click on a row does
	s.list.Select(1)
	u.wait()
	victim := s.detail.id
	if victim == "" {
		t.Fatal("selecting a row shows no memory")
	}
	typeKey(c, fyne.KeyUp)
	u.wait()
	typeKey(c, fyne.KeySpace) // selects the row the arrow moved to
	u.wait()
	if s.detail.id == victim {
		t.Fatal("the arrows no longer move in the list")
	}
	c.Focus(s.rows.view.(fyne.Focusable))
	s.list.Select(1)
	u.wait()
	typeKey(c, fyne.KeyDelete)
	keep, ok := c.Focused().(*defaultButton)
	if !ok || keep.Text != "Keep it" {
		t.Fatalf("Delete on the selected row: focus %T, want the forget question with Keep it", c.Focused())
	}
	test.Tap(button(t, c.Overlays().Top(), "Forget"))
	u.wait()
	if r := u.h.Service().Get(t.Context(), u.h.Operator(), victim); r.OK() {
		t.Fatal("Forget after Delete left the memory")
	}
	if len(s.rows.data) != 1 {
		t.Fatalf("%d rows after forgetting one of two", len(s.rows.data))
	}
}

package ui

import (
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/engram-app/engram/app"
)

// TestMergeFromTheDetail: the detail's Merge… asks for the second memory
// (among those listed) and the strategy, shows the merged text of each
// strategy before anything changes, refuses memories that agree on
// nothing, and merges by intersection into the one statement both hold.
func TestMergeFromTheDetail(t *testing.T) {
	u, _ := openUI(t)
	op := u.h.Operator()
	const (
		a = "The build uses Go 1.27. Releases ship on Tuesdays."
		b = "Releases ship on Tuesdays. The build uses Bazel."
		c = "the office closes at six"
	)
	ma := store(t, u, op, app.StoreInput{Content: a}).Memory
	store(t, u, op, app.StoreInput{Content: b})
	store(t, u, op, app.StoreInput{Content: c})
	s := u.memories
	s.refresh()
	s.detail.show(ma.ID)
	test.Tap(button(t, s.detail.box, "Merge…"))
	dlg := overlay(t, u)
	pick := func(isStrategy bool, want string) {
		t.Helper()
		sel, ok := find(dlg, func(k *keySelect) bool { return slices.Contains(k.Options, "intersection") == isStrategy })
		if !ok {
			t.Fatalf("the merge dialog has no choice of the strategy=%v", isStrategy)
		}
		for _, o := range sel.Options {
			if strings.Contains(o, want) {
				sel.SetSelected(o)
				return
			}
		}
		t.Fatalf("no choice %q among %q", want, sel.Options)
	}
	// preview is the merged text the dialog shows (its italic label).
	preview := func() string {
		t.Helper()
		l, ok := find(dlg, func(l *widget.Label) bool { return l.TextStyle.Italic })
		if !ok {
			t.Fatal("the merge dialog shows no merged text")
		}
		return l.Text
	}

	pick(false, titleOf(c))
	pick(true, "intersection")
	if got := preview(); !strings.Contains(got, "agree on nothing") {
		t.Fatalf("the preview of an intersection of unrelated memories: %q", got)
	}
	test.Tap(button(t, dlg, "Merge"))
	if u.win.Canvas().Overlays().Top() != dlg || len(liveTexts(t, u)) != 3 {
		t.Fatal("Merge of memories that agree on nothing closed the dialog or changed the memories")
	}

	pick(false, titleOf(b))
	pick(true, "union")
	if got := preview(); !strings.Contains(got, a+"\n"+b) && !strings.Contains(got, b+"\n"+a) {
		t.Fatalf("the union's preview does not show both texts: %q", got)
	}
	pick(true, "intersection")
	if got := preview(); !strings.Contains(got, "Releases ship on Tuesdays.") || strings.Contains(got, "Bazel") || strings.Contains(got, "Go 1.27") {
		t.Fatalf("the intersection's preview is not what both say: %q", got)
	}
	if len(liveTexts(t, u)) != 3 {
		t.Fatal("the previews changed the memories")
	}
	test.Tap(button(t, dlg, "Merge"))
	if got := liveTexts(t, u); !slices.Equal(got, []string{"Releases ship on Tuesdays.", c}) {
		t.Fatalf("live memories after the merge = %q", got)
	}
	if s.detail.mem == nil || s.detail.mem.Content != "Releases ship on Tuesdays." {
		t.Fatal("the detail does not show the merged memory")
	}
}

package ui

import (
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/host"
	"github.com/engram-app/engram/vault"
)

// l3Entry is the tray's entry proposing the removal of L3 access
// records, if it is in the open menu.
func l3Entry(u *UI) (*fyne.MenuItem, bool) {
	for _, it := range u.tray.open.Items {
		if strings.Contains(it.Label, "sensitive-access record") {
			return it, true
		}
	}
	return nil, false
}

// TestL3RemovalWaitsForTheUser: once L3 access records are past their
// retention the tray menu and the Audit screen propose their removal
// (and a notification says so once); the question names the count and
// the date, and its default keeps them; approving removes them, and the
// proposal goes.
func TestL3RemovalWaitsForTheUser(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
	cfg := testConfig(t)
	cfg.Now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	u, notes := openUIWith(t, cfg)
	svc, op := u.h.Service(), u.h.Operator()
	m := store(t, u, op, app.StoreInput{Content: "Alice's phone is 555-0100", Partition: vault.Sensitive}).Memory
	get(t, u, m.ID)
	due := func() int {
		t.Helper()
		w := svc.WaitingFor(t.Context(), op, cfg.Now())
		if !w.OK() {
			t.Fatal(w.Response)
		}
		return w.Waiting.L3Proposed
	}
	u.onEvent(host.Event{Swept: &host.SweepReport{}})
	if _, ok := l3Entry(u); ok || hasLabel(u.audit.content, "sensitive-access record") {
		t.Fatal("the removal of L3 records is proposed before any is past its retention")
	}

	mu.Lock()
	now = now.Add(400 * 24 * time.Hour)
	mu.Unlock()
	// A later entry: vault.PruneAudit never removes the chain's head.
	store(t, u, op, app.StoreInput{Content: "the office opens at nine"})
	n := due()
	if n == 0 {
		t.Fatal("no L3 record is past its retention a year on")
	}
	u.onEvent(host.Event{Swept: &host.SweepReport{}})
	item, ok := l3Entry(u)
	if !ok {
		t.Fatalf("the tray menu does not propose the removal: %q", menuLabels(u.tray.open))
	}
	if got := notes.all(); !slices.ContainsFunc(got, func(s string) bool { return strings.Contains(s, "sensitive-access record") }) {
		t.Fatalf("no notification of the proposal: %q", got)
	}
	u.onEvent(host.Event{Swept: &host.SweepReport{}})
	told := 0
	for _, s := range notes.all() {
		if strings.Contains(s, "sensitive-access record") {
			told++
		}
	}
	if told != 1 {
		t.Errorf("the proposal was notified %d times over two sweeps, want once", told)
	}
	if !hasLabel(u.audit.content, "sensitive-access record") {
		t.Fatalf("the Audit screen does not propose the removal: %q", textsOf(u.audit.content))
	}

	item.Action()
	dlg := overlay(t, u)
	title := "Remove " + count(n, "sensitive-access record", "sensitive-access records") + " older than 6 April 2026?"
	if !hasLabel(dlg, title) {
		t.Fatalf("the question does not say %q: %q", title, textsOf(dlg))
	}
	def, isDef := u.win.Canvas().Focused().(*defaultButton)
	if !isDef || def.Text != "Keep them" {
		t.Fatalf("the question's default is %v, want Keep them", u.win.Canvas().Focused())
	}
	def.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	if u.win.Canvas().Overlays().Top() != nil || due() != n {
		t.Fatal("Enter on the question removed records, or left it open")
	}

	test.Tap(button(t, u.audit.content, "Remove them…"))
	test.Tap(button(t, overlay(t, u), "Remove them"))
	if got := due(); got != 0 {
		t.Fatalf("after the approval %d L3 records are still due", got)
	}
	if _, ok := l3Entry(u); ok || hasLabel(u.audit.content, "sensitive-access record") {
		t.Fatal("the proposal stays after the removal")
	}
}

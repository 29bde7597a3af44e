package ui

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/engram-app/engram/app"
)

// TestMemoriesColumnsSortAndMask: the list has column headers; a click
// sorts by the column, a second reverses, a third goes back to the
// service's order; a sensitive memory's row does not show its text, and
// a search marks the matched words.
func TestMemoriesColumnsSortAndMask(t *testing.T) {
	u, _ := openUI(t)
	op := u.h.Operator()
	store(t, u, op, app.StoreInput{Content: "beta: the build runs make test"})
	store(t, u, op, app.StoreInput{Content: "alpha: deploys go through ops/deploy.sh"})
	store(t, u, op, app.StoreInput{Content: "the staging database password rotates monthly", Partition: "sensitive"})
	s := u.memories
	s.refresh()
	var names []string
	for _, o := range s.headers.Objects {
		names = append(names, o.(*widget.Button).Text)
	}
	if got := strings.Join(names, ","); got != "Partition,Trust,Conf.,Created,Memory" {
		t.Fatalf("column headers %q", got)
	}
	previews := func() string {
		var out []string
		for _, r := range s.rows.data {
			out = append(out, strings.SplitN(r.sortText(), ":", 2)[0])
		}
		return strings.Join(out, ",")
	}
	memory := s.headers.Objects[4].(*widget.Button)
	test.Tap(memory)
	if got := previews(); got != "alpha,beta,"+maskedPreview {
		t.Fatalf("sorted by text: %s", got)
	}
	if memory.Icon == nil {
		t.Fatal("the sorted column has no arrow")
	}
	test.Tap(memory)
	if got := previews(); !strings.HasPrefix(got, maskedPreview) || !strings.HasSuffix(got, "alpha") {
		t.Fatalf("reversed: %s", got)
	}
	test.Tap(memory)
	if s.order.key != byDefault || memory.Icon != nil {
		t.Fatal("a third click does not go back to the default order")
	}
	if got := previews(); !strings.HasPrefix(got, maskedPreview) { // newest first
		t.Fatalf("default order: %s", got)
	}

	// The sensitive row is masked.
	u.win.Resize(fyne.NewSize(1100, 720))
	all := strings.Join(textsOf(s.rows.view), "\n")
	if strings.Contains(all, "password rotates") || !strings.Contains(all, maskedPreview) {
		t.Fatalf("the list shows %q", all)
	}

	// A search marks the matched words, and the order chosen stays.
	test.Tap(s.headers.Objects[3].(*widget.Button)) // Created: newest first
	s.search.SetText("deploy")
	s.refresh()
	if len(s.rows.data) == 0 || s.order.key != byCreated {
		t.Fatalf("search: %d rows, order %v", len(s.rows.data), s.order)
	}
}

func TestHighlight(t *testing.T) {
	for _, tc := range []struct{ text, query, want string }{
		{"Deploys go through ops/deploy.sh", "deploy", "[Deploys] go through ops/[deploy].sh"},
		{"the CI timeout is 10 minutes", "timeouts", "the CI [timeout] is 10 minutes"},
		{"a tab and the tabs", "the tab", "a [tab] and the [tabs]"},
		{"nothing here", "quokka", "nothing here"},
		{"", "x", ""},
	} {
		var b strings.Builder
		for _, seg := range highlight(tc.text, tc.query) {
			ts := seg.(*widget.TextSegment)
			if ts.Style == widget.RichTextStyleStrong {
				b.WriteString("[" + ts.Text + "]")
			} else {
				b.WriteString(ts.Text)
			}
		}
		if got := b.String(); got != tc.want {
			t.Errorf("highlight(%q, %q) = %q, want %q", tc.text, tc.query, got, tc.want)
		}
	}
}

func TestListSortNext(t *testing.T) {
	var o listSort
	for i, want := range []listSort{{byText, false}, {byText, true}, {}, {byCreated, true}, {byCreated, false}, {}, {byCreated, true}, {byTrust, false}} {
		key := []sortKey{byText, byText, byText, byCreated, byCreated, byCreated, byCreated, byTrust}[i]
		if o = o.next(key); o != want {
			t.Fatalf("click %d on %v: %v, want %v", i+1, key, o, want)
		}
	}
}

// TestStatusLineShowsAllOnClick: a long status message stays on one line
// and a click shows it whole.
func TestStatusLineShowsAllOnClick(t *testing.T) {
	u, _ := openUI(t)
	long := strings.Repeat("a rejected write said many things; ", 12)
	u.setStatus(long)
	if u.status.Truncation != fyne.TextTruncateEllipsis || u.status.Wrapping != fyne.TextWrapOff {
		t.Fatal("the status line wraps: it would push the tabs down")
	}
	test.Tap(u.status)
	top := u.win.Canvas().Overlays().Top()
	if top == nil || !hasLabel(top, long) {
		t.Fatal("a click on the status line does not show the whole message")
	}
}

func TestSnippet(t *testing.T) {
	for _, tc := range []struct{ text, query, want string }{
		{"deploys go through ops/deploy.sh", "deploy", "deploys go through ops/deploy.sh"},
		{"one two three four five six seven eight nine: the deploy goes out", "deploy", "…eight nine: the deploy goes out"},
		{"one two three four five six seven eight", "quokka", "one two three four five six seven eight"},
	} {
		if got := snippet(tc.text, tc.query); got != tc.want {
			t.Errorf("snippet(%q, %q) = %q, want %q", tc.text, tc.query, got, tc.want)
		}
	}
}

// TestMarkedRowEndsInEllipsis: a search row whose text has words in bold
// and is too long for its column ends in "…" within the column, as an
// unmarked row does.
func TestMarkedRowEndsInEllipsis(t *testing.T) {
	u, _ := openUI(t)
	s := u.memories
	s.query = "deploy"
	long := "the deploy of the billing service waits for two approvals and a green staging run, then the deploy bot tags the release and posts the changelog to the team channel"
	for _, tc := range []struct{ name, text string }{{"marked", long}, {"unmarked", strings.ReplaceAll(long, "deploy", "rollout")}} {
		t.Run(tc.name, func(t *testing.T) {
			o := s.list.CreateItem()
			s.rows.data = []row{{Partition: "internal", Trust: "standard", Preview: tc.text}}
			s.list.UpdateItem(0, o)
			o.Resize(fyne.NewSize(700, o.MinSize().Height))
			textCol := o.(*fyne.Container).Objects[4]
			var shown []*canvas.Text
			var walk func(fyne.CanvasObject, fyne.Position)
			right := float32(0)
			walk = func(o fyne.CanvasObject, at fyne.Position) {
				if txt, ok := o.(*canvas.Text); ok && txt.Visible() && txt.Text != "" {
					shown = append(shown, txt)
					right = max(right, at.X+txt.Position().X+fyne.MeasureText(txt.Text, txt.TextSize, txt.TextStyle).Width)
					return
				}
				for _, k := range children(o) {
					walk(k, at.Add(o.Position()))
				}
			}
			walk(textCol, fyne.NewPos(-textCol.Position().X, 0)) // positions inside the column
			var b strings.Builder
			for _, txt := range shown {
				b.WriteString(txt.Text)
			}
			got := b.String()
			if !strings.HasSuffix(got, "…") || !strings.HasPrefix(tc.text, strings.TrimSuffix(got, "…")) {
				t.Fatalf("the row shows %q: want a prefix of the text and \"…\"", got)
			}
			if w := textCol.Size().Width; right > w+1 {
				t.Fatalf("the row's text reaches %v, past its column's %v", right, w)
			}
		})
	}
}

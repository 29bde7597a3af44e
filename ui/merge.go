package ui

import (
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/engram-app/engram/app"
)

// The memory list selects one row at a time, so a merge starts from a
// memory's detail: Merge… asks for a second memory among those listed
// (the search and filters find it), and the strategy, and shows the
// merged text (app.Service.MergePreview) before the user merges.

// mergeHow explains each strategy in a line.
var mergeHow = map[app.MergeStrategy]string{
	app.MergeUnion:        "keeps every distinct text, oldest first; the result has the lower trust",
	app.MergePrioritize:   "keeps the text of the more trusted memory (then the more confident, then the newer)",
	app.MergeIntersection: "keeps only the lines and sentences both memories hold; the result has the lower trust",
}

// merge asks which memory to merge the shown one with, and how, showing
// the merged text; Merge stores it and archives both sources, each with
// a pointer to it. Merge is enabled only while the preview shows a text:
// not before a second memory is chosen, nor while the strategy refuses
// them (nothing in common for an intersection), which the preview says.
func (d *detailPane) merge() {
	m := d.mem
	var others []row
	var names []string
	if d.u.memories != nil {
		for _, r := range d.u.memories.rows.data {
			if r.ID != m.ID {
				others = append(others, r)
				title := titleOf(r.Preview)
				if r.Partition == app.Partition("sensitive") {
					title = maskedPreview
				}
				names = append(names, fmt.Sprintf("%s (%s)", title, shortID(r.ID)))
			}
		}
	}
	var strategies []string
	for _, st := range app.MergeStrategies {
		strategies = append(strategies, string(st))
	}
	how := wrapped("")
	preview := wrappedItalic("Choose the memory to merge with.")
	with := newKeySelect(d.u, names, nil)
	with.PlaceHolder = "a memory in the list"
	strategy := newKeySelect(d.u, strategies, nil)
	// ok merges; it is enabled only while the preview shows a text.
	var ok *keyButton
	update := func() {
		ok.Disable()
		st := app.MergeStrategy(strategy.Selected)
		how.SetText(mergeHow[st])
		i := with.SelectedIndex()
		if i < 0 {
			preview.SetText("Choose the memory to merge with.")
			return
		}
		other := others[i]
		// The merged text of a sensitive memory is shown as the detail
		// shows its text: once the user revealed it.
		hidden := (m.Sensitive() || other.Partition == app.Partition("sensitive")) && !d.revealed
		in := app.MergeInput{IDs: []string{m.ID, other.ID}, Strategy: st}
		h := d.u.h
		var r app.MergePreviewResponse
		d.u.background(func() error { r = h.Service().MergePreview(d.u.ctx, h.Operator(), in); return nil }, func(error) {
			if with.SelectedIndex() != i || app.MergeStrategy(strategy.Selected) != st {
				return // the choice changed meanwhile
			}
			if !r.OK() {
				why := strings.TrimSuffix(strings.TrimPrefix(r.Message, "invalid: "), "; nothing was merged")
				preview.SetText("Cannot merge: " + why + ".")
				return
			}
			ok.Enable()
			if hidden {
				preview.SetText(masked + ": Show the memory's text in the detail to see it here")
				return
			}
			preview.SetText(r.Content)
		})
	}
	items := []*widget.FormItem{
		widget.NewFormItem("Merge with", with),
		widget.NewFormItem("Strategy", container.NewVBox(strategy, how)),
		widget.NewFormItem("Merged text", preview),
	}
	items[0].HintText = "search or filter the list to find another memory"
	dlg := dialog.NewCustomWithoutButtons("Merge "+memoryTitle(m), widget.NewForm(items...), d.u.win)
	submit := func() {
		i := with.SelectedIndex()
		if ok.Disabled() || i < 0 {
			return
		}
		dlg.Hide()
		d.mergeNow(app.MergeInput{IDs: []string{m.ID, others[i].ID}, Strategy: app.MergeStrategy(strategy.Selected)})
	}
	ok = newKeyButton(d.u, "Merge", theme.ConfirmIcon(), submit)
	ok.Importance = widget.HighImportance
	cancel := newKeyButton(d.u, "Cancel", theme.CancelIcon(), dlg.Hide)
	dlg.SetButtons([]fyne.CanvasObject{cancel, ok})
	with.OnChanged = func(string) { update() }
	strategy.OnChanged = func(string) { update() }
	strategy.SetSelected(string(app.MergeUnion))
	dlg.Resize(fyne.NewSize(640, 420))
	dlg.Show()
	d.u.keyed(dlg.Hide, submit)
	d.u.win.Canvas().Focus(with)
}

// mergeNow merges as in says and shows the merged memory.
func (d *detailPane) mergeNow(in app.MergeInput) {
	d.u.h.Touch()
	h := d.u.h
	var r app.MemoryResponse
	d.u.background(func() error { r = h.Service().Merge(d.u.ctx, h.Operator(), in); return nil }, func(error) {
		if d.u.showResponse(r.Response) && r.Memory != nil {
			d.u.setStatus(fmt.Sprintf("Merged (%s) into a new memory; the two are archived, each pointing to it", in.Strategy))
			d.show(r.Memory.ID)
			if d.u.memories != nil {
				d.u.memories.refresh()
			}
		}
	})
}

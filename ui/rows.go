package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
)

// rows is a list widget over a slice. Only the UI goroutine changes the
// slice (set), so the list reads it without locks; the list draws only
// the visible rows however long the slice is.
//
// Fyne's data bindings would do the same, but they notify their listeners
// from other goroutines, and a list that refreshes while the UI goroutine
// replaces its data races with it.
type rows[T any] struct {
	data []T
	list *widget.List
}

func newRows[T any](create func() fyne.CanvasObject, update func(T, fyne.CanvasObject)) *rows[T] {
	r := &rows[T]{}
	r.list = widget.NewList(
		func() int { return len(r.data) },
		create,
		func(i widget.ListItemID, o fyne.CanvasObject) {
			if i >= 0 && i < len(r.data) {
				update(r.data[i], o)
			}
		})
	return r
}

// set replaces the rows and redraws the visible ones.
func (r *rows[T]) set(data []T) {
	r.data = data
	r.list.Refresh()
}

// at returns row i, if there is one.
func (r *rows[T]) at(i int) (T, bool) {
	var zero T
	if i < 0 || i >= len(r.data) {
		return zero, false
	}
	return r.data[i], true
}

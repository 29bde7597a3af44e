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
	// view is the widget to put on screen: the list, or the keyList
	// around it when the rows take keys of their own.
	view fyne.CanvasObject
}

func newRows[T any](create func() fyne.CanvasObject, update func(T, fyne.CanvasObject)) *rows[T] {
	r := &rows[T]{}
	r.list = widget.NewList(r.length, create, r.updater(update))
	r.view = r.list
	return r
}

// newKeyedRows is newRows whose list, once focused (a click on a row
// focuses it), gives each key to key first and keeps only those key
// does not take: the arrows still move, Delete can forget.
func newKeyedRows[T any](create func() fyne.CanvasObject, update func(T, fyne.CanvasObject), key func(*fyne.KeyEvent) bool) *rows[T] {
	r := &rows[T]{}
	l := &rowList{key: key}
	l.Length, l.CreateItem, l.UpdateItem = r.length, create, r.updater(update)
	l.ExtendBaseWidget(l)
	r.list, r.view = &l.List, l
	return r
}

func (r *rows[T]) length() int { return len(r.data) }

func (r *rows[T]) updater(update func(T, fyne.CanvasObject)) func(widget.ListItemID, fyne.CanvasObject) {
	return func(i widget.ListItemID, o fyne.CanvasObject) {
		if i >= 0 && i < len(r.data) {
			update(r.data[i], o)
		}
	}
}

// rowList is a list that offers its keys to key before its own handler.
type rowList struct {
	widget.List
	key func(*fyne.KeyEvent) bool
}

func (l *rowList) TypedKey(ev *fyne.KeyEvent) {
	if l.key != nil && l.key(ev) {
		return
	}
	l.List.TypedKey(ev)
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

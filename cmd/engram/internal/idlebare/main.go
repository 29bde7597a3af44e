// Command idlebare is the baseline of cmd/engram's TestIdleMemory: a bare
// Fyne window of Engram's size holding a list of 1,000 one-line rows (or
// the number in its first argument), with Fyne's default theme and
// nothing else. What Engram holds idle above it is what Engram adds.
package main

import (
	"fmt"
	"os"
	"strconv"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/widget"
)

func main() {
	n := 1000
	if len(os.Args) > 1 {
		var err error
		if n, err = strconv.Atoi(os.Args[1]); err != nil {
			fmt.Fprintln(os.Stderr, "idlebare: the argument is the number of rows:", err)
			os.Exit(2)
		}
	}
	a := app.NewWithID("dev.engram.idlebare")
	w := a.NewWindow("Bare")
	rows := make([]string, n)
	for i := range rows {
		rows[i] = fmt.Sprintf("the team deploys the service from the main branch after review (note %d)", i)
	}
	list := widget.NewList(
		func() int { return len(rows) },
		func() fyne.CanvasObject { return widget.NewLabel("") },
		func(id widget.ListItemID, o fyne.CanvasObject) { o.(*widget.Label).SetText(rows[id]) },
	)
	w.SetContent(list)
	w.Resize(fyne.NewSize(1100, 720))
	w.ShowAndRun()
}

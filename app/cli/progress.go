package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"
)

// progressWidth is how many cells the bar of drawProgress takes.
const progressWidth = 30

// isTerminal reports whether w is a terminal (a file that is a tty).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// progress returns a function that shows on standard error how far a
// long command has come ("importing 12,800 of 100,000 [####      ] 12%"),
// rewriting one line, and a function that clears that line; both are nil
// when standard error is not a terminal (a pipe, a file, a test), so
// nothing is written there.
func (c *cmd) progress(verb string) (show func(done, total int), clear func()) {
	w := c.o.Stderr
	if !isTerminal(w) {
		return nil, nil
	}
	return func(done, total int) { drawProgress(w, verb, done, total) },
		func() { fmt.Fprint(w, "\r\033[K") }
}

// drawProgress writes one line of progress, from its start (a carriage
// return, then the line, then clearing what is left of an older one).
func drawProgress(w io.Writer, verb string, done, total int) {
	done = max(0, min(done, total))
	cells, pct := 0, 100
	if total > 0 {
		cells, pct = done*progressWidth/total, done*100/total
	}
	fmt.Fprintf(w, "\r%s %s of %s [%s%s] %3d%%\033[K", verb, thousands(done), thousands(total),
		strings.Repeat("#", cells), strings.Repeat(" ", progressWidth-cells), pct)
}

// thousands writes n with a comma between groups of three digits.
func thousands(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

package connect

import (
	"fmt"
	"strings"
)

// Diff shows the plan's change as a unified diff (empty when there is
// none). Engram's edits touch one contiguous region, so the diff has one
// hunk: the lines before and after it that did not change are context.
func (p Plan) Diff() string {
	if !p.Changes() {
		return ""
	}
	a, b := diffLines(string(p.Before)), diffLines(string(p.After))
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	const context = 3
	from := max(pre-context, 0)
	aEnd, bEnd := len(a)-suf, len(b)-suf
	aTo, bTo := min(aEnd+context, len(a)), min(bEnd+context, len(b))
	var s strings.Builder
	oldName, newName := p.Path, p.Path
	if !p.existed {
		oldName = "/dev/null"
	}
	if p.Action == Delete {
		newName = "/dev/null"
	}
	fmt.Fprintf(&s, "--- %s\n+++ %s\n", oldName, newName)
	fmt.Fprintf(&s, "@@ -%s +%s @@\n", hunkRange(from, aTo-from), hunkRange(from, bTo-from))
	for _, l := range a[from:pre] {
		s.WriteString(" " + l + "\n")
	}
	for _, l := range a[pre:aEnd] {
		s.WriteString("-" + l + "\n")
	}
	for _, l := range b[pre:bEnd] {
		s.WriteString("+" + l + "\n")
	}
	for _, l := range a[aEnd:aTo] {
		s.WriteString(" " + l + "\n")
	}
	return s.String()
}

func hunkRange(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

// diffLines splits text into lines, marking a last line without a newline.
func diffLines(text string) []string {
	if text == "" {
		return nil
	}
	lines := strings.Split(text, "\n")
	if lines[len(lines)-1] == "" {
		return lines[:len(lines)-1]
	}
	lines[len(lines)-1] += "\n\\ No newline at end of file"
	return lines
}

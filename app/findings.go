package app

import (
	"strings"

	"github.com/engram-app/engram/quarantine"
	"github.com/engram-app/engram/quarantine/guard"
)

// queueFindings converts the guard's findings for a queue item. The guard
// gives offsets into the text it screened; the item holds the text as it
// would be stored (secrets redacted, injection markers neutralised), so
// each span is found again in it: the same words, in order. A span that
// is no longer in the stored text (a redacted secret, a rewritten marker)
// gets Start and End -1, and the review lists it beside the text.
func queueFindings(screened, stored string, fs []guard.Finding) []quarantine.Finding {
	out := make([]quarantine.Finding, 0, len(fs))
	for _, f := range fs {
		q := quarantine.Finding{Kind: f.Kind, Type: f.Type, Level: f.Level, Reason: f.Reason, Start: -1, End: -1}
		if f.Start >= 0 && f.End > f.Start && f.End <= len(screened) {
			span := screened[f.Start:f.End]
			if screened == stored {
				q.Start, q.End = f.Start, f.End
			} else if i := nearest(stored, span, f.Start); i >= 0 {
				q.Start, q.End = i, i+len(span)
			}
		}
		out = append(out, q)
	}
	return out
}

// nearest returns the offset of the occurrence of span in s closest to
// near, or -1.
func nearest(s, span string, near int) int {
	best := -1
	for from := 0; ; {
		i := strings.Index(s[from:], span)
		if i < 0 {
			return best
		}
		i += from
		if best < 0 || abs(i-near) < abs(best-near) {
			best = i
		}
		from = i + 1
	}
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

package quarantine

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/engram-app/engram/vault"
)

// Review is what the guardian looks at besides the item: the live
// memories it might conflict with.
type Review struct {
	Existing []vault.Memory
}

// Guardian proposes a decision for a pending item from three checks:
// injection risk (from the guard's findings and threat score), source
// reliability (the memory's trust and source), and conflicts with existing
// memories in the same field (a near-duplicate subject with different
// content). It returns the proposal and its reasons. It changes nothing.
func Guardian(it *Item, r Review) (Proposal, []string) {
	var why []string
	score := 0
	switch {
	case it.Threat >= 7:
		score += 3
		why = append(why, fmt.Sprintf("high injection threat (%d/10)", it.Threat))
	case it.Threat >= 4:
		score++
		why = append(why, fmt.Sprintf("moderate injection threat (%d/10)", it.Threat))
	}
	for _, f := range it.Findings {
		if f.Kind == "injection" {
			score++
			why = append(why, "injection pattern: "+f.Type)
			break
		}
	}
	switch it.Memory.Source.Type {
	case vault.SourceWebFetch:
		score++
		why = append(why, "content from the web is unreliable")
	case vault.SourceUserMessage, vault.SourceExplicitSave:
		why = append(why, "the user is the source")
		score--
	}
	if c := conflicts(it.Memory, r.Existing); c != "" {
		score++
		why = append(why, "conflicts with memory "+c)
	}
	switch {
	case score >= 3:
		return ProposeHostile, why
	case score >= 1:
		return ProposeSuspicious, why
	}
	if len(why) == 0 {
		why = append(why, "no injection signal, reliable source, no conflict")
	}
	return ProposeSafe, why
}

// conflicts returns the id of an existing memory in the same field whose
// wording overlaps strongly with m's but says something else.
func conflicts(m vault.Memory, existing []vault.Memory) string {
	mine := words(m.Content)
	if len(mine) < 3 {
		return ""
	}
	for _, e := range existing {
		if e.Field != m.Field || e.Content == m.Content {
			continue
		}
		theirs := words(e.Content)
		inter := 0
		for w := range mine {
			if theirs[w] {
				inter++
			}
		}
		union := len(mine) + len(theirs) - inter
		if union > 0 && float64(inter)/float64(union) >= 0.5 {
			return e.ID
		}
	}
	return ""
}

func words(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len(w) > 2 {
			out[w] = true
		}
	}
	return out
}

package quarantine

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/engram-app/engram/vault"
)

// Review is what the guardian looks at besides the item: the live
// memories it might conflict with.
type Review struct {
	Existing []vault.Memory
	// words are the word sets of Existing, made once by NewReview for a
	// review that serves many items.
	words []map[string]bool
	// index, made by NewReview, finds the memories of Existing that share
	// a word with an item, so that an item is compared with those alone
	// and not with every memory.
	index *reviewIndex
}

// reviewIndex maps each word to the positions in Review.Existing of the
// memories that have it, in increasing order.
type reviewIndex struct {
	postings map[string][]int32
	// listed is how many memories of Existing NewReview was given: the
	// ones after them were added (Add).
	listed int
}

// NewReview is a Review of existing that splits each memory's text into
// words once, however many items it reviews: the review queue lists
// every pending item against the live memories of its field.
func NewReview(existing []vault.Memory) Review {
	r := Review{Existing: existing, words: make([]map[string]bool, len(existing)), index: &reviewIndex{postings: map[string][]int32{}, listed: len(existing)}}
	for i := range existing {
		r.words[i] = words(existing[i].Content)
		r.index.add(int32(i), r.words[i])
	}
	return r
}

func (x *reviewIndex) add(i int32, ws map[string]bool) {
	for w := range ws {
		x.postings[w] = append(x.postings[w], i)
	}
}

// Add puts m among the existing memories as a listing of the vault would
// now hold it (a review kept over many items while memories are stored,
// by an import): after the memories of the partitions before its own in
// vault.LivePartitions, and among those of its partition in order of id.
// Existing must be such a listing (vault.List's order). m is appended to
// Existing; the guardian reads the memories in listing order.
func (r *Review) Add(m vault.Memory) {
	if r.index == nil || len(r.words) != len(r.Existing) {
		*r = NewReview(r.Existing)
	}
	r.Existing = append(r.Existing, m)
	r.words = append(r.words, words(m.Content))
	r.index.add(int32(len(r.Existing)-1), r.words[len(r.words)-1])
}

// before reports whether the memory at position i of Existing comes
// before the one at j in a listing of them: as given to NewReview, or
// added (Add) where a listing puts it.
func (r *Review) before(i, j int) bool {
	if i < r.index.listed && j < r.index.listed {
		return i < j
	}
	a, b := &r.Existing[i], &r.Existing[j]
	if pa, pb := slices.Index(vault.LivePartitions, a.Partition), slices.Index(vault.LivePartitions, b.Partition); pa != pb {
		return pa < pb
	}
	return a.ID < b.ID
}

// suspiciousRisk is the write guard's risk from which a write is
// suspicious (guard.suspiciousAt).
const suspiciousRisk = 0.5

// Guardian proposes a decision for a pending item from what Engram
// itself observed: the guard's threat score, risk and findings, whether
// the write completes an order split over two writes, the channel it came
// through (content from the web is unreliable), and conflicts with
// existing memories in the same field (a near-duplicate subject with
// different content). A memory held for re-evaluation is never proposed
// safe: the user found its source unreliable, and nothing Engram sees
// outweighs that. It returns the proposal and its reasons, in plain
// words. It changes nothing.
//
// A proposal never rests on what the writing agent says about itself:
// a source an agent names (Source.Reported, or the source type of an item
// queued before agents' claims were kept apart) is mentioned, never
// credited. Only the user's own writes count as the user's.
func Guardian(it *Item, r Review) (Proposal, []string) {
	var why []string
	score := 0
	switch {
	case it.Threat >= 7:
		score += 3
		why = append(why, "it reads as a strong instruction aimed at agents")
	case it.Threat >= 4:
		score++
		why = append(why, "it reads as an instruction aimed at agents")
	}
	if it.Risk >= suspiciousRisk {
		score++
		why = append(why, "the write guard rates it "+it.RiskLevel())
	}
	for _, f := range it.Findings {
		if f.Kind == "injection" {
			score++
			what := f.Reason
			if what == "" {
				what = strings.ReplaceAll(f.Type, "_", " ")
			}
			why = append(why, "the guard found an instruction to agents in it ("+what+")")
			break
		}
	}
	if it.Joined != "" {
		score += 2
		why = append(why, "read together with an earlier write of the same agent it is one instruction split in two")
		if p := it.Partner; p != nil {
			if p.Held {
				why = append(why, "the other half is stored as memory "+p.ID+": it is held out of every agent's recall until you decide")
			} else {
				why = append(why, "the other half is stored as memory "+p.ID+"; "+p.Why)
			}
		}
	}
	if it.Kind == KindReevaluation {
		score++
		why = append(why, "you found its source ("+it.Agent+") unreliable: it stays out of every agent's reach until you decide")
	}
	if it.Memory.Source.Type == vault.SourceWebFetch {
		score++
		why = append(why, "content from the web is unreliable")
	}
	if it.Agent == vault.AgentOperator {
		score--
		why = append(why, "you wrote it")
	} else if claim := claimedSource(it.Memory.Source); claim != "" {
		why = append(why, fmt.Sprintf("the agent says the source is %s; an agent cannot vouch for that, so it counts for nothing", claim))
	}
	if c := r.conflicts(it.Memory); c != "" {
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
		why = append(why, "no instruction pattern, low risk, no conflict")
	}
	return ProposeSafe, why
}

// claimedSource is the user-level source an agent named for its write:
// Source.Reported, or for items queued before it existed the source type
// itself.
func claimedSource(s vault.Source) string {
	for _, t := range []vault.SourceType{s.Reported, s.Type} {
		switch t {
		case vault.SourceUserMessage:
			return "a message from the user"
		case vault.SourceExplicitSave:
			return "the user asking to save it"
		}
	}
	return ""
}

// conflicts returns the id of an existing memory in the same field whose
// wording overlaps strongly with m's but says something else: the first
// such memory in listing order.
func (r Review) conflicts(m vault.Memory) string {
	mine := words(m.Content)
	if len(mine) < 3 {
		return ""
	}
	if r.index != nil && len(r.words) == len(r.Existing) {
		return r.indexedConflicts(m, mine)
	}
	for i, e := range r.Existing {
		if e.Field != m.Field || e.Content == m.Content {
			continue
		}
		var theirs map[string]bool
		if len(r.words) == len(r.Existing) {
			theirs = r.words[i]
		} else {
			theirs = words(e.Content)
		}
		if overlapping(mine, theirs) {
			return e.ID
		}
	}
	return ""
}

// indexedConflicts is conflicts through the index. Two word sets overlap
// (overlapping) only when they share at least half of mine's words; so
// a memory that does overlap holds at least one of any len(mine) -
// ceil(len(mine)/2) + 1 of mine's words. Those with the fewest memories
// find the candidates, and only those are compared.
func (r Review) indexedConflicts(m vault.Memory, mine map[string]bool) string {
	ws := make([]string, 0, len(mine))
	for w := range mine {
		ws = append(ws, w)
	}
	slices.SortFunc(ws, func(a, b string) int {
		if c := len(r.index.postings[a]) - len(r.index.postings[b]); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	need := (len(mine) + 1) / 2
	best := -1
	for _, w := range ws[:len(mine)-need+1] {
		for _, p := range r.index.postings[w] {
			i := int(p)
			if best >= 0 && !r.before(i, best) {
				continue
			}
			if e := &r.Existing[i]; e.Field != m.Field || e.Content == m.Content || !overlapping(mine, r.words[i]) {
				continue
			}
			best = i
		}
	}
	if best < 0 {
		return ""
	}
	return r.Existing[best].ID
}

// overlapping reports whether two word sets share at least half of their
// union.
func overlapping(mine, theirs map[string]bool) bool {
	inter := 0
	for w := range mine {
		if theirs[w] {
			inter++
		}
	}
	union := len(mine) + len(theirs) - inter
	return union > 0 && float64(inter)/float64(union) >= 0.5
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

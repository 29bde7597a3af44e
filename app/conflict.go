package app

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/engram-app/engram/app/recall"
	"github.com/engram-app/engram/vault"
)

// ConflictStrategy decides which of two conflicting memories stays in
// recall. The loser is archived with a pointer to the winner, never
// deleted: both stay in the history.
type ConflictStrategy string

// Conflict strategies.
const (
	// ResolveTrust (the default): the higher trust wins; on equal trust
	// the newer memory wins.
	ResolveTrust ConflictStrategy = "trust"
	// ResolveRecency: the newer memory wins.
	ResolveRecency ConflictStrategy = "recency"
	// ResolveConfidence: the higher current confidence wins; on a tie the
	// newer memory wins.
	ResolveConfidence ConflictStrategy = "confidence"
	// ResolveAsk: the new memory waits in the review queue for the user.
	ResolveAsk ConflictStrategy = "ask"
)

// Thresholds of the write-time checks; overlaps are Jaccard indexes of
// content words.
//
// The checks compare words, not embeddings. Embeddings cannot judge
// duplicates: with the built-in encoder "the user prefers dark roast
// coffee" and "... light roast coffee" score 0.956 while the same sentence
// with a full stop scores 0.864. And a contradiction differs by at most
// maxDiffWords words, so its words already say it is on the same subject.
// This also keeps the embedding off the write path (embedqueue.go).
const (
	nearDuplicateOverlap = 0.9
	sameSubjectOverlap   = 0.5
	// candidates is how many earlier memories each check looks at.
	candidates = 5
	// neighbourTerms is how many of a new memory's rarest words find its
	// candidates: a near duplicate has them all, a contradiction (at most
	// maxDiffWords different words) at least half.
	neighbourTerms = 8
)

// neighbour is an earlier memory close to a new one.
type neighbour struct {
	doc     *recall.Doc
	overlap float64 // of words: the same subject
	// pairs is the overlap of adjacent word pairs, which keeps word order:
	// "writer 3 note 0" and "writer 0 note 3" share every word, not a
	// meaning.
	pairs float64
	same  bool // the same text once case, spacing and punctuation are ignored
	// clash: the texts disagree (a negation or different numbers), so
	// however alike they are they are not duplicates.
	clash bool
	// diff is how many words are in one text and not the other.
	diff int
	// negation: one text negates what the other states. Different numbers
	// alone are too weak to archive anything ("build 41 passed", "build 42
	// passed"): they only earn a warning.
	negation bool
}

func (n neighbour) duplicate() bool {
	return n.same || !n.clash && n.pairs >= nearDuplicateOverlap
}

func (n neighbour) sameSubject() bool {
	return n.overlap >= sameSubjectOverlap
}

// maxDiffWords is how many words two statements may differ by and still
// be one statement and its contradiction ("deploys happen on fridays" /
// "deploys never happen on fridays"). Two long texts on one topic share
// half their words and differ in many; one may say "not" somewhere
// without contradicting the other (SciFact abstracts did).
const maxDiffWords = 4

// differ counts the words in one text and not the other.
func differ(a, b text) int {
	n := 0
	for w := range a.words {
		if !b.words[w] {
			n++
		}
	}
	for w := range b.words {
		if !a.words[w] {
			n++
		}
	}
	return n
}

// neighbours finds earlier memories close to m by keyword that the caller
// may read, in the same partition and field, not archived.
func (s *writer) neighbours(ctx context.Context, c Caller, m *vault.Memory) []neighbour {
	if !s.idx.Enabled() || s.idx.WaitBuilt(ctx) != nil {
		return nil
	}
	canRead := s.reader(c)
	allow := func(d *recall.Doc) bool {
		return d.Partition == m.Partition && d.Field == m.Field &&
			canRead(vault.Info{Partition: d.Partition, Sealed: d.Sensitive, Owner: d.Owner, Field: d.Field, Product: d.Product})
	}
	res, err := s.idx.Engine().Search(ctx, recall.Query{Text: m.Content, Mode: recall.Exact, Limit: candidates, Now: s.now(), Allow: allow, MaxTerms: neighbourTerms})
	if err != nil {
		s.log.Warn("duplicate check", "err", err)
		return nil
	}
	mine := analyse(m.Content)
	out := make([]neighbour, 0, len(res.Hits))
	for _, h := range res.Hits {
		theirs := analyse(h.Doc.Content)
		n := neighbour{doc: h.Doc, overlap: overlap(theirs.words, mine.words), pairs: overlap(theirs.pairs, mine.pairs),
			same: theirs.norm == mine.norm, clash: incompatible(theirs, mine), diff: differ(theirs, mine)}
		n.negation = theirs.negated != mine.negated && n.diff <= maxDiffWords
		out = append(out, n)
	}
	return out
}

// normalise lowercases s and reduces everything that is not a letter or a
// digit to single spaces.
func normalise(s string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) }), " ")
}

// text is what the duplicate and conflict checks compare of a memory,
// computed once per text.
type text struct {
	norm    string
	words   map[string]bool
	pairs   map[string]bool // adjacent word pairs
	negated bool
	numbers []string // words with digits, in order
}

func analyse(s string) text {
	t := text{norm: normalise(s), words: map[string]bool{}, pairs: map[string]bool{}}
	ws := strings.Fields(t.norm)
	for i, w := range ws {
		t.words[w] = true
		t.negated = t.negated || negations[w]
		if strings.IndexFunc(w, unicode.IsDigit) >= 0 {
			t.numbers = append(t.numbers, w)
		}
		if i > 0 {
			t.pairs[ws[i-1]+" "+w] = true
		}
	}
	if len(ws) == 1 {
		t.pairs[ws[0]] = true
	}
	return t
}

// overlap is the Jaccard index of two sets.
func overlap(wa, wb map[string]bool) float64 {
	inter := 0
	for w := range wa {
		if wb[w] {
			inter++
		}
	}
	union := len(wa) + len(wb) - inter
	if union == 0 {
		return 0
	}
	return float64(inter) / float64(union)
}

var negations = map[string]bool{"not": true, "no": true, "never": true, "none": true, "nobody": true, "nothing": true,
	"don": true, "doesn": true, "didn": true, "isn": true, "aren": true, "wasn": true, "weren": true, "won": true,
	"cannot": true, "can": false, "shouldn": true, "mustn": true, "longer": true, "stopped": true, "instead": true}

// incompatible reports whether two texts about the same subject disagree:
// one negates what the other states, or they give different numbers
// (versions, ports, sizes, dates) or the same numbers in another order.
func incompatible(a, b text) bool {
	if a.negated != b.negated {
		return true
	}
	return len(a.numbers) > 0 && len(b.numbers) > 0 && !slices.Equal(a.numbers, b.numbers)
}

// newerWins applies the strategy to an earlier memory and a new one.
func (s *writer) newerWins(old, m *vault.Memory) bool {
	switch s.conflicts {
	case ResolveRecency:
		return true
	case ResolveConfidence:
		return m.Confidence >= CurrentConfidence(old, s.now())
	}
	return !old.Trust.Above(m.Trust)
}

// mayContradict names the earlier memories on the same subject whose
// numbers differ from the new one's: not archived (the numbers may name
// different things), but the writer hears of them.
func mayContradict(near []neighbour) []string {
	var out []string
	for _, n := range near {
		if n.sameSubject() && n.clash && !n.negation && n.diff <= maxDiffWords {
			out = append(out, fmt.Sprintf("may contradict memory %s (different numbers); store with supersedes=%s to replace it", n.doc.ID, n.doc.ID))
		}
	}
	return out
}

// duplicateOf merges a new memory into the earlier one it repeats: the
// earlier memory gains a consistent observation (and the new tags), and
// nothing is stored twice.
func (s *writer) duplicateOf(ctx context.Context, req Request, old string, m *vault.Memory, warnings []string) MemoryResponse {
	a := vault.Actor{Agent: req.Caller.Name(), Session: req.Caller.Session, Reason: "the same memory was written again"}
	got, err := s.v.Verify(old, vault.Observed, "duplicate write merged", a)
	if err != nil {
		return MemoryResponse{Response: s.fail("merge duplicate", err)}
	}
	if extra := slices.DeleteFunc(slices.Clone(m.Tags), func(t string) bool { return slices.Contains(got.Tags, t) }); len(extra) > 0 {
		a.Reason = "tags of a merged duplicate"
		if got, err = s.v.Update(old, vault.OpMerge, a, func(x *vault.Memory) error { x.Tags = append(x.Tags, extra...); return nil }); err != nil {
			return MemoryResponse{Response: s.fail("merge duplicate", err)}
		}
	}
	s.idx.Put(&got)
	warnings = append(warnings, fmt.Sprintf("duplicate of memory %s: merged into it (recorded as a consistent observation) instead of stored twice", old))
	return MemoryResponse{Response: Response{Status: StatusOK}, Memory: &got, Warnings: warnings}
}

// conflictWith finds the earlier memory a new one contradicts: the one
// the writer says it supersedes, else a readable memory on the same
// subject in the same field that the new one negates (or that negates
// it).
func (s *writer) conflictWith(ctx context.Context, req Request, m *vault.Memory, supersedes string, near []neighbour) (*vault.Memory, string, Response) {
	if supersedes != "" {
		got := s.get(req, supersedes)
		if !got.OK() {
			return nil, "", got.Response
		}
		if got.Memory.Partition == vault.Archive {
			return nil, "", Response{StatusInvalid, fmt.Sprintf("memory %s is archived already", supersedes)}
		}
		return got.Memory, "the writer says it supersedes it", Response{Status: StatusOK}
	}
	for _, n := range near {
		if !n.sameSubject() || !n.negation {
			continue
		}
		old, err := s.v.Get(n.doc.ID, vault.Actor{Agent: req.Caller.Name(), Session: req.Caller.Session, Reason: "conflict check"})
		if err != nil {
			continue
		}
		return &old, "same subject, incompatible content", Response{Status: StatusOK}
	}
	return nil, "", Response{Status: StatusOK}
}

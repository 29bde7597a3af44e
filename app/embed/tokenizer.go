package embed

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// The tokenizer reproduces, id for id, the SentencePiece unigram encoder of
// the TF.js Universal Sentence Encoder (tokenizer/index.js in
// @tensorflow-models/universal-sentence-encoder). That implementation has
// quirks which the model was exported and tested with, so they are kept on
// purpose and commented where they happen:
//
//   - only U+0020 becomes the word separator; tabs and newlines stay as they
//     are (and are usually unknown);
//   - a lattice position whose best score is exactly 0 counts as unset;
//   - among equal scores the later candidate (shorter piece) wins;
//   - the backward pass steps by a piece's length in UTF-16 code units;
//   - of duplicate pieces in the vocabulary the last one wins;
//   - runs of unknown symbols collapse into one unknown id.

const (
	separator      = '\u2581' // "▁", SentencePiece's word-start marker.
	reservedPieces = 6        // unk, <s>, </s> and three extra ids: never matched.
	unkID          = 0
)

// tokenizer is immutable after newTokenizer and safe for concurrent use.
type tokenizer struct {
	scores []float64 // by id
	steps  []int32   // by id: piece length in UTF-16 code units

	// The trie of pieces: node 0 is the root; edges maps (node, rune) to
	// child. pieceAt is the id ending at a node, or -1.
	edges   map[edgeKey]int32
	pieceAt []int32

	scratch sync.Pool // *tokScratch
}

type edgeKey struct {
	node int32
	r    rune
}

type tokScratch struct {
	syms  []rune
	best  []float64
	words []int32
	out   []int32
}

// newTokenizer builds the tokenizer from vocab.json: a JSON array of
// [piece, score] pairs whose index is the token id.
func newTokenizer(vocabJSON []byte) (*tokenizer, error) {
	var raw [][2]json.RawMessage
	if err := json.Unmarshal(vocabJSON, &raw); err != nil {
		return nil, fmt.Errorf("parse vocabulary: %w: %v", ErrModelCorrupt, err)
	}
	if len(raw) <= reservedPieces {
		return nil, fmt.Errorf("parse vocabulary: %w: only %d entries", ErrModelCorrupt, len(raw))
	}
	t := &tokenizer{
		scores:  make([]float64, len(raw)),
		steps:   make([]int32, len(raw)),
		edges:   make(map[edgeKey]int32, len(raw)*3),
		pieceAt: []int32{-1},
	}
	for id, pair := range raw {
		var piece string
		var score float64
		if err := json.Unmarshal(pair[0], &piece); err != nil {
			return nil, fmt.Errorf("parse vocabulary entry %d: %w: %v", id, ErrModelCorrupt, err)
		}
		if err := json.Unmarshal(pair[1], &score); err != nil {
			return nil, fmt.Errorf("parse vocabulary entry %d: %w: %v", id, ErrModelCorrupt, err)
		}
		if piece == "" {
			return nil, fmt.Errorf("parse vocabulary entry %d: %w: empty piece", id, ErrModelCorrupt)
		}
		t.scores[id] = score
		t.steps[id] = int32(utf16Len(piece))
		if id < reservedPieces {
			continue
		}
		node := int32(0)
		for _, r := range piece {
			k := edgeKey{node, r}
			child, ok := t.edges[k]
			if !ok {
				child = int32(len(t.pieceAt))
				t.pieceAt = append(t.pieceAt, -1)
				t.edges[k] = child
			}
			node = child
		}
		// A later duplicate overwrites the earlier one, as in the reference.
		t.pieceAt[node] = int32(id)
	}
	t.scratch.New = func() any { return new(tokScratch) }
	return t, nil
}

func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// vocabSize is the number of token ids.
func (t *tokenizer) vocabSize() int { return len(t.scores) }

// encode appends the token ids of text to dst and returns it. Invalid UTF-8
// is first replaced by U+FFFD (what a JavaScript string would hold); the
// text is then NFKC-normalised as the reference does.
func (t *tokenizer) encode(dst []int32, text string) []int32 {
	if !utf8.ValidString(text) {
		text = strings.ToValidUTF8(text, "\uFFFD")
	}
	text = norm.NFKC.String(text)
	if text == "" {
		return dst
	}
	s := t.scratch.Get().(*tokScratch)
	defer t.scratch.Put(s)

	syms := append(s.syms[:0], separator)
	for _, r := range text {
		if r == ' ' {
			r = separator
		}
		syms = append(syms, r)
	}
	s.syms = syms
	n := len(syms)

	best := grow(s.best, n+1)
	words := grow(s.words, n+1)
	clear(best)
	clear(words)
	s.best, s.words = best, words

	// Viterbi over the lattice. The reference collects every piece by its
	// end position and then relaxes ends in increasing order, starts in
	// increasing order; pushing forward from each start in increasing
	// order visits every end's candidates in that same order, and best[i]
	// is final before start i is expanded.
	for i := 0; i < n; i++ {
		matched := false
		node := int32(0)
		for j := i; j < n; j++ {
			child, ok := t.edges[edgeKey{node, syms[j]}]
			if !ok {
				break
			}
			node = child
			if id := t.pieceAt[node]; id >= 0 {
				matched = true
				relax(best, words, j+1, t.scores[id]+best[i], id)
			}
		}
		if !matched {
			// Unknown symbol: a one-symbol piece with score 0 and id 0.
			relax(best, words, i+1, 0+best[i], unkID)
		}
	}

	// Backward pass, newest token first. The step is the piece's length
	// in UTF-16 code units, as JavaScript's String.length counts.
	out := s.out[:0]
	for pos := n; pos > 0; pos -= int(t.steps[words[pos]]) {
		out = append(out, words[pos])
	}
	s.out = out

	start := len(dst)
	prevUnk := false
	for _, id := range out {
		if !(prevUnk && id == unkID) {
			dst = append(dst, id)
		}
		prevUnk = id == unkID
	}
	// Reverse into reading order.
	for i, j := start, len(dst)-1; i < j; i, j = i+1, j-1 {
		dst[i], dst[j] = dst[j], dst[i]
	}
	return dst
}

// relax applies the reference's update rule: a position whose best score is
// exactly 0 is treated as unset, and ties go to the later candidate.
func relax(best []float64, words []int32, end int, score float64, id int32) {
	if best[end] == 0 || score >= best[end] {
		best[end] = score
		words[end] = id
	}
}

func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

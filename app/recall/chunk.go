package recall

import (
	"context"
	"strings"
	"unicode"
)

// chunkWords is the most words in one chunk of a memory's text. USE Lite
// reads only the first 128 tokens of a text, about 90 English words; a
// longer memory is embedded chunk by chunk, so all of it counts, and its
// similarity to a query is that of its most similar chunk (on SciFact
// that ranks better than the mean of the chunks: see cmd/engram-bench/internal/eval).
const chunkWords = 80

// chunkScheme names how documents are embedded; it is part of Model, so
// stored vectors made another way are recognised as stale.
const chunkScheme = "/chunks80-max"

// Chunks splits text into pieces of at most chunkWords words, at sentence
// ends where it can. A text of at most chunkWords words is one chunk.
func Chunks(text string) []string {
	words := strings.Fields(text)
	if len(words) <= chunkWords {
		return []string{text}
	}
	var chunks []string
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			chunks = append(chunks, strings.Join(cur, " "))
			cur = cur[:0]
		}
	}
	var sentence []string
	endSentence := func() {
		if len(cur)+len(sentence) > chunkWords {
			flush()
		}
		for len(sentence) > chunkWords { // one very long sentence
			chunks = append(chunks, strings.Join(sentence[:chunkWords], " "))
			sentence = sentence[chunkWords:]
		}
		cur = append(cur, sentence...)
		sentence = sentence[:0]
	}
	for _, w := range words {
		sentence = append(sentence, w)
		if r := lastRune(w); r == '.' || r == '!' || r == '?' || r == '。' {
			endSentence()
		}
	}
	endSentence()
	flush()
	return chunks
}

func lastRune(s string) rune {
	r := []rune(s)
	if len(r) == 0 {
		return unicode.ReplacementChar
	}
	return r[len(r)-1]
}

// maxChunkFloats bounds the floats of one memory's vectors, which the
// vector blob stores with a 16-bit length.
const maxChunkFloats = 1<<16 - 1

// EmbedDocs returns, for each memory text, the unit vectors of its chunks
// (see Chunks) back to back, as Put takes them. A text with more chunks
// than fit a vector blob has its last vector be the mean of the rest.
// Queries are embedded whole. Without an embedder it returns nil vectors.
func (e *Engine) EmbedDocs(ctx context.Context, texts []string) ([][]float32, error) {
	if e.cfg.Embedder == nil {
		return make([][]float32, len(texts)), nil
	}
	var all []string
	owner := make([]int, 0, len(texts))
	for i, t := range texts {
		for _, c := range Chunks(t) {
			all = append(all, c)
			owner = append(owner, i)
		}
	}
	vs, err := e.cfg.Embedder.Embed(ctx, all)
	if err != nil {
		return nil, err
	}
	out := make([][]float32, len(texts))
	if len(vs) == 0 {
		return out, nil
	}
	limit := max(1, maxChunkFloats/max(1, len(vs[0])))
	n := make([]int, len(texts))
	for j, v := range vs {
		i := owner[j]
		v = unit(v)
		if n[i] < limit {
			out[i] = append(out[i], v...)
		} else { // fold into the last vector
			last := out[i][len(out[i])-len(v):]
			for k, x := range v {
				last[k] += x
			}
		}
		n[i]++
	}
	for i, v := range out {
		if n[i] > limit {
			normalise(v[len(v)-len(vs[0]):])
		}
		if !usableChunks(v, len(vs[0])) {
			out[i] = nil
		}
	}
	return out, nil
}

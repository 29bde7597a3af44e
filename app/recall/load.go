package recall

import (
	"fmt"
	"runtime"
	"slices"
	"sync"
)

// Load replaces every document with docs: Reset, then a Put of each in
// order (a later document with the same id replaces an earlier one). It
// is the bulk form for start-up, which loads a whole vault: the
// tokenising and the vectors' preparation are spread over the CPUs, and
// each distinct word is stemmed once. vecs[i] is docs[i]'s embedding as
// Put takes it, or nil; vecs may be nil for none at all. Load keeps the
// vectors and normalises them in place. On error the engine is left
// empty.
func (e *Engine) Load(docs []Doc, vecs [][]float32) error {
	if vecs != nil && len(vecs) != len(docs) {
		return fmt.Errorf("%w: %d vectors for %d documents", ErrVector, len(vecs), len(docs))
	}
	// Later duplicates win, as with Put.
	last := make(map[string]int, len(docs))
	for i := range docs {
		last[docs[i].ID] = i
	}
	keep := make([]int, 0, len(last))
	for i := range docs {
		if last[docs[i].ID] == i {
			keep = append(keep, i)
		}
	}

	dim := e.cfg.dim()
	if dim == 0 {
		for _, i := range keep {
			if vecs != nil && len(vecs[i]) > 0 && !docs[i].Sensitive {
				dim = len(vecs[i]) // an embedder that learns its dimension: the first vector's
				break
			}
		}
	}
	type prepared struct {
		terms counted
		vec   []float32
		mean  []float32
		err   error
	}
	preps := make([]prepared, len(keep))
	parallel(len(keep), func(lo, hi int) {
		cache := termCache{}
		var buf []string
		for j := lo; j < hi; j++ {
			i := keep[j]
			p := &preps[j]
			buf = termsWith(buf[:0], docs[i].Content, cache)
			p.terms = countTerms(buf)
			var v []float32
			if vecs != nil {
				v = vecs[i]
			}
			if docs[i].Sensitive || dim == 0 || !usableChunks(v, dim) {
				continue
			}
			if len(v)%dim != 0 {
				p.err = fmt.Errorf("%w: length %d is not a multiple of the dimension %d", ErrVector, len(v), dim)
				continue
			}
			p.vec, p.mean = v, meanChunk(v, dim)
		}
	})
	for _, p := range preps {
		if p.err != nil {
			e.Reset()
			return p.err
		}
	}

	e.mu.Lock()
	defer e.mu.Unlock()
	e.slots = make(map[string]uint32, len(keep))
	e.docs = make([]*entry, len(keep))
	e.kw = newKeywordIndex(e.cfg.K1, e.cfg.B)
	e.vec = newVectorIndex(dim)
	entries := make([]entry, len(keep)) // one allocation for all
	withVec := make([]uint32, 0, len(keep))
	for j, i := range keep {
		slot := uint32(j)
		en := &entries[j]
		en.doc, en.vec, en.mean = docs[i], preps[j].vec, preps[j].mean
		e.docs[slot] = en
		e.slots[docs[i].ID] = slot
		e.kw.addCounted(slot, preps[j].terms)
		if en.vec != nil {
			withVec = append(withVec, slot)
		}
	}
	e.vec.addAll(withVec, func(slot uint32) []float32 { return e.docs[slot].vec })
	return nil
}

// addAll indexes the chunk vectors of slots, in order, as add does one by
// one; the quantisation is spread over the CPUs.
func (x *vectorIndex) addAll(slots []uint32, vec func(slot uint32) []float32) {
	if len(slots) == 0 {
		return
	}
	if x.dim == 0 {
		x.dim = len(vec(slots[0]))
	}
	start := len(x.rows)
	for _, s := range slots {
		v := vec(s)
		for off := 0; off+x.dim <= len(v); off += x.dim {
			x.rows = append(x.rows, s)
			x.vecs = append(x.vecs, v[off:off+x.dim:off+x.dim])
		}
	}
	n := len(x.rows)
	x.codes = slices.Grow(x.codes, (n-start)*x.dim)[:n*x.dim]
	x.scale = slices.Grow(x.scale, n-start)[:n]
	parallel(n-start, func(lo, hi int) {
		for r := start + lo; r < start+hi; r++ {
			x.scale[r] = quantiseRow(x.codes[r*x.dim:(r+1)*x.dim], x.vecs[r])
		}
	})
	if n > smallRows {
		x.small, x.first = nil, nil
		return
	}
	for r := start; r < n; r++ {
		x.small.Add(slices.Clone(x.vecs[r]), x.rows[r]) // it normalises in place
		if _, ok := x.first[x.rows[r]]; !ok {
			x.first[x.rows[r]] = r
		}
	}
}

// parallel calls fn over [0, n) split into one range per CPU, and waits.
func parallel(n int, fn func(lo, hi int)) {
	parts := min(runtime.GOMAXPROCS(0), max(1, n/256))
	var wg sync.WaitGroup
	for p := range parts {
		wg.Go(func() { fn(n*p/parts, n*(p+1)/parts) })
	}
	wg.Wait()
}

// SetVector gives the document with id its embedding, when the engine
// holds it with exactly content, not sensitive and without a vector yet;
// it reports whether it did. vec is as Put takes it. This is how vectors
// made in the background join the index without undoing a change to the
// document made meanwhile (the content check), or replacing a vector a
// write has set (the vector check).
func (e *Engine) SetVector(id, content string, vec []float32) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	s, ok := e.slots[id]
	if !ok {
		return false
	}
	en := e.docs[s]
	if en.doc.Content != content || en.doc.Sensitive || en.vec != nil {
		return false
	}
	dim := e.vec.dim
	if dim == 0 {
		dim = e.cfg.dim()
	}
	if dim == 0 {
		dim = len(vec)
	}
	if dim == 0 || !usableChunks(vec, dim) || len(vec)%dim != 0 {
		return false
	}
	en.vec, en.mean = vec, meanChunk(vec, dim)
	e.vec.add(s, vec)
	return true
}

package recall

import (
	"fmt"
	"runtime"
	"slices"
	"sync"
)

// Load replaces every document with docs: Reset, then a Put of each in
// order (a later document with the same id replaces an earlier one). It
// is the bulk form for start-up: see Loader. vecs[i] is docs[i]'s
// embedding as Put takes it, or nil; vecs may be nil for none at all.
// Load normalises the vectors in place and keeps only their int8 codes
// (see vectorIndex). On error the engine is left as it was.
func (e *Engine) Load(docs []Doc, vecs [][]float32) error {
	if vecs != nil && len(vecs) != len(docs) {
		return fmt.Errorf("%w: %d vectors for %d documents", ErrVector, len(vecs), len(docs))
	}
	l := e.NewLoader()
	for i := range docs {
		var v []float32
		if vecs != nil {
			v = vecs[i]
		}
		l.Add(docs[i], v)
	}
	return l.Done()
}

// Loader fills an engine in bulk, for start-up, which loads a whole
// vault: documents are tokenised (each distinct word stemmed once) and
// their vectors prepared on all the CPUs while the caller is still
// reading the next ones, and Done swaps them in at once. The engine
// keeps answering from its old documents until then. A Loader is used
// by one goroutine.
type Loader struct {
	e      *Engine
	dim    int
	chunks []*loadChunk
	cur    *loadChunk
	work   chan *loadChunk
	wg     sync.WaitGroup
	last   map[string]uint32 // id -> index of its last document added
	n      uint32            // documents added
	dict   *termDict
}

// loadChunk is a run of documents prepared by one worker.
type loadChunk struct {
	docs  []Doc
	vecs  [][]float32
	preps []prepared
	dim   int
	// The chunk's posting lists, documents numbered by their index in
	// docs: Done appends them to the engine's lists once per term and
	// chunk rather than once per term and document, which took most of
	// the time of a start-up that was not spent decoding the vault.
	ids   []uint32 // the terms' numbers (see termDict)
	lists [][]posting
	// The documents' chunk vectors quantised (see quantiseRow), in
	// document order: a document's rows are preps[i].row onwards.
	codes  []int8
	scales []float32
}

// prepared is what a worker makes of a document.
type prepared struct {
	terms []uint32 // distinct terms by index in the chunk; by number once merged
	n     int      // number of terms with repeats: the document's length
	row   int32    // its first row in the chunk's codes
	nrows int32    // its number of rows: 0 without a vector
	err   error
}

const loadChunkDocs = 1024

// NewLoader returns a Loader for e; its workers run until Done.
func (e *Engine) NewLoader() *Loader {
	l := &Loader{e: e, dim: e.cfg.dim(), work: make(chan *loadChunk, runtime.GOMAXPROCS(0)), last: map[string]uint32{}, dict: &termDict{ids: map[string]uint32{}}}
	for range runtime.GOMAXPROCS(0) {
		l.wg.Go(func() {
			cache := newTermCache(l.dict)
			var uniq []uint32
			for c := range l.work {
				c.prepare(cache, &uniq)
			}
		})
	}
	return l
}

// Add adds d with its embedding vec as Put takes it (nil for none).
func (l *Loader) Add(d Doc, vec []float32) {
	if l.dim == 0 && len(vec) > 0 && !d.Sensitive {
		l.dim = len(vec) // an embedder that learns its dimension: the first vector's
	}
	if l.cur == nil {
		l.cur = &loadChunk{docs: make([]Doc, 0, loadChunkDocs), vecs: make([][]float32, 0, loadChunkDocs)}
	}
	l.cur.docs = append(l.cur.docs, d)
	l.cur.vecs = append(l.cur.vecs, vec)
	l.last[d.ID] = l.n
	l.n++
	if len(l.cur.docs) == loadChunkDocs {
		l.send()
	}
}

func (l *Loader) send() {
	l.cur.dim = l.dim
	l.chunks = append(l.chunks, l.cur)
	l.work <- l.cur
	l.cur = nil
}

func (c *loadChunk) prepare(cache *termCache, uniq *[]uint32) {
	c.preps = make([]prepared, len(c.docs))
	var doc uint32 // the document being tokenised
	n := 0         // its terms so far, with repeats
	add := func(r *termRef) {
		n++
		if r.chunk != c { // first seen in this chunk
			r.chunk, r.idx = c, int32(len(c.ids))
			c.ids = append(c.ids, r.id)
			c.lists = append(c.lists, nil)
		}
		l := c.lists[r.idx]
		if len(l) > 0 && l[len(l)-1].doc == doc {
			l[len(l)-1].tf++ // a repeat within the document
			return
		}
		c.lists[r.idx] = append(l, posting{doc, 1})
		*uniq = append(*uniq, uint32(r.idx))
	}
	word := func(w string) {
		if r := cache.word(w); r != nil {
			add(r)
		}
	}
	other := func(t string) { add(cache.ref(t)) }
	for i := range c.docs {
		p := &c.preps[i]
		doc, n, *uniq = uint32(i), 0, (*uniq)[:0]
		scanTerms(c.docs[i].Content, word, other)
		// never nil, even for an empty text: remove relies on it
		p.terms, p.n = append(make([]uint32, 0, len(*uniq)), *uniq...), n
		v := c.vecs[i]
		if c.docs[i].Sensitive || c.dim == 0 || !usableChunks(v, c.dim) {
			continue
		}
		if len(v)%c.dim != 0 {
			p.err = fmt.Errorf("%w: length %d is not a multiple of the dimension %d", ErrVector, len(v), c.dim)
			continue
		}
		p.row, p.nrows = int32(len(c.scales)), int32(len(v)/c.dim)
		if c.codes == nil { // room for one row a document, grown if need be
			c.codes = make([]int8, 0, len(c.docs)*c.dim)
		}
		for off := 0; off < len(v); off += c.dim {
			c.codes = slices.Grow(c.codes, c.dim)[:len(c.codes)+c.dim]
			c.scales = append(c.scales, quantiseRow(c.codes[len(c.codes)-c.dim:], v[off:off+c.dim]))
		}
		c.vecs[i] = nil // the float32 vector is not kept
	}
}

// Discard ends the Loader's workers and leaves the engine as it was.
func (l *Loader) Discard() {
	close(l.work)
	l.wg.Wait()
}

// Done replaces the engine's documents with those added, in order, a
// later one with the same id replacing an earlier one as with Put. On
// error the engine is left as it was.
func (l *Loader) Done() error {
	if l.cur != nil {
		l.send()
	}
	close(l.work)
	l.wg.Wait()
	for _, c := range l.chunks {
		for i := range c.preps {
			if c.preps[i].err != nil {
				return c.preps[i].err
			}
		}
	}
	last := l.last
	// Without repeated ids every document keeps its place: last is the
	// slot map as it stands.
	unique := len(last) == int(l.n)
	e := l.e
	e.mu.Lock()
	defer e.mu.Unlock()
	if unique {
		e.slots = last
	} else {
		e.slots = make(map[string]uint32, len(last))
	}
	e.docs = make([]*entry, 0, len(last))
	e.cls = newClasses()
	kw := newKeywordIndex(e.cfg.K1, e.cfg.B)
	kw.ids, kw.lists = l.dict.ids, make([][]posting, len(l.dict.ids))
	kw.terms = make([]string, len(kw.ids))
	for t, id := range kw.ids {
		kw.terms[id] = t
	}
	kw.docLen, kw.docTerms = make([]uint32, 0, len(last)), make([][]uint32, 0, len(last))
	e.kw = kw
	e.vec = newVectorIndex(l.dim, e.cfg.CoarseRows)
	rows := 0
	for _, c := range l.chunks {
		rows += len(c.scales)
	}
	e.vec.reserve(rows)
	entries := make([]entry, len(last)) // one allocation for all
	var slotOf []int32                  // a chunk's document index -> slot, -1 if replaced
	n := uint32(0)
	for _, c := range l.chunks {
		slotOf = slices.Grow(slotOf[:0], len(c.docs))[:len(c.docs)]
		for i := range c.docs {
			slotOf[i] = -1
			if !unique && last[c.docs[i].ID] != n {
				n++
				continue // replaced by a later one
			}
			n++
			slot := uint32(len(e.docs))
			slotOf[i] = int32(slot)
			en := &entries[slot]
			p := &c.preps[i]
			en.doc = c.docs[i]
			e.docs = append(e.docs, en)
			e.cls.add(&en.doc, p.n)
			if !unique {
				e.slots[en.doc.ID] = slot
			}
			for k, j := range p.terms {
				p.terms[k] = c.ids[j]
			}
			kw.docLen = append(kw.docLen, uint32(p.n))
			kw.docTerms = append(kw.docTerms, p.terms)
			if p.nrows > 0 {
				r0, r1 := int(p.row), int(p.row+p.nrows)
				e.vec.addCodes(slot, c.codes[r0*c.dim:r1*c.dim], c.scales[r0:r1])
			}
		}
		// Chunks come in slot order and a chunk's lists in document
		// order, so appending keeps every posting list sorted by slot.
		for j, id := range c.ids {
			dst := kw.lists[id]
			for _, p := range c.lists[j] {
				if s := slotOf[p.doc]; s >= 0 {
					dst = append(dst, posting{uint32(s), p.tf})
				}
			}
			kw.lists[id] = dst
		}
		c.ids, c.lists, c.codes, c.scales = nil, nil, nil, nil
	}
	kw.recount(e.cls.of, len(e.cls.list))
	e.sessions = sessionsOf(e.docs)
	e.linkSessions()
	return nil
}

// addAll indexes the quantised chunk vectors qs[i] of slots[i], in order,
// as addCodes does one by one, copying them straight into the index's
// arrays.
func (x *vectorIndex) addAll(slots []uint32, qs []Quantised) {
	if len(slots) == 0 {
		return
	}
	if x.dim == 0 {
		x.dim = len(qs[0].Codes) / len(qs[0].Scales)
		x.reserve(0)
	}
	start := len(x.rows)
	rows := 0
	for _, q := range qs {
		rows += len(q.Scales)
	}
	x.codes = slices.Grow(x.codes, rows*x.dim)
	x.scale = slices.Grow(x.scale, rows)
	x.rows = slices.Grow(x.rows, rows)
	for i, s := range slots {
		for int(s) >= len(x.first) {
			x.first = append(x.first, -1)
		}
		if x.first[s] < 0 {
			x.first[s] = int32(len(x.rows))
		}
		for range qs[i].Scales {
			x.rows = append(x.rows, s)
		}
		x.codes = append(x.codes, qs[i].Codes...)
		x.scale = append(x.scale, qs[i].Scales...)
	}
	x.grew(start)
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
// loaded or made in the background join the index without undoing a
// change to the document made meanwhile (the content check), or
// replacing a vector a write has set (the vector check).
func (e *Engine) SetVector(id, content string, vec []float32) bool {
	return e.SetVectors([]DocVector{{ID: id, Content: content, Vec: vec}}) == 1
}

// ReserveVectors makes room for rows more chunk vectors, so that the
// SetVectors calls of a bulk load that follow allocate the index's arrays
// once rather than grow and copy them at each call.
func (e *Engine) ReserveVectors(rows int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.vec.dim == 0 {
		e.vec.dim = e.cfg.dim()
	}
	e.vec.reserve(rows)
}

// DocVector is a document's embedding for SetVectors: Vec as Put takes
// it, or Q, as Quantise makes it (a vector stored in the vault).
type DocVector struct {
	ID, Content string
	Vec         []float32
	Q           Quantised
}

// SetVectors is SetVector for many documents at once, with the vectors'
// preparation spread over the CPUs; it returns how many it set. It
// changes neither Vec nor Q.
func (e *Engine) SetVectors(vs []DocVector) int {
	dim := e.cfg.dim()
	if dim == 0 {
		e.mu.RLock()
		dim = e.vec.dim
		e.mu.RUnlock()
	}
	if dim == 0 && len(vs) > 0 {
		if len(vs[0].Vec) > 0 {
			dim = len(vs[0].Vec)
		} else if len(vs[0].Q.Scales) > 0 {
			dim = len(vs[0].Q.Codes) / len(vs[0].Q.Scales)
		}
	}
	// Quantised outside the lock: recalls go on meanwhile.
	qs := make([]Quantised, len(vs))
	parallel(len(vs), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			switch {
			case vs[i].Vec != nil:
				qs[i], _ = Quantise(vs[i].Vec, dim)
			case vs[i].Q.valid(dim):
				qs[i] = vs[i].Q
			}
		}
	})
	e.mu.Lock()
	defer e.mu.Unlock()
	if dim == 0 || e.vec.dim != 0 && e.vec.dim != dim {
		return 0
	}
	slots := make([]uint32, 0, len(vs))
	keep := qs[:0]
	for i := range vs {
		s, ok := e.slots[vs[i].ID]
		if !ok || qs[i].Scales == nil {
			continue
		}
		en := e.docs[s]
		if en.doc.Content != vs[i].Content || en.doc.Sensitive || e.vec.has(s) {
			continue
		}
		slots, keep = append(slots, s), append(keep, qs[i])
	}
	e.vec.addAll(slots, keep)
	return len(slots)
}

package recall

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"sync"

	"github.com/kelindar/search"
)

// vectorIndex is a cosine index over the engine's slots. A slot has one
// or more unit vectors (one per chunk of its text) and its similarity to a
// query is the best of theirs.
//
// Vectors are kept only quantised: int8 codes with a scale per row, a
// quarter of float32's memory (51 MB at 100,000 one-chunk memories of 512
// dimensions, against 205 MB). A search scans the codes with a quantised
// query (exactly, in parallel over the cores), keeps a few times more
// candidates than asked for, and ranks those by the float32 query's dot
// product with their codes, which is also the similarity every other
// method reports: the index's vectors are the dequantised codes.
//
// Rows cannot be deleted: a removed or replaced document stays as
// tombstones (its slot no longer live) until the engine rebuilds the index.
type vectorIndex struct {
	// small is kelindar/search's exact float32 index over the dequantised
	// rows, kept while the index has at most smallRows rows, where its
	// brute-force scan is as fast as the int8 one. Past that it is dropped
	// and searches use the int8 scan: the float32 scan is bound by memory
	// traffic, four times the int8 codes', and its copy of the vectors
	// would be five times their memory.
	small *search.Index[uint32]
	dim   int       // 0 until the first vector
	codes []int8    // row-major, dim per row
	scale []float32 // per row: value = code × scale
	rows  []uint32  // row -> slot; a slot's rows are adjacent
	first []int32   // slot -> its first row, -1 for none
	dead  int       // tombstone rows
	// bits holds each row's signs, one bit per dimension (set for a
	// positive code), words per row, once the index has coarseFrom rows
	// (never when coarseFrom is not positive): searches then scan these
	// first (see search).
	bits       []uint64
	words      int
	coarseFrom int
	// pending is the rows reserved before the dimension was known (an
	// engine without an embedder learns it from the first vector).
	pending int
}

// smallRows is the most rows searched with kelindar/search. At 512
// dimensions (BenchmarkVectorScan, 2 cores) its scan takes 0.11 ms at
// 1,000 rows against the int8 scan's 0.26, about as long at 2,000 (0.26
// and 0.31 ms), and 3×, 7× and 7× as long at 4,000, 8,000 and 16,000.
const smallRows = 2 << 10

func newVectorIndex(dim, coarseFrom int) *vectorIndex {
	return &vectorIndex{dim: dim, small: search.NewIndex[uint32](), coarseFrom: coarseFrom}
}

// add indexes the chunk vectors of slot: v holds one or more unit vectors
// of the index's dimension back to back. The index keeps only their codes.
func (x *vectorIndex) add(slot uint32, v []float32) {
	if x.dim == 0 {
		x.dim = len(v)
		x.reserve(0)
	}
	q := quantiseRows(v, x.dim)
	x.addCodes(slot, q.Codes, q.Scales)
}

// addCodes indexes the quantised chunk vectors of slot, one scale per
// row of codes, as quantiseRow makes them.
func (x *vectorIndex) addCodes(slot uint32, codes []int8, scales []float32) {
	if len(scales) == 0 {
		return
	}
	row := len(x.rows)
	x.codes = append(x.codes, codes...)
	x.scale = append(x.scale, scales...)
	for range scales {
		x.rows = append(x.rows, slot)
	}
	for int(slot) >= len(x.first) {
		x.first = append(x.first, -1)
	}
	if x.first[slot] < 0 {
		x.first[slot] = int32(row)
	}
	x.grew(row)
}

// grew brings the small index and the sign bits up to date with the rows
// from row on, just appended.
func (x *vectorIndex) grew(row int) {
	if len(x.rows) > smallRows {
		x.small = nil
	}
	if x.small != nil {
		for r := row; r < len(x.rows); r++ {
			x.small.Add(x.row(r), x.rows[r]) // it normalises in place
		}
	}
	switch {
	case x.bits != nil:
		x.bits = slices.Grow(x.bits, (len(x.rows)-row)*x.words)[:len(x.rows)*x.words]
		x.signs(row, len(x.rows))
	case x.coarseFrom > 0 && len(x.rows) >= x.coarseFrom:
		x.words = (x.dim + 63) / 64
		x.bits = make([]uint64, len(x.rows)*x.words, cap(x.rows)*x.words)
		parallel(len(x.rows), func(lo, hi int) { x.signs(lo, hi) })
	}
}

// signs sets the bits of rows [lo, hi) from their codes.
func (x *vectorIndex) signs(lo, hi int) {
	for r := lo; r < hi; r++ {
		w := x.bits[r*x.words : (r+1)*x.words]
		clear(w)
		for j, c := range x.codes[r*x.dim : (r+1)*x.dim] {
			if c > 0 {
				w[j/64] |= 1 << (j % 64)
			}
		}
	}
}

// reserve makes room for n more rows, so that a bulk load's arrays are
// allocated once and to size rather than grown by a quarter at a time.
// Before the dimension is known the room is made when it is: call
// reserve(0) once it is set.
func (x *vectorIndex) reserve(n int) {
	if x.dim == 0 {
		x.pending += n
		return
	}
	n, x.pending = n+x.pending, 0
	if n == 0 {
		return
	}
	x.codes = slices.Grow(x.codes, n*x.dim)
	x.scale = slices.Grow(x.scale, n)
	x.rows = slices.Grow(x.rows, n)
}

// row returns the dequantised vector of row r, newly allocated.
func (x *vectorIndex) row(r int) []float32 {
	v := make([]float32, x.dim)
	sc := x.scale[r]
	for i, c := range x.codes[r*x.dim : (r+1)*x.dim] {
		v[i] = float32(c) * sc
	}
	return v
}

// has reports whether slot has vectors.
func (x *vectorIndex) has(slot uint32) bool {
	return int(slot) < len(x.first) && x.first[slot] >= 0
}

// count returns the number of rows of slot.
func (x *vectorIndex) count(slot uint32) int {
	if !x.has(slot) {
		return 0
	}
	n := 0
	for r := int(x.first[slot]); r < len(x.rows) && x.rows[r] == slot; r++ {
		n++
	}
	return n
}

// vector returns slot's dequantised chunk vectors back to back, newly
// allocated, or nil when it has none.
func (x *vectorIndex) vector(slot uint32) []float32 {
	n := x.count(slot)
	if n == 0 {
		return nil
	}
	v := make([]float32, 0, n*x.dim)
	for r := int(x.first[slot]); r < int(x.first[slot])+n; r++ {
		v = append(v, x.row(r)...)
	}
	return v
}

// mean returns the unit mean of slot's dequantised chunk vectors (see
// meanChunk), newly allocated, or nil when it has none.
func (x *vectorIndex) mean(slot uint32) []float32 {
	v := x.vector(slot)
	if v == nil {
		return nil
	}
	m := slices.Clone(meanChunk(v, x.dim))
	normalise(m)
	return m
}

// copySlot indexes from's vectors of slot old as slot s.
func (x *vectorIndex) copySlot(s uint32, from *vectorIndex, old uint32) {
	n := from.count(old)
	if n == 0 {
		return
	}
	if x.dim == 0 {
		x.dim = from.dim
	}
	r := int(from.first[old])
	x.addCodes(s, from.codes[r*from.dim:(r+n)*from.dim], from.scale[r:r+n])
}

// quantiseRow writes row's int8 codes into dst and returns their scale:
// row[i] ≈ dst[i] × scale, the largest magnitude mapping to ±127, and the
// scale chosen so that the dequantised row is as long as row: a unit
// vector stays one, and quantising the dequantised row again gives the
// same codes.
func quantiseRow(dst []int8, row []float32) float32 {
	var m float32
	var ss float64
	for _, f := range row {
		m = max(m, f, -f)
		ss += float64(f) * float64(f)
	}
	if m == 0 {
		clear(dst)
		return 0
	}
	inv := 127 / m
	var cs int64
	for i, f := range row {
		// Rounds half away from zero, as math.Round, in float32: |f×inv|
		// is at most 127, where float32 is exact to well below 0.5.
		c := int8(f*inv - 0.5)
		if f >= 0 {
			c = int8(f*inv + 0.5)
		}
		dst[i] = c
		cs += int64(c) * int64(c)
	}
	return float32(math.Sqrt(ss / float64(cs)))
}

func (x *vectorIndex) len() int { return len(x.rows) }

// match is a slot with its similarity to a query.
type match struct {
	slot  uint32
	score float64
}

// search returns up to k slots for which keep is true, most similar to
// the unit vector q first. keep may reject most slots (an agent that reads
// only its own memories): the int8 scan then asks it about each slot that
// would enter its shortlist, so one pass finds the k best it accepts.
//
// The answer depends on the slots keep rejects only through the way it is
// found: exactly (kelindar/search) while the index has at most smallRows
// rows and keep accepts enough of the best, else from a shortlist of the
// 2k+16 accepted slots best by the quantised query's similarity (of equal
// ones the first), ranked again with the float32 query. The two answers
// differ only when more than 2k+16 accepted slots come within the query's
// quantisation error of the k-th best, or, in the exact search, when
// accepted slots tie with it.
func (x *vectorIndex) search(q []float32, k int, keep func(slot uint32) bool) []match {
	n := len(x.rows)
	if k <= 0 || n == 0 || len(q) != x.dim {
		return nil
	}
	if x.small != nil {
		if out, ok := x.searchSmall(q, k, keep); ok {
			return out
		}
	}
	// The candidates: the best by the int8 scan, with a margin for the
	// query's quantisation, ranked again with the float32 query.
	qc := make([]int16, x.dim)
	quantiseQuery(qc, q)
	var cand []candidate
	if x.bits != nil {
		cand = x.coarse(q, qc, min(2*k+16, n), keep)
	} else {
		cand = x.scan(qc, min(2*k+16, n), keep)
	}
	out := make([]match, 0, len(cand))
	for _, c := range cand {
		out = append(out, match{c.slot, x.similarity(q, c.row)})
	}
	slices.SortFunc(out, bestFirst)
	return out[:min(k, len(out))]
}

// searchSmall is search with kelindar/search: its results are rows, so a
// slot with several chunks counts once, with its best. It asks for k rows
// and as many as there are tombstones; ok is false when keep rejected too
// many of them, and the filtering int8 scan must answer instead.
func (x *vectorIndex) searchSmall(q []float32, k int, keep func(slot uint32) bool) (out []match, ok bool) {
	n := len(x.rows)
	want := min(k+x.dead, n)
	res := x.small.Search(slices.Clone(q), want) // Search normalises in place
	out = make([]match, 0, k)
	seen := map[uint32]bool{}
	for _, r := range res {
		if !seen[r.Value] && keep(r.Value) {
			seen[r.Value] = true
			// The same similarity as the int8 path's re-ranking, so
			// results do not depend on the index's size.
			out = append(out, match{r.Value, x.similarity(q, int(x.first[r.Value]))})
		}
	}
	if len(out) < k && want < n {
		return nil, false
	}
	slices.SortStableFunc(out, bestFirst)
	return out[:min(k, len(out))], true
}

// bestFirst orders matches by score, highest first, then by slot.
func bestFirst(a, b match) int {
	if c := cmp.Compare(b.score, a.score); c != 0 {
		return c
	}
	return cmp.Compare(a.slot, b.slot)
}

// similarity is the best dot product between q and the dequantised
// vectors of the slot whose first row is row.
func (x *vectorIndex) similarity(q []float32, row int) float64 {
	best := math.Inf(-1)
	for r := row; r < len(x.rows) && x.rows[r] == x.rows[row]; r++ {
		best = max(best, float64(dotCodes(q, x.codes[r*x.dim:(r+1)*x.dim])*x.scale[r]))
	}
	return best
}

// slotSimilarity is similarity for slot, which must have vectors.
func (x *vectorIndex) slotSimilarity(q []float32, slot uint32) float64 {
	return x.similarity(q, int(x.first[slot]))
}

// dotCodes is the inner product of q and the int8 codes c (as long as q),
// with four running sums as dot.
func dotCodes(q []float32, c []int8) float32 {
	c = c[:len(q)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(q); i += 4 {
		s0 += q[i] * float32(c[i])
		s1 += q[i+1] * float32(c[i+1])
		s2 += q[i+2] * float32(c[i+2])
		s3 += q[i+3] * float32(c[i+3])
	}
	for ; i < len(q); i++ {
		s0 += q[i] * float32(c[i])
	}
	return (s0 + s1) + (s2 + s3)
}

// quantiseQuery writes q scaled to 12 bits into dst: enough precision
// for ranking, and small enough that a dot product with 8-bit codes cannot
// overflow int32 below 2^15 dimensions.
func quantiseQuery(dst []int16, q []float32) {
	var m float32
	for _, f := range q {
		m = max(m, f, -f)
	}
	if m == 0 {
		clear(dst)
		return
	}
	inv := 2047 / m
	for i, f := range q {
		dst[i] = int16(math.Round(float64(f * inv)))
	}
}

// candidate is a slot found by the int8 scan, with its first row.
type candidate struct {
	approx float32
	slot   uint32
	row    int
}

// scan returns the m slots that keep accepts with the best approximate
// similarity to the quantised query, in no particular order. keep is
// called only for slots that would make the shortlist, and from several
// goroutines at once on a large index.
func (x *vectorIndex) scan(qc []int16, m int, keep func(slot uint32) bool) []candidate {
	return x.scanWith(m, keep, func(lo, hi int, out []float32) {
		var dots [scanBlock]int32
		dotsInt8(qc, x.codes[lo*x.dim:hi*x.dim], x.dim, dots[:hi-lo])
		for i, d := range dots[:hi-lo] {
			out[i] = float32(d) * x.scale[lo+i]
		}
	})
}

// coarseFactor is how many times more slots the coarse scan shortlists
// than the int8 ranking it feeds keeps.
const coarseFactor = 16

// coarse is scan for a large index: it scans the rows' sign bits, whose
// Hamming distance to the query's signs (a sixteenth of the int8 codes'
// memory traffic) orders the slots roughly by angle, shortlists
// coarseFactor×m of them (at least 1,024), and returns the m of those
// with the best approximate similarity, as scan does. Of slots at the
// same distance the first are shortlisted, so the result depends on the
// slots keep rejects no more than scan's does.
func (x *vectorIndex) coarse(q []float32, qc []int16, m int, keep func(slot uint32) bool) []candidate {
	qb := make([]uint64, x.words)
	for j, f := range q {
		if f > 0 {
			qb[j/64] |= 1 << (j % 64)
		}
	}
	wide := x.scanWith(min(max(coarseFactor*m, 1024), len(x.rows)), keep, func(lo, hi int, out []float32) {
		w := x.words
		for i := range hi - lo {
			row := x.bits[(lo+i)*w : (lo+i+1)*w]
			d := 0
			for j, b := range row {
				d += bits.OnesCount64(b ^ qb[j])
			}
			out[i] = float32(-d)
		}
	})
	// The shortlist's int8 similarities: keep has accepted these slots.
	var dot [1]int32
	h := make(candHeap, 0, m)
	for _, c := range wide {
		best := float32(math.Inf(-1))
		for r := c.row; r < len(x.rows) && x.rows[r] == c.slot; r++ {
			dotsInt8(qc, x.codes[r*x.dim:(r+1)*x.dim], x.dim, dot[:])
			best = max(best, float32(dot[0])*x.scale[r])
		}
		h.offer(candidate{best, c.slot, c.row}, m, nil)
	}
	return h
}

// scanParallelRows is the size above which the scan is split over the
// cores: below it, starting goroutines costs more than it saves.
const scanParallelRows = 16 << 10

// scanBlock is the number of rows a scan scores at once.
const scanBlock = 256

// scanWith is scan with the rows' approximate similarities given by
// score, which sets out[i] for row lo+i, hi-lo at most scanBlock, and is
// called from several goroutines at once on a large index.
func (x *vectorIndex) scanWith(m int, keep func(slot uint32) bool, score func(lo, hi int, out []float32)) []candidate {
	n := len(x.rows)
	parts := 1
	if n >= scanParallelRows {
		parts = min(runtime.GOMAXPROCS(0), n/(scanParallelRows/2))
	}
	if parts <= 1 {
		return x.scanRange(m, 0, n, keep, score)
	}
	res := make([][]candidate, parts)
	var wg sync.WaitGroup
	for p := range parts {
		lo, hi := x.split(n*p/parts), x.split(n*(p+1)/parts)
		wg.Go(func() { res[p] = x.scanRange(m, lo, hi, keep, score) })
	}
	wg.Wait()
	all := slices.Concat(res...)
	// Ties by slot, as within a part: the shortlist does not depend on
	// where the parts begin, which the number of rows decides.
	slices.SortFunc(all, func(a, b candidate) int {
		switch {
		case worse(b, a):
			return -1
		case worse(a, b):
			return 1
		}
		return 0
	})
	return all[:min(m, len(all))]
}

// split moves row forward to the first row of a slot, so that no slot is
// split between two parts of a parallel scan.
func (x *vectorIndex) split(row int) int {
	for row > 0 && row < len(x.rows) && x.rows[row] == x.rows[row-1] {
		row++
	}
	return row
}

// scanRange is scanWith over rows [lo, hi), which start and end at slot
// boundaries.
func (x *vectorIndex) scanRange(m, lo, hi int, keep func(slot uint32) bool, score func(lo, hi int, out []float32)) []candidate {
	var approx [scanBlock]float32
	h := make(candHeap, 0, m)
	cur := candidate{approx: float32(math.Inf(-1)), row: -1}
	for b := lo; b < hi; b += scanBlock {
		e := min(b+scanBlock, hi)
		score(b, e, approx[:e-b])
		for i, s := range approx[:e-b] {
			r := b + i
			if slot := x.rows[r]; cur.row < 0 || slot != cur.slot {
				if cur.row >= 0 {
					h.offer(cur, m, keep)
				}
				cur = candidate{s, slot, r}
			} else {
				cur.approx = max(cur.approx, s)
			}
		}
	}
	if cur.row >= 0 {
		h.offer(cur, m, keep)
	}
	return h
}

// candHeap is a heap of at most m candidates, the worst on top: the
// lowest approx, of equal ones the highest slot.
type candHeap []candidate

// worse reports whether a ranks below b in the shortlist.
func worse(a, b candidate) bool {
	return a.approx < b.approx || a.approx == b.approx && a.slot > b.slot
}

// offer adds c if keep accepts its slot and the heap has fewer than m
// candidates or c beats the worst of them. keep is asked last.
func (h *candHeap) offer(c candidate, m int, keep func(slot uint32) bool) {
	s := *h
	if len(s) == m && !worse(s[0], c) || keep != nil && !keep(c.slot) {
		return
	}
	if len(s) < m {
		s = append(s, c)
		for i := len(s) - 1; i > 0; {
			p := (i - 1) / 2
			if !worse(s[i], s[p]) {
				break
			}
			s[p], s[i] = s[i], s[p]
			i = p
		}
		*h = s
		return
	}
	s[0] = c
	for i := 0; ; {
		l, r, small := 2*i+1, 2*i+2, i
		if l < len(s) && worse(s[l], s[small]) {
			small = l
		}
		if r < len(s) && worse(s[r], s[small]) {
			small = r
		}
		if small == i {
			break
		}
		s[i], s[small] = s[small], s[i]
		i = small
	}
}

// dotsInt8Go is the portable dotsInt8.
func dotsInt8Go(q []int16, codes []int8, dim int, out []int32) {
	for i := range out {
		row := codes[i*dim : (i+1)*dim]
		var s int32
		for j, c := range row {
			s += int32(c) * int32(q[j])
		}
		out[i] = s
	}
}

// Vector blobs, as the memory service stores them in the vault:
//
//	0x02 | len(model) (1 byte) | model | len(hash) (1 byte) | content hash |
//	dim (uint16 LE) | rows (uint16 LE) | rows × scale (float32 LE) | rows × dim int8 codes
//
// The model name and content hash say which embedder made the vector and
// from which text; a blob that matches neither is stale and re-embedded.
// The rows are the document's chunk vectors, normalised and quantised
// exactly as the index keeps them (see Quantise), so that loading them
// at start-up is a copy: a quarter of float32's bytes to read, and no
// quantisation. Format 1 (Engram before 2026-11-28) held the vectors as
// float32 (| n (uint16 LE) | n × float32 LE); it is still read, and
// quantised as it is read.
const (
	vectorFloat32 = 1
	vectorInt8    = 2
)

// Quantised is a document's chunk vectors as the index keeps them: for
// each unit vector, int8 codes and a scale (value = code × scale), the
// codes of all rows back to back.
type Quantised struct {
	Codes  []int8
	Scales []float32
}

// Quantise returns v's chunk vectors of dim, each normalised, as the index
// keeps them; ok is false when v is not whole chunks of usable vectors.
// v is not changed.
func Quantise(v []float32, dim int) (q Quantised, ok bool) {
	if dim <= 0 || len(v) == 0 || len(v)%dim != 0 {
		return Quantised{}, false
	}
	v = slices.Clone(v)
	if !usableChunks(v, dim) {
		return Quantised{}, false
	}
	return quantiseRows(v, dim), true
}

// quantiseRows quantises v's rows of dim as they are.
func quantiseRows(v []float32, dim int) Quantised {
	n := len(v) / dim
	q := Quantised{Codes: make([]int8, n*dim), Scales: make([]float32, n)}
	for i := range n {
		q.Scales[i] = quantiseRow(q.Codes[i*dim:(i+1)*dim], v[i*dim:(i+1)*dim])
	}
	return q
}

// valid reports whether q holds whole rows of dim with usable scales.
func (q Quantised) valid(dim int) bool {
	if dim <= 0 || len(q.Scales) == 0 || len(q.Codes) != len(q.Scales)*dim {
		return false
	}
	for _, s := range q.Scales {
		if !(s > 0) || math.IsInf(float64(s), 0) {
			return false
		}
	}
	return true
}

// Floats returns q's vectors dequantised, back to back.
func (q Quantised) Floats() []float32 {
	if len(q.Scales) == 0 {
		return nil
	}
	dim := len(q.Codes) / len(q.Scales)
	v := make([]float32, len(q.Codes))
	for i, c := range q.Codes {
		v[i] = float32(c) * q.Scales[i/dim]
	}
	return v
}

// EncodeVector encodes v, chunk vectors of dim back to back, as a blob
// for model and the memory's content hash. It returns nil when v is not
// whole chunks of usable vectors, or has more chunks than a blob holds.
func EncodeVector(model, contentHash string, dim int, v []float32) []byte {
	q, ok := Quantise(v, dim)
	if !ok {
		return nil
	}
	return EncodeQuantised(model, contentHash, q)
}

// EncodeQuantised encodes q (from Quantise or a decoded blob) as a blob
// for model and the memory's content hash, or returns nil when q is not
// valid or has more chunks than a blob holds.
func EncodeQuantised(model, contentHash string, q Quantised) []byte {
	if len(q.Scales) == 0 || len(q.Scales) > math.MaxUint16 || len(model) > 255 || len(contentHash) > 255 {
		return nil
	}
	dim := len(q.Codes) / len(q.Scales)
	if dim > math.MaxUint16 || !q.valid(dim) {
		return nil
	}
	b := make([]byte, 0, 7+len(model)+len(contentHash)+4*len(q.Scales)+len(q.Codes))
	b = append(b, vectorInt8, byte(len(model)))
	b = append(b, model...)
	b = append(b, byte(len(contentHash)))
	b = append(b, contentHash...)
	b = binary.LittleEndian.AppendUint16(b, uint16(dim))
	b = binary.LittleEndian.AppendUint16(b, uint16(len(q.Scales)))
	for _, s := range q.Scales {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(s))
	}
	for _, c := range q.Codes {
		b = append(b, byte(c))
	}
	return b
}

// OldVectorFormat reports whether blob is in the float32 format of older
// vaults, which a caller may store again with EncodeQuantised.
func OldVectorFormat(blob []byte) bool { return len(blob) > 0 && blob[0] == vectorFloat32 }

// DecodeVector decodes a blob made by EncodeVector. It returns an error
// wrapping ErrVector for a damaged blob, and ok false for a well-formed
// blob of another model or another content hash.
func DecodeVector(blob []byte, model, contentHash string, dim int) (q Quantised, ok bool, err error) {
	gotHash, q, ok, err := DecodeVectorOf(blob, model, dim)
	if !ok || gotHash != contentHash {
		return Quantised{}, false, err
	}
	return q, true, nil
}

// DecodeVectorOf decodes a blob made by EncodeVector when it is of model,
// with chunk vectors of dim, and returns the content hash it was made
// from, which the caller MUST compare with the memory's before using q.
// It returns an error wrapping ErrVector for a damaged blob, and ok false
// for a well-formed blob of another model. It lets a caller decode the
// blobs while it reads the memories, before it knows their hashes. q
// shares no memory with blob.
func DecodeVectorOf(blob []byte, model string, dim int) (contentHash string, q Quantised, ok bool, err error) {
	bad := fmt.Errorf("%w: damaged vector blob", ErrVector)
	field := func() ([]byte, bool) {
		if len(blob) < 1 || len(blob) < 1+int(blob[0]) {
			return nil, false
		}
		s := blob[1 : 1+int(blob[0])]
		blob = blob[1+int(blob[0]):]
		return s, true
	}
	if len(blob) < 1 || blob[0] != vectorFloat32 && blob[0] != vectorInt8 {
		return "", Quantised{}, false, bad
	}
	format := blob[0]
	blob = blob[1:]
	gotModel, ok1 := field()
	gotHash, ok2 := field()
	if !ok1 || !ok2 || len(blob) < 2 {
		return "", Quantised{}, false, bad
	}
	if format == vectorFloat32 {
		v, ok := decodeFloats(blob)
		if !ok {
			return "", Quantised{}, false, bad
		}
		if string(gotModel) != model {
			return "", Quantised{}, false, nil
		}
		if q, ok = Quantise(v, dim); !ok {
			return "", Quantised{}, false, bad
		}
		return string(gotHash), q, true, nil
	}
	if len(blob) < 4 {
		return "", Quantised{}, false, bad
	}
	d, rows := int(binary.LittleEndian.Uint16(blob)), int(binary.LittleEndian.Uint16(blob[2:]))
	blob = blob[4:]
	if len(blob) != rows*(4+d) {
		return "", Quantised{}, false, bad
	}
	if string(gotModel) != model {
		return "", Quantised{}, false, nil
	}
	q = Quantised{Codes: make([]int8, rows*d), Scales: make([]float32, rows)}
	for i := range q.Scales {
		q.Scales[i] = math.Float32frombits(binary.LittleEndian.Uint32(blob[4*i:]))
	}
	for i, c := range blob[4*rows:] {
		q.Codes[i] = int8(c)
	}
	if d != dim || !q.valid(dim) {
		return "", Quantised{}, false, bad
	}
	return string(gotHash), q, true, nil
}

// decodeFloats decodes format 1's | n (uint16 LE) | n × float32 LE, none
// of them infinite or NaN.
func decodeFloats(blob []byte) ([]float32, bool) {
	n := int(binary.LittleEndian.Uint16(blob))
	blob = blob[2:]
	if len(blob) != 4*n {
		return nil, false
	}
	v := make([]float32, n)
	const exponent = 0x7f800000 // all ones: infinite or NaN
	for i := range v {
		bits := binary.LittleEndian.Uint32(blob[4*i : 4*i+4])
		if bits&exponent == exponent {
			return nil, false
		}
		v[i] = math.Float32frombits(bits)
	}
	return v, true
}

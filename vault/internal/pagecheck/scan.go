package pagecheck

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
)

// Entry is one key and value found on a leaf page (or in an inline bucket)
// by Scan. Key and Value alias the scanned bytes.
type Entry struct {
	// Path names the buckets holding the entry, outermost first. For an
	// entry reached from the meta page (Rooted) it starts at the root; for
	// one found on a page the tree no longer reaches it is relative to an
	// unknown bucket, and often empty.
	Path   []string
	Rooted bool
	// Free marks an entry on a page the freelist lists: a leftover of an
	// earlier transaction, to be trusted only where it authenticates
	// itself (the vault header's wrapped key).
	Free  bool
	Key   []byte
	Value []byte
	// Node numbers the leaf the entry was found on: entries of one leaf
	// page or inline bucket share it.
	Node int
}

// ScanResult is what Scan found.
type ScanResult struct {
	PageSize int
	// Meta is the meta page the tree was read from (0 or 1), or -1 when
	// neither is valid and every page was scanned as an orphan.
	Meta int
	// Freelist reports whether the free page list was read: without it,
	// pages that once held data and were freed are scanned too.
	Freelist bool
	// Pages is how many pages were considered (the meta page's high-water
	// mark, or the file's length when there is no valid meta page).
	Pages int
	// OrphanPages counts branch and leaf pages that the tree does not reach
	// and the freelist does not list: pages of subtrees cut off by damage.
	OrphanPages int
	Entries     []Entry
	// Buckets maps every bucket reached from the root (path joined by "/")
	// to whether its whole subtree could be read.
	Buckets  map[string]bool
	Problems []string
}

// Complete reports whether the bucket at path was reached from the root and
// every page under it could be read.
func (r *ScanResult) Complete(path ...string) bool {
	return r.Buckets[strings.Join(path, "/")]
}

type scanner struct {
	data    []byte
	ps      int
	limit   uint64 // pages considered
	hwm     uint64 // pages the meta page counts, beyond a truncated file's end
	free    map[uint64]bool
	seen    map[uint64]bool
	nodes   int
	inFree  bool
	res     *ScanResult
	entries int
}

// maxEntries bounds what one scan returns, so a file crafted to repeat
// one inline bucket cannot make Scan allocate without limit.
const maxEntries = 1 << 24

// Scan reads the bbolt file held in data without trusting its pointers and
// returns every leaf entry it can reach, for salvaging a damaged file. It
// walks the tree from the newest valid meta page, refusing any page that is
// out of bounds, mislabelled, listed as free or reached twice (so it always
// terminates), then reads the branch and leaf pages the tree did not reach
// and the freelist does not list: the pages below a damaged branch page.
// It never panics and never writes to data.
func Scan(data []byte) *ScanResult {
	res := &ScanResult{Meta: -1, Buckets: map[string]bool{}}
	s := &scanner{data: data, free: map[uint64]bool{}, seen: map[uint64]bool{0: true, 1: true}, res: res}
	m0, ok0 := readMeta(data, 0, 0)
	ps := 4096
	if ok0 {
		ps = int(m0.pageSize)
	}
	m1, ok1 := readMeta(data, ps, 1)
	if !ok1 && !ok0 {
		ps = guessPageSize(data)
		m1, ok1 = readMeta(data, ps, 1)
	}
	var m meta
	switch {
	case ok0 && (!ok1 || m0.txid >= m1.txid):
		m, res.Meta = m0, 0
	case ok1:
		m, res.Meta = m1, 1
	}
	if res.Meta >= 0 {
		if p := int(m.pageSize); p < 512 || p > 1<<20 || p&(p-1) != 0 {
			res.Meta = -1
			s.problem("the meta page gives page size %d", p)
		} else {
			ps = p
		}
	}
	switch {
	case !ok0 && !ok1:
		s.problem("both meta pages are damaged: the tree cannot be followed, every page is read on its own")
	case !ok0 || !ok1:
		s.problem("meta page %d is damaged; the other one is used, which loses the last transaction", map[bool]int{true: 1, false: 0}[ok0])
	}
	s.ps = ps
	res.PageSize = ps
	filePages := uint64(len(data) / ps)
	s.limit, s.hwm = filePages, filePages
	if res.Meta >= 0 {
		s.limit, s.hwm = min(m.hwm, filePages), max(m.hwm, filePages)
		if m.hwm > filePages {
			s.problem("the file holds %d of its %d pages (truncated)", filePages, m.hwm)
		}
		res.Freelist = s.readFreelist(m.freelist)
		s.walk(m.root, nil, true, 0)
	}
	res.Pages = int(s.limit)
	s.orphans()
	return res
}

// guessPageSize picks the page size under which most pages carry their own
// id in their header, for a file whose meta pages are both damaged.
func guessPageSize(data []byte) int {
	best, bestScore := 4096, 0
	for ps := 512; ps <= 1<<16; ps <<= 1 {
		score := 0
		for id := 2; (id+1)*ps <= len(data) && id < 4096; id++ {
			if le.Uint64(data[id*ps:]) == uint64(id) {
				score++
			}
		}
		if score > bestScore {
			best, bestScore = ps, score
		}
	}
	return best
}

func (s *scanner) problem(format string, args ...any) {
	p := fmt.Sprintf(format, args...)
	if len(s.res.Problems) < 32 && !slices.Contains(s.res.Problems, p) {
		s.res.Problems = append(s.res.Problems, p)
	}
}

// readFreelist loads the ids of free pages; it reports false when the
// freelist page cannot be read.
func (s *scanner) readFreelist(id uint64) bool {
	if id == 0xFFFFFFFFFFFFFFFF {
		return false // not persisted
	}
	p, ok := s.header(id)
	if !ok || le.Uint16(p[8:])&flagFree == 0 {
		s.problem("the freelist page %d is damaged", id)
		return false
	}
	count, start := int(le.Uint16(p[10:])), headerSize
	if count == 0xFFFF {
		if len(p) < headerSize+8 {
			return false
		}
		count, start = int(min(le.Uint64(p[headerSize:]), uint64(len(p)))), headerSize+8
	}
	if start+count*8 > len(p) {
		s.problem("the freelist page %d lists more ids than fit", id)
		return false
	}
	for i := 0; i < count; i++ {
		s.free[le.Uint64(p[start+i*8:])] = true
	}
	over := uint64(le.Uint32(p[12:]))
	for i := id; i <= id+over; i++ {
		s.seen[i] = true
	}
	return true
}

// header returns page id with its overflow when its header is sound: in
// range, labelled with its own id, its overflow inside the file.
func (s *scanner) header(id uint64) ([]byte, bool) {
	if id < 2 || id >= s.limit {
		return nil, false
	}
	off := id * uint64(s.ps)
	if le.Uint64(s.data[off:]) != id {
		return nil, false
	}
	over := uint64(le.Uint32(s.data[off+12:]))
	switch {
	case over < s.limit && id+over < s.limit:
		return s.data[off : off+(1+over)*uint64(s.ps)], true
	case over < s.hwm && id+over < s.hwm:
		// The run of pages goes past the end of a truncated file: what
		// is left of it still holds whole elements.
		return s.data[off:min(off+(1+over)*uint64(s.ps), uint64(len(s.data)))], true
	}
	return nil, false
}

// page returns a page not reached before and not free, marking it
// reached. A page reached from the tree marks its overflow pages reached
// too; an orphan page may be a stale copy whose overflow pages have since
// been reused, so they stay to be read on their own.
func (s *scanner) page(id uint64, rooted bool) ([]byte, bool) {
	if s.seen[id] || s.free[id] {
		return nil, false
	}
	p, ok := s.header(id)
	if !ok {
		return nil, false
	}
	s.seen[id] = true
	for i := id + 1; rooted && i < id+uint64((len(p)+s.ps-1)/s.ps); i++ {
		s.seen[i] = true
	}
	return p, true
}

// walk reads the subtree rooted at page id and reports whether all of it
// could be read.
func (s *scanner) walk(id uint64, path []string, rooted bool, depth int) bool {
	p, ok := s.page(id, rooted)
	if !ok {
		if rooted {
			s.problem("page %d under %q cannot be read", id, strings.Join(path, "/"))
		}
		return false
	}
	return s.node(p, path, rooted, depth)
}

// node reads one branch or leaf page (a whole page or an inline bucket).
func (s *scanner) node(p []byte, path []string, rooted bool, depth int) bool {
	if depth > maxDepth || len(p) < headerSize {
		return false
	}
	flags, count := le.Uint16(p[8:]), int(le.Uint16(p[10:]))
	if flags != flagBranch && flags != flagLeaf {
		return false
	}
	complete := true
	if headerSize+count*elemSize > len(p) {
		count = (len(p) - headerSize) / elemSize
		complete = false
	}
	s.nodes++
	nodeID := s.nodes
	for i := 0; i < count; i++ {
		at := headerSize + i*elemSize
		e := p[at : at+elemSize]
		if flags == flagBranch {
			pos, ksize := int(le.Uint32(e[0:])), int(le.Uint32(e[4:]))
			if !within(p, at, pos, ksize) {
				complete = false
				continue
			}
			child := le.Uint64(e[8:])
			// A damaged pointer may land on a sound page of another
			// subtree: refuse a child whose keys do not start at this
			// element's key, so the page stays for its real parent or
			// the orphan pass.
			if cp, ok := s.header(child); ok && !s.seen[child] && !bytes.Equal(firstKey(cp), p[at+pos:at+pos+ksize]) {
				if rooted {
					s.problem("branch element under %q points at page %d, whose keys do not match", strings.Join(path, "/"), child)
				}
				complete = false
				continue
			}
			complete = s.walk(child, path, rooted, depth+1) && complete
			continue
		}
		eflags, pos, ksize, vsize := le.Uint32(e[0:]), int(le.Uint32(e[4:])), int(le.Uint32(e[8:])), int(le.Uint32(e[12:]))
		if ksize < 0 || vsize < 0 || !within(p, at, pos, ksize+vsize) {
			complete = false
			continue
		}
		k := p[at+pos : at+pos+ksize]
		v := p[at+pos+ksize : at+pos+ksize+vsize]
		if eflags&flagBucket == 0 {
			if s.entries < maxEntries {
				s.entries++
				s.res.Entries = append(s.res.Entries, Entry{Path: path, Rooted: rooted, Free: s.inFree, Key: k, Value: v, Node: nodeID})
			}
			continue
		}
		if vsize < bucketHdr {
			complete = false
			continue
		}
		sub := append(slices.Clip(path), string(k))
		var ok bool
		if root := le.Uint64(v); root != 0 {
			ok = s.walk(root, sub, rooted, depth+1)
		} else {
			ok = s.node(v[bucketHdr:], sub, rooted, depth+1)
		}
		if rooted {
			s.res.Buckets[strings.Join(sub, "/")] = ok
		}
		// A damaged bucket below this one is reported on its own; this
		// node's own pages were read.
	}
	return complete
}

// orphans reads the branch and leaf pages the tree did not reach and the
// freelist does not list, tops of cut-off subtrees first so their entries
// keep what bucket path can still be known.
func (s *scanner) orphans() {
	var cands []uint64
	referenced := map[uint64]bool{}
	for id := uint64(2); id < s.limit; id++ {
		if s.seen[id] || s.free[id] {
			continue
		}
		p, ok := s.header(id)
		if !ok {
			continue
		}
		flags := le.Uint16(p[8:])
		if flags != flagBranch && flags != flagLeaf {
			continue
		}
		cands = append(cands, id)
		for _, child := range children(p) {
			referenced[child] = true
		}
	}
	for _, pass := range []bool{false, true} {
		for _, id := range cands {
			if referenced[id] != pass || s.seen[id] {
				continue
			}
			s.res.OrphanPages++
			s.walk(id, nil, false, 0)
		}
	}
	// Last, the leaf pages on the freelist, read one by one: their bucket
	// roots point at pages already read or free, which page refuses.
	s.inFree = true
	for id := uint64(2); id < s.limit; id++ {
		if !s.free[id] || s.seen[id] {
			continue
		}
		if p, ok := s.header(id); ok && le.Uint16(p[8:]) == flagLeaf {
			s.node(p, nil, false, 0)
		}
	}
	s.inFree = false
}

// firstKey returns the first key of a branch or leaf page, or nil.
func firstKey(p []byte) []byte {
	flags, count := le.Uint16(p[8:]), int(le.Uint16(p[10:]))
	if (flags != flagBranch && flags != flagLeaf) || count == 0 || len(p) < headerSize+elemSize {
		return nil
	}
	e := p[headerSize : headerSize+elemSize]
	pos, ksize := int(le.Uint32(e[0:])), int(le.Uint32(e[4:]))
	if flags == flagLeaf {
		pos, ksize = int(le.Uint32(e[4:])), int(le.Uint32(e[8:]))
	}
	if !within(p, headerSize, pos, ksize) {
		return nil
	}
	return p[headerSize+pos : headerSize+pos+ksize]
}

// children lists the pages a branch page points to, and the root pages of
// the non-inline buckets a leaf page holds.
func children(p []byte) []uint64 {
	flags, count := le.Uint16(p[8:]), int(le.Uint16(p[10:]))
	count = min(count, (len(p)-headerSize)/elemSize)
	var out []uint64
	for i := 0; i < count; i++ {
		at := headerSize + i*elemSize
		e := p[at : at+elemSize]
		if flags == flagBranch {
			out = append(out, le.Uint64(e[8:]))
			continue
		}
		pos, ksize, vsize := int(le.Uint32(e[4:])), int(le.Uint32(e[8:])), int(le.Uint32(e[12:]))
		if le.Uint32(e[0:])&flagBucket != 0 && vsize >= bucketHdr && ksize >= 0 && within(p, at, pos, ksize+vsize) {
			out = append(out, le.Uint64(p[at+pos+ksize:]))
		}
	}
	return out
}

// within reports whether [at+pos, at+pos+n) lies inside p.
func within(p []byte, at, pos, n int) bool {
	start := at + pos
	return pos >= 0 && n >= 0 && start >= 0 && start <= len(p) && n <= len(p)-start
}

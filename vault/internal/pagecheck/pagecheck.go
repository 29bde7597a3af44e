// Package pagecheck validates the page structure of a bbolt file from its
// raw bytes, before bbolt itself reads it.
//
// bbolt trusts its pages: a damaged branch page that points back at an
// ancestor makes a cursor descend forever, a damaged header makes its
// checker assert in a goroutine of its own. Engram's doctor runs this check
// first, so a damaged file is reported instead of hanging or crashing the
// program. It follows bbolt's documented layout (format version 2): a
// 16-byte page header (id, flags, count, overflow), two meta pages, branch
// and leaf elements of 16 bytes, and inline buckets stored in leaf values.
package pagecheck

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
)

const (
	headerSize  = 16
	elemSize    = 16
	bucketHdr   = 16
	magic       = 0xED0CDAED
	version     = 2
	maxDepth    = 64
	flagBranch  = 0x01
	flagLeaf    = 0x02
	flagMeta    = 0x04
	flagFree    = 0x10
	flagBucket  = 0x01
	metaSumSize = 56
)

// ErrDamaged is wrapped by every error Check returns.
var ErrDamaged = errors.New("damaged page structure")

var le = binary.NativeEndian

type meta struct {
	pageSize uint32
	root     uint64
	freelist uint64
	hwm      uint64
	txid     uint64
}

// readMeta decodes and checks the meta page at off; ok is false when it is
// not a valid meta page.
func readMeta(data []byte, off int, id uint64) (meta, bool) {
	if off < 0 || off+headerSize+metaSumSize+8 > len(data) {
		return meta{}, false
	}
	p := data[off:]
	if le.Uint64(p) != id || le.Uint16(p[8:]) != flagMeta {
		return meta{}, false
	}
	m := p[headerSize:]
	if le.Uint32(m[0:]) != magic || le.Uint32(m[4:]) != version {
		return meta{}, false
	}
	h := fnv.New64a()
	h.Write(m[:metaSumSize])
	if h.Sum64() != le.Uint64(m[metaSumSize:]) {
		return meta{}, false
	}
	return meta{pageSize: le.Uint32(m[8:]), root: le.Uint64(m[16:]), freelist: le.Uint64(m[32:]), hwm: le.Uint64(m[40:]), txid: le.Uint64(m[48:])}, true
}

type checker struct {
	data     []byte
	ps       int
	hwm      uint64
	visited  map[uint64]bool
	problems []string
}

// Check validates the bbolt file held in data. It returns nil for a sound
// structure and an error wrapping ErrDamaged naming the first problems
// otherwise. It always terminates and never panics, whatever data holds.
// It reports a damaged meta page even when the other one is sound (bbolt
// would silently fall back to the older one).
func Check(data []byte) error {
	m0, ok0 := readMeta(data, 0, 0)
	ps := int(m0.pageSize)
	if !ok0 {
		ps = 4096
	}
	m1, ok1 := readMeta(data, ps, 1)
	switch {
	case !ok0 && !ok1:
		return fmt.Errorf("%w: neither meta page is valid", ErrDamaged)
	case ok0 && ok1 && m0.pageSize != m1.pageSize:
		return fmt.Errorf("%w: the meta pages disagree on the page size", ErrDamaged)
	}
	m := m0
	if !ok0 || (ok1 && m1.txid > m0.txid) {
		m = m1
	}
	ps = int(m.pageSize)
	if ps < 512 || ps > 1<<20 || ps&(ps-1) != 0 {
		return fmt.Errorf("%w: page size %d", ErrDamaged, ps)
	}
	c := &checker{data: data, ps: ps, hwm: m.hwm, visited: map[uint64]bool{}}
	if !ok0 || !ok1 {
		c.problem("meta page %d is damaged (bbolt would use the other, losing the last transaction)", map[bool]int{true: 1, false: 0}[ok0])
	}
	if m.hwm < 2 || m.hwm*uint64(ps) > uint64(len(data)) {
		c.problem("the file is shorter than its %d pages", m.hwm)
		return c.err()
	}
	if m.freelist != 0xFFFFFFFFFFFFFFFF { // freelist not persisted
		if p, ok := c.page(m.freelist); ok && le.Uint16(p[8:])&flagFree == 0 {
			c.problem("freelist page %d has flags %#x", m.freelist, le.Uint16(p[8:]))
		}
	}
	c.tree(m.root, 0)
	return c.err()
}

func (c *checker) problem(format string, args ...any) {
	if len(c.problems) < 8 {
		c.problems = append(c.problems, fmt.Sprintf(format, args...))
	}
}

func (c *checker) err() error {
	if len(c.problems) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %v", ErrDamaged, c.problems)
}

// page returns the bytes of page id with its overflow, after checking its
// header, bounds and that it was not reached before.
func (c *checker) page(id uint64) ([]byte, bool) {
	if id < 2 || id >= c.hwm {
		c.problem("reference to page %d outside 2..%d", id, c.hwm-1)
		return nil, false
	}
	if c.visited[id] {
		c.problem("page %d is referenced twice (a loop in the tree)", id)
		return nil, false
	}
	c.visited[id] = true
	off := id * uint64(c.ps)
	hdr := c.data[off : off+headerSize]
	if le.Uint64(hdr) != id {
		c.problem("page %d is labelled as page %d", id, le.Uint64(hdr))
		return nil, false
	}
	over := uint64(le.Uint32(hdr[12:]))
	if id+over >= c.hwm {
		c.problem("page %d overflows past the end of the file", id)
		return nil, false
	}
	return c.data[off : off+(1+over)*uint64(c.ps)], true
}

// tree checks the B+tree rooted at page id.
func (c *checker) tree(id uint64, depth int) {
	p, ok := c.page(id)
	if !ok {
		return
	}
	c.node(p, id, depth)
}

// node checks one branch or leaf page p (a whole page or an inline one).
func (c *checker) node(p []byte, id uint64, depth int) {
	if depth > maxDepth {
		c.problem("page %d is nested deeper than %d levels", id, maxDepth)
		return
	}
	if len(p) < headerSize {
		c.problem("page %d is truncated", id)
		return
	}
	flags, count := le.Uint16(p[8:]), int(le.Uint16(p[10:]))
	if flags != flagBranch && flags != flagLeaf {
		c.problem("page %d has flags %#x where a branch or leaf page belongs", id, flags)
		return
	}
	if headerSize+count*elemSize > len(p) {
		c.problem("page %d holds %d elements, more than fit", id, count)
		return
	}
	for i := 0; i < count; i++ {
		at := headerSize + i*elemSize
		e := p[at : at+elemSize]
		if flags == flagBranch {
			pos, ksize, child := int(le.Uint32(e[0:])), int(le.Uint32(e[4:])), le.Uint64(e[8:])
			if !c.within(p, at, pos, ksize) {
				c.problem("page %d element %d key out of bounds", id, i)
				return
			}
			c.tree(child, depth+1)
			continue
		}
		eflags, pos, ksize, vsize := le.Uint32(e[0:]), int(le.Uint32(e[4:])), int(le.Uint32(e[8:])), int(le.Uint32(e[12:]))
		if !c.within(p, at, pos, ksize+vsize) || ksize+vsize < 0 {
			c.problem("page %d element %d out of bounds", id, i)
			return
		}
		if eflags&flagBucket == 0 {
			continue
		}
		if vsize < bucketHdr {
			c.problem("page %d element %d: bucket header truncated", id, i)
			return
		}
		v := p[at+pos+ksize : at+pos+ksize+vsize]
		if root := le.Uint64(v); root != 0 {
			c.tree(root, depth+1)
		} else {
			c.node(v[bucketHdr:], id, depth+1) // inline bucket
		}
	}
}

// within reports whether [at+pos, at+pos+n) lies inside p.
func (c *checker) within(p []byte, at, pos, n int) bool {
	start := at + pos
	return pos >= 0 && n >= 0 && start >= 0 && start <= len(p) && n <= len(p)-start
}

package vault

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
)

// ScrubStats says what one Scrub did.
type ScrubStats struct {
	FreePages    int           // pages on bbolt's freelist when it ended
	ZeroedPages  int           // free pages that held bytes and were overwritten with zeros
	Holds        int           // times it held the write lock
	Pause        time.Duration // the longest hold: the longest a writer waited for it
	Held         time.Duration // all holds together
	WaitedOnRead bool          // a read begun before the last change delayed it
}

// scrubChunk is how many free pages one hold of the write lock reads
// (2 MiB of 4 KiB pages): it bounds the writers' pause, whatever the
// number of free pages (BenchmarkScrub100k).
const scrubChunk = 512

// errScrubBusy: a read of an older snapshot is open; Scrub retries.
var errScrubBusy = errors.New("a read of an older snapshot is open")

// ScrubPending reports whether something was removed since the last
// Scrub, so free pages may hold its bytes.
func (v *Vault) ScrubPending() bool { return v.scrubWanted.Load() }

// markRemoved notes that a change removed or replaced stored bytes
// (a memory, versions, a queue entry, a vector, plaintext made sealed):
// the next Scrub must run. Change functions may run twice; marking twice
// is harmless.
func (v *Vault) markRemoved() { v.scrubWanted.Store(true) }

// Scrub overwrites with zeros every free page of the file that is not
// zero already, so that nothing removed survives in the file (bbolt never
// clears the pages it frees). Readers go on meanwhile; writers wait for
// at most one chunk of scrubChunk free pages at a time:
//
//  1. an empty commit, so that both meta pages list the pages freed by
//     the last change (see scrubbable);
//  2. chunk by chunk, the pages are read ahead into the page cache, then,
//     holding the vault's write gate (no write transaction runs or
//     starts), the pages both meta pages' freelists list are read again
//     and those that hold bytes are overwritten;
//  3. with writers going again, the file is synced.
//
// A read transaction of a snapshot older than the older meta page may
// still see freed pages through the memory map; while one is open, step 2
// waits for it (retrying every few milliseconds, until ctx ends). Pages
// freed by writers during a scrub are left to the next one, which their
// removal asks for. Scrub returns ErrReadOnly for a read-only vault.
func (v *Vault) Scrub(ctx context.Context) (ScrubStats, error) {
	var st ScrubStats
	if v.readOnly {
		return st, ErrReadOnly
	}
	v.scrubMu.Lock()
	defer v.scrubMu.Unlock()
	wanted := v.scrubWanted.Swap(false)
	err := func() error {
		v.dbMu.RLock()
		defer v.dbMu.RUnlock()
		f, err := os.OpenFile(v.path, os.O_RDWR, 0)
		if err != nil {
			return err
		}
		defer f.Close()
		// Step 1: both meta pages then describe the tree as it is.
		if err := v.db.Update(func(*bolt.Tx) error { return nil }); err != nil {
			return err
		}
		from := uint64(2)
		for {
			if err := ctx.Err(); err != nil {
				return err
			}
			v.prefetch(f, from)
			next, err := v.scrubChunk(f, &st, from)
			switch {
			case err == nil && next == 0:
				if st.ZeroedPages > 0 && !v.opts.NoSync {
					// Outside the write gate: the zeros are in the page
					// cache already, where every later write to those
					// pages lands after them; this makes them durable.
					return f.Sync()
				}
				return nil
			case err == nil:
				from = next
			case errors.Is(err, errScrubBusy):
				st.WaitedOnRead = true
				select {
				case <-ctx.Done():
					return ctx.Err()
				case <-time.After(5 * time.Millisecond):
				}
			default:
				return err
			}
		}
	}()
	if err != nil {
		if wanted {
			v.scrubWanted.Store(true)
		}
		return st, fmt.Errorf("scrub free pages: %w", mapBoltErr(err))
	}
	return st, nil
}

// scrubChunk is step 2 of Scrub: it scrubs up to scrubChunk free pages
// from page from on, and returns the page to go on from, or 0 when it
// reached the end. It holds the vault's write gate, so no write
// transaction is running or starts meanwhile; it needs no bbolt
// transaction (rolling one back makes bbolt reload the whole freelist,
// milliseconds at 100,000 memories).
func (v *Vault) scrubChunk(f *os.File, st *ScrubStats, from uint64) (next uint64, err error) {
	v.writeGate.Lock()
	start := time.Now()
	defer func() {
		v.writeGate.Unlock()
		d := time.Since(start)
		st.Holds++
		st.Held += d
		st.Pause = max(st.Pause, d)
	}()
	free, oldest, hwm, err := scrubbable(f, v.db.Info().PageSize)
	if err != nil {
		return 0, err
	}
	// No reader of a snapshot older than the older meta page's may be
	// open: it could see those pages.
	if !v.readers.allAtLeast(int(oldest)) {
		return 0, errScrubBusy
	}
	st.FreePages = len(free)
	runs, next := chunkRuns(free, from, hwm)
	for _, r := range runs {
		n, err := zeroRun(f, v.db.Info().PageSize, int(r.id), int(r.n))
		st.ZeroedPages += n
		if err != nil {
			return 0, err
		}
	}
	return next, nil
}

// scrubbable returns the pages a scrub may zero, sorted: those that the
// freelists of both meta pages list. A page only the newer one lists was
// freed by the last commit and is still part of the older meta page's
// tree, which bbolt falls back to if the newer meta page is damaged (the
// older meta page's own freelist page is one); it waits for the next
// scrub. Nothing commits while the write gate is held, so the newer meta
// page's freelist lists every page free or pending in bbolt now. oldest
// is the older meta page's transaction id, hwm the newer one's page count.
func scrubbable(f *os.File, ps int) (pages []uint64, oldest, hwm uint64, err error) {
	cur, old, err := readMetas(f, ps)
	if err != nil {
		return nil, 0, 0, err
	}
	a, err := readFreelist(f, ps, cur.freelist)
	if err != nil {
		return nil, 0, 0, err
	}
	b, err := readFreelist(f, ps, old.freelist)
	if err != nil {
		return nil, 0, 0, err
	}
	for _, l := range [][]uint64{a, b} {
		if !slices.IsSorted(l) { // bbolt writes them sorted
			slices.Sort(l)
		}
	}
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			if a[i] >= 2 && a[i] < cur.hwm {
				pages = append(pages, a[i])
			}
			i++
			j++
		}
	}
	return pages, old.txid, cur.hwm, nil
}

// run is n consecutive pages from page id.
type run struct{ id, n uint64 }

// chunkRuns picks the next chunk of scrubChunk pages from page from on,
// out of pages (sorted), as runs of at most 256 consecutive pages. next is
// where the following chunk starts, 0 after the last.
func chunkRuns(pages []uint64, from, hwm uint64) (runs []run, next uint64) {
	i, _ := slices.BinarySearch(pages, from)
	pages = pages[i:]
	if len(pages) > scrubChunk {
		next, pages = pages[scrubChunk], pages[:scrubChunk]
	}
	for _, id := range pages {
		if id >= hwm {
			continue
		}
		if k := len(runs) - 1; k >= 0 && runs[k].id+runs[k].n == id && runs[k].n < 256 {
			runs[k].n++
			continue
		}
		runs = append(runs, run{id, 1})
	}
	return runs, next
}

// prefetch reads, without any lock, the pages the next chunk will read
// under the write lock, so that the hold finds them in the page cache:
// free pages are often cold, and reading them from the disk under the
// lock made writers wait tens of milliseconds. What it reads may be stale
// by the hold; the hold reads again.
func (v *Vault) prefetch(f *os.File, from uint64) {
	ps := v.db.Info().PageSize
	pages, _, hwm, err := scrubbable(f, ps)
	if err != nil {
		return
	}
	runs, _ := chunkRuns(pages, from, hwm)
	buf := make([]byte, 256*ps)
	for _, r := range runs {
		_, _ = f.ReadAt(buf[:r.n*uint64(ps)], int64(r.id)*int64(ps))
	}
}

// zeroRun reads n pages from page first and overwrites those that are not
// all zeros. It returns how many it overwrote.
func zeroRun(f *os.File, ps, first, n int) (int, error) {
	buf := make([]byte, n*ps)
	if _, err := f.ReadAt(buf, int64(first)*int64(ps)); err != nil {
		return 0, err
	}
	zero := make([]byte, ps)
	done := 0
	for i := 0; i < n; {
		if bytes.Equal(buf[i*ps:(i+1)*ps], zero) {
			i++
			continue
		}
		j := i + 1
		for j < n && !bytes.Equal(buf[j*ps:(j+1)*ps], zero) {
			j++
		}
		if _, err := f.WriteAt(make([]byte, (j-i)*ps), int64(first+i)*int64(ps)); err != nil {
			return done, err
		}
		done += j - i
		i = j
	}
	return done, nil
}

// metaInfo is what Scrub needs of a meta page.
type metaInfo struct {
	txid, hwm, freelist, freelistOverflow uint64
}

// readMetas reads both meta pages from the file and returns the newer
// and the older. Layout: bbolt's page header (16 bytes), then magic,
// version, page size, flags (4 bytes each), the root bucket (16 bytes),
// freelist page id, high-water mark, txid (8 bytes each), in the
// machine's byte order. A meta page without a persisted freelist has
// freelist 0 here.
func readMetas(f *os.File, ps int) (cur, old metaInfo, err error) {
	var ms [2]metaInfo
	for i := range 2 {
		var m [80]byte
		if _, err := f.ReadAt(m[:], int64(i*ps)); err != nil {
			return cur, old, err
		}
		ms[i].txid = binary.NativeEndian.Uint64(m[16+48:])
		ms[i].hwm = binary.NativeEndian.Uint64(m[16+40:])
		fl := binary.NativeEndian.Uint64(m[16+32:])
		if fl == ^uint64(0) || fl < 2 {
			continue
		}
		var h [16]byte
		if _, err := f.ReadAt(h[:], int64(fl)*int64(ps)); err != nil {
			return cur, old, err
		}
		ms[i].freelist, ms[i].freelistOverflow = fl, uint64(binary.NativeEndian.Uint32(h[12:]))
	}
	if ms[1].txid > ms[0].txid {
		return ms[1], ms[0], nil
	}
	return ms[0], ms[1], nil
}

// readFreelist reads the page ids listed on freelist page id (bbolt's
// array format: a count in the page header, or 0xFFFF and the count in
// the first id slot).
func readFreelist(f *os.File, ps int, id uint64) ([]uint64, error) {
	if id == 0 {
		return nil, fmt.Errorf("%w: the freelist is not stored", ErrCorrupt)
	}
	var h [16]byte
	if _, err := f.ReadAt(h[:], int64(id)*int64(ps)); err != nil {
		return nil, err
	}
	if binary.NativeEndian.Uint16(h[8:])&0x10 == 0 {
		return nil, fmt.Errorf("%w: page %d is not a freelist page", ErrCorrupt, id)
	}
	size := (1 + int64(binary.NativeEndian.Uint32(h[12:]))) * int64(ps)
	buf := make([]byte, size)
	if _, err := f.ReadAt(buf, int64(id)*int64(ps)); err != nil {
		return nil, err
	}
	n, start := int64(binary.NativeEndian.Uint16(buf[10:])), int64(16)
	if n == 0xFFFF {
		n, start = int64(binary.NativeEndian.Uint64(buf[16:])), 24
	}
	if start+8*n > size {
		return nil, fmt.Errorf("%w: freelist page %d lists more ids than fit", ErrCorrupt, id)
	}
	ids := make([]uint64, n)
	for i := range ids {
		ids[i] = binary.NativeEndian.Uint64(buf[start+8*int64(i):])
	}
	return ids, nil
}

// readers tracks the snapshots open read transactions see, for Scrub.
type readers struct {
	mu       sync.Mutex
	entering int         // reads asked of bbolt whose snapshot is not known yet
	open     map[int]int // snapshot txid -> open reads
}

func (r *readers) enter() {
	r.mu.Lock()
	r.entering++
	r.mu.Unlock()
}

// begun moves a read from entering to open at snapshot id.
func (r *readers) begun(id int) {
	r.mu.Lock()
	r.entering--
	if r.open == nil {
		r.open = map[int]int{}
	}
	r.open[id]++
	r.mu.Unlock()
}

// leave ends a read: begun at snapshot id, or never begun when ok is false.
func (r *readers) leave(id int, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !ok {
		r.entering--
		return
	}
	if r.open[id]--; r.open[id] == 0 {
		delete(r.open, id)
	}
}

// allAtLeast reports whether every open read sees snapshot id or a later
// one. A read still entering may hold an older snapshot: it counts as older.
func (r *readers) allAtLeast(id int) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.entering > 0 {
		return false
	}
	for s := range r.open {
		if s < id {
			return false
		}
	}
	return true
}

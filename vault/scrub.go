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
// (8 MiB of 4 KiB pages): it bounds the writers' pause, whatever the
// number of free pages (BenchmarkScrub100k).
const scrubChunk = 2048

// Scrub retries after these: a read of an older snapshot is open, or a
// writer committed between the empty commit and the scrub's hold.
var (
	errScrubBusy    = errors.New("a read of an older snapshot is open")
	errScrubSettled = errors.New("a commit came between")
)

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
//  1. an empty commit, so that both meta pages describe the current
//     tree: should the newest meta page ever be damaged, bbolt falls back
//     to the other, which then references no free page;
//  2. a write transaction that writes nothing to bbolt, and rolls back:
//     it reads the freelist from the newest meta page (the last commit,
//     which must be step 1's, or step 1 runs again), leaves out the
//     freelist page of either meta page, reads the next chunk of free
//     pages and overwrites those that hold bytes;
//  3. steps 1 and 2 again until every free page was read; then, with
//     writers going, the file is synced.
//
// A read transaction begun before the last commit may still see freed
// pages through the memory map; while one is open, step 2 waits for it
// (retrying every few milliseconds, until ctx ends). Pages freed by
// writers between chunks, in the part already read, are left to the next
// Scrub, which their removal asks for. Scrub returns ErrReadOnly for a
// read-only vault.
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
		settled := -1 // the txid of our last empty commit
		from := uint64(2)
		for {
			if err := ctx.Err(); err != nil {
				return err
			}
			ps := v.db.Info().PageSize
			cur, _, err := readMetas(f, ps)
			if err != nil {
				return err
			}
			if int(cur.txid) != settled {
				err := v.db.Update(func(tx *bolt.Tx) error {
					settled = tx.ID()
					return nil
				})
				if err != nil {
					return err
				}
			}
			next, err := v.scrubChunk(f, &st, settled, from)
			switch {
			case err == nil && next == 0:
				if st.ZeroedPages > 0 && !v.opts.NoSync {
					// Outside the write lock: the zeros are in the page
					// cache already, where every later write to those
					// pages lands after them; this makes them durable.
					return f.Sync()
				}
				return nil
			case err == nil:
				from = next
			case errors.Is(err, errScrubSettled):
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
// reached the end.
func (v *Vault) scrubChunk(f *os.File, st *ScrubStats, settled int, from uint64) (next uint64, err error) {
	defer recoverDamage(&err)
	tx, err := v.db.Begin(true)
	if err != nil {
		return 0, err
	}
	start := time.Now()
	defer func() {
		_ = tx.Rollback()
		d := time.Since(start)
		st.Holds++
		st.Held += d
		st.Pause = max(st.Pause, d)
	}()
	if tx.ID()-1 != settled {
		return 0, errScrubSettled
	}
	// The write transaction's snapshot is the last commit's successor:
	// every page free now was freed by a commit up to tx.ID()-1, which a
	// read of that snapshot or a later one does not see.
	if !v.readers.allAtLeast(tx.ID() - 1) {
		return 0, errScrubBusy
	}
	ps := v.db.Info().PageSize
	// The newest meta page's freelist, written by the last commit, lists
	// every page free or pending now: nothing has committed since, and
	// this transaction has freed nothing. Reading it costs the free pages,
	// not the file's.
	cur, old, err := readMetas(f, ps)
	if err != nil {
		return 0, err
	}
	if cur.txid != uint64(settled) {
		return 0, fmt.Errorf("%w: the newest meta page is transaction %d, not %d", ErrCorrupt, cur.txid, settled)
	}
	free, err := readFreelist(f, ps, cur.freelist)
	if err != nil {
		return 0, err
	}
	skip := map[uint64]bool{}
	for _, m := range []metaInfo{cur, old} {
		for id := m.freelist; id <= m.freelist+m.freelistOverflow && m.freelist != 0; id++ {
			skip[id] = true
		}
	}
	hwm := uint64(tx.Size() / int64(ps))
	slices.Sort(free)
	st.FreePages = len(free)
	i, _ := slices.BinarySearch(free, from)
	free = free[i:]
	if len(free) > scrubChunk {
		next, free = free[scrubChunk], free[:scrubChunk]
	}
	var run []uint64 // consecutive free pages
	flush := func() error {
		if len(run) == 0 {
			return nil
		}
		n, err := zeroRun(f, ps, int(run[0]), len(run))
		st.ZeroedPages += n
		run = run[:0]
		return err
	}
	for _, id := range free {
		if id < 2 || id >= hwm || skip[id] {
			continue
		}
		if len(run) > 0 && (run[len(run)-1]+1 != id || len(run) == 256) {
			if err := flush(); err != nil {
				return 0, err
			}
		}
		run = append(run, id)
	}
	return next, flush()
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
	txid, freelist, freelistOverflow uint64
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

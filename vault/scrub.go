package vault

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
)

// ScrubStats says what one Scrub did.
type ScrubStats struct {
	FreePages    int           // pages on bbolt's freelist when it ran
	ZeroedPages  int           // free pages that held bytes and were overwritten with zeros
	Pause        time.Duration // how long writers waited: the scrub's hold on the write lock
	WaitedOnRead bool          // a read begun before the last change delayed it
}

// errScrubBusy: a read transaction may still see the pages to scrub.
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
// clears the pages it frees). It runs in two short write transactions,
// during which writers wait and readers go on:
//
//  1. an empty commit, so that both meta pages describe the current
//     tree: should the newest meta page ever be damaged, bbolt falls back
//     to the other, which then references no free page;
//  2. a transaction that writes nothing to bbolt: it lists the free
//     pages, leaves out the freelist page of either meta page, reads the
//     rest and overwrites those that hold bytes, then fdatasyncs the file
//     and rolls back.
//
// A read transaction begun before the last commit may still see freed
// pages through the memory map; while one is open, step 2 waits for it
// (retrying every few milliseconds, until ctx ends). Scrub returns
// ErrReadOnly for a read-only vault.
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
		if err := v.db.Update(func(*bolt.Tx) error { return nil }); err != nil {
			return err
		}
		f, err := os.OpenFile(v.path, os.O_RDWR, 0)
		if err != nil {
			return err
		}
		defer f.Close()
		for {
			err := v.scrubFree(f, &st)
			if !errors.Is(err, errScrubBusy) {
				return err
			}
			st.WaitedOnRead = true
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(5 * time.Millisecond):
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

// scrubFree is step 2 of Scrub.
func (v *Vault) scrubFree(f *os.File, st *ScrubStats) (err error) {
	defer recoverDamage(&err)
	tx, err := v.db.Begin(true)
	if err != nil {
		return err
	}
	start := time.Now()
	defer func() {
		_ = tx.Rollback()
		st.Pause += time.Since(start)
	}()
	// The write transaction's snapshot is the last commit's successor:
	// every page free now was freed by a commit up to tx.ID()-1, which a
	// read of that snapshot or a later one does not see.
	if !v.readers.allAtLeast(tx.ID() - 1) {
		return errScrubBusy
	}
	ps := v.db.Info().PageSize
	skip := map[int]bool{}
	for i := range 2 {
		fl, err := metaFreelist(f, ps, i)
		if err != nil {
			return err
		}
		for id := fl.id; id <= fl.id+fl.overflow && fl.id != 0; id++ {
			skip[int(id)] = true
		}
	}
	hwm := int(tx.Size() / int64(ps))
	st.FreePages, st.ZeroedPages = 0, 0
	var run []int // consecutive free pages
	flush := func() error {
		if len(run) == 0 {
			return nil
		}
		n, err := zeroRun(f, ps, run[0], len(run))
		st.ZeroedPages += n
		run = run[:0]
		return err
	}
	for id := 2; id < hwm; id++ {
		info, err := tx.Page(id)
		if err != nil {
			return err
		}
		if info == nil || info.Type != "free" || skip[id] {
			if err := flush(); err != nil {
				return err
			}
			continue
		}
		st.FreePages++
		if len(run) == 256 {
			if err := flush(); err != nil {
				return err
			}
		}
		run = append(run, id)
	}
	if err := flush(); err != nil {
		return err
	}
	if st.ZeroedPages > 0 && !v.opts.NoSync {
		return f.Sync()
	}
	return nil
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

type pageSpan struct{ id, overflow uint64 }

// metaFreelist reads the freelist page id of meta page i from the file
// (layout: bbolt's page header, 16 bytes, then magic, version, page size,
// flags, root bucket (16 bytes), freelist, …), with its overflow. A meta
// page without a persisted freelist gives the zero span.
func metaFreelist(f *os.File, ps, i int) (pageSpan, error) {
	var m [64]byte
	if _, err := f.ReadAt(m[:], int64(i*ps)); err != nil {
		return pageSpan{}, err
	}
	fl := binary.LittleEndian.Uint64(m[16+32:])
	if fl == ^uint64(0) || fl < 2 {
		return pageSpan{}, nil
	}
	var h [16]byte
	if _, err := f.ReadAt(h[:], int64(fl)*int64(ps)); err != nil {
		return pageSpan{}, err
	}
	return pageSpan{fl, uint64(binary.LittleEndian.Uint32(h[12:]))}, nil
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

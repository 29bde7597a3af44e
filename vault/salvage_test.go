package vault_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/engram-app/engram/vault"
	"github.com/engram-app/engram/vault/vaulttest"
	bolt "go.etcd.io/bbolt"
)

const salvagePass = "salvage backup words"

// salvageFixture is a closed vault file with memories in every partition,
// and what the test knows about it from bbolt (the oracle): on which live
// leaf page each memory's current record sits, which pages are branch
// pages, which are free.
type salvageFixture struct {
	pristine      []byte
	ps            int
	want          map[string]wantMemory
	deleted       string
	livePage      map[string]int  // memory id: the tree's leaf page holding its record
	liveEnd       map[string]int  // memory id: the file offset where that record ends
	header        []byte          // the vault header's bytes (meta/header)
	sealedArchive map[string]bool // archived memories that came from the sensitive partition
	types         map[int]string  // page id: bbolt's page type ("leaf", "branch", "free", ...)
	root          int             // the root bucket's page
	hwm           int
}

type wantMemory struct {
	partition vault.Partition
	content   string
	older     []string // earlier contents, which a stale copy may hold
}

var (
	fixtureOnce sync.Once
	fixture     *salvageFixture
	fixtureErr  error
)

// buildSalvageFixture makes the vault once for all salvage tests: 40
// memories in each live partition, every fifth updated, ten internal and
// ten sensitive ones archived, one deleted.
func buildSalvageFixture(t *testing.T) *salvageFixture {
	t.Helper()
	fixtureOnce.Do(func() { fixture, fixtureErr = makeSalvageFixture(t) })
	if fixtureErr != nil {
		t.Fatal(fixtureErr)
	}
	return fixture
}

func makeSalvageFixture(t *testing.T) (*salvageFixture, error) {
	v, _ := vaulttest.New(t, vaulttest.SkipCheck, vaulttest.NoSync)
	f := &salvageFixture{want: map[string]wantMemory{}, sealedArchive: map[string]bool{}}
	filler := strings.Repeat("lorem ipsum dolor ", 12)
	var byPart = map[vault.Partition][]string{}
	for _, p := range vault.LivePartitions {
		for i := 0; i < 40; i++ {
			content := fmt.Sprintf("%s memory %02d: %s", p, i, filler)
			m, err := v.Add(vaulttest.Memory(p, content), operator)
			if err != nil {
				return nil, err
			}
			w := wantMemory{partition: p, content: content}
			if i%5 == 0 {
				m, err = v.Update(m.ID, vault.OpUpdate, operator, func(m *vault.Memory) error { m.Content += " (updated)"; return nil })
				if err != nil {
					return nil, err
				}
				w.older, w.content = append(w.older, w.content), m.Content
			}
			f.want[m.ID] = w
			byPart[p] = append(byPart[p], m.ID)
		}
	}
	for _, p := range []vault.Partition{vault.Internal, vault.Sensitive} {
		for _, id := range byPart[p][20:30] {
			if _, err := v.Archive(id, "test", "", operator); err != nil {
				return nil, err
			}
			w := f.want[id]
			w.partition = vault.Archive
			f.sealedArchive[id] = p == vault.Sensitive
			f.want[id] = w
		}
	}
	f.deleted = byPart[vault.Public][39]
	if err := v.Delete(f.deleted, operator); err != nil {
		return nil, err
	}
	delete(f.want, f.deleted)
	// The last transaction changes no memory: losing it to a damaged meta
	// page loses nothing the tests look at.
	if err := v.Audit(vault.AuditEntry{Action: vault.ActionRead, Agent: "test", Result: vault.ResultOK}); err != nil {
		return nil, err
	}
	path := v.Path()
	v.Close()
	var err error
	if f.pristine, err = os.ReadFile(path); err != nil {
		return nil, err
	}
	return f, f.learnLayout(path)
}

// learnLayout asks bbolt where things are in the pristine file.
func (f *salvageFixture) learnLayout(path string) error {
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, PreLoadFreelist: true, FreelistType: bolt.FreelistMapType})
	if err != nil {
		return err
	}
	defer db.Close()
	f.ps = db.Info().PageSize
	f.livePage, f.liveEnd = map[string]int{}, map[string]int{}
	f.types = map[int]string{}
	return db.View(func(tx *bolt.Tx) error {
		f.hwm = int(tx.Size()) / f.ps
		for id := 0; id < f.hwm; id++ {
			info, err := tx.Page(id)
			if err != nil || info == nil {
				continue
			}
			if _, done := f.types[id]; done {
				continue // an overflow page of the previous one
			}
			f.types[id] = info.Type
			if info.Type == "leaf" || info.Type == "branch" {
				for o := 1; o <= info.OverflowCount && id+o < f.hwm; o++ {
					f.types[id+o] = "overflow"
				}
			}
		}
		// The tree's root: in the meta page with the higher transaction id.
		m := 0
		if le64(f.pristine[f.ps+16+48:]) > le64(f.pristine[16+48:]) {
			m = 1
		}
		f.root = int(le64(f.pristine[m*f.ps+16+16:]))
		f.header = bytes.Clone(tx.Bucket([]byte("meta")).Get([]byte("header")))
		for _, p := range []string{"public", "internal", "sensitive", "archive"} {
			err := tx.Bucket([]byte(p)).ForEach(func(k, raw []byte) error {
				for off := 0; ; {
					i := bytes.Index(f.pristine[off:], raw)
					if i < 0 {
						break
					}
					pg := (off + i) / f.ps
					if f.types[pg] == "leaf" {
						f.livePage[string(k)] = pg
						f.liveEnd[string(k)] = off + i + len(raw)
					}
					off += i + 1
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
}

func le64(b []byte) uint64 {
	var v uint64
	for i := 7; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}

// liveIndex is the offset of the first occurrence of sub on a live leaf
// page (not on a free page holding an old copy).
func (f *salvageFixture) liveIndex(t *testing.T, sub string) int {
	t.Helper()
	for off := 0; ; {
		i := bytes.Index(f.pristine[off:], []byte(sub))
		if i < 0 {
			t.Fatalf("%q is on no live leaf page", sub)
		}
		if f.types[(off+i)/f.ps] == "leaf" {
			return off + i
		}
		off += i + 1
	}
}

// pagesOf lists the pages of type typ.
func (f *salvageFixture) pagesOf(typ string) []int {
	var out []int
	for id, t := range f.types {
		if t == typ {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

// salvageResult is what one salvage run recovered, read back through a
// fresh vault that imported the backup.
type salvageResult struct {
	rep *vault.SalvageReport
	got map[string]vault.Memory
}

// runSalvage writes data to a file, salvages it with the vault passphrase
// (none when pass is empty), imports the backup into a fresh vault and
// returns what that vault holds. It fails the test if the damaged file
// changed, or the backup does not import.
func runSalvage(t *testing.T, data []byte, pass string) salvageResult {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "vault.db")
	if err := os.WriteFile(path, data, 0o400); err != nil {
		t.Fatal(err)
	}
	s, err := vault.OpenSalvage(path, vault.Options{Now: func() time.Time { return vaulttest.Start }})
	if err != nil {
		t.Fatalf("OpenSalvage = %v", err)
	}
	defer s.Close()
	if pass != "" {
		if err := s.Unlock(ctx, []byte(pass)); err != nil && !errors.Is(err, vault.ErrCorrupt) {
			t.Fatalf("salvage Unlock = %v", err)
		}
	}
	out := filepath.Join(dir, "salvaged.age")
	rep, err := s.ExportFile(ctx, out, []byte(salvagePass), vault.BackupOptions{WorkFactor: 10})
	if err != nil {
		t.Fatalf("ExportFile = %v", err)
	}
	if after, err := os.ReadFile(path); err != nil || !bytes.Equal(after, data) {
		t.Fatalf("salvage changed the damaged file (%v)", err)
	}
	fresh, _ := vaulttest.New(t)
	st, err := fresh.ImportFile(ctx, out, []byte(salvagePass), operator, vault.ImportOptions{})
	if err != nil {
		t.Fatalf("Import of the salvaged backup = %v", err)
	}
	if st.Added != rep.Total() {
		t.Fatalf("Import added %d, the report says %d recovered", st.Added, rep.Total())
	}
	all, _, err := fresh.List(vault.ListFilter{Partitions: vault.AllPartitions})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]vault.Memory{}
	for _, m := range all {
		got[m.ID] = m
	}
	return salvageResult{rep, got}
}

// checkNothingForeign fails t if a recovered memory is not one of the
// fixture's, or holds content the memory never had, or is the deleted one
// while the freelist was readable.
func (f *salvageFixture) checkNothingForeign(t *testing.T, r salvageResult) {
	t.Helper()
	for id, m := range r.got {
		w, ok := f.want[id]
		if !ok {
			if id == f.deleted && !r.rep.Freelist {
				continue
			}
			t.Errorf("recovered memory %s that the vault did not hold", id)
			continue
		}
		if m.Content != w.content && !slices.Contains(w.older, m.Content) {
			t.Errorf("memory %s recovered with content %q, which it never had", id, m.Content)
		}
	}
}

// checkIntact fails t unless every memory whose live record is intact
// (and, for a sealed one, some copy of the header) was recovered exactly,
// with its partition.
func (f *salvageFixture) checkIntact(t *testing.T, r salvageResult, intact func(page, end int) bool) (expected int) {
	t.Helper()
	headerKept := false
	for off := 0; ; {
		i := bytes.Index(f.pristine[off:], f.header)
		if i < 0 {
			break
		}
		headerKept = headerKept || intact((off+i)/f.ps, off+i+len(f.header))
		off += i + 1
	}
	for id, w := range f.want {
		pg, ok := f.livePage[id]
		if !ok || !intact(pg, f.liveEnd[id]) {
			continue
		}
		if (w.partition == vault.Sensitive || w.partition == vault.Archive && f.sealedArchive[id]) && !headerKept {
			continue
		}
		expected++
		m, ok := r.got[id]
		if !ok {
			t.Errorf("memory %s (%s, page %d intact) was not recovered; report %+v", id, w.partition, pg, r.rep)
			continue
		}
		if m.Content != w.content || m.Partition != w.partition {
			t.Errorf("memory %s recovered as %s %q, want %s %q", id, m.Partition, m.Content, w.partition, w.content)
		}
	}
	return expected
}

func TestSalvageUndamaged(t *testing.T) {
	f := buildSalvageFixture(t)
	if len(f.livePage) != len(f.want) {
		t.Fatalf("the oracle placed %d of %d records", len(f.livePage), len(f.want))
	}
	r := runSalvage(t, f.pristine, vaulttest.Passphrase)
	if n := f.checkIntact(t, r, func(int, int) bool { return true }); n != len(r.got) || n != len(f.want) {
		t.Errorf("recovered %d memories, want %d", len(r.got), len(f.want))
	}
	if r.rep.Lost() || r.rep.OrphanPages != 0 || r.rep.VersionsRebuilt != 0 || r.rep.Stale != 0 {
		t.Errorf("report on a healthy file = %+v, want nothing lost, no orphans, no rebuilt versions", r.rep)
	}
	want := map[vault.Partition]int{vault.Public: 39, vault.Internal: 30, vault.Sensitive: 30, vault.Archive: 20}
	for p, n := range want {
		if r.rep.Recovered[p] != n {
			t.Errorf("Recovered[%s] = %d, want %d", p, r.rep.Recovered[p], n)
		}
	}
	// Versions come along: every fifth memory was updated once, archived
	// ones once more.
	if r.rep.Versions != 119+24+20 {
		t.Errorf("Versions = %d, want %d", r.rep.Versions, 119+24+20)
	}
	if _, ok := r.got[f.deleted]; ok {
		t.Error("the deleted memory came back")
	}
}

func TestSalvageLocked(t *testing.T) {
	f := buildSalvageFixture(t)
	r := runSalvage(t, f.pristine, "")
	if r.rep.Locked != 40 {
		t.Errorf("Locked = %d, want the 40 sealed records", r.rep.Locked)
	}
	for id, m := range r.got {
		if m.Sensitive() {
			t.Errorf("sealed memory %s recovered without a key", id)
		}
	}
	if r.rep.Total() != 79 || len(r.rep.Missing) != 0 {
		t.Errorf("recovered %d, missing %v; want the 79 plain memories and none missing", r.rep.Total(), r.rep.Missing)
	}
}

func TestSalvageWrongPassphrase(t *testing.T) {
	f := buildSalvageFixture(t)
	path := filepath.Join(t.TempDir(), "vault.db")
	if err := os.WriteFile(path, f.pristine, 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := vault.OpenSalvage(path, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Unlock(ctx, []byte("wrong")); !errors.Is(err, vault.ErrWrongPassphrase) {
		t.Errorf("Unlock(wrong) = %v, want ErrWrongPassphrase", err)
	}
	if _, err := s.ExportFile(ctx, path, []byte(salvagePass), vault.BackupOptions{WorkFactor: 10}); !errors.Is(err, vault.ErrInvalid) {
		t.Errorf("ExportFile over the vault itself = %v, want ErrInvalid", err)
	}
}

// TestSalvageTruncated cuts the file at several points: every memory whose
// live page lies before the cut comes back exactly.
func TestSalvageTruncated(t *testing.T) {
	f := buildSalvageFixture(t)
	end := f.hwm * f.ps
	for _, cut := range []int{2 * f.ps, end / 4, end / 2, end/2 + 1234, end * 3 / 4, end - f.ps, end - 100} {
		t.Run(fmt.Sprint(cut), func(t *testing.T) {
			r := runSalvage(t, f.pristine[:cut], vaulttest.Passphrase)
			n := f.checkIntact(t, r, func(pg, end int) bool { return (pg+1)*f.ps <= cut && end <= cut })
			f.checkNothingForeign(t, r)
			if !r.rep.Lost() {
				t.Errorf("a truncated file reported nothing lost: %+v", r.rep)
			}
			t.Logf("cut at %d of %d: %d memories on intact pages, %d recovered (%v), %d missing per the audit log, %d unidentified, %d orphan pages",
				cut, end, n, r.rep.Total(), r.rep.Recovered, len(r.rep.Missing), r.rep.Unidentified, r.rep.OrphanPages)
		})
	}
}

// TestSalvageFlipped damages one structure at a time.
func TestSalvageFlipped(t *testing.T) {
	f := buildSalvageFixture(t)
	branches := f.pagesOf("branch")
	free := f.pagesOf("free")
	if len(branches) == 0 || len(free) == 0 {
		t.Fatalf("fixture has %d branch and %d free pages; the test needs both", len(branches), len(free))
	}
	br := branches[0]
	le := func(b []byte, off int, v uint64) {
		for i := 0; i < 8; i++ {
			b[off+i] = byte(v >> (8 * i))
		}
	}
	// A sealed and a plain record to damage, on their live pages.
	var sealedID, plainID string
	for id, w := range f.want {
		if sealedID == "" && w.partition == vault.Sensitive {
			sealedID = id
		}
		if plainID == "" && w.partition == vault.Internal {
			plainID = id
		}
	}
	recordAt := func(id string) int {
		pg := f.livePage[id]
		i := bytes.Index(f.pristine[pg*f.ps:(pg+1)*f.ps], []byte(id))
		return pg*f.ps + i + len(id) // the value follows its key
	}
	cases := []struct {
		name    string
		damage  func(b []byte)
		lost    []string // memories that must not come back
		problem bool     // the page structure must be reported damaged
	}{
		{name: "branch page header", damage: func(b []byte) { b[br*f.ps] ^= 0x40 }, problem: true},
		{name: "branch points at itself", damage: func(b []byte) { le(b, br*f.ps+16+8, uint64(br)) }, problem: true},
		{name: "branch points at a free page", damage: func(b []byte) { le(b, br*f.ps+16+8, uint64(free[0])) }, problem: true},
		{name: "branch element count", damage: func(b []byte) { b[br*f.ps+10] = 0xff; b[br*f.ps+11] = 0xff }},
		{name: "meta page 0", damage: func(b []byte) { b[16+20] ^= 1 }, problem: true},
		{name: "meta page 1", damage: func(b []byte) { b[f.ps+16+20] ^= 1 }, problem: true},
		{name: "both meta pages", damage: func(b []byte) { b[16+20] ^= 1; b[f.ps+16+20] ^= 1 }, problem: true},
		{name: "root page", damage: func(b []byte) { b[f.root*f.ps] ^= 0x40 }, problem: true},
		{name: "sealed record", damage: func(b []byte) { b[recordAt(sealedID)+40] ^= 0x20 }, lost: []string{sealedID}},
		{name: "plain record content", damage: func(b []byte) { b[recordAt(plainID)+30] ^= 0x01 }, lost: []string{plainID}},
		{name: "header", damage: func(b []byte) { b[f.liveIndex(t, `"wrapped_key":"`)+20] ^= 0x01 }, problem: true},
		{name: "audit entry", damage: func(b []byte) { b[f.liveIndex(t, `"action":"memory:write"`)+12] ^= 0x01 }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			damaged := bytes.Clone(f.pristine)
			tc.damage(damaged)
			r := runSalvage(t, damaged, vaulttest.Passphrase)
			f.checkNothingForeign(t, r)
			for _, id := range tc.lost {
				if _, ok := r.got[id]; ok {
					t.Errorf("damaged record %s was recovered", id)
				}
				if !slices.ContainsFunc(r.rep.DamagedIDs, func(d string) bool { return strings.Contains(d, id) }) {
					t.Errorf("damaged record %s is not named in %v", id, r.rep.DamagedIDs)
				}
			}
			// Every other memory's page is intact: it comes back exactly.
			for id, w := range f.want {
				if slices.Contains(tc.lost, id) {
					continue
				}
				if m, ok := r.got[id]; !ok || m.Content != w.content || m.Partition != w.partition {
					t.Errorf("memory %s recovered as %v %q (found: %v), want %s %q", id, m.Partition, m.Content, ok, w.partition, w.content)
				}
			}
			if _, ok := r.got[f.deleted]; ok {
				t.Error("the deleted memory came back")
			}
			if t.Failed() {
				t.Logf("report: %+v", *r.rep)
			}
			if tc.problem && len(r.rep.FileProblems) == 0 {
				t.Errorf("no file problem reported: %+v", r.rep)
			}
			t.Logf("recovered %d (%v), %d outside the tree, %d orphan pages, damaged %v, problems %q",
				r.rep.Total(), r.rep.Recovered, r.rep.OutsideTree, r.rep.OrphanPages, r.rep.DamagedIDs, r.rep.FileProblems)
		})
	}
}

package vault

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/engram-app/engram/vault/atomicfile"
	"github.com/engram-app/engram/vault/internal/kdf"
	"github.com/engram-app/engram/vault/internal/pagecheck"
	"github.com/engram-app/engram/vault/internal/seal"
)

// Salvage is a damaged vault file read for what can still be recovered:
// every memory whose record can be found, decoded and (for sealed records)
// authenticated, written out as a backup that Import accepts. It reads the
// file once, read-only, and never follows bbolt's pointers without
// checking them (see DESIGN.md, "Damaged files"). A Salvage is not safe for
// concurrent use.
type Salvage struct {
	path    string
	now     func() time.Time
	scan    *pagecheck.ScanResult
	headers []*header // readable headers, the tree's first
	hdr     *header   // the header that unlocked, else headers[0]
	notes   []string  // damage found outside the page structure
	dek     []byte
}

// maxSalvageKDFTries bounds how many distinct key derivations Unlock runs
// over the headers found in the file (older copies survive passphrase
// changes on free pages).
const maxSalvageKDFTries = 4

// OpenSalvage reads the vault file at path for salvage, read-only, under a
// shared lock: it fails with ErrInUse while an Engram process has the vault
// open. Of opts only Now is used (for the backup's creation time). It fails
// only when the file cannot be read at all; damage is reported by Export.
func OpenSalvage(path string, opts Options) (*Salvage, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("salvage %s: %w", path, ErrNotFound)
		}
		return nil, fmt.Errorf("salvage: %w", err)
	}
	defer f.Close()
	if err := lockShared(f); err != nil {
		return nil, fmt.Errorf("salvage %s: %w", path, err)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("salvage: %w", err)
	}
	s := &Salvage{path: path, now: clock(opts), scan: pagecheck.Scan(data)}
	s.findHeaders()
	if len(s.headers) > 0 {
		s.hdr = s.headers[0]
	}
	return s, nil
}

// findHeaders collects every header whose checksum matches, from the meta
// bucket and its copy (header_copy/copy) first, then from any leaf holding
// both header keys, free pages included (a scrub zeroes free pages, so the
// copy is what is left when the root page is damaged): a header only serves to unwrap the data key, which
// authenticates it, and the data key never changes.
func (s *Salvage) findHeaders() {
	type pair struct {
		raw, sum []byte
		rooted   bool
	}
	nodes := map[int]*pair{}
	var order []int
	for _, e := range s.scan.Entries {
		inMeta := len(e.Path) == 1 && e.Path[0] == string(bucketMeta)
		inCopy := len(e.Path) == 2 && e.Path[0] == string(bucketHeaderCopy) && e.Path[1] == string(keyHeaderCopy)
		if e.Rooted && !inMeta && !inCopy {
			continue
		}
		if !bytes.Equal(e.Key, keyHeader) && !bytes.Equal(e.Key, keyHeaderSum) {
			continue
		}
		p := nodes[e.Node]
		if p == nil {
			p = &pair{}
			nodes[e.Node] = p
			order = append(order, e.Node)
		}
		p.rooted = e.Rooted
		if bytes.Equal(e.Key, keyHeader) {
			p.raw = e.Value
		} else {
			p.sum = e.Value
		}
	}
	seen := map[string]bool{}
	for _, n := range order {
		h, err := decodeHeader(nodes[n].raw, nodes[n].sum)
		if err != nil && nodes[n].rooted {
			s.notes = append(s.notes, fmt.Sprintf("the vault header is damaged (%v); older copies are tried", err))
		}
		if err != nil || seen[string(nodes[n].raw)] {
			continue
		}
		seen[string(nodes[n].raw)] = true
		s.headers = append(s.headers, h)
	}
}

// ID is the vault id from the file's header, or "" when no header could be
// read.
func (s *Salvage) ID() string {
	if s.hdr == nil {
		return ""
	}
	return s.hdr.VaultID
}

// Sealed counts the sealed records found, which need Unlock to be recovered.
func (s *Salvage) Sealed() int {
	n := 0
	for _, e := range s.scan.Entries {
		if isSealedRecord(e.Value) {
			n++
		}
	}
	return n
}

// Unlock derives the key from passphrase and unwraps the data key from the
// header, trying older headers found on free pages when the current one is
// unreadable. It returns ErrWrongPassphrase when none unwraps, and
// ErrCorrupt when the file holds no readable header at all.
func (s *Salvage) Unlock(ctx context.Context, passphrase []byte) error {
	if len(s.headers) == 0 {
		return fmt.Errorf("salvage unlock: %w: no readable vault header, sealed records cannot be opened", ErrCorrupt)
	}
	var tried []kdf.Params
	for _, h := range s.headers {
		if err := ctx.Err(); err != nil {
			return err
		}
		if slices.ContainsFunc(tried, func(p kdf.Params) bool { return sameParams(p, h.KDF) }) || len(tried) == maxSalvageKDFTries {
			continue
		}
		tried = append(tried, h.KDF)
		kek, err := kdf.Derive(passphrase, h.KDF)
		if err != nil {
			continue
		}
		err = s.UnlockWithKey(kek)
		seal.Wipe(kek)
		if err == nil {
			return nil
		}
	}
	return fmt.Errorf("salvage unlock: %w", ErrWrongPassphrase)
}

func sameParams(a, b kdf.Params) bool {
	return a.Time == b.Time && a.MemoryKiB == b.MemoryKiB && a.Threads == b.Threads && bytes.Equal(a.Salt, b.Salt)
}

// UnlockWithKey unwraps the data key with a key-encryption key (the OS
// keyring's copy). A key that unwraps no header returns ErrWrongPassphrase.
func (s *Salvage) UnlockWithKey(kek []byte) error {
	if len(kek) != kdf.KeySize {
		return fmt.Errorf("salvage unlock: %w", ErrWrongPassphrase)
	}
	for _, h := range s.headers {
		if dek, err := seal.Open(kek, h.WrappedKey, h.wrapAAD()); err == nil {
			seal.Wipe(s.dek)
			s.dek, s.hdr = dek, h
			return nil
		}
	}
	return fmt.Errorf("salvage unlock: %w", ErrWrongPassphrase)
}

// Close wipes the data key and drops the file's bytes.
func (s *Salvage) Close() {
	seal.Wipe(s.dek)
	s.dek, s.scan = nil, nil
}

// SalvageReport says what Export recovered and what it could not. It names
// records by partition and id, never by content.
type SalvageReport struct {
	VaultID string `json:"vault_id"`
	// Pages is how many pages were read; OrphanPages of them were cut off
	// from the tree by damage and read on their own.
	Pages       int  `json:"pages"`
	OrphanPages int  `json:"orphan_pages"`
	MetaPage    int  `json:"meta_page"` // -1: neither meta page was valid
	Freelist    bool `json:"freelist"`
	// FileProblems are the damage found in the page structure.
	FileProblems []string `json:"file_problems,omitempty"`
	// Recovered counts the memories written to the backup, by partition.
	Recovered map[Partition]int `json:"recovered"`
	// OutsideTree counts recovered memories read from orphan pages.
	OutsideTree int `json:"outside_tree"`
	// Damaged counts records found in a partition that could not be
	// decoded or failed authentication or their checks; DamagedIDs names
	// them ("partition/id: why").
	Damaged    map[Partition]int `json:"damaged"`
	DamagedIDs []string          `json:"damaged_ids,omitempty"`
	// Locked counts the sealed memories left out because no key was given.
	Locked int `json:"locked"`
	// Unidentified counts records on orphan pages that are not a memory
	// this vault can open: damaged, sealed under another key, or not a
	// memory at all.
	Unidentified int `json:"unidentified"`
	// Stale counts older copies of memories that were ignored, and
	// Deleted copies of memories the audit log says were deleted.
	Stale   int `json:"stale"`
	Deleted int `json:"deleted"`
	// Missing names memories the readable audit log knows of that were not
	// found anywhere in the file.
	Missing []string `json:"missing,omitempty"`
	// Versions counts the version snapshots kept; VersionsRebuilt counts
	// memories whose newest snapshot was lost and was rebuilt from the
	// memory itself.
	Versions        int `json:"versions"`
	VersionsRebuilt int `json:"versions_rebuilt"`
}

// Total is the number of memories recovered.
func (r *SalvageReport) Total() int {
	n := 0
	for _, c := range r.Recovered {
		n += c
	}
	return n
}

// Lost reports whether anything found could not be recovered, or the file
// structure was damaged.
func (r *SalvageReport) Lost() bool {
	return len(r.FileProblems) > 0 || len(r.DamagedIDs) > 0 || r.Locked > 0 || r.Unidentified > 0 || len(r.Missing) > 0
}

// ExportFile recovers what it can and writes it, atomically, as a backup
// encrypted with passphrase that Import accepts. It refuses to write over
// the damaged file itself. Sealed records are recovered only after Unlock.
func (s *Salvage) ExportFile(ctx context.Context, out string, passphrase []byte, opts BackupOptions) (*SalvageReport, error) {
	if len(passphrase) == 0 {
		return nil, fmt.Errorf("salvage: %w: empty backup passphrase", ErrInvalid)
	}
	if sameFile(out, s.path) {
		return nil, fmt.Errorf("salvage: %w: the backup would overwrite the damaged vault file", ErrInvalid)
	}
	rep, items, err := s.recover(ctx)
	if err != nil {
		return nil, err
	}
	err = atomicfile.Write(out, 0o600, func(w io.Writer) error {
		return writeBackup(w, passphrase, opts, s.ID(), s.now(), items, nil)
	})
	if err != nil {
		return nil, fmt.Errorf("salvage: %w", err)
	}
	return rep, nil
}

func sameFile(a, b string) bool {
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	if err1 == nil && err2 == nil && aa == bb {
		return true
	}
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// salvaged is one memory record chosen for the backup.
type salvaged struct {
	m      Memory
	bucket string
	rooted bool
}

type versionCand struct {
	key, raw []byte
}

// recover decodes every record the scan found. Records reached from the
// tree win over copies on orphan pages; among orphan copies the highest
// version wins; an orphan copy is ignored when its partition's subtree was
// read whole (it is a leftover of a change) or when the audit log's last
// word on the memory is that it was deleted.
func (s *Salvage) recover(ctx context.Context) (*SalvageReport, []backupItem, error) {
	sc := s.scan
	if sc == nil {
		return nil, nil, fmt.Errorf("salvage: %w: closed", ErrInvalid)
	}
	rep := &SalvageReport{
		VaultID: s.ID(), Pages: sc.Pages, OrphanPages: sc.OrphanPages, MetaPage: sc.Meta, Freelist: sc.Freelist,
		FileProblems: sc.Problems, Recovered: map[Partition]int{}, Damaged: map[Partition]int{},
	}
	rep.FileProblems = append(slices.Clip(rep.FileProblems), s.notes...)
	if len(s.headers) == 0 {
		rep.FileProblems = append(rep.FileProblems, "no readable vault header")
	}
	damaged := func(bucket, id string, err error) {
		rep.Damaged[Partition(bucket)]++
		msg := err.Error()
		if i := strings.Index(msg, ": "); strings.HasPrefix(msg, "record ") && i > 0 {
			msg = msg[i+2:]
		}
		rep.DamagedIDs = append(rep.DamagedIDs, bucket+"/"+id+": "+msg)
	}

	// Sort what the scan found.
	type memCand struct {
		bucket, id string
		raw        []byte
		rooted     bool
	}
	var mems []memCand
	versions := map[string][]versionCand{} // memory id: the tree's first
	lastAudit := map[string]AuditEntry{}
	noteAudit := func(k, raw []byte) {
		var e AuditEntry
		if len(k) != 8 || json.Unmarshal(raw, &e) != nil || e.Seq != binary.BigEndian.Uint64(k) || e.MemoryID == "" || e.Result != ResultOK {
			return
		}
		switch e.Action {
		case ActionWrite, ActionUpdate, ActionRollback, ActionDelete, ActionPurge:
		default:
			return
		}
		if last, ok := lastAudit[e.MemoryID]; !ok || e.Seq > last.Seq {
			lastAudit[e.MemoryID] = e
		}
	}
	var orphanVersions []versionCand
	for _, e := range sc.Entries {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		if e.Free {
			continue // leftovers of earlier transactions: only headers are taken from them
		}
		isRecord := len(e.Value) > 0 && (e.Value[0] == recordPlain || e.Value[0] == recordSealed)
		last := ""
		if len(e.Path) > 0 {
			last = e.Path[len(e.Path)-1]
		}
		switch {
		case e.Rooted && len(e.Path) == 1 && isPartitionBucket(last):
			mems = append(mems, memCand{last, string(e.Key), e.Value, true})
		case e.Rooted && len(e.Path) == 2 && e.Path[0] == string(bucketVersions):
			versions[last] = append(versions[last], versionCand{e.Key, e.Value})
		case e.Rooted && len(e.Path) == 1 && last == string(bucketAudit):
			noteAudit(e.Key, e.Value)
		case e.Rooted:
			// agents, queue, settings, vectors: not part of a backup
		case len(e.Key) == 8 && len(e.Value) > 0 && e.Value[0] == '{':
			noteAudit(e.Key, e.Value)
		case len(e.Key) == 8 && isRecord:
			// The bucket path of an orphan page may come from a stale
			// pointer: a sealed snapshot is tried under the sub-bucket it
			// was found in (its additional data names the memory), a
			// plain one goes where its JSON says.
			if last != "" && isSealedRecord(e.Value) {
				versions[last] = append(versions[last], versionCand{e.Key, e.Value})
			}
			orphanVersions = append(orphanVersions, versionCand{e.Key, e.Value})
		case isRecord:
			// Likewise the record itself says which memory it is.
			mems = append(mems, memCand{"", string(e.Key), e.Value, false})
		}
	}
	// Plain version snapshots name their memory; sealed ones cannot be
	// attributed without their sub-bucket and are left out.
	for _, c := range orphanVersions {
		var ver Version
		if !isSealedRecord(c.raw) {
			if _, err := decodeRecord(c.raw, nil, string(bucketVersions), "?", &ver); err == nil && ver.Memory.ID != "" {
				versions[ver.Memory.ID] = append(versions[ver.Memory.ID], c)
			}
		}
	}

	chosen := map[string]*salvaged{}
	lockedIDs := map[string]bool{}
	orphanErr := map[string]error{} // first failure of a record on an orphan page, by key
	for _, c := range mems {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		if !c.rooted && c.bucket != "" && sc.Complete(c.bucket) {
			rep.Stale++ // the partition was read whole and does not hold it
			continue
		}
		m, bucket, err := s.decodeMemory(c.bucket, c.id, c.raw)
		switch {
		case errors.Is(err, ErrLocked):
			lockedIDs[c.id] = true
			continue
		case err != nil && c.rooted:
			damaged(c.bucket, c.id, err)
			continue
		case err != nil:
			if _, ok := orphanErr[c.id]; !ok {
				orphanErr[c.id] = err
			}
			rep.Unidentified++
			continue
		}
		if !c.rooted && sc.Complete(bucket) {
			rep.Stale++
			continue
		}
		if last, ok := lastAudit[m.ID]; !c.rooted && ok && (last.Action == ActionDelete || last.Action == ActionPurge) {
			rep.Deleted++
			continue
		}
		cur := chosen[m.ID]
		switch {
		case cur == nil:
		case cur.rooted && !c.rooted, cur.rooted == c.rooted && cur.m.Version >= m.Version:
			rep.Stale++
			continue
		default:
			rep.Stale++
		}
		chosen[m.ID] = &salvaged{m: *m, bucket: bucket, rooted: c.rooted}
	}

	var items []backupItem
	for _, sv := range chosen {
		it, rebuilt, err := s.withVersions(sv, versions[sv.m.ID], rep)
		if err != nil {
			damaged(sv.bucket, sv.m.ID, err)
			continue
		}
		if err := checkItem(&it); err != nil {
			damaged(sv.bucket, sv.m.ID, err)
			continue
		}
		if rebuilt {
			rep.VersionsRebuilt++
		}
		if !sv.rooted {
			rep.OutsideTree++
		}
		rep.Recovered[it.Memory.Partition]++
		rep.Versions += len(it.Versions)
		items = append(items, it)
	}
	slices.SortFunc(items, func(a, b backupItem) int {
		return cmp.Or(cmp.Compare(partitionRank(a.Memory.Partition), partitionRank(b.Memory.Partition)), cmp.Compare(a.Memory.ID, b.Memory.ID))
	})

	rep.Locked = len(lockedIDs)
	// A record on an orphan page that fails is named when the audit log
	// says which memory (and partition) it is and no copy was recovered.
	for id, err := range orphanErr {
		e, ok := lastAudit[id]
		if !ok || chosen[id] != nil || e.Action == ActionDelete || e.Action == ActionPurge {
			continue
		}
		damaged(string(e.Partition), id, err)
		rep.Unidentified--
	}
	for id, e := range lastAudit {
		if e.Action == ActionDelete || e.Action == ActionPurge || chosen[id] != nil || lockedIDs[id] {
			continue
		}
		if !slices.ContainsFunc(rep.DamagedIDs, func(d string) bool { return strings.Contains(d, "/"+id+":") }) {
			rep.Missing = append(rep.Missing, string(e.Partition)+"/"+id)
		}
	}
	slices.Sort(rep.Missing)
	slices.Sort(rep.DamagedIDs)
	return rep, items, nil
}

func isPartitionBucket(name string) bool {
	return slices.ContainsFunc(partitionBuckets(), func(b []byte) bool { return string(b) == name })
}

func partitionRank(p Partition) int {
	return slices.IndexFunc(partitionBuckets(), func(b []byte) bool { return string(b) == string(p) })
}

// decodeMemory opens one memory record found in bucket (or, for a record on
// an orphan page, bucket "" : any partition that authenticates it) and
// checks it as Get would, and more: a plain record must not claim a sealed
// partition, since nothing would authenticate it.
func (s *Salvage) decodeMemory(bucket, id string, raw []byte) (*Memory, string, error) {
	sealed := isSealedRecord(raw)
	if sealed && s.dek == nil {
		return nil, bucket, ErrLocked
	}
	try := []string{bucket}
	if bucket == "" && sealed {
		try = []string{string(Sensitive), string(Archive)}
	}
	var m Memory
	var ver uint64
	var err error
	for _, b := range try {
		m = Memory{}
		key := s.dek
		if !sealed {
			key = nil
		}
		if ver, err = decodeRecord(raw, key, b, id, &m); err == nil {
			bucket = b
			break
		}
	}
	if err != nil {
		return nil, bucket, err
	}
	if bucket == "" {
		bucket = string(m.Partition)
	}
	switch {
	case m.ID != id || string(m.Partition) != bucket:
		return nil, bucket, fmt.Errorf("%w: stored under the wrong key", ErrCorrupt)
	case sealed != m.sealed():
		return nil, bucket, fmt.Errorf("%w: a sensitive memory stored in clear", ErrCorrupt)
	case sealed && ver != uint64(m.Version):
		return nil, bucket, fmt.Errorf("%w: version does not match", ErrAuth)
	case HashContent(m.Content) != m.ContentHash:
		return nil, bucket, fmt.Errorf("%w: content does not match its hash", ErrCorrupt)
	}
	if err := m.Validate(); err != nil {
		return nil, bucket, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return &m, bucket, nil
}

// withVersions attaches the version snapshots that open and check for the
// memory, up to its current version. When the newest snapshot is lost it
// is rebuilt from the memory (rebuilt is true); when it survives but does
// not match the memory, one of the two is damaged and the memory is not
// recovered.
func (s *Salvage) withVersions(sv *salvaged, cands []versionCand, rep *SalvageReport) (backupItem, bool, error) {
	m := &sv.m
	byNum := map[int]Version{}
	for _, c := range cands {
		if len(c.key) != 8 || isSealedRecord(c.raw) != m.sealed() {
			continue
		}
		n := binary.BigEndian.Uint64(c.key)
		if n < 1 || n > uint64(m.Version) {
			continue
		}
		if _, ok := byNum[int(n)]; ok {
			continue // the tree's copy came first
		}
		key := s.dek
		if !m.sealed() {
			key = nil
		}
		var ver Version
		if _, err := decodeRecord(c.raw, key, string(bucketVersions), versionName(m.ID, c.key), &ver); err != nil {
			continue
		}
		if ver.Version != int(n) || ver.Memory.ID != m.ID || ver.Memory.StateHash() != ver.StateHash || HashContent(ver.Memory.Content) != ver.ContentHash {
			continue
		}
		byNum[int(n)] = ver
	}
	rebuilt := false
	if newest, ok := byNum[m.Version]; ok && newest.StateHash != m.StateHash() {
		return backupItem{}, false, fmt.Errorf("%w: the record does not match its newest version", ErrCorrupt)
	} else if !ok {
		byNum[m.Version] = rebuildVersion(m)
		rebuilt = true
	}
	it := backupItem{Memory: *m}
	for _, n := range slices.Sorted(maps.Keys(byNum)) {
		it.Versions = append(it.Versions, byNum[n])
	}
	return it, rebuilt, nil
}

// rebuildVersion makes the snapshot of m's current state that putVersionTx
// would have written, naming the agent and operation from the provenance.
func rebuildVersion(m *Memory) Version {
	snap := *m
	snap.Provenance = Provenance{}
	agent, op := m.Provenance.Genesis.Agent, Operation("")
	if mods := m.Provenance.Modifications; len(mods) > 0 && mods[len(mods)-1].Version == m.Version {
		agent, op = mods[len(mods)-1].Agent, mods[len(mods)-1].Operation
	}
	return Version{
		Version: m.Version, Time: m.Updated.Format("2006-01-02T15:04:05.000000000Z07:00"), Agent: agent, Operation: op,
		ContentHash: m.ContentHash, StateHash: m.StateHash(), Pinned: m.Pinned, Memory: snap,
	}
}

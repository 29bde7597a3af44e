package vault

import (
	"bytes"
	"context"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime/debug"

	"github.com/engram-app/engram/vault/internal/pagecheck"
	"github.com/engram-app/engram/vault/internal/seal"
	bolt "go.etcd.io/bbolt"
)

// Problem is one finding of Check, naming where it is and never including
// memory content.
type Problem struct {
	Where string `json:"where"`
	What  string `json:"what"`
}

func (p Problem) String() string { return p.Where + ": " + p.What }

// Report is the result of Check.
type Report struct {
	Memories  int `json:"memories"`
	Sealed    int `json:"sealed"`
	Versions  int `json:"versions"`
	Unchecked int `json:"unchecked"` // sealed records skipped because the vault is locked
	Audit     int `json:"audit_entries"`
	// Anchored counts the memories compared with a keyed fingerprint in
	// the audit log: the entry of their current version was written while
	// unlocked and is not pruned, and Check runs unlocked.
	Anchored int       `json:"anchored"`
	Problems []Problem `json:"problems"`
}

// boltCheck runs bbolt's own consistency check. On a read-only
// transaction it reads the freelist that a commit changes, so (as bbolt's
// Tx.Check says) no write may commit meanwhile: it holds writes off
// (writeGate) and a Scrub (scrubMu), taking the locks in the order update
// and Scrub take them. Reads go on.
func (v *Vault) boltCheck() (errs []error, err error) {
	v.scrubMu.Lock()
	defer v.scrubMu.Unlock()
	v.dbMu.RLock()
	defer v.dbMu.RUnlock()
	v.writeGate.Lock()
	defer v.writeGate.Unlock()
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer recoverDamage(&err)
	err = v.db.View(func(tx *bolt.Tx) error {
		for e := range tx.Check() {
			errs = append(errs, e)
		}
		return nil
	})
	return errs, err
}

// OK reports whether Check found nothing wrong and checked everything.
func (r *Report) OK() bool { return len(r.Problems) == 0 && r.Unchecked == 0 }

// Check runs bbolt's consistency check, decodes (and, when unlocked,
// decrypts) every memory and version, checks their hashes and version
// chains, and verifies the audit chain. Each memory MUST match the state
// hash of its newest version snapshot, and the version of the audit
// log's last change of it; when unlocked, also the keyed fingerprints of
// that change's entry (see "What someone who can write the file can and
// cannot do unnoticed" in DESIGN.md for what this finds). Problems are
// collected, not returned as errors, so one damaged record does not hide
// the others.
func (v *Vault) Check(ctx context.Context) (*Report, error) {
	key, _ := v.key()
	defer seal.Wipe(key)
	r := &Report{}
	add := func(where, format string, args ...any) {
		r.Problems = append(r.Problems, Problem{Where: where, What: fmt.Sprintf(format, args...)})
	}
	// Walk every bucket and key ourselves first, in this goroutine, where a
	// fault on a damaged page is caught (see view). bbolt's own check runs
	// in a goroutine of its own, where a fault would end the process, so it
	// runs only over a file whose pages our walk could read.
	// First the raw page structure, from the file's bytes, before bbolt
	// follows any pointer: a loop in the tree would make bbolt spin.
	if err := v.checkRaw(); err != nil {
		add("file", "%v", err)
		return r, nil
	}
	if err := v.view(walkAll); err != nil {
		add("file", "%v", err)
		return r, nil
	}
	fp, err := newFingerprinter(key)
	if err != nil {
		return nil, fmt.Errorf("check: %w", err)
	}
	defer fp.wipe()
	boltErrs, err := v.boltCheck()
	if err != nil {
		add("file", "%v", err)
		return r, nil
	}
	for _, err := range boltErrs {
		add("file", "%v", err)
	}
	err = v.view(func(tx *bolt.Tx) error {
		anchors := auditAnchorsTx(tx)
		if _, err := readHeader(tx); err != nil {
			add("header", "%v", err)
		}
		if c := headerCopyTx(tx); c != nil {
			if _, err := decodeHeader(c.Get(keyHeader), c.Get(keyHeaderSum)); err != nil {
				add("header copy", "%v", err)
			} else if !bytes.Equal(c.Get(keyHeader), tx.Bucket(bucketMeta).Get(keyHeader)) {
				add("header copy", "differs from the header")
			}
		}
		for _, name := range partitionBuckets() {
			b := tx.Bucket(name)
			if b == nil {
				add("file", "bucket %q is missing", name)
				continue
			}
			err := b.ForEach(func(k, raw []byte) error {
				if err := ctx.Err(); err != nil {
					return err
				}
				r.Memories++
				where := string(name) + "/" + string(k)
				if isSealedRecord(raw) {
					r.Sealed++
					if key == nil {
						r.Unchecked++
						return nil
					}
				}
				m, err := getTx(tx, string(k), key)
				if err != nil {
					add(where, "%v", trimRecordPrefix(err))
					return nil
				}
				if HashContent(m.Content) != m.ContentHash {
					add(where, "content does not match its hash")
				}
				state := m.StateHash()
				checkVersions(tx, m, state, key, r, add)
				checkAnchor(m, state, anchors[m.ID], fp, r, add)
				return nil
			})
			if err != nil {
				return err
			}
		}
		// Versions whose memory is gone are leftovers of a bug or an edit.
		return tx.Bucket(bucketVersions).ForEachBucket(func(k []byte) error {
			if _, _, err := findTx(tx, string(k)); err != nil {
				add("versions/"+string(k), "versions kept for a memory that does not exist")
			}
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("check: %w", err)
	}
	ar, err := v.VerifyAudit()
	if err != nil {
		return nil, fmt.Errorf("check: %w", err)
	}
	r.Audit = ar.Entries
	for _, p := range ar.Problems {
		add("audit", "%s", p)
	}
	return r, nil
}

// checkRaw reads the vault file while no transaction can write it and
// validates its page structure.
func (v *Vault) checkRaw() error {
	read := func(*bolt.Tx) error {
		data, err := os.ReadFile(v.path)
		if err != nil {
			return err
		}
		if err := pagecheck.Check(data); err != nil {
			return fmt.Errorf("%w: %v", ErrCorrupt, err)
		}
		return nil
	}
	if v.readOnly {
		return v.view(read)
	}
	return v.update(read) // holds the writer lock; commits nothing
}

// walkAll touches every bucket, nested bucket, key and value.
func walkAll(tx *bolt.Tx) error {
	var walk func(b *bolt.Bucket) error
	walk = func(b *bolt.Bucket) error {
		return b.ForEach(func(k, val []byte) error {
			if val == nil {
				nb := b.Bucket(k)
				if nb == nil {
					return fmt.Errorf("%w: nested bucket %q cannot be opened", ErrCorrupt, k)
				}
				return walk(nb)
			}
			_ = len(k) + len(val)
			if len(val) > 0 {
				_ = val[0] + val[len(val)-1] + k[len(k)-1]
			}
			return nil
		})
	}
	return tx.ForEach(func(name []byte, b *bolt.Bucket) error { return walk(b) })
}

// checkVersions checks the version chain of m: every kept snapshot
// matches its own hashes and is stored under its own number and memory,
// m matches the state hash of the newest one (the one of its version, as
// getTx checked), and each modification in m's provenance names as the
// state before it the state of the version before it, when that is kept.
func checkVersions(tx *bolt.Tx, m *Memory, state string, key []byte, r *Report, add func(string, string, ...any)) {
	vb := tx.Bucket(bucketVersions).Bucket([]byte(m.ID))
	if vb == nil {
		add("versions/"+m.ID, "no versions kept")
		return
	}
	states := map[int]string{} // version -> state hash, of the snapshots that check out
	c := vb.Cursor()
	for k, raw := c.First(); k != nil; k, raw = c.Next() {
		r.Versions++
		name := versionName(m.ID, k)
		var ver Version
		if _, err := decodeRecord(raw, key, string(bucketVersions), name, &ver); err != nil {
			if errors.Is(err, ErrLocked) {
				r.Unchecked++
				continue
			}
			add("versions/"+name, "%v", trimRecordPrefix(err))
			continue
		}
		switch {
		case ver.Memory.StateHash() != ver.StateHash || HashContent(ver.Memory.Content) != ver.ContentHash:
			add("versions/"+name, "state does not match its hash")
		case len(k) != 8 || uint64(ver.Version) != binary.BigEndian.Uint64(k) || ver.Memory.Version != ver.Version || ver.Memory.ID != m.ID:
			add("versions/"+name, "the snapshot is of version %d of %s: stored under another key", ver.Version, ver.Memory.ID)
		default:
			states[ver.Version] = ver.StateHash
		}
	}
	where := string(m.Partition) + "/" + m.ID
	if s, ok := states[m.Version]; ok && s != state {
		add(where, "does not match the state hash of its newest version (%d): changed outside Engram", m.Version)
	}
	for _, mod := range m.Provenance.Modifications {
		if s, ok := states[mod.Version-1]; ok && mod.PrevHash != "" && mod.PrevHash != s {
			add(where, "its change to version %d names a state before it that is not version %d's", mod.Version, mod.Version-1)
		}
	}
}

// auditAnchor is what the audit log says of a memory's current version:
// the highest version its entries name since it was last removed, and
// the fingerprints of the entries that made or verified that version.
type auditAnchor struct {
	version int
	seq     uint64   // the entry that made the version
	content []string // ContentHash of the entries at version: keyed, or plain (older entries)
	state   []string // StateFingerprint of the entries at version
}

// auditAnchorsTx reads the audit log into one auditAnchor per memory id.
// Only the vault's own entries of versioned changes count (memory:write,
// memory:update, memory:rollback, result ok); a removal (memory:delete,
// or memory:purged of the memory, which names its partition, unlike a
// purge of some of its versions) forgets what came before, since an
// import may bring the memory back at another version. Entries that do
// not decode are left to VerifyAudit.
func auditAnchorsTx(tx *bolt.Tx) map[string]*auditAnchor {
	out := map[string]*auditAnchor{}
	_ = tx.Bucket(bucketAudit).ForEach(func(_, body []byte) error {
		var e AuditEntry
		if json.Unmarshal(body, &e) != nil || e.MemoryID == "" || e.Result != ResultOK {
			return nil
		}
		switch e.Action {
		case ActionDelete:
			delete(out, e.MemoryID)
		case ActionPurge:
			if e.Partition != "" {
				delete(out, e.MemoryID)
			}
		case ActionWrite, ActionUpdate, ActionRollback:
			if e.VersionAfter <= 0 {
				return nil
			}
			a := out[e.MemoryID]
			if a == nil {
				a = &auditAnchor{}
				out[e.MemoryID] = a
			}
			if e.VersionAfter > a.version {
				*a = auditAnchor{version: e.VersionAfter, seq: e.Seq}
			}
			if e.VersionAfter == a.version {
				if e.ContentHash != "" {
					a.content = append(a.content, e.ContentHash)
				}
				if e.StateFingerprint != "" {
					a.state = append(a.state, e.StateFingerprint)
				}
			}
		}
		return nil
	})
	return out
}

// fingerprinter makes the audit log's fingerprints as keyedHash and
// stateFingerprint do, with the keys derived once (Check makes two per
// memory).
type fingerprinter struct{ text, state []byte }

// newFingerprinter derives the keys from dek; nil without dek.
func newFingerprinter(dek []byte) (*fingerprinter, error) {
	if dek == nil {
		return nil, nil
	}
	t, err := hkdf.Key(sha256.New, dek, nil, auditKeyInfo, 32)
	if err != nil {
		return nil, err
	}
	st, err := hkdf.Key(sha256.New, dek, nil, auditStateKeyInfo, 32)
	if err != nil {
		return nil, err
	}
	return &fingerprinter{t, st}, nil
}

func (f *fingerprinter) sum(key []byte, s string) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(s))
	return fingerprintPrefix + hex.EncodeToString(m.Sum(nil))
}

func (f *fingerprinter) wipe() {
	if f != nil {
		seal.Wipe(f.text)
		seal.Wipe(f.state)
	}
}

// checkAnchor compares m (whose state hash is state) with what the audit log says of its current
// version (a, nil when the log names none since m was last removed: a
// memory imported, or whose entries were pruned). The version must be the
// one the log's last change made; the content and state must match that
// change's fingerprints, the keyed ones when key is there. Someone who
// writes the file without the key cannot make a fingerprint for an
// edited memory, only remove or rewrite the entries, which the chain
// alone does not stop (it has no anchor outside the file).
func checkAnchor(m *Memory, state string, a *auditAnchor, fp *fingerprinter, r *Report, add func(string, string, ...any)) {
	if a == nil {
		return
	}
	where := string(m.Partition) + "/" + m.ID
	if a.version != m.Version {
		add(where, "is at version %d, but the audit log's last change of it (entry %d) made version %d: changed outside Engram", m.Version, a.seq, a.version)
		return
	}
	compared, differs := false, false
	for _, h := range a.content {
		switch {
		case IsFingerprint(h) && fp != nil:
			compared = true
			differs = differs || fp.sum(fp.text, m.Content) != h
		case isPlainHash(h): // an entry written before fingerprints were keyed
			differs = differs || HashContent(m.Content) != h
		}
	}
	for _, h := range a.state {
		if IsFingerprint(h) && fp != nil {
			compared = true
			differs = differs || fp.sum(fp.state, state) != h
		}
	}
	if differs {
		add(where, "does not match the fingerprints of its version %d in audit entry %d: changed outside Engram", m.Version, a.seq)
	}
	if compared {
		r.Anchored++
	}
}

// isPlainHash reports whether s is 64 lower-case hex digits.
func isPlainHash(s string) bool {
	return IsFingerprint(fingerprintPrefix + s)
}

// trimRecordPrefix keeps problem lines short: the Where already names the record.
func trimRecordPrefix(err error) string {
	for _, s := range []error{ErrAuth, ErrCorrupt, ErrFormat} {
		if errors.Is(err, s) {
			return err.Error()
		}
	}
	return err.Error()
}

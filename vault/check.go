package vault

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"

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
	Memories  int       `json:"memories"`
	Sealed    int       `json:"sealed"`
	Versions  int       `json:"versions"`
	Unchecked int       `json:"unchecked"` // sealed records skipped because the vault is locked
	Audit     int       `json:"audit_entries"`
	Problems  []Problem `json:"problems"`
}

// OK reports whether Check found nothing wrong and checked everything.
func (r *Report) OK() bool { return len(r.Problems) == 0 && r.Unchecked == 0 }

// Check runs bbolt's consistency check, decodes (and, when unlocked,
// decrypts) every memory and version, checks their hashes and version
// chains, and verifies the audit chain. Problems are collected, not
// returned as errors, so one damaged record does not hide the others.
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
	err := v.view(func(tx *bolt.Tx) error {
		for err := range tx.Check() {
			add("file", "%v", err)
		}
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
				checkVersions(tx, m, key, r, add)
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

func checkVersions(tx *bolt.Tx, m *Memory, key []byte, r *Report, add func(string, string, ...any)) {
	vb := tx.Bucket(bucketVersions).Bucket([]byte(m.ID))
	if vb == nil {
		add("versions/"+m.ID, "no versions kept")
		return
	}
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
		if ver.Memory.StateHash() != ver.StateHash || HashContent(ver.Memory.Content) != ver.ContentHash {
			add("versions/"+name, "state does not match its hash")
		}
	}
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

package vault

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/engram-app/engram/vault/atomicfile"
	"github.com/engram-app/engram/vault/internal/seal"
	bolt "go.etcd.io/bbolt"
)

// Lifecycle operations.
const (
	OpArchive Operation = "ARCHIVE"
	OpRestore Operation = "RESTORE"
)

// Audit actions of the lifecycle.
const (
	ActionPurge        Action = "memory:purged"
	ActionVaultCompact Action = "vault:compact"
)

// Archive moves a memory to the archive partition with a reason (and the
// id of the memory that superseded it, if any), as a new version. Archived
// memories are out of recall but visible to the user and restorable; a
// sensitive memory stays sealed in the archive.
func (v *Vault) Archive(id, reason, pointer string, a Actor) (Memory, error) {
	if a.Reason == "" {
		a.Reason = reason
	}
	return v.Update(id, OpArchive, a, func(m *Memory) error {
		if m.Partition == Archive {
			return fmt.Errorf("%w: memory %s is already archived", ErrInvalid, id)
		}
		m.Archive = &ArchiveInfo{From: m.Partition, Reason: reason, Time: v.now().UTC(), Pointer: pointer}
		m.Partition = Archive
		return nil
	})
}

// Restore moves an archived memory back to the partition it came from.
func (v *Vault) Restore(id string, a Actor) (Memory, error) {
	return v.Update(id, OpRestore, a, func(m *Memory) error {
		if m.Partition != Archive || m.Archive == nil {
			return fmt.Errorf("%w: memory %s is not archived", ErrInvalid, id)
		}
		m.Partition, m.Archive = m.Archive.From, nil
		return nil
	})
}

// Purge deletes a memory and its versions for good, audited as
// memory:purged with its content hash. Its bytes may survive in bbolt's
// free pages until Compact rewrites the file, so callers that purge
// compact afterwards.
func (v *Vault) Purge(id, reason string, a Actor) error {
	return v.remove(id, ActionPurge, reason, a)
}

// Compact rewrites the vault into a fresh file and puts it in place
// atomically (temporary file, fsync, rename, fsync the directory), so
// nothing deleted or purged survives in free pages. Other calls wait while
// it runs. It returns the file sizes before and after.
func (v *Vault) Compact(ctx context.Context) (before, after int64, err error) {
	if v.readOnly {
		return 0, 0, ErrReadOnly
	}
	v.dbMu.Lock()
	defer v.dbMu.Unlock()
	// A claim on waiting read audit entries is settled by transaction
	// ids, which the new file starts again: settle it against this one.
	v.db.View(func(tx *bolt.Tx) error { v.reads.settle(tx.ID()); return nil })
	if fi, err := os.Stat(v.path); err == nil {
		before = fi.Size()
	}
	tmp := filepath.Join(filepath.Dir(v.path), "."+filepath.Base(v.path)+".compact")
	os.Remove(tmp)
	dst, err := bolt.Open(tmp, 0o600, &bolt.Options{Timeout: time.Second, NoSync: true})
	if err != nil {
		return before, 0, fmt.Errorf("compact: %w", err)
	}
	if err := bolt.Compact(dst, v.db, 64<<20); err != nil {
		dst.Close()
		os.Remove(tmp)
		return before, 0, fmt.Errorf("compact: %w", err)
	}
	if err := dst.Sync(); err != nil {
		dst.Close()
		os.Remove(tmp)
		return before, 0, fmt.Errorf("compact: %w", err)
	}
	dst.Close()
	if err := ctx.Err(); err != nil {
		os.Remove(tmp)
		return before, 0, err
	}
	// Swap files: close ours (releasing its lock), rename, reopen. Between
	// the close and the reopen another process could take the lock; then
	// the reopen fails with ErrInUse and the vault must be opened again.
	if err := v.db.Close(); err != nil {
		os.Remove(tmp)
		return before, 0, fmt.Errorf("compact: %w", err)
	}
	renameErr := os.Rename(tmp, v.path)
	if renameErr == nil {
		renameErr = atomicfile.SyncDir(filepath.Dir(v.path))
	}
	db, err := openBolt(v.path, v.opts)
	if err != nil {
		return before, 0, fmt.Errorf("compact: reopen: %w", err)
	}
	v.db = db
	if renameErr != nil {
		os.Remove(tmp)
		return before, 0, fmt.Errorf("compact: %w", renameErr)
	}
	if fi, err := os.Stat(v.path); err == nil {
		after = fi.Size()
	}
	err = v.db.Update(func(tx *bolt.Tx) error {
		return appendAuditTx(tx, v.now(), AuditEntry{Action: ActionVaultCompact, Agent: AgentOperator, Result: ResultOK, Size: int(after), Reason: fmt.Sprintf("%d bytes before", before)})
	})
	return before, after, err
}

// OpVerify names a verification in the audit log ("VERIFY: CONFIRMED").
const OpVerify Operation = "VERIFY"

// Verify adds a verification (CONFIRMED, QUESTIONED, REFUTED or OBSERVED)
// by a's agent, with its evidence, to the memory's provenance. The
// lifecycle rules read verifications: a confirmation by the user restarts
// the memory's TTL and confidence, one by an agent adds to its confidence,
// a refutation archives it at the next sweep.
//
// A verification changes no restorable state, so it makes no version: the
// record is rewritten in place at its version number (re-sealed with a
// fresh nonce when sensitive), Updated is left alone, and the change is
// audited as memory:update with reason "VERIFY: ..." and equal version
// numbers before and after. So confirmations cannot push versions out of
// the history, and a.IfVersion, when set, is checked against the version
// that stays. A verdict its agent already gave since the user's last
// confirmation replaces the earlier entry, and agents' entries and the
// user's are kept apart, the last MaxVerifications of each (see
// addVerification): agents cannot push the user's verdict out.
func (v *Vault) Verify(id string, verdict Verdict, evidence string, a Actor) (Memory, error) {
	switch verdict {
	case Confirmed, Questioned, Refuted, Observed:
	default:
		return Memory{}, fmt.Errorf("verify memory %s: %w: verdict %q", id, ErrInvalid, verdict)
	}
	if a.Reason == "" {
		a.Reason = string(verdict)
	}
	key, _ := v.key()
	defer seal.Wipe(key)
	var out Memory
	err := v.update(func(tx *bolt.Tx) error {
		cur, err := getTx(tx, id, key) // ErrLocked for a sealed memory while locked
		if err != nil {
			return err
		}
		if a.IfVersion != 0 && a.IfVersion != cur.Version {
			return fmt.Errorf("%w: memory is at version %d, not %d", ErrConflict, cur.Version, a.IfVersion)
		}
		now := v.now().UTC()
		m := *cur
		m.Provenance.Verifications = addVerification(cur.Provenance.Verifications, Verification{Agent: a.agent(), Verdict: verdict, Evidence: evidence, Time: now})
		k := key
		if !m.sealed() {
			k = nil // plaintext stays plaintext
		}
		if err := putMemoryTx(tx, &m, k); err != nil {
			return err
		}
		out = m
		return appendAuditTx(tx, now, AuditEntry{
			Action: ActionUpdate, Agent: a.agent(), Session: a.Session, Field: m.Field, Partition: m.Partition,
			MemoryID: m.ID, ContentHash: contentHashFor(m.Content, m.sealed(), key), Result: ResultOK,
			Reason: string(OpVerify) + reasonSuffix(a.Reason), VersionBefore: m.Version, VersionAfter: m.Version, Size: len(m.Content),
		})
	})
	if err != nil {
		return Memory{}, fmt.Errorf("verify memory %s: %w", id, mapBoltErr(err))
	}
	return out, nil
}

// ArchiveRequest names one memory to archive and why. Reason is a label
// made by code (a decay reason such as "refuted"): it goes into the audit
// entry. Note, when set, is what the archived memory says instead (a
// refutation's evidence, which may name the memory's content): it is kept
// in the memory's ArchiveInfo only, so it leaves the file with the memory
// and never reaches the audit log.
type ArchiveRequest struct {
	ID, Reason, Pointer string
	Note                string
}

// ArchiveAll archives many memories in one transaction (a sweep archives
// thousands at once; one transaction each would cost a commit each). Ids
// that are gone, already archived, or sealed while the vault is locked are
// skipped. It returns how many it archived.
func (v *Vault) ArchiveAll(reqs []ArchiveRequest, a Actor) (int, error) {
	key, _ := v.key()
	defer seal.Wipe(key)
	n := 0
	err := v.update(func(tx *bolt.Tx) error {
		n = 0 // the function may run twice (see update)
		for _, r := range reqs {
			cur, err := getTx(tx, r.ID, key)
			if errors.Is(err, ErrNotFound) || errors.Is(err, ErrLocked) {
				continue
			}
			if err != nil {
				return err
			}
			if cur.Partition == Archive {
				continue
			}
			act := a
			act.Reason = r.Reason
			_, err = v.apply(tx, *cur, OpArchive, act, key, func(m *Memory) error {
				note := r.Reason
				if r.Note != "" {
					note = r.Note
				}
				m.Archive = &ArchiveInfo{From: m.Partition, Reason: note, Time: v.now().UTC(), Pointer: r.Pointer}
				m.Partition = Archive
				return nil
			})
			if err != nil {
				return fmt.Errorf("archive %s: %w", r.ID, err)
			}
			n++
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("archive: %w", mapBoltErr(err))
	}
	return n, nil
}

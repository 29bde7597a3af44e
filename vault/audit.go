package vault

import (
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/engram-app/engram/vault/internal/seal"
	bolt "go.etcd.io/bbolt"
)

// Action names an audited operation.
type Action string

// Audited actions.
const (
	ActionVaultCreate      Action = "vault:create"
	ActionPassphraseChange Action = "vault:passphrase_change"
	ActionWrite            Action = "memory:write"
	ActionRead             Action = "memory:read"
	ActionList             Action = "memory:list"
	ActionUpdate           Action = "memory:update"
	ActionDelete           Action = "memory:delete"
	ActionRollback         Action = "memory:rollback"
	ActionReject           Action = "memory:reject"
	ActionCompact          Action = "version:compact"
	ActionExport           Action = "vault:export"
	ActionImport           Action = "vault:import"
	ActionL3Access         Action = "l3:access"
	ActionAuditPrune       Action = "audit:prune"
	ActionSecretRedacted   Action = "secret_redacted"
	ActionQuarantine       Action = "quarantine:add"
	ActionApprove          Action = "quarantine:approve"
	ActionDismiss          Action = "quarantine:reject"
	ActionDiscard          Action = "quarantine:discard"
	ActionAgent            Action = "agent:change"
	ActionAuthFail         Action = "agent:auth_failed"
	ActionSettings         Action = "vault:settings"
	// ActionSweep is a lifecycle sweep's summary: Counts holds how many
	// memories it archived and purged, by tier and field.
	ActionSweep Action = "lifecycle:sweep"
)

// Results of audited operations.
const (
	ResultOK     = "ok"
	ResultDenied = "denied"
	ResultError  = "error"
	// ResultQuarantined and ResultRejected are outcomes of the write guard.
	ResultQuarantined = "quarantined"
	ResultRejected    = "rejected"
)

// AgentOperator is the agent name of the local user (CLI and desktop app).
const AgentOperator = "operator"

// AuditEntry is one line of the audit log. The log MUST NOT hold memory
// content, a forget request's topic, secrets or keys, nor anything that
// would confirm a guess of them once they are removed:
//
//   - ContentHash is the keyed Fingerprint of the text: of a memory the
//     vault writes, in whatever partition, and of any other text (a
//     refused or quarantined write, a redacted secret, a topic). While
//     the vault is locked there is no key and it is empty, never a plain
//     hash: a plain SHA-256 of a public memory would outlive the memory's
//     removal and confirm a guess of its text.
//   - StateFingerprint is, on the entry of a change that makes a version
//     (memory:write, memory:update, memory:rollback), the keyed
//     fingerprint of the new version's state hash, or empty while locked.
//     It is the anchor Check compares a memory with: without the data key
//     nobody can forge it for an edited state.
//   - Reason, Session and MemoryID are labels made by code (an operation,
//     a verdict, a sentinel error's text, an id, a count): callers of
//     Audit and the Reason of an Actor MUST NOT carry text a user or an
//     agent wrote. The vault writes into Reason only its own words and
//     Actor.Reason.
type AuditEntry struct {
	Seq           uint64    `json:"seq"`
	Time          time.Time `json:"time"`
	Agent         string    `json:"agent"`
	Session       string    `json:"session,omitempty"`
	Action        Action    `json:"action"`
	Field         Field     `json:"field,omitempty"`
	Partition     Partition `json:"partition,omitempty"`
	MemoryID      string    `json:"memory_id,omitempty"`
	ContentHash   string    `json:"content_hash,omitempty"`
	Result        string    `json:"result"`
	Reason        string    `json:"reason,omitempty"`
	VersionBefore int       `json:"version_before,omitempty"`
	VersionAfter  int       `json:"version_after,omitempty"`
	Count         int       `json:"count,omitempty"`
	Size          int       `json:"size,omitempty"`
	Prev          string    `json:"prev"`
	Hash          string    `json:"hash,omitempty"`

	// StateFingerprint: see above. Added within format 1; older readers
	// ignore it.
	StateFingerprint string `json:"state_fingerprint,omitempty"`

	// SourceType, Tier and Trust are, on a memory:write entry, the new
	// memory's source type, tier and trust.
	SourceType SourceType `json:"source_type,omitempty"`
	Tier       Tier       `json:"tier,omitempty"`
	Trust      Trust      `json:"trust,omitempty"`
	// Redactions are, on a secret_redacted entry, what was redacted: the
	// detector and the byte offsets in the text as written, never the
	// text.
	Redactions []Redaction `json:"redactions,omitempty"`
	// Counts are, on a lifecycle:sweep entry, how many memories the
	// sweep archived and purged, keyed "archived/TIER/FIELD" and
	// "purged/TIER/FIELD".
	Counts map[string]int `json:"counts,omitempty"`
}

// Redaction is one span the write guard redacted: the detector that
// found it (a secret type such as "aws_access_key") and its byte offsets.
type Redaction struct {
	Detector string `json:"detector"`
	Start    int    `json:"start"`
	End      int    `json:"end"`
}

// audit_meta keys.
var (
	keyAuditHead       = []byte("head")       // seq (8) || hash (32)
	keyAuditCheckpoint = []byte("checkpoint") // seq (8) || hash (32) of the last pruned entry
)

func seqKey(n uint64) []byte {
	var k [8]byte
	binary.BigEndian.PutUint64(k[:], n)
	return k[:]
}

func readLink(raw []byte) (uint64, [32]byte, bool) {
	var h [32]byte
	if len(raw) != 40 {
		return 0, h, false
	}
	copy(h[:], raw[8:])
	return binary.BigEndian.Uint64(raw[:8]), h, true
}

func writeLink(seq uint64, h [32]byte) []byte {
	return append(seqKey(seq), h[:]...)
}

// chainHash is the hash of one entry: SHA-256 over the previous hash and the
// entry's stored JSON body (which has no hash field).
func chainHash(prev [32]byte, body []byte) [32]byte {
	h := sha256.New()
	h.Write([]byte("engram/audit/v1\n"))
	h.Write(prev[:])
	h.Write(body)
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// appendAuditTx appends e inside tx. The stored value is the entry's JSON
// body with Seq, Time and Prev filled and Hash empty; the hash is kept in
// the next entry's Prev and in the head.
func appendAuditTx(tx *bolt.Tx, now time.Time, e AuditEntry) error {
	meta := tx.Bucket(bucketAuditMeta)
	var prev [32]byte
	var seq uint64
	if s, h, ok := readLink(meta.Get(keyAuditHead)); ok {
		seq, prev = s, h
	} else if s, h, ok := readLink(meta.Get(keyAuditCheckpoint)); ok {
		seq, prev = s, h
	}
	e.Seq = seq + 1
	e.Time = now.UTC()
	e.Prev = hex.EncodeToString(prev[:])
	e.Hash = ""
	body, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if err := tx.Bucket(bucketAudit).Put(seqKey(e.Seq), body); err != nil {
		return err
	}
	return meta.Put(keyAuditHead, writeLink(e.Seq, chainHash(prev, body)))
}

// appendAudit appends one entry in its own transaction.
func (v *Vault) appendAudit(e AuditEntry) error {
	return v.update(func(tx *bolt.Tx) error { return appendAuditTx(tx, v.now(), e) })
}

// appendGivenTx appends an entry made outside the vault (Audit, QueuePut,
// QueueDelete, PutAgent). Such an entry fingerprints text the vault does
// not store as a memory (a refused write, a queued one, a topic), so its
// ContentHash MUST be a keyed Fingerprint: any other value (a plain
// SHA-256) is dropped, and the entry is kept without it.
func appendGivenTx(tx *bolt.Tx, now time.Time, e AuditEntry) error {
	if e.ContentHash != "" && !IsFingerprint(e.ContentHash) {
		e.ContentHash = ""
	}
	e.StateFingerprint = "" // only the vault's own entries anchor a state
	return appendAuditTx(tx, now, e)
}

// Audit appends an entry for an operation decided outside the vault (a
// rejected write, a denied request, a listing). Seq, Time, Prev and Hash
// are set here. A ContentHash must come from Fingerprint; any other is
// left out.
//
// Audit returns once the entry is committed, except for the entry of a
// successful read of non-sensitive memories (memory:read or memory:list,
// result ok, partition not sensitive): that one is committed together
// with the other reads of the next ReadAuditDelay, and Audit returns
// before. Every reader of the log (AuditLog, AuditHead, VerifyAudit,
// exports) and Close commit the waiting entries first.
func (v *Vault) Audit(e AuditEntry) error {
	if err := v.auditRead(e); err != nil {
		return fmt.Errorf("audit: %w", mapBoltErr(err))
	}
	return nil
}

// AuditHead returns the sequence number of the newest audit entry (0 for
// an empty log). It is cheap: one read of the chain's head.
func (v *Vault) AuditHead() (uint64, error) {
	if err := v.flushReads(); err != nil {
		return 0, fmt.Errorf("audit: %w", err)
	}
	var seq uint64
	err := v.view(func(tx *bolt.Tx) error {
		meta := tx.Bucket(bucketAuditMeta)
		if s, _, ok := readLink(meta.Get(keyAuditHead)); ok {
			seq = s
		} else if s, _, ok := readLink(meta.Get(keyAuditCheckpoint)); ok {
			seq = s
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("audit head: %w", mapBoltErr(err))
	}
	return seq, nil
}

// AuditFilter selects audit entries. Zero fields match everything.
type AuditFilter struct {
	Agent  string
	Field  Field
	Action Action
	Since  time.Time
	// AfterSeq skips entries up to and including this sequence number, so a
	// watcher reads only what was appended since it last looked.
	AfterSeq uint64
	// Last keeps only the newest Last entries that match.
	Last int
}

// AuditLog returns matching entries, oldest first, each with its Hash.
func (v *Vault) AuditLog(f AuditFilter) ([]AuditEntry, error) {
	if err := v.flushReads(); err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	var out []AuditEntry
	err := v.view(func(tx *bolt.Tx) error {
		return walkAuditFrom(tx, f.AfterSeq+1, func(e AuditEntry, _ []byte) error {
			if (f.Agent == "" || e.Agent == f.Agent) && (f.Field == "" || e.Field == f.Field) &&
				(f.Action == "" || e.Action == f.Action) && (f.Since.IsZero() || !e.Time.Before(f.Since)) {
				out = append(out, e)
				if f.Last > 0 && len(out) > 2*f.Last {
					out = append(out[:0], out[len(out)-f.Last:]...)
				}
			}
			return nil
		})
	})
	if f.Last > 0 && len(out) > f.Last {
		out = out[len(out)-f.Last:]
	}
	return out, err
}

// walkAuditFrom calls fn for every stored entry from sequence number
// from on, in order, with Hash computed from its stored Prev and body. It
// does not verify; VerifyAudit does.
func walkAuditFrom(tx *bolt.Tx, from uint64, fn func(e AuditEntry, body []byte) error) error {
	c := tx.Bucket(bucketAudit).Cursor()
	for k, body := c.Seek(seqKey(from)); k != nil; k, body = c.Next() {
		var e AuditEntry
		if err := json.Unmarshal(body, &e); err != nil {
			return fmt.Errorf("audit entry %x: %w: %v", k, ErrCorrupt, err)
		}
		var prev [32]byte
		hex.Decode(prev[:], []byte(e.Prev))
		h := chainHash(prev, body)
		e.Hash = hex.EncodeToString(h[:])
		if err := fn(e, body); err != nil {
			return err
		}
	}
	return nil
}

// AuditReport is the result of verifying the chain.
type AuditReport struct {
	Entries  int
	First    uint64 // first seq present
	Last     uint64
	Problems []string
}

// OK reports whether the chain is intact.
func (r AuditReport) OK() bool { return len(r.Problems) == 0 }

// VerifyAudit walks the chain from the checkpoint (or the start) to the head
// and reports every break: an edited entry, a missing one, a reordered one,
// or a head that does not match the last entry.
func (v *Vault) VerifyAudit() (AuditReport, error) {
	if err := v.flushReads(); err != nil {
		return AuditReport{}, fmt.Errorf("audit: %w", err)
	}
	var r AuditReport
	err := v.view(func(tx *bolt.Tx) error {
		r = verifyAuditTx(tx)
		return nil
	})
	return r, err
}

func verifyAuditTx(tx *bolt.Tx) AuditReport {
	var r AuditReport
	meta := tx.Bucket(bucketAuditMeta)
	var prev [32]byte
	var seq uint64
	if raw := meta.Get(keyAuditCheckpoint); raw != nil {
		s, h, ok := readLink(raw)
		if !ok {
			r.Problems = append(r.Problems, "audit checkpoint is damaged")
		}
		seq, prev = s, h
	}
	c := tx.Bucket(bucketAudit).Cursor()
	for k, body := c.First(); k != nil; k, body = c.Next() {
		r.Entries++
		ks := uint64(0)
		if len(k) == 8 {
			ks = binary.BigEndian.Uint64(k)
		}
		if r.Entries == 1 {
			r.First = ks
		}
		r.Last = ks
		var e AuditEntry
		if err := json.Unmarshal(body, &e); err != nil {
			r.Problems = append(r.Problems, fmt.Sprintf("entry %d cannot be decoded", ks))
			continue
		}
		if ks != seq+1 || e.Seq != ks {
			r.Problems = append(r.Problems, fmt.Sprintf("entry %d follows entry %d: entries are missing or reordered", ks, seq))
		}
		if e.Prev != hex.EncodeToString(prev[:]) {
			r.Problems = append(r.Problems, fmt.Sprintf("entry %d does not link to the entry before it (edited or removed entry before %d)", ks, ks))
		}
		prev = chainHash(prev, body)
		seq = ks
	}
	head, hh, ok := readLink(meta.Get(keyAuditHead))
	switch {
	case !ok && r.Entries > 0:
		r.Problems = append(r.Problems, "audit head is missing or damaged")
	case ok && (head != seq || hh != prev):
		r.Problems = append(r.Problems, fmt.Sprintf("audit head names entry %d but the chain ends at entry %d with another hash (entries after it were edited or removed)", head, seq))
	}
	return r
}

// PruneAudit removes entries older than before from the start of the
// chain and moves the checkpoint to the last removed entry, so the rest of
// the chain still verifies. Entries about the sensitive partition (L3
// access records) are kept until sensitiveBefore instead, which should be
// earlier: the chain can only be cut at its start, so pruning stops at the
// first entry to keep. It appends an audit:prune entry with the count,
// and asks for a scrub (see Scrub) of the pages the entries leave.
func (v *Vault) PruneAudit(before, sensitiveBefore time.Time) (int, error) {
	if err := v.flushReads(); err != nil {
		return 0, fmt.Errorf("prune audit: %w", err)
	}
	n := 0
	err := v.update(func(tx *bolt.Tx) error {
		n = 0 // the function may run twice (see update)
		b := tx.Bucket(bucketAudit)
		meta := tx.Bucket(bucketAuditMeta)
		var prev [32]byte
		if _, h, ok := readLink(meta.Get(keyAuditCheckpoint)); ok {
			prev = h
		}
		c := b.Cursor()
		var lastSeq uint64
		for k, body := c.First(); k != nil; k, body = c.First() {
			var e AuditEntry
			if err := json.Unmarshal(body, &e); err != nil {
				return fmt.Errorf("audit entry %x: %w", k, ErrCorrupt)
			}
			if !e.Time.Before(before) || (e.Partition == Sensitive && !e.Time.Before(sensitiveBefore)) {
				break
			}
			prev = chainHash(prev, body)
			lastSeq = e.Seq
			if err := b.Delete(k); err != nil {
				return err
			}
			n++
		}
		if n == 0 {
			return nil
		}
		// The head may go too: the prune's own entry, appended below in
		// this transaction, chains from it and keeps the log non-empty.
		// The pruned entries' pages are free now; entries written before
		// fingerprints were keyed hold plain hashes of memories' text.
		v.markRemoved()
		if err := meta.Put(keyAuditCheckpoint, writeLink(lastSeq, prev)); err != nil {
			return err
		}
		return appendAuditTx(tx, v.now(), AuditEntry{Action: ActionAuditPrune, Agent: AgentOperator, Result: ResultOK, Count: n})
	})
	if err != nil {
		return 0, fmt.Errorf("prune audit: %w", mapBoltErr(err))
	}
	return n, nil
}

// auditKeyInfo is the HKDF info of the audit fingerprint key. One key
// serves every fingerprint of text in the log (a memory's content, and
// whatever Fingerprint computes for the service), so the same text has
// the same fingerprint in every entry that names it.
const auditKeyInfo = "engram audit content hash v1"

// auditStateKeyInfo is the HKDF info of the key of state fingerprints,
// apart from the text key so that no text's fingerprint equals a state's.
const auditStateKeyInfo = "engram audit state hash v1"

// fingerprintPrefix marks a keyed fingerprint in the audit log.
const fingerprintPrefix = "hmac:"

// Fingerprint returns the keyed fingerprint of text that the audit log
// records in place of text that is or may be secret, personal or
// sensitive: a rejected or quarantined write, a redacted secret, a forget
// request's topic. It is "hmac:" followed by the hex HMAC-SHA-256 of text
// under a key derived from the data key with HKDF-SHA-256 (no salt, info
// "engram audit content hash v1"): the same for one text in one vault,
// different in another vault, and, unlike a plain SHA-256, useless for
// confirming a guessed short text (a phone number, a PIN) without the key.
//
// While the vault is locked there is no key: Fingerprint returns "" and
// an error wrapping ErrLocked, never a plain hash. The caller then audits
// the entry without a content hash.
func (v *Vault) Fingerprint(text string) (string, error) {
	key, err := v.key()
	if err != nil {
		return "", fmt.Errorf("fingerprint: %w", err)
	}
	defer seal.Wipe(key)
	fp := keyedHash(text, key)
	if fp == "" {
		return "", fmt.Errorf("fingerprint: %w: key derivation failed", ErrInvalid)
	}
	return fp, nil
}

// IsFingerprint reports whether s has the form Fingerprint returns:
// "hmac:" and 64 lower-case hex digits.
func IsFingerprint(s string) bool {
	h, ok := strings.CutPrefix(s, fingerprintPrefix)
	if !ok || len(h) != 2*sha256.Size {
		return false
	}
	for _, c := range h {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// keyedHash is the keyed fingerprint of text under the audit key derived
// from dek, or "" if the derivation fails.
func keyedHash(text string, dek []byte) string {
	return keyedHashInfo(text, dek, auditKeyInfo)
}

// keyedHashInfo is keyedHash under the key HKDF derives from dek with info.
func keyedHashInfo(text string, dek []byte, info string) string {
	k, err := hkdf.Key(sha256.New, dek, nil, info, 32)
	if err != nil {
		return ""
	}
	defer seal.Wipe(k)
	m := hmac.New(sha256.New, k)
	m.Write([]byte(text))
	return fingerprintPrefix + hex.EncodeToString(m.Sum(nil))
}

// contentHashFor returns what the audit log records for a memory's
// content, sealed or not: its keyed fingerprint under dek, or "" without
// the data key (the vault is locked), never a plain hash. A plain SHA-256
// of a public or internal memory's text would stay in the log after the
// memory is deleted or forgotten and confirm a guess of it. The second
// argument (whether the memory is sealed) no longer changes the answer.
func contentHashFor(content string, _ bool, dek []byte) string {
	if dek == nil {
		return ""
	}
	return keyedHash(content, dek)
}

// stateFingerprint is the keyed fingerprint of m's state hash under dek,
// or "" without the data key. It goes into the audit entry of each change
// that makes a version, for Check to compare the memory with.
func stateFingerprint(m *Memory, dek []byte) string {
	if dek == nil {
		return ""
	}
	return keyedHashInfo(m.StateHash(), dek, auditStateKeyInfo)
}

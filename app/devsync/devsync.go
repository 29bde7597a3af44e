// Package devsync keeps one vault in step on several devices through a
// folder that a file-sync engine (Syncthing, Dropbox, a shared
// directory) moves: each device appends sealed, signed segments of its
// own changes under FOLDER/engram/DEVICE/ and applies the other
// devices' segments by the merge rules of vault/DESIGN.md ("Sync across
// devices"). It never sits in a store's write path: it reads what the
// vault committed (its audit log) after the fact.
package devsync

import (
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/engram-app/engram/vault"
	"github.com/google/uuid"
)

// Errors.
var (
	// ErrNotSetUp: this vault has no sync folder (engram sync setup or join).
	ErrNotSetUp = errors.New("sync is not set up for this vault")
	// ErrAlreadySetUp: the vault syncs with a folder already.
	ErrAlreadySetUp = errors.New("sync is already set up for this vault")
	// ErrOtherVault: the folder holds another vault's segments.
	ErrOtherVault = errors.New("the folder syncs another vault")
	// ErrNoFolderVault: the folder holds no vault to join.
	ErrNoFolderVault = errors.New("the folder holds no Engram vault to join (run 'engram sync setup FOLDER' on the first device)")
	// ErrRevoked: the user revoked this device on another device.
	ErrRevoked = errors.New("this device was revoked on another device: it no longer syncs")
	// ErrUnknownDevice: revoke named no device the folder announced.
	ErrUnknownDevice = errors.New("no such device")
)

// Hooks tell the rest of Engram what a sync changed: the memory service
// keeps its recall index current with them. Either may be nil.
type Hooks struct {
	// Changed is called with the ids of memories a sync wrote.
	Changed func(ids []string)
	// Removed is called with the ids of memories a sync removed.
	Removed func(ids []string)
}

// Options configure a Syncer.
type Options struct {
	Now   func() time.Time
	Log   *slog.Logger
	Hooks Hooks
	// SegmentSize is the most payload bytes (before compression) one
	// segment carries; more changes go into several segments. Default
	// DefaultSegmentSize.
	SegmentSize int
}

// DefaultSegmentSize keeps segments well under segment.MaxPayload: a
// setup of 100,000 memories writes several, each read whole.
const DefaultSegmentSize = 16 << 20

// Syncer syncs one vault. Its methods are safe for concurrent use; one
// exchange runs at a time per vault, in this process.
type Syncer struct {
	v     *vault.Vault
	now   func() time.Time
	log   *slog.Logger
	hooks Hooks
	mu    *sync.Mutex
	size  int
}

// exchanges holds one lock per open vault, so that the sync loop of a
// running Engram and a command it runs (engram sync now, forwarded into
// it) never write the same segment number.
var exchanges sync.Map // *vault.Vault -> *sync.Mutex

// New returns a Syncer of v.
func New(v *vault.Vault, o Options) *Syncer {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.SegmentSize <= 0 {
		o.SegmentSize = DefaultSegmentSize
	}
	mu, _ := exchanges.LoadOrStore(v, &sync.Mutex{})
	return &Syncer{v: v, now: o.Now, log: o.Log, hooks: o.Hooks, mu: mu.(*sync.Mutex), size: o.SegmentSize}
}

// Keys of the vault's sync bucket.
const (
	keySelf    = "self"
	prefixPeer = "peer/"
	prefixMem  = "m/"
)

// self is this device's sync identity and progress.
type self struct {
	Device string `json:"device"`
	Name   string `json:"name"`
	Folder string `json:"folder"`
	Seed   []byte `json:"seed"` // Ed25519 seed: the device's signing key
	// Seq and Prev are the number and SHA-256 (hex) of the last segment
	// this device wrote.
	Seq  uint64 `json:"seq"`
	Prev string `json:"prev"`
	// AuditSeq is the last audit entry whose change was exported.
	AuditSeq uint64 `json:"audit_seq"`
	// Full asks the next export to compare every memory with what was
	// sent (set up, or after retention pruned unexported entries).
	Full     bool      `json:"full,omitempty"`
	Revoked  bool      `json:"revoked,omitempty"`
	LastSync time.Time `json:"last_sync"`
	// Compacted is the number of this device's last snapshot (0: none);
	// Removed says a memory was removed since it (a tombstone sent or
	// applied), so the next exchange compacts.
	Compacted   uint64    `json:"compacted,omitempty"`
	CompactedAt time.Time `json:"compacted_at,omitempty"`
	Removed     bool      `json:"removed,omitempty"`
}

// peer is what this device knows of another one.
type peer struct {
	Device string `json:"device"`
	Name   string `json:"name"`
	Pub    []byte `json:"pub"`
	// Seq and Hash are the number and SHA-256 (hex) of the last segment
	// of it applied here.
	Seq       uint64    `json:"seq"`
	Hash      string    `json:"hash"`
	FirstSeen time.Time `json:"first_seen"`
	LastSeen  time.Time `json:"last_seen"`
	Revoked   bool      `json:"revoked,omitempty"`
	Upto      uint64    `json:"upto,omitempty"`
	// Refused counts the segments refused (each file once); Refusal is
	// the last one and why.
	Refused     int    `json:"refused,omitempty"`
	Refusal     string `json:"refusal,omitempty"`
	RefusedHash string `json:"refused_hash,omitempty"`
}

// memState is what this device last synced of one memory.
type memState struct {
	RID    string   `json:"rid"`
	HLC    uint64   `json:"hlc"`
	Origin string   `json:"origin"`
	Seen   []string `json:"seen,omitempty"`
}

// maxSeen bounds how many record ids a memory's state remembers.
const maxSeen = 32

func (ms *memState) saw(rids ...string) {
	for _, r := range rids {
		if r == "" || ms.seen(r) {
			continue
		}
		ms.Seen = append(ms.Seen, r)
	}
	if n := len(ms.Seen) - maxSeen; n > 0 {
		ms.Seen = ms.Seen[n:]
	}
}

func (ms *memState) seen(rid string) bool {
	if ms.RID == rid {
		return true
	}
	for _, s := range ms.Seen {
		if s == rid {
			return true
		}
	}
	return false
}

// later reports whether a state stamped (hlc, origin) wins over ms: the
// greater clock, ties broken by the device id.
func (ms *memState) later(hlc uint64, origin string) bool {
	if hlc != ms.HLC {
		return hlc > ms.HLC
	}
	return origin > ms.Origin
}

func (s *Syncer) loadSelf() (*self, error) {
	raw, err := s.v.SyncGet(keySelf)
	if errors.Is(err, vault.ErrNotFound) {
		return nil, ErrNotSetUp
	}
	if err != nil {
		return nil, err
	}
	var me self
	if err := json.Unmarshal(raw, &me); err != nil {
		return nil, fmt.Errorf("sync state: %w", err)
	}
	return &me, nil
}

func (me *self) key() ed25519.PrivateKey { return ed25519.NewKeyFromSeed(me.Seed) }

// newSelf makes a device identity for folder.
func newSelf(folder, name string) (*self, error) {
	seed := make([]byte, ed25519.SeedSize)
	if _, err := rand.Read(seed); err != nil {
		return nil, err
	}
	return &self{Device: uuid.NewString(), Name: name, Folder: folder, Seed: seed, Full: true}, nil
}

func (s *Syncer) loadPeers() (map[string]*peer, error) {
	out := map[string]*peer{}
	err := s.v.SyncEach(prefixPeer, func(k string, val []byte) error {
		var p peer
		if err := json.Unmarshal(val, &p); err != nil {
			return fmt.Errorf("sync state %s: %w", k, err)
		}
		out[p.Device] = &p
		return nil
	})
	return out, err
}

func (s *Syncer) loadMem(id string) (*memState, error) {
	raw, err := s.v.SyncGet(prefixMem + id)
	if errors.Is(err, vault.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var ms memState
	if err := json.Unmarshal(raw, &ms); err != nil {
		return nil, fmt.Errorf("sync state of %s: %w", id, err)
	}
	return &ms, nil
}

// batch collects sync state to store together.
type batch map[string][]byte

func (b batch) put(key string, v any) {
	raw, err := json.Marshal(v)
	if err != nil {
		panic(err) // the state types hold only strings, numbers and bytes
	}
	b[key] = raw
}

// keys are the keys derived from the vault's data key that a sync uses.
type keys struct {
	segment []byte // seals segments
	state   []byte // keys record ids
}

func (s *Syncer) keys() (keys, error) {
	seg, err := s.v.DeriveKey("engram sync segment v1")
	if err != nil {
		return keys{}, err
	}
	st, err := s.v.DeriveKey("engram sync state v1")
	if err != nil {
		return keys{}, err
	}
	return keys{segment: seg, state: st}, nil
}

// syncable is the part of a memory that devices exchange and that a
// record id covers: its restorable state, archive, verifications and
// product. Times, version numbers and the local history are each
// device's own.
type syncable struct {
	State         string               `json:"state"`
	Archive       *vault.ArchiveInfo   `json:"archive,omitempty"`
	Verifications []vault.Verification `json:"verifications,omitempty"`
	Product       string               `json:"product,omitempty"`
	Genesis       vault.Genesis        `json:"genesis"`
}

// rid is the keyed record id of m's syncable state.
func (k keys) rid(m *vault.Memory) string {
	raw, err := json.Marshal(syncable{State: m.StateHash(), Archive: m.Archive, Verifications: m.Provenance.Verifications, Product: m.Product, Genesis: m.Provenance.Genesis})
	if err != nil {
		panic(err)
	}
	mac := hmac.New(sha256.New, k.state)
	mac.Write(raw)
	return hex.EncodeToString(mac.Sum(nil))[:32]
}

// content is the keyed fingerprint of a version's content, for a put's
// Keep list.
func (k keys) content(text string) string {
	mac := hmac.New(sha256.New, k.state)
	mac.Write([]byte("content\x00"))
	mac.Write([]byte(text))
	return hex.EncodeToString(mac.Sum(nil))[:32]
}

// copySyncable returns a function that gives a memory m's syncable state.
func copySyncable(from *vault.Memory) func(m *vault.Memory) error {
	return func(m *vault.Memory) error {
		m.Content, m.Kind, m.Field, m.Tier, m.Partition = from.Content, from.Kind, from.Field, from.Tier, from.Partition
		m.Tags = append([]string(nil), from.Tags...)
		m.Source, m.Trust, m.Confidence, m.Expires, m.Pinned = from.Source, from.Trust, from.Confidence, from.Expires, from.Pinned
		m.Archive, m.Product = from.Archive, from.Product
		m.Provenance.Verifications = append([]vault.Verification(nil), from.Provenance.Verifications...)
		m.Provenance.Genesis = from.Provenance.Genesis
		return nil
	}
}

// hlcFor is the hybrid logical clock stamp of a state written at t over
// a state stamped base: the later of t's milliseconds and base, plus one
// in the low 16 bits when base is not earlier.
func hlcFor(t time.Time, base uint64) uint64 {
	wall := uint64(max(t.UnixMilli(), 0)) << 16
	if wall > base {
		return wall
	}
	return base + 1
}

// actor is how a change applied from device is audited here: a name no
// agent can hold, with no grant and no token.
func actor(device, reason string) vault.Actor {
	return vault.Actor{Agent: "sync:" + shortID(device), Reason: reason}
}

func shortID(device string) string {
	if len(device) > 8 {
		return device[:8]
	}
	return device
}

// isSyncAgent reports whether an audit entry's agent is a sync's.
func isSyncAgent(agent string) bool { return strings.HasPrefix(agent, "sync:") }

// wipe clears key material held for one exchange.
func (k keys) wipe() {
	clear(k.segment)
	clear(k.state)
}

// errLocked explains why a sync needs the key.
func errLocked() error {
	return fmt.Errorf("%w: a sync needs the vault unlocked (segments are sealed under its key)", vault.ErrLocked)
}

func checkUnlocked(v *vault.Vault) error {
	if v.Locked() {
		return errLocked()
	}
	return nil
}

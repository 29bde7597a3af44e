package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/engram-app/engram/app/agents"
	"github.com/engram-app/engram/app/policy"
	"github.com/engram-app/engram/app/recall"
	"github.com/engram-app/engram/app/upkeep"
	"github.com/engram-app/engram/decay"
	"github.com/engram-app/engram/quarantine/guard"
	"github.com/engram-app/engram/vault"
)

// Caller is who makes a request (package policy): the agent id of a
// request from the loopback API comes from its token, never from the body.
type Caller = policy.Caller

// DefaultAgentFields are the fields an agent may write unless its
// registration says otherwise: gotchas must be granted explicitly.
var DefaultAgentFields = policy.DefaultAgentFields

// Request carries the caller, an explicit authorization flag (set by the
// transport once it has authenticated the caller) and a reason for the log.
type Request struct {
	Caller     Caller
	Authorized bool
	Reason     string
	// importRun is set by ImportEntries for its writes: the split check
	// joins them within the run only (split.go).
	importRun bool
}

func (r Request) actor() vault.Actor {
	return vault.Actor{Agent: r.Caller.Name(), Session: r.Caller.Session, Reason: r.Reason}
}

// Service is the memory service. The zero value is not usable; call New.
// Its methods are safe for concurrent use.
type Service struct {
	// door holds the checks every request passes (gate, check, deny,
	// fail) and what they need: the vault, the logger, the write policy
	// and the agent registry (door.go).
	door
	now func() time.Time

	// reg adds, authenticates and pairs agents (registrar.go).
	reg *registrar

	// idx is the recall index (recall is off when its engine is nil);
	// access, damaged and scrub keep the vault's other background
	// bookkeeping (package upkeep).
	idx     *upkeep.Index
	access  *upkeep.Access
	damaged *upkeep.Damaged
	scrub   *upkeep.Scrubber

	// life sweeps, forgets, confirms and questions memories (lifecycle.go);
	// w writes them through the admission (writer.go).
	life *lifecycle
	w    *writer
	// rv answers the user's review of the quarantine (reviewer.go).
	rv *reviewer
	// rd answers reads: recall, briefings, listings, history, the audit
	// log (reading.go).
	rd *reading
}

// Options configure a Service. The zero value is usable.
type Options struct {
	Log *slog.Logger
	// Guard is the write guard's policy (PII encrypt or redact, fail on secret).
	Guard guard.Policy
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Recall is the recall index; nil turns recall off. New builds it from
	// the vault, and every write through the service keeps it current.
	Recall *recall.Engine
	// RecallStatus is what the caller knows of Recall's embedder: where
	// its model came from, whether it was verified, or why there is none
	// (KeywordOnly). The service reports it (Service.RecallStatus) and
	// puts KeywordOnly in every recall that could not use meaning.
	RecallStatus RecallStatus
	// IndexInBackground makes New return at once and build the recall
	// index later, in a goroutine started by BuildIndex or the first
	// recall (the desktop app first fills its window, then builds it);
	// recalls wait for it. Close ends it. Either way, memories without a
	// vector for the embedder (a new model, an import) are then embedded
	// in the background (EmbedProgress); without IndexInBackground, New
	// also waits for that.
	IndexInBackground bool
	// Conflicts is how a write that contradicts an earlier memory is
	// resolved; empty means ResolveTrust.
	Conflicts ConflictStrategy
	// IdleEmbedding embeds newly written memories on a thread the kernel
	// runs only when a core is otherwise idle (embed.Idle), so that agents'
	// requests do not wait behind it; their vectors may then wait while
	// the machine is busy (recall finds them by keyword meanwhile). Such a
	// thread still holds one of the Go scheduler's Ps while the kernel
	// holds it back: a process that sets it should call SpareProc.
	IdleEmbedding bool
	// SensitiveAuditRetention is how long audit entries about the
	// sensitive partition are kept at least; default
	// DefaultSensitiveAuditRetention (a year).
	SensitiveAuditRetention time.Duration
	// Lifecycle is the user's lifecycle policy, which a write's expiry is
	// held to: an agent may set an expiry only before the one it gives.
	// (Sweep takes the policy it applies with each call; the callers pass
	// the same settings.) The zero value is decay.DefaultPolicy.
	Lifecycle decay.Policy
}

// New returns a service over an open vault. It fails for an invalid guard
// policy, or when the recall index cannot be built from the vault.
func New(v *vault.Vault, o Options) (*Service, error) {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	pol, err := policy.New(o.Guard)
	if err != nil {
		return nil, err
	}
	switch o.Conflicts {
	case "":
		o.Conflicts = ResolveTrust
	case ResolveTrust, ResolveRecency, ResolveConfidence, ResolveAsk:
	default:
		return nil, fmt.Errorf("conflict strategy %q: want trust, recency, confidence or ask", o.Conflicts)
	}
	if o.SensitiveAuditRetention <= 0 {
		o.SensitiveAuditRetention = DefaultSensitiveAuditRetention
	}
	s := &Service{door: door{v: v, log: o.Log, pol: pol, agents: agents.NewRegistry(v)}, now: o.Now}
	s.damaged = upkeep.NewDamaged(o.Log)
	refusals := &agents.Refusals{Window: RefusalWindow}
	s.reg = &registrar{door: &s.door, now: o.Now, refusals: refusals, authFails: agents.NewAuthFailures(v.Audit, o.Now, o.Log)}
	// Built in the foreground, the index is complete when New returns,
	// the memories without a vector embedded (a failed embedder leaves
	// them to keyword recall, logged).
	s.idx, err = upkeep.NewIndex(v, o.Recall, upkeep.IndexOptions{Log: o.Log, Doc: docOf, Damaged: s.damaged, Background: o.IndexInBackground, IdleEmbedding: o.IdleEmbedding})
	if err != nil {
		return nil, fmt.Errorf("build the recall index: %w", err)
	}
	s.access = upkeep.NewAccess(v, o.Log)
	s.scrub = upkeep.StartScrubber(v, o.Log)
	s.life = &lifecycle{door: &s.door, idx: s.idx, damaged: s.damaged, scrub: s.scrub,
		sensitiveRetention: o.SensitiveAuditRetention, recall: s.Recall}
	s.w = &writer{door: &s.door, guard: pol.Guard(), now: o.Now, refusals: refusals, idx: s.idx, damaged: s.damaged,
		conflicts: o.Conflicts, lifecycle: o.Lifecycle, life: s.life, reg: s.reg}
	s.rv = &reviewer{door: &s.door, guard: s.w.guard, now: o.Now, idx: s.idx, damaged: s.damaged, w: s.w, life: s.life}
	s.rd = &reading{door: &s.door, now: o.Now, idx: s.idx, access: s.access, damaged: s.damaged, recallStatus: o.RecallStatus, working: s.w.recallWorking}
	// Drop the pairing requests that expired while Engram was not running.
	if !s.v.ReadOnly() {
		if _, err := s.reg.livePairings(); err != nil {
			s.log.Error("dropping expired pairing requests", "err", err)
		}
	}
	return s, nil
}

// BuildIndex starts building the recall index in the background, once,
// for a service made with IndexInBackground; otherwise it does nothing.
func (s *Service) BuildIndex() {
	if s.idx != nil {
		s.idx.Build()
	}
}

// WaitIndexed waits until the first recall index build is done and
// returns its error.
func (s *Service) WaitIndexed(ctx context.Context) error {
	if s.idx == nil {
		return nil
	}
	return s.idx.WaitBuilt(ctx)
}

// Close stops a background index build and background embedding and
// waits for them, and writes the pending recall access times and the
// summary of failed authentications. The vault stays open (its owner
// closes it).
func (s *Service) Close() {
	s.idx.Close()
	s.access.Close()
	s.scrub.Close()
	s.reg.authFails.Close()
}

// StoreInput is a new memory as a caller describes it.
//
// The jsonschema tags are the descriptions the MCP tool store_memory gives
// models (the HTTP API and the CLI do not read them); the fields are in
// the order the tool lists them. Partition and Pinned are the user's: the
// tool does not offer them (see package mcpserver).
type StoreInput struct {
	Content string   `json:"content" jsonschema:"the memory: one fact, preference, convention or decision, stated so that it makes sense on its own in a later session (name the project or tool it concerns). No secrets, passwords, tokens, keys or personal data of others"`
	Field   Field    `json:"field,omitempty" jsonschema:"where it belongs: learnings, preferences, conventions, decisions (or gotchas when granted); default learnings"`
	Kind    Kind     `json:"kind,omitempty" jsonschema:"fact, preference, event, pattern or knowledge; default fact"`
	Tier    Tier     `json:"tier,omitempty" jsonschema:"episodic (what happened, expires), semantic (lasting knowledge, needs the user's confirmation) or working (a note for this session only, never stored); default episodic"`
	Tags    []string `json:"tags,omitempty" jsonschema:"short lowercase labels such as the project or topic"`
	Source  Source   `json:"source,omitempty" jsonschema:"where the content came from"`
	// Confirmed is set when the user confirmed this write: it may keep a
	// possible secret verbatim and be semantic memory from a low-trust source.
	Confirmed bool `json:"confirmed,omitempty" jsonschema:"set only when the user told you they confirm this memory. It is your report, not the user's confirmation: unless the user granted you may-confirm, the memory waits for the user in Engram's review"`
	// Supersedes names an earlier memory this one replaces; the conflict
	// strategy decides which stays in recall (the other is archived with
	// a pointer to it).
	Supersedes string `json:"supersedes,omitempty" jsonschema:"id of an earlier memory this one corrects or replaces; the older one is archived unless it is more trusted"`
	// Expires is when the memory expires (see ParseExpiry): a time, a
	// date or a duration from now. An agent may only shorten what the
	// lifecycle policy gives the memory. Empty: the policy's.
	Expires   string    `json:"expires,omitempty" jsonschema:"when it stops being true, if sooner than Engram would let it expire: an RFC 3339 time, a date (YYYY-MM-DD) or a duration such as 36h, 7d or 2w. You may only shorten what the user's policy gives your memories"`
	Partition Partition `json:"partition,omitempty"`
	Pinned    bool      `json:"pinned,omitempty"`
}

// MemoryResponse returns one memory.
type MemoryResponse struct {
	Response
	Memory *Memory `json:"memory,omitempty"`
	// QueueID names the quarantine entry of a quarantined write.
	QueueID string `json:"queue_id,omitempty"`
	// Warnings tell the caller what the guard changed (redacted secrets).
	Warnings []string `json:"warnings,omitempty"`
}

func orDefault[T ~string](v, def T) T {
	if v == "" {
		return def
	}
	return v
}

// Tag limits: tags are labels, not a second place for content.
const (
	maxTags   = 20
	maxTagLen = 64 // characters
)

// Get returns one memory.
func (s *Service) Get(ctx context.Context, req Request, id string) MemoryResponse {
	return s.get(req, id)
}

// ListInput filters List.
type ListInput struct {
	Partitions []Partition
	Field      Field
	// Masked is set by a caller that shows sensitive memories masked, as
	// the desktop's list does: their content comes back empty, so the
	// listing shows nothing of the sensitive partition, and the user's
	// own masked listing is no access to audit (opening a memory is).
	// Agents' listings are audited whatever they set.
	Masked bool `json:"-"`
	// Filters narrow the listing by the same rules as they narrow a
	// recall (recall.Filters.Match). Without Partitions, the filters'
	// partitions are listed (the archive too when they include it).
	Filters RecallFilters `json:"-"`
	// Max stops the listing after this many memories, newest first (0:
	// all).
	Max int `json:"-"`
}

// ListResponse returns memories; Hidden counts sensitive ones not shown
// because the vault is locked.
type ListResponse struct {
	Response
	Memories []Memory `json:"memories"`
	Hidden   int      `json:"hidden,omitempty"`
	// Damaged counts records left out because they are damaged: 'engram
	// doctor' names them, and a backup restores them.
	Damaged int `json:"damaged,omitempty"`
}

// UpdateInput is a change to a memory. Nil fields are left as they are.
//
// The jsonschema tags are the descriptions the MCP tool update_memory
// gives models, as for StoreInput; the tool does not offer Partition
// (RECLASSIFY) or IfVersion.
type UpdateInput struct {
	Operation vault.Operation `json:"operation,omitempty" jsonschema:"UPDATE (replace the content, default) or TAG (replace the tags)"` // UPDATE (REPLACE), TAG, RECLASSIFY; default UPDATE
	Content   *string         `json:"content,omitempty" jsonschema:"the new content, for UPDATE"`
	Tags      []string        `json:"tags,omitempty" jsonschema:"the new tags, for TAG"`
	// Confirmed is set when the user confirmed the new content, as for
	// StoreInput.
	Confirmed bool `json:"confirmed,omitempty" jsonschema:"set only when the user told you they confirm the new content; it counts only if the user granted you may-confirm"`
	// Expires sets a new expiry as StoreInput's does; ExpiryDefault
	// clears it. An update with an expiry and no content changes only
	// the expiry.
	Expires   string     `json:"expires,omitempty" jsonschema:"a new expiry, for UPDATE (alone, it changes only the expiry): an RFC 3339 time, a date or a duration such as 7d; default goes back to the policy's. You may only shorten what the policy gives"`
	Partition *Partition `json:"partition,omitempty"`
	IfVersion int        `json:"if_version,omitempty"`
}

// errMoved stops a change whose memory moved on since it was judged.
var errMoved = errors.New("the memory changed meanwhile")

var errDenied = errors.New("denied")

// HistoryResponse returns the kept versions and the current provenance.
type HistoryResponse struct {
	Response
	Memory   *Memory   `json:"memory,omitempty"`
	Versions []Version `json:"versions,omitempty"`
}

// AuditInput filters the audit log.
type AuditInput struct {
	Agent string
	Field Field
	Last  int
	Since time.Time
}

// AuditResponse returns audit entries.
type AuditResponse struct {
	Response
	Entries []AuditEntry `json:"entries"`
}

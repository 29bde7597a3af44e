package app

import (
	"context"
	"time"

	"github.com/engram-app/engram/vault"
)

// lifecycle is the part of the service that ages, questions and removes
// memories: the sweep and restore (sweep.go), forgetting and clearing
// (forget.go), confirmation, refutation and questions (confirm.go,
// question.go), and the audit retention the sweep applies (admin.go).
// Service owns one, made by New, and its exported methods delegate to it.
// It holds only what those need: the door (the vault and the checks every
// request passes), the recall index it keeps current, and its own settings;
// it reaches recall, which is the reading's, through a function.
// Its methods are safe for concurrent use.
//
// Merge and Split are the writer's: they write their memories through the
// admission and its refusal bookkeeping (admit, settle), and the writer
// already hands removals to the lifecycle, so the lifecycle holds no
// writer.
type lifecycle struct {
	*door
	// idx is the recall index: archived, purged and re-verified memories
	// leave or change in it. damaged counts the records a scan skips;
	// scrub wipes the file's free pages after a forget.
	idx     lifecycleIndex
	damaged skipCounter
	scrub   scrubber
	// sensitiveRetention is how long L3 access records are kept at least
	// (Options.SensitiveAuditRetention).
	sensitiveRetention time.Duration
	// recall is the service's recall (Service.Recall), with which
	// FindTopic finds memories about a topic by meaning.
	recall func(context.Context, Request, RecallInput) RecallResponse
}

// lifecycleIndex is what the lifecycle needs of the recall index
// (upkeep.Index): to know whether recall is on, and to keep a memory it
// archived, restored or re-verified current in it, or removed from it.
type lifecycleIndex interface {
	Enabled() bool
	Put(m *vault.Memory)
	Remove(id string)
}

// skipCounter counts the records a scan skipped as damaged
// (upkeep.Damaged).
type skipCounter interface {
	Skip(id string, err error)
}

// scrubber wipes the vault file's free pages now (upkeep.Scrubber).
type scrubber interface {
	Now(ctx context.Context) error
}

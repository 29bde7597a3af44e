package app

import (
	"time"

	"github.com/engram-app/engram/app/agents"
	"github.com/engram-app/engram/app/upkeep"
	"github.com/engram-app/engram/decay"
	"github.com/engram-app/engram/quarantine/guard"
)

// writer is the part of the service that writes memories through the
// admission: stores (write.go) with their duplicate and conflict checks
// (conflict.go), the split-order check (splitorder.go) and the session's
// working memory (working.go); changes to a stored memory (update.go,
// expires.go); merges and splits (mergesplit.go); imports (import.go);
// what a sync between devices wrote (syncindex.go); and the refusals it
// counts (refusals.go). The reviewer writes an approved item through it.
// Service owns one, made by New, and its exported methods delegate to it.
// It reaches the vault and the checks every request passes through the
// door, keeps the recall index current, and hands a removal to the
// lifecycle. Its methods are safe for concurrent use.
type writer struct {
	*door
	// guard is the write policy's guard, for the checks that are not an
	// admission (a split order's joined text, an import's batch).
	guard *guard.Guard
	now   func() time.Time

	// sessions holds each session's refusals and working memory; recent
	// each agent's last accepted writes, for the split-order check;
	// refusals each agent's refused writes over time.
	sessions sessions
	recent   recentWrites
	refusals *agents.Refusals

	// idx is the recall index every write keeps current; damaged counts
	// the records a scan skips.
	idx     *upkeep.Index
	damaged *upkeep.Damaged

	conflicts ConflictStrategy
	lifecycle decay.Policy // see Options.Lifecycle

	// life forgets and archives what a decision removes; reg pauses an
	// agent whose writes are refused too often.
	life *lifecycle
	reg  *registrar
}

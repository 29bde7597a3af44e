package app

import (
	"context"
	"time"

	"github.com/engram-app/engram/app/policy"
	"github.com/engram-app/engram/app/upkeep"
	"github.com/engram-app/engram/quarantine"
	"github.com/engram-app/engram/quarantine/guard"
)

// reviewer is the part of the service that answers the user's review:
// the quarantine's items listed, approved (written through the writer's
// admission), rejected or discarded, and the hostile copies purged
// (review.go); a source found unreliable re-evaluated, its memories held
// for review and the user's verdict on them (reevaluate.go); and a sync
// conflict's losing edit approved. Service owns one, made by New, and its
// exported methods delegate to it. It reaches the vault and the checks
// every request passes through the door, writes through the writer, and
// hands a removal to the lifecycle. Its methods are safe for concurrent
// use.
type reviewer struct {
	*door
	// guard screens a held memory again before it is released.
	guard *guard.Guard
	now   func() time.Time
	// idx is the recall index a decision keeps current; damaged counts
	// the records a scan skips.
	idx     *upkeep.Index
	damaged *upkeep.Damaged
	// w writes an approved item through the admission and keeps the
	// split-order bookkeeping; life forgets what a rejection removes.
	w    reviewWriter
	life *lifecycle
}

// reviewWriter is what the reviewer needs of the writer: an edited item
// admitted and its outcome settled as a write's, and the other half of a
// split order released or forgotten with the user's decision on this one.
type reviewWriter interface {
	admit(req Request, p policy.Proposal) admission
	settle(req Request, a admission) Response
	releasePartner(ctx context.Context, req Request, it *quarantine.Item, why string)
	forgetPartner(ctx context.Context, req Request, it *quarantine.Item) (string, error)
}

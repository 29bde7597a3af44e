package app

import (
	"time"

	"github.com/engram-app/engram/app/upkeep"
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
	w    *writer
	life *lifecycle
}

package app

import (
	"sync"
	"time"

	"github.com/engram-app/engram/app/agents"
)

// registrar is the part of the service that knows the agents: it adds
// them, changes their grants and status and rotates their tokens
// (agents.go), authenticates their requests and counts the failures
// (authfail.go), pairs a new agent with the user's approval
// (pairing.go, pairing_origin.go) and finds the process behind a
// connection (peer.go). Service owns one, made by New, and its exported
// methods delegate to it. It reaches the vault and the checks every
// request passes through the door it shares with the other parts. Its
// methods are safe for concurrent use.
type registrar struct {
	*door
	now func() time.Time
	// peers finds the process behind a connection; pairing orders
	// pairing requests; authFails counts failed authentications until
	// they are audited.
	peers     peerFinder
	pairing   pairingState
	authFails *agents.AuthFailures
	// refusals counts each agent's refused writes: resuming an agent
	// starts its count again.
	refusals *agents.Refusals
	// warmGuard builds the write guard's tables once, when an agent
	// first authenticates.
	warmGuard sync.Once
}

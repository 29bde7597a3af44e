package app

import (
	"context"

	"github.com/engram-app/engram/app/agents"
)

// AuthFailPeriod is how long failed authentications are counted in
// memory before they are written to the audit log as one summary (see
// agents.AuthFailPeriod).
const AuthFailPeriod = agents.AuthFailPeriod

// authFailed counts a failed authentication (why is one of the agents.Fail*
// reasons) and answers unauthorized. Nothing is written now: see
// AuthFailPeriod.
func (s *registrar) authFailed(ctx context.Context, why string) Response {
	label := "a process the OS did not name"
	if p, ok := s.Peer(ctx); ok {
		label = p.label()
	}
	s.authFails.Note(why, label)
	return Response{StatusUnauthorized, "missing, unknown or revoked token"}
}

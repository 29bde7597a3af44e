package server

import (
	"net/http"

	"github.com/engram-app/engram/app"
)

// adminReevaluate is the review of a source the user found unreliable
// (engram agent review, POST /v1/admin/reevaluate): with dry_run, what
// would be held and why; without, it is held in the quarantine for the
// user's review (app.Service.Reevaluate). The admin token only: agents
// never reach it.
func (s *Server) adminReevaluate(w http.ResponseWriter, r *http.Request, req app.Request) {
	var in app.ReevaluateInput
	if !decode(w, r, &in) {
		return
	}
	res := s.svc.Reevaluate(r.Context(), req, in)
	reply(w, res.Status, res)
}

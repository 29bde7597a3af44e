package server

import (
	"context"
	"net/http"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/mcpserver"
)

// callerFrom returns the caller the authentication step put in the
// request's context.
func callerFrom(r *http.Request) (app.Caller, bool) {
	c, ok := r.Context().Value(ctxKey{}).(app.Caller)
	return c, ok
}

// Handler returns the API's HTTP handler.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/health", s.health)
	mux.HandleFunc("POST /v1/memories", s.authed(s.store))
	mux.HandleFunc("GET /v1/memories/{id}", s.authed(s.get))
	mux.HandleFunc("PATCH /v1/memories/{id}", s.authed(s.update))
	mux.HandleFunc("DELETE /v1/memories/{id}", s.authed(s.remove))
	mux.HandleFunc("GET /v1/memories/{id}/history", s.authed(s.history))
	mux.HandleFunc("POST /v1/memories/{id}/confirm", s.authed(s.confirm))
	mux.HandleFunc("POST /v1/memories/{id}/refute", s.authed(s.refute))
	mux.HandleFunc("POST /v1/memories/{id}/question", s.authed(s.question))
	mux.HandleFunc("POST /v1/recall", s.authed(s.recall))
	mux.HandleFunc("POST /v1/briefing", s.authed(s.briefing))
	mux.HandleFunc("POST /v1/sessions/{id}/end", s.authed(s.endSession))
	mux.HandleFunc("POST /v1/pair", s.pair)
	mux.HandleFunc("POST /v1/pair/poll", s.pairPoll)
	mux.HandleFunc("GET /v1/admin/agents", s.operator(s.adminAgents))
	mux.HandleFunc("POST /v1/admin/agents", s.operator(s.adminAddAgent))
	mux.HandleFunc("POST /v1/admin/agents/{name}/{action}", s.operator(s.adminAgent))
	mux.HandleFunc("POST /v1/admin/lock", s.operator(s.adminLock))
	mux.HandleFunc("POST /v1/admin/reevaluate", s.operator(s.adminReevaluate))
	mux.HandleFunc("POST /v1/admin/run", s.operator(s.adminRun))
	mcpHandler := mcpserver.Handler(s.svc, callerFrom)
	mux.Handle("/mcp", s.authed(func(w http.ResponseWriter, r *http.Request, req app.Request) {
		r = r.WithContext(context.WithValue(r.Context(), ctxKey{}, req.Caller))
		if isEventStream(r) {
			stream(w, r, mcpHandler, s.timeouts.Write, s.timeouts.KeepAlive)
			return
		}
		mcpHandler.ServeHTTP(w, r)
	}))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		replyError(w, http.StatusNotFound, app.StatusNotFound, "no such endpoint: "+r.Method+" "+r.URL.Path)
	})
	return s.checkRequest(mux)
}

func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	reply(w, app.StatusOK, app.Response{Status: app.StatusOK, Message: "engram is running"})
}

// storeReply is the answer to POST /v1/memories.
type storeReply struct {
	app.Response
	ID       string      `json:"id,omitempty"`
	QueueID  string      `json:"queue_id,omitempty"`
	Warnings []string    `json:"warnings,omitempty"`
	Memory   *app.Memory `json:"memory,omitempty"`
}

func (s *Server) store(w http.ResponseWriter, r *http.Request, req app.Request) {
	var in app.StoreInput
	if !decode(w, r, &in) {
		return
	}
	res := s.svc.Store(r.Context(), req, in)
	out := storeReply{Response: res.Response, QueueID: res.QueueID, Warnings: res.Warnings, Memory: res.Memory}
	if res.Memory != nil {
		out.ID = res.Memory.ID
	}
	reply(w, res.Status, out)
}

func (s *Server) get(w http.ResponseWriter, r *http.Request, req app.Request) {
	res := s.svc.Get(r.Context(), req, r.PathValue("id"))
	reply(w, res.Status, res)
}

func (s *Server) update(w http.ResponseWriter, r *http.Request, req app.Request) {
	var in app.UpdateInput
	if !decode(w, r, &in) {
		return
	}
	res := s.svc.Update(r.Context(), req, r.PathValue("id"), in)
	reply(w, res.Status, res)
}

func (s *Server) remove(w http.ResponseWriter, r *http.Request, req app.Request) {
	res := s.svc.Delete(r.Context(), req, r.PathValue("id"))
	reply(w, res.Status, res)
}

func (s *Server) history(w http.ResponseWriter, r *http.Request, req app.Request) {
	res := s.svc.History(r.Context(), req, r.PathValue("id"))
	reply(w, res.Status, res)
}

func (s *Server) confirm(w http.ResponseWriter, r *http.Request, req app.Request) {
	var in app.ConfirmInput
	if r.ContentLength != 0 && !decode(w, r, &in) {
		return
	}
	res := s.svc.Confirm(r.Context(), req, r.PathValue("id"), in.Evidence)
	reply(w, res.Status, res)
}

// refute records that the caller found a memory wrong, with the evidence
// (see app.Service.Refute: of a memory more trusted than the caller, it
// is the caller's report).
func (s *Server) refute(w http.ResponseWriter, r *http.Request, req app.Request) {
	var in app.RefuteInput
	if !decode(w, r, &in) {
		return
	}
	res := s.svc.Refute(r.Context(), req, r.PathValue("id"), in.Evidence)
	reply(w, res.Status, res)
}

// question records that the caller doubts a memory, with the reason (see
// app.Service.Question: an agent's question is its report).
func (s *Server) question(w http.ResponseWriter, r *http.Request, req app.Request) {
	var in app.QuestionInput
	if !decode(w, r, &in) {
		return
	}
	res := s.svc.Question(r.Context(), req, r.PathValue("id"), in.Reason)
	reply(w, res.Status, res)
}

func (s *Server) recall(w http.ResponseWriter, r *http.Request, req app.Request) {
	var in app.RecallInput
	if !decode(w, r, &in) {
		return
	}
	res := s.svc.Recall(r.Context(), req, in)
	reply(w, res.Status, res)
}

// briefing answers an agent's lifecycle hook at a session's start: the
// memories it may read that matter for its project (app.Service.Briefing).
func (s *Server) briefing(w http.ResponseWriter, r *http.Request, req app.Request) {
	var in app.BriefingInput
	if !decode(w, r, &in) {
		return
	}
	res := s.svc.Briefing(r.Context(), req, in)
	reply(w, res.Status, res)
}

func (s *Server) endSession(w http.ResponseWriter, r *http.Request, req app.Request) {
	req.Caller.Session = r.PathValue("id")
	res := s.svc.EndSession(r.Context(), req)
	reply(w, res.Status, res)
}

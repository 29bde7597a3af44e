package server

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"net/http"
	"strings"

	"github.com/engram-app/engram/app"
)

// The operator's endpoints let `engram` commands act while this process
// holds the vault. They take the admin token that Serve writes to a 0600
// file in the runtime directory: readable by the user's own processes
// only, the same trust as the vault file itself.

// AdminTokenFile is the admin token's file name in the runtime directory.
const AdminTokenFile = "engram.admin"

func newAdminToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return "engram_admin_" + base64.RawURLEncoding.EncodeToString(b), nil
}

// operator wraps a handler for the local user's admin token.
func (s *Server) operator(h func(w http.ResponseWriter, r *http.Request, req app.Request)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || s.adminToken == "" || subtle.ConstantTimeCompare([]byte(token), []byte(s.adminToken)) != 1 {
			replyError(w, http.StatusUnauthorized, app.StatusUnauthorized, "the admin token is required")
			return
		}
		h(w, r, app.Request{Caller: app.Caller{Operator: true}, Authorized: true, Reason: "engram command"})
	}
}

type pairRequest struct {
	Name   string `json:"name"`
	Secret string `json:"pair_secret,omitempty"`
}

// pairInput decodes a pairing request and applies the pairing rate limit,
// shared by every local client: pairing needs no token, so it is the one
// door a flood could knock on.
func (s *Server) pairInput(w http.ResponseWriter, r *http.Request) (pairRequest, bool) {
	var in pairRequest
	if !decode(w, r, &in) {
		return in, false
	}
	if !s.allow("pairing") {
		replyError(w, http.StatusTooManyRequests, app.StatusUnavailable, "too many pairing requests")
		return in, false
	}
	return in, true
}

func (s *Server) pair(w http.ResponseWriter, r *http.Request) {
	if in, ok := s.pairInput(w, r); ok {
		res := s.svc.RequestPairing(r.Context(), in.Name)
		reply(w, res.Status, res)
	}
}

func (s *Server) pairPoll(w http.ResponseWriter, r *http.Request) {
	in, ok := s.pairInput(w, r)
	if !ok {
		return
	}
	res := s.svc.PollPairing(r.Context(), in.Name, in.Secret)
	if res.Status == app.StatusUnauthorized {
		replyError(w, http.StatusUnauthorized, res.Status, res.Message)
		return
	}
	reply(w, res.Status, res)
}

func (s *Server) adminDecide(w http.ResponseWriter, r *http.Request, req app.Request) {
	res := s.svc.DecidePairing(r.Context(), req, r.PathValue("name"), r.PathValue("decision") == "approve")
	reply(w, res.Status, res)
}

func (s *Server) adminAgents(w http.ResponseWriter, r *http.Request, req app.Request) {
	res := s.svc.Agents(r.Context(), req)
	reply(w, res.Status, res)
}

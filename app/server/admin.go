package server

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"net/http"
	"strings"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/vault"
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

// pairInput decodes a pairing request or poll and applies the rate limit
// of the asking process (see ratelimit.go): pairing needs no token, so it
// is the one door a flood could knock on.
func (s *Server) pairInput(w http.ResponseWriter, r *http.Request) (pairRequest, bool) {
	var in pairRequest
	if !decode(w, r, &in) {
		return in, false
	}
	if !s.allow(bucketKeyPairing + s.svc.ProcessKey(r.Context())) {
		w.Header().Set("Retry-After", "1")
		replyError(w, http.StatusTooManyRequests, app.StatusUnavailable, "too many pairing requests from this process")
		return in, false
	}
	return in, true
}

func (s *Server) pair(w http.ResponseWriter, r *http.Request) {
	in, ok := s.pairInput(w, r)
	if !ok {
		return
	}
	// This process's bucket first: a flood from one process is refused
	// before it takes from the ceiling all processes share.
	if !s.allowAt(bucketKeyPairAsk+s.svc.ProcessKey(r.Context()), pairRequestRate, pairRequestBurst) {
		w.Header().Set("Retry-After", "5")
		replyError(w, http.StatusTooManyRequests, app.StatusUnavailable, "too many pairing requests from this process; ask again in a minute")
		return
	}
	if !s.allowAt(bucketPairCeiling, pairCeilingRate, pairCeilingBurst) {
		w.Header().Set("Retry-After", "5")
		replyError(w, http.StatusTooManyRequests, app.StatusUnavailable, "too many pairing requests from processes on this machine; ask again in a minute")
		return
	}
	res := s.svc.RequestPairing(r.Context(), in.Name)
	reply(w, res.Status, res)
}

func (s *Server) pairPoll(w http.ResponseWriter, r *http.Request) {
	in, ok := s.pairInput(w, r)
	if !ok {
		return
	}
	res := s.svc.PollPairing(r.Context(), in.Name, in.Secret)
	if res.Status == app.StatusUnauthorized {
		s.refuseAuth(w, r, res.Message)
		return
	}
	reply(w, res.Status, res)
}

// adminAgent applies an engram agent command (approve, deny, pause,
// resume, revoke, rotate) for the user, with the same result as offline.
func (s *Server) adminAgent(w http.ResponseWriter, r *http.Request, req app.Request) {
	name := r.PathValue("name")
	var res app.AgentResponse
	switch action := r.PathValue("action"); action {
	case "approve", "deny":
		res = s.svc.DecidePairing(r.Context(), req, name, action == "approve")
	case "pause", "resume", "revoke":
		status := map[string]vault.AgentStatus{"pause": vault.AgentPaused, "resume": vault.AgentActive, "revoke": vault.AgentRevoked}[action]
		res = s.svc.SetAgentStatus(r.Context(), req, name, status)
	case "rotate":
		res = s.svc.RotateToken(r.Context(), req, name)
	default:
		replyError(w, http.StatusNotFound, app.StatusNotFound, "no such agent action")
		return
	}
	reply(w, res.Status, res)
}

func (s *Server) adminAddAgent(w http.ResponseWriter, r *http.Request, req app.Request) {
	var in app.AgentSpec
	if !decode(w, r, &in) {
		return
	}
	res := s.svc.AddAgent(r.Context(), req, in)
	reply(w, res.Status, res)
}

// adminLock locks the running Engram (engram lock): its Lock hook forgets
// the key in memory and in the OS keyring.
func (s *Server) adminLock(w http.ResponseWriter, r *http.Request, req app.Request) {
	if s.lock == nil {
		replyError(w, http.StatusNotFound, app.StatusNotFound, "this Engram cannot be locked from a command")
		return
	}
	if err := s.lock(); err != nil {
		reply(w, app.StatusUnavailable, app.Response{Status: app.StatusUnavailable, Message: "the lock failed: " + err.Error()})
		return
	}
	reply(w, app.StatusOK, app.Response{Status: app.StatusOK})
}

func (s *Server) adminAgents(w http.ResponseWriter, r *http.Request, req app.Request) {
	res := s.svc.Agents(r.Context(), req)
	reply(w, res.Status, res)
}

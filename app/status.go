package app

import (
	"context"
	"errors"
	"syscall"

	"github.com/engram-app/engram/vault"
)

// Status is the outcome of a service call.
type Status string

// Statuses. The loopback API maps them to HTTP codes in one place.
const (
	StatusOK                   Status = "ok"
	StatusUnauthorized         Status = "unauthorized"
	StatusNotFound             Status = "not_found"
	StatusInvalid              Status = "invalid"
	StatusLocked               Status = "locked"
	StatusConflict             Status = "conflict"
	StatusUnavailable          Status = "unavailable"
	StatusQuarantined          Status = "quarantined"
	StatusRejected             Status = "rejected"
	StatusConfirmationRequired Status = "confirmation_required"
	StatusPaused               Status = "paused"
	StatusDamaged              Status = "damaged"
	// StatusPending answers a pairing request that waits for the user.
	StatusPending Status = "pending"
)

// RecallStatus says how recall finds memories: by meaning, with which
// model, or by keywords alone and why. engram doctor and the desktop
// app's Settings show it; a recall that could not use meaning carries
// KeywordOnly in its response.
type RecallStatus struct {
	// Semantic is set when recall finds memories by meaning.
	Semantic bool `json:"semantic"`
	// Model is the embedder's name: use-lite-v2 for the built-in model,
	// or the model of a local OpenAI-compatible server.
	Model string `json:"model,omitempty"`
	// Location is where the model is: "embedded" (inside the binary), a
	// directory, or the server's URL.
	Location string `json:"location,omitempty"`
	// Verified is set when every file of the built-in model matched its
	// pinned SHA-256 at start.
	Verified bool `json:"verified,omitempty"`
	// KeywordOnly says why recall matches keywords alone; empty when
	// Semantic.
	KeywordOnly string `json:"keyword_only,omitempty"`
}

// Response is the part every service response shares.
type Response struct {
	Status Status `json:"status"`
	// Message is one sentence for a person or a model; never content or keys.
	Message string `json:"message,omitempty"`
}

// OK reports whether the call succeeded.
func (r Response) OK() bool { return r.Status == StatusOK }

// Answer is the shared part of a response: every response type embeds
// Response, so a transport can read any of them's status alike.
func (r Response) Answer() Response { return r }

// statusOf is the one place errors become statuses. The message names what
// went wrong without internal detail for statuses an agent may see.
func statusOf(err error) Response {
	switch {
	case err == nil:
		return Response{Status: StatusOK}
	case errors.Is(err, vault.ErrNotFound):
		return Response{StatusNotFound, "no such memory or version"}
	case errors.Is(err, vault.ErrInvalid):
		return Response{StatusInvalid, err.Error()}
	case errors.Is(err, vault.ErrLocked):
		return Response{StatusLocked, "the vault is locked; unlock it to use sensitive memories"}
	case errors.Is(err, vault.ErrConflict):
		return Response{StatusConflict, err.Error()}
	case errors.Is(err, vault.ErrWrongPassphrase):
		return Response{StatusUnauthorized, "wrong passphrase"}
	case errors.Is(err, vault.ErrAuth), errors.Is(err, vault.ErrCorrupt), errors.Is(err, vault.ErrFormat), errors.Is(err, vault.ErrBackup):
		return Response{StatusDamaged, err.Error()}
	case errors.Is(err, vault.ErrReadOnly):
		return Response{StatusUnavailable, "the vault is open read-only"}
	case errors.Is(err, syscall.ENOSPC):
		return Response{StatusUnavailable, "the disk is full: nothing was changed; free some space and try again"}
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return Response{StatusUnavailable, "the request was cancelled"}
	}
	return Response{StatusUnavailable, "the vault could not complete the request"}
}

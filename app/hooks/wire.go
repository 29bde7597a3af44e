package hooks

// The agent API's JSON, as a hook sends and reads it. These mirror the
// shapes of package app (BriefingInput, RecallInput, StoreInput and their
// responses) field for field, without linking the service: a hook is a
// process the client starts for every event, and importing app would run
// the write guard's set-up each time (see cmd/engram-hook). wire_test.go
// checks that every field here means what app's does.

// Status is a response's status ("ok", "quarantined", "rejected", ...).
type Status string

// The statuses a hook tells apart.
const (
	StatusOK                   Status = "ok"
	StatusQuarantined          Status = "quarantined"
	StatusRejected             Status = "rejected"
	StatusConfirmationRequired Status = "confirmation_required"
	StatusPaused               Status = "paused"
	StatusUnauthorized         Status = "unauthorized"
)

// Response is the status and message every answer carries.
type Response struct {
	Status  Status `json:"status"`
	Message string `json:"message,omitempty"`
}

// BriefingInput is POST /v1/briefing's body (app.BriefingInput).
type BriefingInput struct {
	Project string `json:"project,omitempty"`
	Budget  int    `json:"budget,omitempty"`
}

// BriefingResponse is its answer (app.BriefingResponse).
type BriefingResponse struct {
	Response
	Results []Result `json:"results"`
	Context string   `json:"context,omitempty"`
	LeftOut int      `json:"left_out,omitempty"`
}

// RecallInput is POST /v1/recall's body, the fields a hook sends
// (app.RecallInput).
type RecallInput struct {
	Query string `json:"query"`
	Limit int    `json:"limit,omitempty"`
}

// RecallResponse is its answer (app.RecallResponse).
type RecallResponse struct {
	Response
	Results []Result `json:"results"`
	Context string   `json:"context,omitempty"`
}

// Result is one memory of a briefing or a recall, the fields a hook reads.
type Result struct {
	ID      string `json:"id"`
	Content string `json:"content"`
}

// Source is a memory's source as a write names it (app.Source).
type Source struct {
	Type      string `json:"type"`
	SessionID string `json:"session_id,omitempty"`
	MessageID string `json:"message_id,omitempty"`
	Tool      string `json:"tool,omitempty"`
}

// StoreInput is POST /v1/memories' body, the fields a hook sends
// (app.StoreInput).
type StoreInput struct {
	Content string   `json:"content"`
	Kind    string   `json:"kind,omitempty"`
	Field   string   `json:"field,omitempty"`
	Tier    string   `json:"tier,omitempty"`
	Tags    []string `json:"tags,omitempty"`
	Source  Source   `json:"source,omitzero"`
}

// StoreResponse is its answer (the server's storeReply).
type StoreResponse struct {
	Response
	ID       string   `json:"id,omitempty"`
	QueueID  string   `json:"queue_id,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
}

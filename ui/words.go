package ui

import (
	"regexp"
	"strings"

	"fyne.io/fyne/v2/widget"

	"github.com/engram-app/engram/app"
)

// The app says what happened in words: "you" for the user, "inferred
// by the agent" for ai_inference, "edited" for UPDATE; never a session
// UUID or a state hash.

// who names an agent for the user: the user is "you".
func who(agent string) string {
	switch agent {
	case "", "operator":
		return "you"
	}
	return agent
}

// trustText is a trust level in words: the user's own is "yours".
func trustText(t app.Trust) string {
	if t == "operator" {
		return "yours"
	}
	return string(t)
}

// sourceWords say how a memory came to be, by source type.
var sourceWords = map[app.SourceType]string{
	"user_message":  "said by the user in a chat",
	"tool_output":   "read from a tool's output",
	"web_fetch":     "fetched from the web",
	"ai_inference":  "inferred by the agent",
	"explicit_save": "saved on purpose",
	"system":        "written by Engram",
}

// operationWords say what a change did, by operation.
var operationWords = map[app.Operation]string{
	"UPDATE":     "edited",
	"MERGE":      "merged",
	"SPLIT":      "split",
	"TAG":        "tagged",
	"RECLASSIFY": "moved to another partition",
	"ROLLBACK":   "rolled back",
	"PIN":        "pinned or unpinned",
	"ARCHIVE":    "archived",
	"RESTORE":    "restored",
	"VERIFY":     "verified",
}

// operationText is op in words (its name when it has none).
func operationText(op app.Operation) string {
	if w, ok := operationWords[op]; ok {
		return w
	}
	return strings.ToLower(string(op))
}

// actionWords say what an audit entry records, by action.
var actionWords = map[string]string{
	"vault:create":            "vault created",
	"vault:passphrase_change": "passphrase changed",
	"memory:write":            "memory written",
	"memory:read":             "memory read",
	"memory:list":             "memories listed",
	"memory:update":           "memory changed",
	"memory:delete":           "memory forgotten",
	"memory:rollback":         "memory rolled back",
	"memory:reject":           "write refused",
	"memory:purged":           "memory purged",
	"version:compact":         "old versions dropped",
	"vault:export":            "backup exported",
	"vault:import":            "memories imported",
	"vault:compact":           "vault compacted",
	"vault:settings":          "settings changed",
	"l3:access":               "sensitive memory access",
	"audit:prune":             "old audit entries pruned",
	"secret_redacted":         "secret redacted",
	"quarantine:add":          "held for review",
	"quarantine:approve":      "approved from review",
	"quarantine:reject":       "rejected in review",
	"quarantine:discard":      "discarded from review",
	"agent:change":            "agent changed",
	"agent:auth_failed":       "agent sign-in failed",
}

// actionText is an audit action in words (the action when it has none).
func actionText(action string) string {
	if w, ok := actionWords[action]; ok {
		return w
	}
	return action
}

// uuidRe finds memory ids in text.
var uuidRe = regexp.MustCompile(`\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`)

// linked is text as rich-text segments in which each memory id is a
// link that runs open with the id; the link shows the id's first eight
// characters.
func linked(text string, open func(id string)) []widget.RichTextSegment {
	var segs []widget.RichTextSegment
	plain := func(s string) {
		if s != "" {
			segs = append(segs, &widget.TextSegment{Text: s, Style: widget.RichTextStyleInline})
		}
	}
	at := 0
	for _, m := range uuidRe.FindAllStringIndex(text, -1) {
		plain(text[at:m[0]])
		id := text[m[0]:m[1]]
		segs = append(segs, &widget.HyperlinkSegment{Text: short8(id), OnTapped: func() { open(id) }})
		at = m[1]
	}
	plain(text[at:])
	return segs
}

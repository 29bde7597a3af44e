package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Format is a client's hook protocol: how it names its events, what it
// sends on standard input and what it reads from standard output.
//
// What each client's documented events allow (Event: the client's name):
//
//	             briefing        recall per prompt   capture                         ask once to store
//	claude       SessionStart    UserPromptSubmit    PreCompact, Stop, SessionEnd    Stop (block)
//	gemini       SessionStart    BeforeAgent         PreCompress, AfterAgent,        AfterAgent (deny)
//	                                                 SessionEnd
//	cursor       sessionStart    no (*)              beforeSubmitPrompt (the prompt) stop (followup_message)
//	windsurf     no (**)         no (**)             pre_user_prompt (the prompt)    no (**)
//	vscode       SessionStart    no (***)            UserPromptSubmit (the prompt)   Stop (block)
//
// (*) Cursor's beforeSubmitPrompt can only let a prompt through or stop
// it; it cannot add context. (***) VS Code's UserPromptSubmit has the
// common output only (continue, stopReason, systemMessage). (**) Windsurf shows a hook's output to the
// user at most and never gives it to the model. Where a client's prompt
// hook cannot recall, it captures the user's lasting statements from the
// prompt itself (the documented prompt field), as they are sent: those
// clients do not document their transcripts' format.
type Format string

// The formats Run speaks.
const (
	// Claude is Claude Code's (https://code.claude.com/docs/en/hooks), which
	// Codex CLI reads too (https://developers.openai.com/codex/hooks).
	Claude Format = "claude"
	// Gemini is Gemini CLI's (https://geminicli.com/docs/hooks/reference,
	// docs/hooks/reference.md in google-gemini/gemini-cli): Claude's input
	// field names and output fields, its own event names, "deny" for a
	// decision, a JSONL transcript of message records.
	Gemini Format = "gemini"
	// Cursor is Cursor's (https://cursor.com/docs/agent/hooks): camelCase
	// events, conversation_id and workspace_roots in every input,
	// additional_context at sessionStart, followup_message at stop.
	Cursor Format = "cursor"
	// Windsurf is Windsurf's Cascade hooks
	// (https://docs.windsurf.com/windsurf/cascade/hooks): snake_case events,
	// trajectory_id and tool_info in every input, no output the model reads.
	Windsurf Format = "windsurf"
	// VSCode is VS Code's agent hooks
	// (https://code.visualstudio.com/docs/agents/reference/hooks-reference,
	// https://code.visualstudio.com/docs/agent-customization/hooks):
	// Claude's event names, sessionId and hookEventName in camelCase beside
	// transcript_path, additionalContext at SessionStart, the common output
	// only at UserPromptSubmit and PreCompact, a Stop decision inside
	// hookSpecificOutput. Its transcript's format is not documented.
	VSCode Format = "vscode"
)

// ParseFormat reads a client's name (its engram connect ID or a format).
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "claude", "claude-code", "codex", "codex-cli":
		return Claude, nil
	case "gemini", "gemini-cli":
		return Gemini, nil
	case "cursor":
		return Cursor, nil
	case "windsurf":
		return Windsurf, nil
	case "vscode", "vs-code", "code":
		return VSCode, nil
	}
	return "", fmt.Errorf("%w %q: use claude-code, codex, gemini, cursor, vscode or windsurf", ErrUnknownClient, s)
}

// eventNames are the clients' own names of the events Run answers, by
// format (Claude's are the Event values themselves).
var eventNames = map[Format]map[Event]string{
	Gemini:   {SessionStart: "SessionStart", UserPromptSubmit: "BeforeAgent", PreCompact: "PreCompress", Stop: "AfterAgent", SessionEnd: "SessionEnd"},
	Cursor:   {SessionStart: "sessionStart", UserPromptSubmit: "beforeSubmitPrompt", PreCompact: "preCompact", Stop: "stop", SessionEnd: "sessionEnd"},
	Windsurf: {UserPromptSubmit: "pre_user_prompt"},
	VSCode:   {SessionStart: "SessionStart", UserPromptSubmit: "UserPromptSubmit", PreCompact: "PreCompact", Stop: "Stop"},
}

// EventName is the client's name for ev in format f.
func (f Format) EventName(ev Event) string {
	if n, ok := eventNames[f][ev]; ok {
		return n
	}
	return string(ev)
}

// promptCaptures reports whether the client's prompt hook captures (it
// cannot recall), and its other events read no transcript.
func (f Format) promptCaptures() bool { return f == Cursor || f == Windsurf || f == VSCode }

// answer is what Run tells the client, before it is put in the client's
// format.
type answer struct {
	// context is text for the model (a briefing, recalled memories).
	context string
	// notice is one line for the user.
	notice string
	// ask is the reason Stop gives the agent to go on once and store what
	// it learned.
	ask string
}

// claudeOutput is the JSON Claude Code, Codex and Gemini CLI read from a
// hook's standard output.
type claudeOutput struct {
	Decision      string          `json:"decision,omitempty"`
	Reason        string          `json:"reason,omitempty"`
	SystemMessage string          `json:"systemMessage,omitempty"`
	Specific      *specificOutput `json:"hookSpecificOutput,omitempty"`
}

type specificOutput struct {
	HookEventName     string `json:"hookEventName"`
	AdditionalContext string `json:"additionalContext,omitempty"`
}

// cursorOutput is the JSON Cursor reads: additional_context (sessionStart),
// continue (beforeSubmitPrompt), followup_message (stop), user_message
// (preCompact).
type cursorOutput struct {
	AdditionalContext string `json:"additional_context,omitempty"`
	Continue          *bool  `json:"continue,omitempty"`
	FollowupMessage   string `json:"followup_message,omitempty"`
	UserMessage       string `json:"user_message,omitempty"`
}

// vscodeOutput is the JSON VS Code reads: the common systemMessage, and
// hookSpecificOutput with additionalContext (SessionStart) or a decision
// and its reason (Stop).
type vscodeOutput struct {
	SystemMessage string          `json:"systemMessage,omitempty"`
	Specific      *vscodeSpecific `json:"hookSpecificOutput,omitempty"`
}

type vscodeSpecific struct {
	HookEventName     string `json:"hookEventName"`
	AdditionalContext string `json:"additionalContext,omitempty"`
	Decision          string `json:"decision,omitempty"`
	Reason            string `json:"reason,omitempty"`
}

func encode(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(v) // strings and booleans only: cannot fail
	return b.Bytes()
}

// render puts a in the client's format for ev; nil means print nothing.
func (f Format) render(ev Event, a answer) []byte {
	switch f {
	case Windsurf:
		// Windsurf shows standard output to the user at most (show_output),
		// never to the model: Engram's hooks print nothing.
		return nil
	case Cursor:
		var o cursorOutput
		switch ev {
		case SessionStart:
			// sessionStart has no message for the user: a notice goes to the
			// agent, which can pass it on.
			o.AdditionalContext = a.context
			if o.AdditionalContext == "" {
				o.AdditionalContext = a.notice
			}
		case UserPromptSubmit:
			yes := true
			o.Continue = &yes // never stop a prompt
		case Stop:
			o.FollowupMessage = a.ask
		case PreCompact:
			o.UserMessage = a.notice
		}
		return encode(o) // Cursor reads a JSON object from every hook: {} for nothing
	case VSCode:
		o := vscodeOutput{SystemMessage: a.notice}
		switch {
		case ev == SessionStart && a.context != "":
			o.Specific = &vscodeSpecific{HookEventName: f.EventName(ev), AdditionalContext: a.context}
		case ev == Stop && a.ask != "":
			o.Specific = &vscodeSpecific{HookEventName: f.EventName(ev), Decision: "block", Reason: a.ask}
		}
		return encode(o) // VS Code parses standard output as JSON: {} for nothing
	}
	if a == (answer{}) {
		return nil
	}
	o := claudeOutput{SystemMessage: a.notice}
	if a.context != "" {
		o.Specific = &specificOutput{HookEventName: f.EventName(ev), AdditionalContext: a.context}
	}
	if a.ask != "" {
		o.Decision, o.Reason = "block", a.ask
		if f == Gemini {
			o.Decision = "deny" // Gemini's name; "block" is its alias
		}
	}
	return encode(o)
}

// wireInput is every field the clients send that Run reads, by each
// client's name for it.
type wireInput struct {
	Input
	// Cursor: the conversation (every event) and the workspace's folders.
	ConversationID string   `json:"conversation_id"`
	WorkspaceRoots []string `json:"workspace_roots"`
	LoopCount      int      `json:"loop_count"`
	// Windsurf: the conversation (every event) and the event's details.
	TrajectoryID string `json:"trajectory_id"`
	ToolInfo     struct {
		UserPrompt string `json:"user_prompt"`
	} `json:"tool_info"`
	AgentActionName string `json:"agent_action_name"`
	// VS Code: the session and the event, in camelCase.
	SessionIDCamel     string `json:"sessionId"`
	HookEventNameCamel string `json:"hookEventName"`
}

// normalize is the input as Run reads it, whichever client sent it.
func (w wireInput) normalize() Input {
	in := w.Input
	if w.ConversationID != "" {
		in.SessionID = w.ConversationID // Cursor's sessionStart also sends session_id, the same conversation
	}
	if in.SessionID == "" {
		in.SessionID = w.SessionIDCamel
	}
	if in.SessionID == "" {
		in.SessionID = w.TrajectoryID
	}
	if in.Cwd == "" && len(w.WorkspaceRoots) > 0 {
		in.Cwd = w.WorkspaceRoots[0]
	}
	if in.Prompt == "" {
		in.Prompt = w.ToolInfo.UserPrompt
	}
	if in.HookEventName == "" {
		in.HookEventName = w.HookEventNameCamel
	}
	if in.HookEventName == "" {
		in.HookEventName = w.AgentActionName
	}
	if w.LoopCount > 0 {
		in.StopHookActive = true // Cursor: this stop follows a follow-up message
	}
	return in
}

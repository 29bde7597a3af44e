// Package hooks answers an agent client's lifecycle hooks (engram hook
// EVENT) so that agents use their memory without being told: a briefing
// when a session starts or resumes after compaction, the few relevant
// memories with each prompt, and, before the context is lost (compaction,
// the end of a session), the user's lasting statements captured from the
// transcript and the agent asked once to store what it learned.
//
// Everything goes through the running Engram's agent API with the agent's
// own token (Engram): a briefing and a recall see only what that agent may
// read, and a capture is that agent's write, screened by the write guard
// like any other (never with the user's trust: a transcript is a file on
// disk that anything on the machine may have written). The package never
// blocks the agent: Run always produces an answer the client accepts, and
// when Engram cannot be reached, is locked or is starting, the answer says
// so in one line and the hook exits 0.
//
// The clients' formats (Format): Claude Code
// (https://code.claude.com/docs/en/hooks) and Codex CLI
// (https://developers.openai.com/codex/hooks), which reads the same event
// names, input fields and outputs; Gemini CLI
// (https://geminicli.com/docs/hooks/reference); Cursor
// (https://cursor.com/docs/agent/hooks); VS Code
// (https://code.visualstudio.com/docs/agents/reference/hooks-reference);
// Windsurf
// (https://docs.windsurf.com/windsurf/cascade/hooks), whose hooks can
// capture but never tell the model anything.
package hooks

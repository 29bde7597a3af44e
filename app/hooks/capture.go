package hooks

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Captured is what became of one statement a capture found.
type Captured struct {
	Statement
	// Status is Engram's answer: ok (stored, or merged into the memory it
	// repeats), quarantined (waits for the user's review), rejected,
	// confirmation_required, or another refusal.
	Status  Status
	Message string
	// ID is the memory stored or merged into; QueueID the quarantine
	// entry of a queued one.
	ID, QueueID string
	// Redacted is set when the guard replaced a secret in it; Merged when
	// Engram merged it into a memory it repeats instead of storing it.
	Redacted, Merged bool
}

// HookTool names the hooks in the source of what they capture
// (Source.Tool): the app and `engram memory history` show it.
const HookTool = "engram-hook"

// HookTag is the tag of every memory a hook captured.
const HookTag = "hook-capture"

// maxCaptures bounds what one capture stores (the rest waits for the
// session's next capture), and maxLine one transcript line read.
const (
	maxCaptures = 10
	maxLine     = 1 << 20
)

// AskReason is what Stop tells the agent, once per session, when it
// blocks its stopping.
const AskReason = "Before you stop, once this session: store in Engram what this session taught you that should last beyond it (the user's preferences and conventions, decisions taken and why, gotchas found), each as one short self-contained statement, with the engram MCP tool store_memory (field learnings, preferences, conventions or decisions). Store nothing secret, nothing already stored, and nothing at all if nothing durable came up; then finish as you were going to."

// state is what a session's captures remember between runs, in
// StateDir/DIGEST.json.
type state struct {
	// Offset is how far the transcript was read: up to the end of its
	// last complete line.
	Offset    int64     `json:"offset"`
	Prompts   int       `json:"prompts"`
	Asked     bool      `json:"asked,omitempty"`
	Compacted bool      `json:"compacted,omitempty"`
	Seen      []string  `json:"seen,omitempty"` // digests of statements handled
	Updated   time.Time `json:"updated"`
}

func digest(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// stateTTL is how long a session's state is kept after its last capture.
const stateTTL = 30 * 24 * time.Hour

// sessionState is one session's state file, held under its lock.
type sessionState struct {
	path string
	lock *os.File
	st   state
}

// openState locks and reads the state of the agent's session, waiting up
// to two seconds for another hook of the same session.
func openState(dir, agent, session string, now time.Time) (*sessionState, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	name := digest(agent + "\x00" + session)[:40]
	path := filepath.Join(dir, name+".json")
	lf, err := os.OpenFile(path+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	for deadline := now.Add(2 * time.Second); !tryLock(lf); {
		if time.Now().After(deadline) {
			lf.Close()
			return nil, errors.New("another hook of this session holds its state")
		}
		time.Sleep(20 * time.Millisecond)
	}
	s := &sessionState{path: path, lock: lf}
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		s.close()
		return nil, err
	default:
		if json.Unmarshal(b, &s.st) != nil {
			s.st = state{} // a damaged state starts again: Seen keeps nothing twice on the server's side either (duplicates merge)
		}
	}
	return s, nil
}

func (s *sessionState) save(now time.Time) error {
	s.st.Updated = now
	b, _ := json.Marshal(s.st)
	tmp := s.path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, s.path)
}

func (s *sessionState) close() { s.lock.Close() }

// sweepStates removes the state of sessions not captured for stateTTL.
func sweepStates(dir string, now time.Time) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		if fi, err := e.Info(); err == nil && now.Sub(fi.ModTime()) > stateTTL {
			p := filepath.Join(dir, e.Name())
			os.Remove(p)
			os.Remove(p + ".lock")
		}
	}
}

// capture takes the user's lasting statements (from the transcript, or
// for a client whose prompt hook captures, from the prompt at
// UserPromptSubmit and from nothing at the other events), stores them as
// the agent's writes, and at Stop asks the agent once per session.
func capture(ctx context.Context, ev Event, in Input, session string, eng Engram, opts Options) (answer, []Captured, error) {
	if opts.StateDir == "" || session == "" {
		opts.logf("%s: no session id or no state directory: nothing captured", ev)
		return answer{}, nil, nil
	}
	now := opts.Now()
	ss, err := openState(opts.StateDir, opts.Agent, session, now)
	if err != nil {
		opts.logf("%s: session state: %v; nothing captured", ev, err)
		return answer{}, nil, err
	}
	defer ss.close()
	sweepStates(opts.StateDir, now)

	var out Output
	var msgs []userMessage
	newOffset, prompts := ss.st.Offset, 0
	switch {
	case opts.Format.promptCaptures() && ev == UserPromptSubmit:
		if text := strings.TrimSpace(in.Prompt); text != "" {
			msgs, prompts = []userMessage{{text: text}}, 1
		}
	case opts.Format.promptCaptures():
		// The prompts were captured as they were sent.
	default:
		var rerr error
		msgs, newOffset, prompts, rerr = readTranscript(in.TranscriptPath, in.SessionID, ss.st.Offset, opts.MaxTranscript)
		if rerr != nil {
			opts.logf("%s: transcript %q: %v", ev, in.TranscriptPath, rerr)
		}
	}
	ss.st.Prompts += prompts
	project := ProjectFor(in.Cwd, opts.Projects)
	// reached is whether Engram took (or screened) every statement this
	// capture sent; answered whether it answered at all.
	// capped is whether statements were left for the next capture.
	reached, answered, capped := true, false, false
	for _, m := range msgs {
		for _, st := range Statements(m.text) {
			key := digest(strings.ToLower(strings.Join(strings.Fields(st.Text), " ")))
			if slices.Contains(ss.st.Seen, key) {
				continue
			}
			if len(out.Capture) == maxCaptures {
				// The transcript is read again from the same place next
				// time; what was stored is skipped as seen.
				opts.logf("%s: more than %d statements in one capture; the rest waits for the next capture", ev, maxCaptures)
				capped = true
				break
			}
			c, err := store(ctx, eng, session, m.id, project, st)
			if err != nil {
				opts.logf("%s: %v; the rest waits for the next capture", ev, err)
				reached = false
				break
			}
			answered = true
			out.Capture = append(out.Capture, c)
			ss.st.Seen = append(ss.st.Seen, key)
			if c.Status == StatusRejected || c.Status == StatusPaused || c.Status == StatusUnauthorized {
				// Refusals count against the agent: stop here.
				opts.logf("%s: Engram refused a captured statement (%s); the rest of this capture was left", ev, c.Message)
				reached = false
				break
			}
		}
		if !reached || capped {
			break
		}
	}
	if reached && !capped {
		ss.st.Offset = newOffset
	}
	// Gemini CLI sends PreCompress (trigger auto) before every turn, before
	// it decides whether to compress: only a compression the user asked
	// for (/compress, trigger manual) is known to lose the context.
	if ev == PreCompact && (opts.Format != Gemini || in.Trigger == "manual") {
		ss.st.Compacted = true
	}
	var reply answer
	if ev == Stop && opts.Format != Windsurf && !in.StopHookActive && !ss.st.Asked && (ss.st.Prompts >= opts.AskAfter || ss.st.Compacted) && canTake(ctx, eng, reached, answered, opts) {
		ss.st.Asked = true
		reply.ask = AskReason
	}
	if err := ss.save(now); err != nil {
		opts.logf("%s: save the session's state: %v", ev, err)
	}
	if ev != UserPromptSubmit {
		reply.notice = summary(out.Capture) // a prompt goes on without a word
	}
	return reply, out.Capture, nil // a transcript's problems are logged above, not the hook's failure
}

// canTake reports whether the agent may be asked to store its learnings
// now: Engram took this capture's statements (reached) and, when the
// capture asked it nothing (answered false), answers its health. Asked
// while Engram is not running, or refuses this agent's writes, the agent
// would call store_memory in vain; the ask then waits for a later stop.
func canTake(ctx context.Context, eng Engram, reached, answered bool, opts Options) bool {
	if !reached {
		return false
	}
	if answered {
		return true
	}
	if err := eng.Health(ctx); err != nil {
		opts.logf("%s: %v; the agent is not asked to store its learnings", Stop, err)
		return false
	}
	return true
}

func store(ctx context.Context, eng Engram, session, msgID, project string, st Statement) (Captured, error) {
	tags := []string{HookTag}
	if project != "" {
		tags = append(tags, "project:"+strings.ToLower(project))
	}
	src := Source{Type: "user_message", SessionID: session, Tool: HookTool}
	if validSession.MatchString(msgID) {
		src.MessageID = msgID
	}
	res, err := eng.Store(ctx, session, StoreInput{
		Content: st.Text, Field: st.Field, Kind: st.Kind, Tier: "episodic", Tags: tags, Source: src,
	})
	if err != nil {
		return Captured{}, err
	}
	c := Captured{Statement: st, Status: res.Status, Message: res.Message, ID: res.ID, QueueID: res.QueueID}
	for _, w := range res.Warnings {
		lw := strings.ToLower(w)
		c.Redacted = c.Redacted || strings.Contains(lw, "redact")
		c.Merged = c.Merged || strings.Contains(lw, "merged into")
	}
	return c, nil
}

// summary is the one line shown to the user after a capture that kept or
// queued something.
func summary(cs []Captured) string {
	kept, queued := 0, 0
	for _, c := range cs {
		switch c.Status {
		case StatusOK:
			kept++
		case StatusQuarantined, StatusConfirmationRequired:
			queued++
		}
	}
	switch {
	case kept == 0 && queued == 0:
		return ""
	case queued == 0:
		return fmt.Sprintf("Engram kept %d of your statements from this session.", kept)
	}
	return fmt.Sprintf("Engram kept %d of your statements from this session; %d wait for your review in Engram.", kept, queued)
}

// userMessage is one user message of a transcript.
type userMessage struct {
	id, text string
}

// transcriptLine is a line of a transcript: Claude Code's
// ({"type":"user","message":{"role":"user","content":…}}) or a Codex
// rollout's ({"type":"response_item","payload":{"type":"message",
// "role":"user","content":…}}).
type transcriptLine struct {
	Type             string `json:"type"`
	SessionID        string `json:"sessionId"`
	UUID             string `json:"uuid"`
	IsMeta           bool   `json:"isMeta"`
	IsCompactSummary bool   `json:"isCompactSummary"`
	Message          *struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"message"`
	Payload *struct {
		Type    string          `json:"type"`
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"payload"`
	// Gemini CLI's message records: {"id":…,"type":"user","content":…}.
	ID      string          `json:"id"`
	Content json.RawMessage `json:"content"`
}

// hookContext is how Gemini CLI wraps a hook's additional context in the
// user's turn (<hook_context>…</hook_context>): never the user's words.
var hookContext = regexp.MustCompile(`(?s)<hook_context>.*?(?:</hook_context>|$)`)

// notHooks is s without what the hooks and the client put in the user's
// turn: Gemini CLI's <hook_context> blocks; the ask to store learnings
// (AskReason), which Gemini CLI records and sends again as a user prompt;
// a text that is one tagged element of the client's, such as the file
// open in the editor and the lines selected that Claude Code's IDE
// extensions send as blocks of their own (<ide_opened_file>…
// </ide_opened_file>, <ide_selection>…</ide_selection>); and the AGENTS.md
// files Codex loads, which it records as a user message ("# AGENTS.md
// instructions for DIR", then an <INSTRUCTIONS> block).
func notHooks(s string) string {
	s = strings.TrimSpace(hookContext.ReplaceAllString(s, ""))
	if s == AskReason || taggedElement(s) || strings.HasPrefix(s, agentsFile) {
		return ""
	}
	return s
}

// agentsFile begins the user message in which Codex records an AGENTS.md.
const agentsFile = "# AGENTS.md instructions for "

// taggedElement reports whether s is one element <name>…</name>, the
// shape in which clients add their context to the user's turn.
func taggedElement(s string) bool {
	if !strings.HasPrefix(s, "<") {
		return false
	}
	end := strings.IndexByte(s, '>')
	if end < 2 {
		return false
	}
	name := s[1:end]
	if strings.ContainsAny(name, " /\"\n") {
		return false
	}
	return strings.HasSuffix(s, "</"+name+">")
}

// userText returns the user's own text in a line: text blocks of a user
// message, never tool results, images or the client's meta messages.
func (l *transcriptLine) userText() (string, bool) {
	var content json.RawMessage
	switch {
	case l.Type == "user" && l.Message != nil && l.Message.Role == "user" && !l.IsMeta && !l.IsCompactSummary:
		content = l.Message.Content
	case l.Type == "response_item" && l.Payload != nil && l.Payload.Type == "message" && l.Payload.Role == "user":
		content = l.Payload.Content
	case l.Type == "user" && l.Message == nil && len(l.Content) > 0:
		content = l.Content // Gemini CLI
	default:
		return "", false
	}
	var s string
	if json.Unmarshal(content, &s) == nil {
		s = notHooks(s)
		return s, s != ""
	}
	type block struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	var blocks []block
	if json.Unmarshal(content, &blocks) != nil {
		var one block // Gemini's content may be a single part
		if json.Unmarshal(content, &one) != nil {
			return "", false
		}
		blocks = []block{one}
	}
	var parts []string
	for _, b := range blocks {
		// Claude's text, Codex's input_text, Gemini's untyped text parts.
		if b.Type == "text" || b.Type == "input_text" || b.Type == "" && b.Text != "" {
			if t := notHooks(b.Text); t != "" {
				parts = append(parts, t)
			}
		}
	}
	if len(parts) == 0 {
		return "", false // tool results only
	}
	return strings.Join(parts, "\n"), true
}

// readTranscript reads the transcript from offset to the end of its last
// complete line and returns the user's messages in it (of session, when
// the lines name their session), the new offset and how many user prompts
// it held. A missing, unreadable or over-large transcript is an error
// (the new offset then skips what was too large); malformed lines are
// skipped and counted in the error.
func readTranscript(path, session string, offset, limit int64) ([]userMessage, int64, int, error) {
	if path == "" {
		return nil, offset, 0, errors.New("the client named no transcript")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, offset, 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, offset, 0, err
	}
	if !fi.Mode().IsRegular() {
		return nil, offset, 0, errors.New("not a regular file")
	}
	size := fi.Size()
	if size < offset {
		offset = 0 // rewritten: read again; statements already handled are not stored twice
	}
	if size-offset > limit {
		return nil, size, 0, fmt.Errorf("%d MiB new since the last capture, more than the %d MiB a capture reads", (size-offset)>>20, limit>>20)
	}
	buf := make([]byte, size-offset)
	if _, err := f.ReadAt(buf, offset); err != nil && !errors.Is(err, io.EOF) {
		return nil, offset, 0, err
	}
	end := bytes.LastIndexByte(buf, '\n') + 1 // complete lines only
	var msgs []userMessage
	prompts, bad := 0, 0
	for _, raw := range bytes.Split(buf[:end], []byte("\n")) {
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 {
			continue
		}
		if len(raw) > maxLine {
			bad++
			continue
		}
		var l transcriptLine
		if json.Unmarshal(raw, &l) != nil {
			bad++
			continue
		}
		if session != "" && l.SessionID != "" && l.SessionID != session {
			continue // another session's lines (a resumed session's history)
		}
		text, ok := l.userText()
		if !ok {
			continue
		}
		prompts++
		id := l.UUID
		if id == "" {
			id = l.ID
		}
		msgs = append(msgs, userMessage{id: id, text: text})
	}
	var rerr error
	if bad > 0 {
		rerr = fmt.Errorf("%d malformed lines skipped", bad)
	}
	return msgs, offset + int64(end), prompts, rerr
}

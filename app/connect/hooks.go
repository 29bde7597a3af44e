package connect

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Hooks is where and how a client runs lifecycle hooks: a JSON file whose
// "hooks" object maps each event to a list of groups, each group a matcher
// and its commands (Claude Code's settings.json; Codex CLI's hooks.json
// has the same shape).
type Hooks struct {
	// Doc is where the client documents its hooks.
	Doc string
	// Events are the events Engram installs, in this order.
	Events []HookEvent
	// Client is the --client the hook command is run with (hooks.Format);
	// empty for Claude Code's format, the default.
	Client string
	// Flat is set when an event's list holds commands themselves
	// ({"command": …}: Cursor, Windsurf), not groups of a matcher and
	// commands.
	Flat bool
	// Name is the name a command is shown by, where the client reads one
	// (Gemini CLI's /hooks panel).
	Name string
	// Version is the "version" a new hooks file gets, where the client
	// wants one (Cursor: 1).
	Version int
	// Typed is set when a flat list's commands carry "type": "command"
	// and their timeout (VS Code).
	Typed bool

	path func(Env) string
}

// HookEvent is one event Engram's hook answers.
type HookEvent struct {
	// Name is the client's event name ("SessionStart").
	Name string
	// Matcher filters the event, where the client reads one ("" for none).
	Matcher string
	// Timeout is the client's limit for the command, in the client's unit
	// (seconds; Gemini CLI: milliseconds); 0 for none written.
	Timeout int
}

// Path is the client's user-level file of hooks.
func (h *Hooks) Path(e Env) string { return h.path(e) }

// claudeHookEvents are the events of Claude Code's hooks Engram answers
// (https://code.claude.com/docs/en/hooks): a briefing at each start
// (new, resumed, cleared, after compaction), a recall per prompt, capture
// before compaction, at each stop and at the end.
var claudeHookEvents = []HookEvent{
	{Name: "SessionStart", Matcher: "startup|resume|clear|compact", Timeout: 10},
	{Name: "UserPromptSubmit", Timeout: 5},
	{Name: "PreCompact", Timeout: 15},
	{Name: "Stop", Timeout: 15},
	{Name: "SessionEnd", Timeout: 15},
}

// codexHookEvents are Codex CLI's (https://developers.openai.com/codex/hooks):
// the same events but SessionEnd, which Codex does not have; its
// SessionStart sources are startup, resume and clear.
var codexHookEvents = []HookEvent{
	{Name: "SessionStart", Matcher: "startup|resume|clear", Timeout: 10},
	{Name: "UserPromptSubmit", Timeout: 5},
	{Name: "PreCompact", Timeout: 15},
	{Name: "Stop", Timeout: 15},
}

// geminiHookEvents are Gemini CLI's
// (https://geminicli.com/docs/hooks/reference): a briefing at
// SessionStart (no matcher: its sources are matched as exact strings, and
// none is left out), recall at BeforeAgent, capture at PreCompress,
// AfterAgent and SessionEnd, the ask at AfterAgent. Timeouts are in
// milliseconds. Gemini has no start after a compression: the briefing is
// not given again then.
var geminiHookEvents = []HookEvent{
	{Name: "SessionStart", Timeout: 10000},
	{Name: "BeforeAgent", Timeout: 5000},
	{Name: "PreCompress", Timeout: 15000},
	{Name: "AfterAgent", Timeout: 15000},
	{Name: "SessionEnd", Timeout: 15000},
}

// cursorHookEvents are Cursor's (https://cursor.com/docs/agent/hooks):
// the briefing at sessionStart, capture of the prompt at
// beforeSubmitPrompt (which cannot add context, so no recall per prompt),
// the ask at stop (followup_message), and preCompact and sessionEnd,
// which note the compaction and end.
var cursorHookEvents = []HookEvent{
	{Name: "sessionStart"},
	{Name: "beforeSubmitPrompt"},
	{Name: "preCompact"},
	{Name: "stop"},
	{Name: "sessionEnd"},
}

// vscodeHookEvents are VS Code's agent hooks
// (https://code.visualstudio.com/docs/agents/reference/hooks-reference):
// the briefing at SessionStart (its hookSpecificOutput.additionalContext),
// capture of the prompt at UserPromptSubmit (which has the common output
// only: no recall per prompt), PreCompact, which notes the compaction, and
// the ask at Stop (hookSpecificOutput.decision "block"). Timeouts are in
// seconds. VS Code has no event at a session's end but Stop.
var vscodeHookEvents = []HookEvent{
	{Name: "SessionStart", Timeout: 10},
	{Name: "UserPromptSubmit", Timeout: 5},
	{Name: "PreCompact", Timeout: 15},
	{Name: "Stop", Timeout: 15},
}

// windsurfHookEvents are Windsurf's
// (https://docs.windsurf.com/windsurf/cascade/hooks): only capture of the
// prompt at pre_user_prompt. A Cascade hook's output never reaches the
// model, so there is no briefing, no recall and no ask.
var windsurfHookEvents = []HookEvent{
	{Name: "pre_user_prompt"},
}

// HookEntry is what Engram's hooks run: `COMMAND EVENT ARGS...` for the
// engram-hook program, `COMMAND hook EVENT ARGS...` for engram itself,
// with Env set before it (ENGRAM_HOME), never a token.
type HookEntry struct {
	Command string
	Args    []string
	Env     map[string]string
}

// hookProgram is the name of the small program that answers hooks
// (cmd/engram-hook); any other command is engram, run as `engram hook`.
const hookProgram = "engram-hook"

// HookProgram is the program the hooks of an engram at command run:
// engram-hook when it lies beside it (a client starts one for every
// prompt, and engram's own start costs more), else command itself.
func HookProgram(command string) string {
	p := filepath.Join(filepath.Dir(command), hookProgram)
	if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
		return p
	}
	return command
}

// hookGroup is one group of a hooks list as the file holds it.
type hookGroup struct {
	Matcher string        `json:"matcher,omitempty"`
	Hooks   []hookCommand `json:"hooks"`
}

type hookCommand struct {
	Name    string `json:"name,omitempty"`
	Type    string `json:"type"`
	Command string `json:"command"`
	Timeout int    `json:"timeout,omitempty"`
}

// flatCommand is a command of a flat list (Cursor, Windsurf; VS Code
// with its type and timeout).
type flatCommand struct {
	Type    string `json:"type,omitempty"`
	Command string `json:"command"`
	Timeout int    `json:"timeout,omitempty"`
}

// shellSafe are the characters a word may hold unquoted.
var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_./:=@%+,-]+$`)

// shellQuote quotes s for a POSIX shell (the clients run hook commands
// with one).
func shellQuote(s string) string {
	if s != "" && shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// commandLine is the hook's command for event ev.
func (e HookEntry) commandLine(ev string) string {
	var words []string
	for _, k := range sortedKeys(e.Env) {
		words = append(words, k+"="+shellQuote(e.Env[k]))
	}
	words = append(words, shellQuote(e.Command))
	if base := filepath.Base(e.Command); base != hookProgram && base != hookProgram+".exe" {
		words = append(words, "hook")
	}
	words = append(words, ev)
	for _, a := range e.Args {
		words = append(words, shellQuote(a))
	}
	return strings.Join(words, " ")
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}

// group is the element of event ev's list that runs e.
func (h *Hooks) group(ev HookEvent, e HookEntry) any {
	if h.Flat && h.Typed {
		return flatCommand{Type: "command", Command: e.commandLine(ev.Name), Timeout: ev.Timeout}
	}
	if h.Flat {
		return flatCommand{Command: e.commandLine(ev.Name)}
	}
	return hookGroup{Matcher: ev.Matcher, Hooks: []hookCommand{{Name: h.Name, Type: "command", Command: e.commandLine(ev.Name), Timeout: ev.Timeout}}}
}

// command is the command of raw, an element of an event's list, when it
// holds exactly one.
func (h *Hooks) command(raw []byte) (string, bool) {
	if h.Flat {
		var c flatCommand
		if json.Unmarshal(stripJSONC(raw), &c) != nil || c.Command == "" {
			return "", false
		}
		return c.Command, true
	}
	var g hookGroup
	if json.Unmarshal(stripJSONC(raw), &g) != nil || len(g.Hooks) != 1 {
		return "", false
	}
	return g.Hooks[0].Command, true
}

// engramHook matches a command Engram installed: after any VAR=value
// words, engram-hook, or an engram program run with "hook", then an event.
var engramHook = regexp.MustCompile(`^(?:[A-Za-z_][A-Za-z0-9_]*=(?:'[^']*'|\S+)\s+)*(?:'[^']*engram-hook(?:\.exe)?'|\S*engram-hook(?:\.exe)?|(?:'[^']*engram[^'/]*'|\S*engram[^\s/]*)\s+hook)\s+[A-Za-z_]+(?:\s|$)`)

// envWords are the VAR=value words before a command's program.
var envWords = regexp.MustCompile(`^(?:[A-Za-z_][A-Za-z0-9_]*=(?:'[^']*'|\S+)\s+)*`)

// isEngramGroup reports whether raw (a group of a hooks list) is one
// Engram installed: its only command is engram-hook or `engram hook`
// with an event, or runs e's program (an engram installed under another
// name).
func (h *Hooks) isEngramGroup(raw []byte, e HookEntry) bool {
	cmd, ok := h.command(raw)
	if !ok {
		return false
	}
	if engramHook.MatchString(cmd) {
		return true
	}
	return e.Command != "" && strings.HasPrefix(envWords.ReplaceAllString(cmd, ""), shellQuote(e.Command)+" ")
}

// span is an array element's bytes.
type span struct{ start, end int }

// array reads the array at p.pos ('[') and returns its brackets and its
// elements.
func (p *jsonParser) array() (open, close int, elems []span, err error) {
	open = p.pos
	p.pos++
	for {
		if err := p.space(); err != nil {
			return 0, 0, nil, err
		}
		if p.pos >= len(p.src) {
			return 0, 0, nil, p.errorf("unterminated array")
		}
		if p.src[p.pos] == ']' {
			close = p.pos
			p.pos++
			return open, close, elems, nil
		}
		s := span{start: p.pos}
		if err := p.value(); err != nil {
			return 0, 0, nil, err
		}
		s.end = p.pos
		elems = append(elems, s)
		if err := p.space(); err != nil {
			return 0, 0, nil, err
		}
		if p.pos < len(p.src) && p.src[p.pos] == ',' {
			p.pos++
		} else if p.pos >= len(p.src) || p.src[p.pos] != ']' {
			return 0, 0, nil, p.errorf("expected , or ] in an array")
		}
	}
}

// hooksDoc is a parsed hooks file: the "hooks" object, if any.
type hooksDoc struct {
	*jsonDoc
}

func parseHooks(src []byte) (hooksDoc, error) {
	d, err := parseJSONDoc(src, "hooks", "")
	return hooksDoc{d}, err
}

// eventArray returns the list of event ev in the hooks object: found is
// false when there is none; an event whose value is not a list is an error.
func (d hooksDoc) eventArray(ev string) (m member, open, close int, elems []span, found bool, err error) {
	i := d.container.find(ev)
	if i < 0 {
		return member{}, 0, 0, nil, false, nil
	}
	m = d.container.members[i]
	if d.src[m.valStart] != '[' {
		return m, 0, 0, nil, false, fmt.Errorf("%w: hooks.%s is not a list", ErrSyntax, ev)
	}
	p := &jsonParser{src: d.src, pos: m.valStart}
	open, close, elems, err = p.array()
	return m, open, close, elems, true, err
}

// Edit returns the hooks file src with Engram's group in every event's
// list set to e's command; the rest of the file is kept byte for byte,
// other groups of the same events included. It returns src itself when
// nothing changes.
func (h *Hooks) Edit(src []byte, e HookEntry) ([]byte, error) {
	lf, crlf := toLF(src)
	out := lf
	if d, err := parseHooks(out); err != nil {
		return src, err
	} else if d.empty {
		out = []byte("{}\n")
		if h.Version > 0 {
			out = []byte(fmt.Sprintf("{\n  \"version\": %d\n}\n", h.Version))
		}
	}
	for _, ev := range h.Events {
		d, err := parseHooks(out)
		if err != nil {
			return src, err
		}
		if d.container == nil {
			out = d.insertMember(d.root, "hooks", []byte("{}"), 1)
			if d, err = parseHooks(out); err != nil {
				return src, err
			}
		}
		g := h.group(ev, e)
		_, open, close, elems, found, err := d.eventArray(ev.Name)
		if err != nil {
			return src, err
		}
		if !found {
			out = d.insertMember(*d.container, ev.Name, d.render([]any{g}, 2), 2)
			continue
		}
		idx := -1
		for i, s := range elems {
			if h.isEngramGroup(out[s.start:s.end], e) {
				idx = i
				break
			}
		}
		switch {
		case idx >= 0 && sameJSON(out[elems[idx].start:elems[idx].end], g):
		case idx >= 0:
			s := elems[idx]
			out = splice(out, s.start, s.end, d.render(g, 3))
		case len(elems) == 0:
			ins := []byte("\n" + d.indent(3))
			ins = append(ins, d.render(g, 3)...)
			ins = append(ins, "\n"+d.indent(2)...)
			out = splice(out, open+1, close, ins)
		default:
			last := elems[len(elems)-1]
			ins := []byte(",\n" + d.indent(3))
			ins = append(ins, d.render(g, 3)...)
			out = splice(out, last.end, last.end, ins)
		}
	}
	if bytes.Equal(out, lf) {
		return src, nil
	}
	return fromLF(out, crlf), nil
}

// Strip returns the hooks file src without Engram's groups, and whether
// it had any. An event's list left empty goes, and so does a hooks object
// left empty, as the inverse of Edit creating them.
func (h *Hooks) Strip(src []byte) ([]byte, bool, error) { return h.strip(src, HookEntry{}) }

// strip is Strip that also knows e's program as Engram's.
func (h *Hooks) strip(src []byte, e HookEntry) ([]byte, bool, error) {
	lf, crlf := toLF(src)
	out := lf
	had := false
	for {
		d, err := parseHooks(out)
		if err != nil {
			return src, false, err
		}
		if d.empty || d.container == nil {
			break
		}
		changed := false
		for _, m := range d.container.members {
			_, _, _, elems, found, err := d.eventArray(m.key)
			if err != nil || !found {
				continue
			}
			for i, s := range elems {
				if !h.isEngramGroup(out[s.start:s.end], e) {
					continue
				}
				had, changed = true, true
				switch {
				case len(elems) == 1:
					if len(d.container.members) == 1 {
						out = d.removeMember(d.root, d.contIdx)
					} else {
						out = d.removeMember(*d.container, d.container.find(m.key))
					}
				case i > 0:
					out = splice(out, elems[i-1].end, s.end, nil)
				default:
					out = splice(out, s.start, elems[1].start, nil)
				}
				break
			}
			if changed {
				break
			}
		}
		if !changed {
			break
		}
	}
	if !had {
		return src, false, nil
	}
	return fromLF(out, crlf), true, nil
}

func splice(src []byte, from, to int, ins []byte) []byte {
	out := make([]byte, 0, len(src)-(to-from)+len(ins))
	out = append(out, src[:from]...)
	out = append(out, ins...)
	return append(out, src[to:]...)
}

// PlanInstall computes adding Engram's hooks e to the client's hooks file.
func (h *Hooks) PlanInstall(c Client, env Env, e HookEntry) (Plan, error) {
	real, src, mode, existed, err := read(h.Path(env))
	if err != nil {
		return Plan{}, err
	}
	return planWith(hookEditor{h, e}, c, real, src, existed, mode)
}

// PlanRemove computes taking Engram's hooks out of the client's hooks
// file, giving back its backup byte for byte when nothing else changed it.
func (h *Hooks) PlanRemove(c Client, env Env, e HookEntry) (Plan, error) {
	real, src, mode, existed, err := read(h.Path(env))
	if err != nil {
		return Plan{}, err
	}
	backup, _, berr := readFile(real+BackupSuffix, real+BackupSuffix, MaxFileSize)
	return planRemoveWith(hookEditor{h, e}, c, real, src, existed, mode, backup, berr == nil)
}

// hookEditor is the editor of a hooks file for one entry.
type hookEditor struct {
	h *Hooks
	e HookEntry
}

func (x hookEditor) edit(src []byte) ([]byte, error)        { return x.h.Edit(src, x.e) }
func (x hookEditor) strip(src []byte) ([]byte, bool, error) { return x.h.strip(src, x.e) }

// restores compares what is not Engram's: the hooks may have been
// installed with other arguments (--no-capture, --project) than the
// removal knows.
func (x hookEditor) restores(base, src []byte) bool {
	again, err := x.h.Edit(base, x.e)
	if err != nil {
		return false
	}
	if bytes.Equal(again, src) {
		return true
	}
	a, _, err1 := x.h.strip(src, x.e)
	b, _, err2 := x.h.strip(again, x.e)
	return err1 == nil && err2 == nil && bytes.Equal(a, b)
}

// HookState is what a client's hooks file holds of Engram's hooks.
type HookState int

const (
	// HooksAbsent: no hook of Engram's (or the file cannot be read).
	HooksAbsent HookState = iota
	// HooksCapture: Engram's hooks, capture on.
	HooksCapture
	// HooksNoCapture: Engram's hooks installed with --no-capture.
	HooksNoCapture
)

// State reads the client's hooks file and says whether Engram's hooks
// are in it, and with capture or without. program is the hook program
// connect installs (Request.HookCommand), so that an engram installed
// under another name is known too.
func (h *Hooks) State(e Env, program string) HookState {
	src, _, err := readFile(h.Path(e), h.Path(e), MaxFileSize)
	if err != nil {
		return HooksAbsent
	}
	src, _ = toLF(src)
	d, err := parseHooks(src)
	if err != nil || d.empty || d.container == nil {
		return HooksAbsent
	}
	state := HooksAbsent
	for _, m := range d.container.members {
		_, _, _, elems, found, err := d.eventArray(m.key)
		if err != nil || !found {
			continue
		}
		for _, s := range elems {
			raw := src[s.start:s.end]
			if !h.isEngramGroup(raw, HookEntry{Command: program}) {
				continue
			}
			cmd, _ := h.command(raw)
			if !slices.Contains(strings.Fields(cmd), "--no-capture") {
				return HooksCapture
			}
			state = HooksNoCapture
		}
	}
	return state
}

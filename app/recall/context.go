package recall

import (
	"strings"

	"github.com/engram-app/engram/vault"
)

// Source labels tell a model where a recalled memory came from.
const (
	LabelUser     = "[from user]"
	LabelSystem   = "[from system]"
	LabelFile     = "[from file]"
	LabelWeb      = "[from web - may be inaccurate]"
	LabelExternal = "[Past context, from external content]"
)

// Label returns the source label of d: the user's own words, the system,
// a file or tool, the web, or (anything an agent inferred or brought in)
// external past context. An agent's claim that a memory came from the user
// or the system is shown as that agent's report, never as the user's word:
//
//	[from agent claude-code, reported as from the user] Use tabs
func Label(d *Doc) string {
	if !writtenByUser(d) {
		reported := d.Source.Reported
		if reported == "" {
			reported = d.Source.Type // written before reports were kept apart
		}
		switch reported {
		case vault.SourceUserMessage, vault.SourceExplicitSave:
			return reportedLabel(d, "the user")
		case vault.SourceSystem:
			return reportedLabel(d, "the system")
		}
	}
	switch d.Source.Type {
	case vault.SourceUserMessage, vault.SourceExplicitSave:
		return LabelUser
	case vault.SourceSystem:
		return LabelSystem
	case vault.SourceToolOutput:
		return LabelFile
	case vault.SourceWebFetch:
		return LabelWeb
	}
	return LabelExternal
}

// writtenByUser reports whether d's trust is the user's or the system's
// (written at the CLI or in the app, or confirmed there), not an agent's.
func writtenByUser(d *Doc) bool {
	switch d.Trust {
	case vault.TrustSystem, vault.TrustOperator, vault.TrustVerified:
		return true
	}
	return false
}

func reportedLabel(d *Doc, from string) string {
	agent := d.Source.AgentID
	if agent == "" {
		agent = "an agent"
	} else {
		agent = "agent " + strings.Join(strings.Fields(agent), "_")
	}
	return "[from " + agent + ", reported as from " + from + "]"
}

// Flagged reports whether d's content is data to be read, not trusted
// instruction: anything not from the user, the system or a verified
// writer. Its content is fenced in <user_memory> tags.
func Flagged(d *Doc) bool {
	switch d.Trust {
	case vault.TrustSystem, vault.TrustOperator, vault.TrustVerified:
		return d.Source.Type == vault.SourceWebFetch || d.Source.Type == vault.SourceToolOutput
	}
	return true
}

// contentEscaper escapes markup so flagged content cannot close its
// <user_memory> fence or open tags of its own.
var contentEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// FormatLine renders d as one context line: its label, then its content
// on the same line (line breaks become spaces), fenced and escaped when
// flagged:
//
//	[from user] The team indents with tabs
//	[from web - may be inaccurate] <user_memory>Use &lt;b&gt; for bold</user_memory>
func FormatLine(d *Doc) string {
	content := strings.Join(strings.Fields(d.Content), " ")
	if Flagged(d) {
		content = "<user_memory>" + contentEscaper.Replace(content) + "</user_memory>"
	}
	return Label(d) + " " + content
}

// FormatContext renders hits as a context block, one memory a line.
func FormatContext(hits []Hit) string {
	lines := make([]string, len(hits))
	for i := range hits {
		lines[i] = FormatLine(&hits[i].Doc)
	}
	return joinLines(lines)
}

func joinLines(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

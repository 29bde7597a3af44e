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
	// LabelOwn marks, for the agent reading, a memory it wrote itself
	// from its own inference.
	LabelOwn = "[from you]"
)

// Label returns the source label of d for the agent reader ("" for the
// user): the user's own words, the system, a file or tool, the web, or
// the agent that wrote it: the reader itself, another agent by name, or
// (no agent recorded) external past context. An agent's claim that a
// memory came from the user or the system is shown as that agent's
// report, never as the user's word:
//
//	[from agent claude-code, reported as from the user] Use tabs
//	[from you, reported as from the user] Use tabs        (to claude-code)
//	[from agent cursor] The build needs Go 1.27
//	[from you] The build needs Go 1.27                    (to cursor)
func Label(d *Doc, reader string) string {
	if !writtenByUser(d) {
		reported := d.Source.Reported
		if reported == "" {
			reported = d.Source.Type // written before reports were kept apart
		}
		switch reported {
		case vault.SourceUserMessage, vault.SourceExplicitSave:
			return reportedLabel(d, reader, "the user")
		case vault.SourceSystem:
			return reportedLabel(d, reader, "the system")
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
	switch agent := d.Source.AgentID; {
	case agent == "":
		return LabelExternal
	case agent == reader:
		return LabelOwn
	default:
		return "[" + agentName(agent) + "]"
	}
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

func reportedLabel(d *Doc, reader, from string) string {
	who := "from an agent"
	switch agent := d.Source.AgentID; {
	case agent != "" && agent == reader:
		who = "from you"
	case agent != "":
		who = agentName(agent)
	}
	return "[" + who + ", reported as from " + from + "]"
}

// agentName is "from agent NAME", with any white space in the name
// joined by underscores so that the label stays one token.
func agentName(agent string) string {
	return "from agent " + strings.Join(strings.Fields(agent), "_")
}

// Flagged reports whether d's content is data to be read, not trusted
// instruction: anything not from the user, the system or a verified
// writer. Its content is fenced in <user_memory> tags.
func Flagged(d *Doc) bool {
	if d.Source.External {
		return true
	}
	switch d.Trust {
	case vault.TrustSystem, vault.TrustOperator, vault.TrustVerified:
		return d.Source.Type == vault.SourceWebFetch || d.Source.Type == vault.SourceToolOutput
	}
	return true
}

// contentEscaper escapes markup so flagged content cannot close its
// <user_memory> fence or open tags of its own.
var contentEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// FormatLine renders d as one context line for the agent reader ("" for
// the user): its label (Label, after LabelExternal for content from
// outside the conversation, whoever wrote it), "[questioned: REASON]" when the user
// questioned it, then its content on the same line (line breaks become
// spaces), fenced and escaped when flagged:
//
//	[from user] The team indents with tabs
//	[from web - may be inaccurate] <user_memory>Use &lt;b&gt; for bold</user_memory>
func FormatLine(d *Doc, reader string) string {
	content := strings.Join(strings.Fields(d.Content), " ")
	if Flagged(d) {
		content = "<user_memory>" + contentEscaper.Replace(content) + "</user_memory>"
	}
	label := Label(d, reader)
	if d.Source.External && label != LabelExternal {
		label = LabelExternal + " " + label // whoever wrote it
	}
	if d.Questioned != "" {
		label += " [questioned: " + strings.Join(strings.Fields(contentEscaper.Replace(d.Questioned)), " ") + "]"
	}
	return label + " " + content
}

func joinLines(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

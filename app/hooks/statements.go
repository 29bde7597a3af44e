package hooks

import (
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Statement is a sentence of the user's that is meant to last, as a
// capture stores it.
type Statement struct {
	Text string
	// Field and Kind are the memory's (vault.Field, vault.Kind).
	Field, Kind string
	// Why names the cue that marked it: remember, from-now-on, preference,
	// rule, correction.
	Why string
}

// Statement lengths, in characters: shorter ones say too little to keep,
// longer ones are not one statement.
const (
	minStatement = 12
	maxStatement = 400
)

// statementCues are the patterns Statements reads a message with. They
// are compiled at the first capture, not at start: engram-hook starts for
// every prompt and most events never capture (about 4 ms of a prompt's
// start-up on this machine).
type statementCues struct {
	rememberLead, fromNowOn, preference, question, rule, correctionLead, assertion, codeFence, sentenceEnd *regexp.Regexp
}

// An apostrophe in a cue may be typographic (’), as editors and phones
// write it.
var cues = sync.OnceValue(func() *statementCues {
	return &statementCues{
		// "remember that …", "please note: …", "keep in mind that …": the
		// lead goes, what follows is the memory. A bare "Note: …" is not
		// one: it annotates pasted documents and prompt files.
		rememberLead: regexp.MustCompile(`(?i)^(?:(?:please\s+)?(?:remember|keep in mind|don['’]?t forget|do not forget)|please\s+note)(?:\s+(?:that|this))?\s*[:,]?\s+`),
		// "from now on …", "going forward …": a standing rule, kept whole.
		fromNowOn: regexp.MustCompile(`(?i)\b(?:from now on|going forward|from here on|in (?:the )?future|next time)\b`),
		// "I prefer …", "we'd rather …", "I like to …", "I want you to always
		// …"; not "I'd like to …", "I would like to …", which ask for
		// something now.
		preference: regexp.MustCompile(`(?i)\b(?:i|we)(?:(?:['’]d| would)\s+(?:prefer|rather)|\s+(?:prefer|rather|like to|like it when|don['’]?t like|do not like|hate it when|want you to (?:always|never)))\b|\bmy preference\b|\bi(?:['’]m| am) used to\b`),
		// "can we …", "could you …", "is it …": a question typed without
		// its question mark.
		question: regexp.MustCompile(`(?i)^(?:(?:can|could|would|will|should|shall|may|might|do|does|did|is|are|am|was|were|have|has)\s+(?:we|you|i|they)|(?:is|are|was|were|does|did|has)\s+(?:it|this|that|there))\b`),
		// "always …", "never …" at the start: an order of the user's.
		rule: regexp.MustCompile(`(?i)^(?:please\s+)?(?:always|never|don['’]?t ever|do not ever)\s+\S`),
		// "no, …", "actually, …", "that's wrong: …": a correction; the lead
		// goes, what follows must read as a statement.
		correctionLead: regexp.MustCompile(`(?i)^(?:no|nope|actually|wrong|that['’]?s (?:wrong|not right|incorrect|not true)|that is (?:wrong|not right|incorrect|not true)|not quite)\s*[,:.!;—–-]+\s*`),
		assertion:      regexp.MustCompile(`(?i)\b(?:is|are|was|were|isn['’]?t|aren['’]?t|wasn['’]?t|use|uses|using|should|shouldn['’]?t|must|need|needs|has|have|does|doesn['’]?t|don['’]?t|runs?|lives?|means?|goes)\b`),
		codeFence:      regexp.MustCompile("(?s)```.*?```"),
		sentenceEnd:    regexp.MustCompile(`([.!?])\s+`),
	}
})

// Statements returns the sentences of one user message that are meant to
// last: what the user asks to remember, standing rules ("from now on",
// "always", "never"), preferences, and corrections of the agent. Code
// blocks, questions and quoted or tagged text (a message that begins with
// '<' is the client's, not the user's) are not read.
func Statements(message string) []Statement {
	message = strings.TrimSpace(message)
	if message == "" || strings.HasPrefix(message, "<") || strings.HasPrefix(message, "Caveat:") {
		return nil
	}
	message = cues().codeFence.ReplaceAllString(message, "\n")
	var out []Statement
	for _, line := range strings.Split(message, "\n") {
		line = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "-*>•0123456789.) "))
		if line == "" || strings.HasPrefix(line, "<") || strings.HasPrefix(line, "    ") {
			continue
		}
		for _, s := range sentences(line) {
			if st, ok := classify(s); ok {
				out = append(out, st)
			}
		}
	}
	return out
}

// sentences splits a line after each '.', '!' or '?' followed by space.
func sentences(line string) []string {
	var out []string
	last := 0
	for _, m := range cues().sentenceEnd.FindAllStringSubmatchIndex(line, -1) {
		out = append(out, strings.TrimSpace(line[last:m[3]]))
		last = m[1]
	}
	if rest := strings.TrimSpace(line[last:]); rest != "" {
		out = append(out, rest)
	}
	return out
}

func classify(s string) (Statement, bool) {
	c := cues()
	if strings.HasSuffix(s, "?") || c.question.MatchString(s) {
		return Statement{}, false
	}
	switch {
	case c.rememberLead.MatchString(s):
		rest := capitalise(c.rememberLead.ReplaceAllString(s, ""))
		return sized(Statement{Text: rest, Field: "learnings", Kind: "fact", Why: "remember"})
	case c.fromNowOn.MatchString(s):
		return sized(Statement{Text: s, Field: "conventions", Kind: "pattern", Why: "from-now-on"})
	case c.preference.MatchString(s):
		return sized(Statement{Text: s, Field: "preferences", Kind: "preference", Why: "preference"})
	case c.rule.MatchString(s):
		return sized(Statement{Text: s, Field: "conventions", Kind: "pattern", Why: "rule"})
	case c.correctionLead.MatchString(s):
		rest := c.correctionLead.ReplaceAllString(s, "")
		if len(strings.Fields(rest)) < 4 || !c.assertion.MatchString(rest) {
			return Statement{}, false
		}
		return sized(Statement{Text: capitalise(rest), Field: "learnings", Kind: "fact", Why: "correction"})
	}
	return Statement{}, false
}

func sized(st Statement) (Statement, bool) {
	n := utf8.RuneCountInString(st.Text)
	return st, n >= minStatement && n <= maxStatement && len(strings.Fields(st.Text)) >= 3
}

func capitalise(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

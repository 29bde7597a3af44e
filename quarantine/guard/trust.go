package guard

import (
	"regexp"
	"strings"
)

// Trust is how far the guard trusts a memory's source.
type Trust int

const (
	TrustLow Trust = iota + 1
	TrustMedium
	TrustHigh
	TrustHighest
)

func (t Trust) String() string {
	switch t {
	case TrustLow:
		return "low"
	case TrustMedium:
		return "medium"
	case TrustHigh:
		return "high"
	case TrustHighest:
		return "highest"
	}
	return "unknown"
}

// Sources Engram knows.
const (
	SourceSystem       = "system"
	SourceUserMessage  = "user_message"
	SourceExplicitSave = "explicit_save"
	SourceToolOutput   = "tool_output"
	SourceWebFetch     = "web_fetch"
	SourceAIInference  = "ai_inference"
)

// SourceTrust maps a source to its trust. Unknown sources are low: a source
// must be named to be trusted.
func SourceTrust(source string) Trust {
	switch strings.ToLower(strings.TrimSpace(source)) {
	case SourceSystem:
		return TrustHighest
	case SourceUserMessage, SourceExplicitSave:
		return TrustHigh
	case SourceToolOutput:
		return TrustMedium
	}
	return TrustLow
}

// neutraliseRe finds the markers that make text read as instructions to a
// model: chat-template tokens, role tags, "ignore previous" phrasing.
var neutraliseRe = regexp.MustCompile(`(?i)` +
	`<\|\s*(system|assistant|user|im_start|im_end|endoftext)\s*\|>` +
	`|\[/?(system|inst|instructions?|assistant|user|admin|developer|sudo|root)\]` +
	`|<</?sys>>` +
	`|</?(system|assistant|instructions?|admin|developer)[\w-]*\b[^>]{0,40}>` +
	`|\b(ignore|disregard|forget|override)\s+(all\s+|any\s+|the\s+)?(previous|prior|above|earlier)(\s+(instructions?|directives?|rules|prompts?))?` +
	`|\b(you are now|new instructions?|system prompt)\b`)

// Neutralise rewrites injection markers in low-trust content into inert
// descriptions: "[SYSTEM]" becomes "[content: system]" and "IGNORE PREVIOUS
// instructions" becomes "[content: ignore previous instructions]". The text
// stays readable, but a model reading it back no longer sees a directive.
// Content from sources of medium trust or above is returned unchanged.
func Neutralise(text string, t Trust) string {
	if t > TrustLow {
		return text
	}
	// Line by line, and only lines holding a trigger word: the markers
	// never span lines, and short inputs keep the regexp engine fast.
	var b strings.Builder
	for len(text) > 0 {
		line, rest, found := strings.Cut(text, "\n")
		if containsAny(asciiLower(line), neutraliseKeywords) {
			line = neutraliseRe.ReplaceAllStringFunc(line, func(m string) string {
				inner := strings.Trim(m, "<>[]|/ ")
				inner = strings.Join(strings.Fields(strings.ToLower(inner)), " ")
				return "[content: " + inner + "]"
			})
		}
		b.WriteString(line)
		if found {
			b.WriteByte('\n')
		}
		text = rest
	}
	return b.String()
}

var neutraliseKeywords = []string{"system", "inst", "assistant", "user", "im_", "endoftext", "sys>", "admin", "developer", "sudo", "root", "ignore", "disregard", "forget", "override", "you are now"}

// credentialRe finds statements that hand over a credential in prose or as
// a label: "the password is hunter2", "api key: abc", "my token is ...".
var credentialRe = regexp.MustCompile(`(?i)^(password|passwd|passcode|passphrase|pin code|api[ _\-]?key|access[ _\-]?key|secret[ _\-]?key|client[ _\-]?secret|private[ _\-]?key|token|credentials?)\s*(?:is|was|are|=|:)\s*\S`)

var credentialKeywords = []string{"password", "passwd", "passcode", "passphrase", "pin code", "api", "access", "secret", "client", "private", "token", "credential"}

// CredentialLike reports whether text states a credential. The caller must
// refuse such text for semantic memory even when no secret was detected (a
// short password looks like any word).
func CredentialLike(text string) bool {
	lower := asciiLower(text)
	// Try the pattern only where a keyword starts a word.
	for _, kw := range credentialKeywords {
		for i := range wordStarts(lower, kw) {
			m := credentialRe.FindStringIndex(text[i:min(len(text), i+64)])
			if m == nil {
				continue
			}
			rest := strings.TrimSpace(text[i+m[1]-1:])
			// "the token is valid", "password is required" describe a
			// property, not the credential.
			if !propertyWords[asciiLower(firstWord(rest))] {
				return true
			}
		}
	}
	return false
}

var propertyWords = map[string]bool{
	"required": true, "optional": true, "valid": true, "invalid": true, "expired": true, "missing": true,
	"wrong": true, "incorrect": true, "correct": true, "set": true, "not": true, "stored": true,
	"rotated": true, "revoked": true, "empty": true, "too": true, "a": true, "an": true, "the": true,
	"used": true, "needed": true, "sent": true, "checked": true, "hashed": true, "encrypted": true,
	"configured": true, "generated": true, "in": true, "at": true,
}

func firstWord(s string) string {
	for i, r := range s {
		if r == ' ' || r == '\n' || r == '\t' || r == ',' || r == '.' {
			return s[:i]
		}
	}
	return s
}

var (
	turnRe  = regexp.MustCompile(`(?im)^\s*(?:\[?\d{1,2}:\d{2}(?::\d{2})?\]?\s*)?(user|assistant|human|ai|system|bot|me|you|agent|claude|chatgpt|gpt-?\d?)\s*[:>]`)
	tokenRe = regexp.MustCompile(`(?i)\b(prompt_tokens|completion_tokens|total_tokens|input_tokens|output_tokens|tokens used|token count|usage)\b\s*[:=]?\s*\d+`)
	stampRe = regexp.MustCompile(`(?m)^\s*\[?\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2})?`)
)

// IsTranscript reports whether text is a raw conversation or log rather
// than a distilled memory: several speaker turns, token-usage counters, or
// many timestamped lines. The caller keeps such text episodic only.
func IsTranscript(text string) bool {
	if !strings.ContainsAny(text, ":>") {
		return false
	}
	// Two speaker turns need two lines with a colon or ">".
	turnLines := 0
	for line := range strings.Lines(text) {
		if strings.ContainsAny(line, ":>") {
			turnLines++
		}
	}
	if turnLines >= 2 && len(turnRe.FindAllStringIndex(text, 3)) >= 2 {
		return true
	}
	lower := asciiLower(text)
	if containsAny(lower, []string{"token", "usage"}) && tokenRe.MatchString(text) {
		return true
	}
	return turnLines >= 3 && len(stampRe.FindAllStringIndex(text, 4)) >= 3
}

package vault

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Partition is the bucket a memory lives in.
type Partition string

// The partitions. Public and internal are stored in plaintext inside the
// vault file; sensitive records are sealed with the data key; archived
// memories keep the sealing of the partition they came from.
const (
	Public    Partition = "public"
	Internal  Partition = "internal"
	Sensitive Partition = "sensitive"
	Archive   Partition = "archive"
)

// LivePartitions lists the partitions a memory lives in before it is
// archived, in ascending sensitivity: the ones a writer may name.
var LivePartitions = []Partition{Public, Internal, Sensitive}

// AllPartitions lists every partition, the archive last: what a listing
// of the whole vault reads.
var AllPartitions = []Partition{Public, Internal, Sensitive, Archive}

// Kind is what sort of thing a memory records.
type Kind string

// Kinds of memory.
const (
	Fact       Kind = "fact"
	Preference Kind = "preference"
	Event      Kind = "event"
	Pattern    Kind = "pattern"
	Knowledge  Kind = "knowledge"
)

// Kinds lists the kinds of memory.
var Kinds = []Kind{Fact, Preference, Event, Pattern, Knowledge}

// Field is the slot a memory is filed under. Agents may write only the
// agent fields; the reserved fields are never agent-writable.
type Field string

// Agent-writable fields.
const (
	Learnings   Field = "learnings"
	Preferences Field = "preferences"
	Gotchas     Field = "gotchas"
	Conventions Field = "conventions"
	Decisions   Field = "decisions"
)

// Reserved fields: only the local operator writes them.
const (
	Constitution Field = "constitution"
	Authority    Field = "authority"
	System       Field = "system"
	Credentials  Field = "credentials"
)

// AgentFields are the fields an agent may be granted.
var AgentFields = []Field{Learnings, Preferences, Gotchas, Conventions, Decisions}

// ReservedFields are never writable by agents.
var ReservedFields = []Field{Constitution, Authority, System, Credentials}

// Tier says whether a memory is an event in time or distilled knowledge.
// Working memory is per session and never reaches the vault.
type Tier string

// Tiers.
const (
	Episodic Tier = "episodic"
	Semantic Tier = "semantic"
)

// Tiers lists the tiers a memory is stored in.
var Tiers = []Tier{Episodic, Semantic}

// Trust is how far Engram believes a memory's writer.
type Trust string

// Trust levels, highest first.
const (
	TrustSystem    Trust = "system"
	TrustOperator  Trust = "operator"
	TrustVerified  Trust = "verified"
	TrustStandard  Trust = "standard"
	TrustUntrusted Trust = "untrusted"
	TrustHostile   Trust = "hostile"
)

// TrustLevels lists the trust levels, highest first. It is the one place
// their order is written: Rank and Above read it.
var TrustLevels = []Trust{TrustSystem, TrustOperator, TrustVerified, TrustStandard, TrustUntrusted, TrustHostile}

// Rank orders trust levels: a higher level has a higher rank; an unknown
// level ranks below every known one (-1).
func (t Trust) Rank() int {
	i := slices.Index(TrustLevels, t)
	if i < 0 {
		return -1
	}
	return len(TrustLevels) - 1 - i
}

// Above reports whether t is a higher trust level than u.
func (t Trust) Above(u Trust) bool { return t.Rank() > u.Rank() }

// SourceType says where a memory's content came from.
type SourceType string

// Source types.
const (
	SourceUserMessage  SourceType = "user_message"
	SourceToolOutput   SourceType = "tool_output"
	SourceWebFetch     SourceType = "web_fetch"
	SourceAIInference  SourceType = "ai_inference"
	SourceExplicitSave SourceType = "explicit_save"
	SourceSystem       SourceType = "system"
)

// Source records who produced a memory and in which context.
//
// The jsonschema tags are the descriptions the MCP tool store_memory gives
// models for the source they report (AgentID, SessionID and Reported are
// Engram's, and not offered).
type Source struct {
	Type      SourceType `json:"type" jsonschema:"where you got it: user_message, tool_output, web_fetch or ai_inference. Kept as your report: it never raises the memory's trust (web_fetch sends it to the user's review)"`
	AgentID   string     `json:"agent_id,omitempty"`
	SessionID string     `json:"session_id,omitempty"`
	MessageID string     `json:"message_id,omitempty" jsonschema:"the conversation message it came from"`
	Tool      string     `json:"tool,omitempty" jsonschema:"the tool whose output it came from"`
	// Reported is the source an agent named for a memory when the channel
	// it wrote through does not vouch for it (an agent saying "the user
	// said so"): kept to show as reported by that agent, never trusted.
	Reported SourceType `json:"reported,omitempty"`
	// Role is who spoke the text in the conversation (RoleUser,
	// RoleAssistant or RoleTool) as the writer reported it: kept and
	// shown as reported, never trusted.
	Role Role `json:"role,omitempty" jsonschema:"who said it in the conversation: user, assistant or tool. Kept as your report"`
	// External is set when the content came from outside the
	// conversation (a web page, a tool's output, an imported file),
	// whoever wrote it: recall labels it as external content.
	External bool `json:"from_external_content,omitempty" jsonschema:"set when the content came from outside the conversation (a web page, a file, a tool's output); web_fetch and tool_output set it"`
}

// Role is who spoke a text in a conversation, as a writer reports it.
type Role string

// Roles.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Roles are the roles a writer may report.
var Roles = []Role{RoleUser, RoleAssistant, RoleTool}

// InitialConfidence is the confidence a new memory starts with, by source:
// user input 0.95, agent inference 0.70, external content 0.85, system 1.0,
// anything else 0.50.
func InitialConfidence(t SourceType) float64 {
	switch t {
	case SourceUserMessage, SourceExplicitSave:
		return 0.95
	case SourceAIInference:
		return 0.70
	case SourceToolOutput, SourceWebFetch:
		return 0.85
	case SourceSystem:
		return 1.0
	}
	return 0.50
}

// Operation names a change in a provenance chain.
type Operation string

// Operations.
const (
	OpUpdate     Operation = "UPDATE"
	OpMerge      Operation = "MERGE"
	OpSplit      Operation = "SPLIT"
	OpTag        Operation = "TAG"
	OpReclassify Operation = "RECLASSIFY"
	OpRollback   Operation = "ROLLBACK"
	OpPin        Operation = "PIN"
)

// Verdict is the outcome of a verification.
type Verdict string

// Verification verdicts.
const (
	Confirmed  Verdict = "CONFIRMED"
	Questioned Verdict = "QUESTIONED"
	Refuted    Verdict = "REFUTED"
	// Observed is a consistent observation: the same memory was written
	// again (a duplicate merged into it).
	Observed Verdict = "OBSERVED"
)

// Genesis is the first link of a provenance chain.
type Genesis struct {
	Source  Source    `json:"source"`
	Agent   string    `json:"agent"`
	Context string    `json:"context,omitempty"`
	Time    time.Time `json:"time"`
}

// Modification is one change to a memory. PrevHash is the state hash of the
// memory before the change, so the chain can be checked against versions.
type Modification struct {
	Agent     string    `json:"agent"`
	Operation Operation `json:"operation"`
	Reason    string    `json:"reason,omitempty"`
	Time      time.Time `json:"time"`
	PrevHash  string    `json:"prev_hash"`
	Version   int       `json:"version"`
}

// Verification is an agent's or the user's judgement of a memory.
type Verification struct {
	Agent    string    `json:"agent"`
	Verdict  Verdict   `json:"verdict"`
	Evidence string    `json:"evidence,omitempty"`
	Time     time.Time `json:"time"`
}

// Provenance answers "why does Engram believe this?".
type Provenance struct {
	Genesis       Genesis        `json:"genesis"`
	Modifications []Modification `json:"modifications,omitempty"`
	Verifications []Verification `json:"verifications,omitempty"`
	// Dropped counts the oldest modifications no longer kept in the record
	// (see MaxModifications); the audit log still has every change.
	Dropped int `json:"dropped,omitempty"`
}

// MaxModifications is how many modifications a memory's provenance keeps.
// Older ones are dropped (and counted) so a record cannot grow without bound.
const MaxModifications = 100

// ArchiveInfo is set on archived memories.
type ArchiveInfo struct {
	From   Partition `json:"from"`
	Reason string    `json:"reason"`
	Time   time.Time `json:"time"`
	// Pointer names the memory that superseded this one, if any.
	Pointer string `json:"pointer,omitempty"`
}

// Memory is one stored memory.
type Memory struct {
	ID        string    `json:"id"`
	Content   string    `json:"content"`
	Kind      Kind      `json:"kind"`
	Field     Field     `json:"field"`
	Tier      Tier      `json:"tier"`
	Partition Partition `json:"partition"`
	Tags      []string  `json:"tags,omitempty"`
	Source    Source    `json:"source"`
	Owner     string    `json:"owner"`
	// Product is the product the memory is scoped to, from its writer's
	// registration; empty for none. Product scope makes a memory at
	// least L2: agents of that product read it, not the owner's group.
	Product     string       `json:"product,omitempty"`
	Trust       Trust        `json:"trust"`
	Confidence  float64      `json:"confidence"`
	Created     time.Time    `json:"created"`
	Updated     time.Time    `json:"updated"`
	Accessed    time.Time    `json:"accessed"`
	Expires     *time.Time   `json:"expires,omitempty"`
	Pinned      bool         `json:"pinned"`
	ContentHash string       `json:"content_hash"`
	Version     int          `json:"version"`
	Archive     *ArchiveInfo `json:"archive,omitempty"`
	Provenance  Provenance   `json:"provenance"`
}

// MaxContent is the most characters a memory holds; longer content is cut
// and ends with TruncatedMarker.
const (
	MaxContent      = 10000
	TruncatedMarker = "...[TRUNCATED]"
)

// Truncate cuts s to MaxContent characters (not bytes), marking the cut.
func Truncate(s string) (string, bool) {
	if utf8.RuneCountInString(s) <= MaxContent {
		return s, false
	}
	keep := MaxContent - utf8.RuneCountInString(TruncatedMarker)
	i, n := 0, 0
	for i = range s {
		if n == keep {
			break
		}
		n++
	}
	return s[:i] + TruncatedMarker, true
}

// HashContent returns the hex SHA-256 of content.
func HashContent(content string) string {
	sum := sha256.Sum256([]byte(content))
	return hex.EncodeToString(sum[:])
}

// sealed reports whether m's records are encrypted at rest.
func (m *Memory) sealed() bool {
	return m.Partition == Sensitive || (m.Partition == Archive && m.Archive != nil && m.Archive.From == Sensitive)
}

// Sensitive reports whether the memory holds sensitive content, archived or not.
func (m *Memory) Sensitive() bool { return m.sealed() }

// state is the part of a memory that versions restore and StateHash covers.
type state struct {
	Content    string     `json:"content"`
	Kind       Kind       `json:"kind"`
	Field      Field      `json:"field"`
	Tier       Tier       `json:"tier"`
	Partition  Partition  `json:"partition"`
	Tags       []string   `json:"tags"`
	Source     Source     `json:"source"`
	Trust      Trust      `json:"trust"`
	Confidence float64    `json:"confidence"`
	Expires    *time.Time `json:"expires"`
	Pinned     bool       `json:"pinned"`
}

func (m *Memory) state() state {
	tags := m.Tags
	if tags == nil {
		tags = []string{}
	}
	return state{m.Content, m.Kind, m.Field, m.Tier, m.Partition, tags, m.Source, m.Trust, m.Confidence, m.Expires, m.Pinned}
}

// StateHash is the hex SHA-256 of the memory's restorable state: content
// and attributes, not its id, times, version number or provenance.
func (m *Memory) StateHash() string {
	b, err := json.Marshal(m.state())
	if err != nil {
		panic(err) // the state holds only strings, numbers and times
	}
	sum := sha256.Sum256(append([]byte("engram/state/v1\n"), b...))
	return hex.EncodeToString(sum[:])
}

// Validate checks a memory's enumerations and sizes before it is stored.
func (m *Memory) Validate() error {
	bad := func(what string, v any) error { return fmt.Errorf("%w: %s %q", ErrInvalid, what, v) }
	if strings.TrimSpace(m.Content) == "" {
		return fmt.Errorf("%w: empty content", ErrInvalid)
	}
	if !utf8.ValidString(m.Content) {
		return fmt.Errorf("%w: content is not valid UTF-8", ErrInvalid)
	}
	if utf8.RuneCountInString(m.Content) > MaxContent {
		return fmt.Errorf("%w: content longer than %d characters", ErrInvalid, MaxContent)
	}
	if !slices.Contains(Kinds, m.Kind) {
		return bad("kind", m.Kind)
	}
	if !slices.Contains(AgentFields, m.Field) && !slices.Contains(ReservedFields, m.Field) {
		return bad("field", m.Field)
	}
	if !slices.Contains(Tiers, m.Tier) {
		return bad("tier", m.Tier)
	}
	if !slices.Contains(LivePartitions, m.Partition) && m.Partition != Archive {
		return bad("partition", m.Partition)
	}
	if m.Partition == Archive && m.Archive == nil {
		return fmt.Errorf("%w: archived memory without archive info", ErrInvalid)
	}
	if !slices.Contains(TrustLevels, m.Trust) {
		return bad("trust", m.Trust)
	}
	if !slices.Contains([]SourceType{SourceUserMessage, SourceToolOutput, SourceWebFetch, SourceAIInference, SourceExplicitSave, SourceSystem}, m.Source.Type) {
		return bad("source type", m.Source.Type)
	}
	if m.Confidence < 0 || m.Confidence > 1 || m.Confidence != m.Confidence {
		return bad("confidence", m.Confidence)
	}
	if len(m.Tags) > 32 {
		return fmt.Errorf("%w: more than 32 tags", ErrInvalid)
	}
	for _, t := range m.Tags {
		if t == "" || len(t) > 64 || !utf8.ValidString(t) {
			return bad("tag", t)
		}
	}
	return nil
}

package app

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/engram-app/engram/quarantine/guard"
	"github.com/engram-app/engram/vault"
)

// The values a write or a recall may name, besides vault.LivePartitions,
// vault.AgentFields and Kinds. The API's contracts (openapi.json and the
// MCP tool schemas) publish these lists, and tests check that they agree.
var (
	// WriteTiers are the tiers a store may name: working memory is kept
	// for the agent's session only, never in the vault.
	WriteTiers = []Tier{vault.Episodic, vault.Semantic, TierWorking}
	// SourceTypes are the kinds of source a write may report.
	SourceTypes = []vault.SourceType{vault.SourceUserMessage, vault.SourceToolOutput, vault.SourceWebFetch,
		vault.SourceAIInference, vault.SourceExplicitSave, vault.SourceSystem}
	// UpdateOperations are the operations an update may name; empty means
	// OpUpdate.
	UpdateOperations = []Operation{OpUpdate, OpTag, OpReclassify}
	// FilterFields are the fields a recall may filter on: the agent
	// fields and the reserved ones.
	FilterFields = slices.Concat(vault.AgentFields, vault.ReservedFields)
)

// FieldLimits returns the most characters an agent's memory may hold in
// each agent field: the write guard's default limits, as the API's
// contracts publish them.
func FieldLimits() map[Field]int {
	defaults := guard.DefaultFieldLimits()
	out := make(map[Field]int, len(defaults))
	for f, n := range defaults {
		out[Field(f)] = n
	}
	return out
}

// MaxFieldLimit is the largest of FieldLimits: no agent's memory holds
// more characters, whatever its field.
func MaxFieldLimit() int { return slices.Max(slices.Collect(maps.Values(FieldLimits()))) }

// ValidateStoreInput checks the values a store names before anything else
// looks at it, for every channel (HTTP, MCP, the command line, the
// desktop app): field, kind, tier, partition and source type must be ones
// Engram knows (an empty one takes its default), and the texts valid
// UTF-8 without NUL. It answers StatusInvalid naming the value and the
// allowed ones (a typo such as field "learning" is not mistaken for a
// field the agent was not granted), or StatusOK. A reserved field
// (vault.ReservedFields) is known: whether the caller may write it is
// the service's decision. Sizes are not checked here.
func ValidateStoreInput(in StoreInput) Response {
	checks := []Response{
		checkText("content", in.Content),
		ValidateField(in.Field),
		checkValue("kind", in.Kind, Kinds),
		checkValue("tier", in.Tier, WriteTiers),
		checkValue("partition", in.Partition, vault.LivePartitions),
		checkValue("source type", in.Source.Type, SourceTypes),
		checkValue("source.role", in.Source.Role, vault.Roles),
		checkText("supersedes", in.Supersedes),
		checkText("source.agent_id", in.Source.AgentID),
		checkText("source.session_id", in.Source.SessionID),
		checkText("source.message_id", in.Source.MessageID),
		checkText("source.tool", in.Source.Tool),
	}
	for i, t := range in.Tags {
		checks = append(checks, checkText(fmt.Sprintf("tags[%d]", i), t))
	}
	return first(checks)
}

// ValidateUpdateInput checks the values an update names as
// ValidateStoreInput does: the operation, the partition of a
// reclassification, and the texts.
func ValidateUpdateInput(in UpdateInput) Response {
	checks := []Response{checkValue("operation", in.Operation, UpdateOperations)}
	if in.Partition != nil {
		checks = append(checks, checkValue("partition", *in.Partition, vault.LivePartitions))
	}
	if in.Content != nil {
		checks = append(checks, checkText("content", *in.Content))
	}
	for i, t := range in.Tags {
		checks = append(checks, checkText(fmt.Sprintf("tags[%d]", i), t))
	}
	return first(checks)
}

// ValidateRecallInput checks the values a recall's filters name, so that
// a typo is answered as one instead of matching nothing.
func ValidateRecallInput(in RecallInput) Response {
	checks := []Response{checkText("query", in.Query)}
	f := in.Filters
	for _, p := range f.Partitions {
		checks = append(checks, checkValue("partition", p, Partitions))
	}
	for _, t := range f.Tiers {
		checks = append(checks, checkValue("tier", t, Tiers))
	}
	for _, k := range f.Kinds {
		checks = append(checks, checkValue("kind", k, Kinds))
	}
	for _, fl := range f.Fields {
		checks = append(checks, checkValue("field", fl, FilterFields))
	}
	for _, t := range f.Trusts {
		checks = append(checks, checkValue("trust", t, vault.TrustLevels))
	}
	for i, t := range f.Tags {
		checks = append(checks, checkText(fmt.Sprintf("filters.tags[%d]", i), t))
	}
	return first(checks)
}

// ValidateField answers StatusInvalid for a field Engram does not know,
// listing the agent fields; empty (the default field) and the reserved
// fields are known.
func ValidateField(f Field) Response {
	if slices.Contains(vault.ReservedFields, f) {
		return Response{Status: StatusOK}
	}
	return checkValue("field", f, vault.AgentFields)
}

// checkValue answers StatusInvalid when v is neither empty nor one of
// allowed.
func checkValue[T ~string](what string, v T, allowed []T) Response {
	if v == "" || slices.Contains(allowed, v) {
		return Response{Status: StatusOK}
	}
	names := make([]string, len(allowed))
	for i, a := range allowed {
		names[i] = string(a)
	}
	return Response{StatusInvalid, fmt.Sprintf("invalid: unknown %s %q; allowed: %s", what, v, strings.Join(names, ", "))}
}

// checkText answers StatusInvalid for text that is not valid UTF-8 or
// holds a NUL character, as the transports' strict decoding does.
func checkText(what, s string) Response {
	switch {
	case !utf8.ValidString(s):
		return Response{StatusInvalid, fmt.Sprintf("invalid: %q is not valid UTF-8", what)}
	case strings.IndexByte(s, 0) >= 0:
		return Response{StatusInvalid, fmt.Sprintf("invalid: NUL character in %q", what)}
	}
	return Response{Status: StatusOK}
}

// first returns the first failed check, or StatusOK.
func first(checks []Response) Response {
	for _, r := range checks {
		if !r.OK() {
			return r
		}
	}
	return Response{Status: StatusOK}
}

package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/internal/strictjson"
	"github.com/engram-app/engram/app/recall"
	"github.com/engram-app/engram/vault"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Version is the server version reported to MCP clients.
const Version = "0.1.0"

// Input types of the tools. Their field descriptions become the JSON
// schemas models read, so they are written for models.
type (
	StoreInput struct {
		Content    string      `json:"content" jsonschema:"the memory: one self-contained statement worth remembering in later sessions"`
		Field      string      `json:"field,omitempty" jsonschema:"where it belongs: learnings, preferences, conventions, decisions (or gotchas when granted); default learnings"`
		Kind       string      `json:"kind,omitempty" jsonschema:"fact, preference, event, pattern or knowledge; default fact"`
		Tier       string      `json:"tier,omitempty" jsonschema:"episodic (what happened, expires), semantic (lasting knowledge, needs the user's confirmation) or working (a note for this session only, never stored); default episodic"`
		Tags       []string    `json:"tags,omitempty" jsonschema:"short lowercase tags"`
		Source     *SourceInfo `json:"source,omitempty" jsonschema:"where the content came from"`
		Confirmed  bool        `json:"confirmed,omitempty" jsonschema:"set only when the user told you they confirm this memory. It is your report, not the user's confirmation: unless the user granted you may-confirm, the memory waits for the user in Engram's review"`
		Supersedes string      `json:"supersedes,omitempty" jsonschema:"id of an earlier memory this one corrects or replaces; the older one is archived unless it is more trusted"`
	}
	SourceInfo struct {
		Type      string `json:"type,omitempty" jsonschema:"where you got it: user_message, tool_output, web_fetch or ai_inference. Kept as your report: it never raises the memory's trust (web_fetch sends it to the user's review)"`
		MessageID string `json:"message_id,omitempty" jsonschema:"the conversation message it came from"`
		Tool      string `json:"tool,omitempty" jsonschema:"the tool whose output it came from"`
	}
	UpdateInput struct {
		ID        string   `json:"id" jsonschema:"the memory id"`
		Operation string   `json:"operation,omitempty" jsonschema:"UPDATE (replace the content, default) or TAG (replace the tags)"`
		Content   string   `json:"content,omitempty" jsonschema:"the new content, for UPDATE"`
		Tags      []string `json:"tags,omitempty" jsonschema:"the new tags, for TAG"`
		Confirmed bool     `json:"confirmed,omitempty" jsonschema:"set only when the user told you they confirm the new content; it counts only if the user granted you may-confirm"`
	}
	IDInput struct {
		ID string `json:"id" jsonschema:"the memory id"`
	}
	RecallInput struct {
		Query   string            `json:"query" jsonschema:"what you want to remember, in plain words"`
		Limit   int               `json:"limit,omitempty" jsonschema:"the most memories to return (default 10)"`
		Mode    string            `json:"mode,omitempty" jsonschema:"hybrid (default), semantic (by meaning) or exact (by keywords)"`
		Filters app.RecallFilters `json:"filters,omitzero" jsonschema:"optional filters: partitions, tiers, kinds, fields, tags, min_confidence, after, before"`
	}
	RefuteInput struct {
		ID       string `json:"id" jsonschema:"the memory id"`
		Evidence string `json:"evidence" jsonschema:"what shows the memory is wrong (kept as its archive note)"`
	}
	ConfirmInput struct {
		ID       string `json:"id" jsonschema:"the memory id"`
		Evidence string `json:"evidence,omitempty" jsonschema:"why you believe it still holds (what you checked)"`
	}
)

// backend runs a tool call.
type backend interface {
	call(ctx context.Context, c toolCall) *mcp.CallToolResult
}

// tool is one tool definition with the type of its input.
type tool struct {
	def    *mcp.Tool
	schema func() (*jsonschema.Schema, error)
}

func schemaFor[T any]() func() (*jsonschema.Schema, error) {
	return func() (*jsonschema.Schema, error) {
		s, err := jsonschema.For[T](nil)
		if err == nil {
			constrain(s, "")
		}
		return s, err
	}
}

// mcpOperations are the operations update_memory offers: it takes no
// partition, so it cannot reclassify.
var mcpOperations = []app.Operation{app.OpUpdate, app.OpTag}

// constrain publishes in a tool's input schema s, the schema of the
// property named parent, the values and sizes the service accepts
// (app.ValidateStoreInput and the field limits): Go struct tags cannot
// hold them, and taken from the code's lists they cannot drift.
func constrain(s *jsonschema.Schema, parent string) {
	for name, p := range s.Properties {
		switch {
		case name == "content":
			p.MaxLength = ptr(app.MaxFieldLimit())
			p.Description += "; " + fieldLimits()
		case name == "field":
			p.Enum = enum(vault.AgentFields)
		case name == "kind":
			p.Enum = enum(app.Kinds)
		case name == "tier":
			p.Enum = enum(app.WriteTiers)
		case name == "operation":
			p.Enum = enum(mcpOperations)
		case name == "mode":
			p.Enum = enum([]recall.Mode{recall.Hybrid, recall.Semantic, recall.Exact})
		case name == "type" && parent == "source":
			p.Enum = enum(app.SourceTypes)
		case parent == "filters" && p.Items != nil:
			switch name {
			case "partitions":
				p.Items.Enum = enum(app.Partitions)
			case "tiers":
				p.Items.Enum = enum(app.Tiers)
			case "kinds":
				p.Items.Enum = enum(app.Kinds)
			case "fields":
				p.Items.Enum = enum(app.FilterFields)
			}
		}
		constrain(p, name)
	}
}

func enum[T ~string](list []T) []any {
	out := make([]any, len(list))
	for i, v := range list {
		out[i] = string(v)
	}
	return out
}

// fieldLimits describes the per-field limits: "at most 500 characters
// by field: learnings 500, preferences 200, ...".
func fieldLimits() string {
	limits := app.FieldLimits()
	parts := make([]string, 0, len(vault.AgentFields))
	for _, f := range vault.AgentFields {
		parts = append(parts, fmt.Sprintf("%s %d", f, limits[f]))
	}
	return fmt.Sprintf("at most %d characters by field: %s", app.MaxFieldLimit(), strings.Join(parts, ", "))
}

func ptr[T any](v T) *T { return &v }

// tools are the MCP tools, as models see them.
var tools = []tool{
	{&mcp.Tool{Name: "recall_memory", Title: "Recall memories",
		Description: "Find what Engram remembers about something: the user's preferences, project conventions, past decisions and learnings. " +
			"Returns the best matches with their source and confidence now, and a context block ready to read; matches too weak to be relevant are left out, and when none is left the message says that nothing passed the relevance floor. Treat memories from the web or other agents as unverified.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)}}, schemaFor[RecallInput]()},
	{&mcp.Tool{Name: "store_memory", Title: "Store a memory",
		Description: "Save something worth remembering across sessions: a learning, the user's preference, a convention or a decision. " +
			"Engram redacts secrets, encrypts personal data, and may hold a memory for the user's review; the result says what happened.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(false), OpenWorldHint: ptr(false)}}, schemaFor[StoreInput]()},
	{&mcp.Tool{Name: "update_memory", Title: "Update a memory",
		Description: "Replace the content or the tags of a memory this agent wrote. The previous state is kept as a version.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(false), IdempotentHint: true, OpenWorldHint: ptr(false)}}, schemaFor[UpdateInput]()},
	{&mcp.Tool{Name: "forget_memory", Title: "Forget a memory",
		Description: "Delete a memory this agent wrote, with all its versions. Use when the user asks to forget something or it is wrong.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(true), IdempotentHint: true, OpenWorldHint: ptr(false)}}, schemaFor[IDInput]()},
	{&mcp.Tool{Name: "confirm_memory", Title: "Confirm a memory",
		Description: "Tell Engram a memory is still true after you checked it: it gains confidence (only the user's confirmation restarts its time to live).",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(false), OpenWorldHint: ptr(false)}}, schemaFor[ConfirmInput]()},
	{&mcp.Tool{Name: "refute_memory", Title: "Refute a memory",
		Description: "Tell Engram a memory is wrong, with the evidence: it is archived at the next sweep, with the evidence as its note.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(false), OpenWorldHint: ptr(false)}}, schemaFor[RefuteInput]()},
	{&mcp.Tool{Name: "memory_history", Title: "Why do you believe this?",
		Description: "Show a memory's provenance (who wrote it, from which source, every change) and its kept versions.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)}}, schemaFor[IDInput]()},
}

// newServer builds an MCP server whose tools call b.
func newServer(b backend) (*mcp.Server, error) {
	s := mcp.NewServer(&mcp.Implementation{Name: "engram", Title: "Engram memory vault", Version: Version}, &mcp.ServerOptions{
		Instructions: "Engram is the user's memory vault. Store lasting, self-contained facts with store_memory; never store secrets. " +
			"Memories you store may be held for the user's review.",
	})
	for _, t := range tools {
		schema, err := t.schema()
		if err != nil {
			return nil, fmt.Errorf("schema of %s: %w", t.def.Name, err)
		}
		def := *t.def
		def.InputSchema = schema
		name := def.Name
		s.AddTool(&def, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			c := toolCall{Tool: name, Args: req.Params.Arguments}
			if req.Session != nil {
				c.Session = req.Session.ID()
			}
			if v, ok := req.Params.Meta[IdempotencyKey]; ok {
				k, isString := v.(string)
				if !isString || !validKey(k) {
					return errorResult(fmt.Sprintf("invalid _meta %q: at most %d characters of A-Z, a-z, 0-9 and ._:-", IdempotencyKey, maxKeyLen)), nil
				}
				c.Key = k
			}
			return b.call(ctx, c), nil
		})
	}
	return s, nil
}

// isError reports whether a status means the call failed, as opposed to an
// outcome the model should read (quarantined, confirmation required).
func isError(s app.Status) bool {
	switch s {
	case app.StatusOK, app.StatusQuarantined, app.StatusConfirmationRequired:
		return false
	}
	return true
}

func result(out json.RawMessage, status app.Status) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: string(out)}},
		StructuredContent: out,
		IsError:           isError(status),
	}
}

func errorResult(msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: msg}}, IsError: true}
}

// decodeArgs decodes tool arguments strictly (strictjson.Decode): invalid
// UTF-8, a NUL character, a key given twice and an unknown field are
// refused with what is wrong and where.
func decodeArgs(args json.RawMessage, v any) error {
	if len(args) == 0 {
		args = []byte("{}")
	}
	err := strictjson.Decode(args, v)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, strictjson.ErrNotUTF8):
		return errors.New("invalid: the arguments are not valid UTF-8")
	case errors.Is(err, strictjson.ErrDuplicateKey):
		return fmt.Errorf("invalid: %v in the arguments", err)
	case errors.Is(err, strictjson.ErrNUL), errors.Is(err, strictjson.ErrSurrogate):
		return fmt.Errorf("invalid: %v", err)
	}
	return fmt.Errorf("invalid arguments: %v", err)
}

package app_test

import (
	"maps"
	"slices"
	"testing"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/quarantine/guard"
	"github.com/engram-app/engram/vault"
)

func TestValidateStoreInput(t *testing.T) {
	const fields = "learnings, preferences, gotchas, conventions, decisions"
	tests := []struct {
		name string
		in   app.StoreInput
		want string // the message; empty for StatusOK
	}{
		{"defaults", app.StoreInput{Content: "the build uses make"}, ""},
		{"every value named", app.StoreInput{Content: "x", Field: vault.Gotchas, Kind: vault.Pattern, Tier: app.TierWorking, Partition: vault.Sensitive,
			Source: vault.Source{Type: vault.SourceToolOutput, Tool: "make"}, Tags: []string{"build"}}, ""},
		{"reserved field is known", app.StoreInput{Content: "x", Field: vault.System}, ""},
		{"unknown field", app.StoreInput{Content: "x", Field: "learning"}, `invalid: unknown field "learning"; allowed: ` + fields},
		{"field in capitals", app.StoreInput{Content: "x", Field: "Learnings"}, `invalid: unknown field "Learnings"; allowed: ` + fields},
		{"unknown kind", app.StoreInput{Content: "x", Kind: "facts"}, `invalid: unknown kind "facts"; allowed: fact, preference, event, pattern, knowledge`},
		{"unknown tier", app.StoreInput{Content: "x", Tier: "longterm"}, `invalid: unknown tier "longterm"; allowed: episodic, semantic, working`},
		{"archive is no partition to write", app.StoreInput{Content: "x", Partition: vault.Archive}, `invalid: unknown partition "archive"; allowed: public, internal, sensitive`},
		{"unknown source type", app.StoreInput{Content: "x", Source: vault.Source{Type: "user"}}, `invalid: unknown source type "user"; allowed: user_message, tool_output, web_fetch, ai_inference, explicit_save, system`},
		{"NUL in content", app.StoreInput{Content: "a\x00b"}, `invalid: NUL character in "content"`},
		{"invalid UTF-8 in content", app.StoreInput{Content: "caf\xe9"}, `invalid: "content" is not valid UTF-8`},
		{"NUL in a tag", app.StoreInput{Content: "x", Tags: []string{"a", "\x00"}}, `invalid: NUL character in "tags[1]"`},
		{"NUL in the source", app.StoreInput{Content: "x", Source: vault.Source{MessageID: "m\x00"}}, `invalid: NUL character in "source.message_id"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := app.ValidateStoreInput(tc.in)
			want := app.Response{Status: app.StatusOK}
			if tc.want != "" {
				want = app.Response{Status: app.StatusInvalid, Message: tc.want}
			}
			if got != want {
				t.Fatalf("ValidateStoreInput(%+v) = %+v, want %+v", tc.in, got, want)
			}
		})
	}
}

func TestValidateUpdateAndRecallInput(t *testing.T) {
	ptr := func(p app.Partition) *app.Partition { return &p }
	text := "a\x00"
	tests := []struct {
		name string
		got  app.Response
		want string
	}{
		{"update", app.ValidateUpdateInput(app.UpdateInput{Operation: app.OpReclassify, Partition: ptr(vault.Public)}), ""},
		{"default operation", app.ValidateUpdateInput(app.UpdateInput{}), ""},
		{"unknown operation", app.ValidateUpdateInput(app.UpdateInput{Operation: "REPLACE"}), `invalid: unknown operation "REPLACE"; allowed: UPDATE, TAG, RECLASSIFY`},
		{"unknown partition", app.ValidateUpdateInput(app.UpdateInput{Operation: app.OpReclassify, Partition: ptr("secret")}), `invalid: unknown partition "secret"; allowed: public, internal, sensitive`},
		{"NUL in new content", app.ValidateUpdateInput(app.UpdateInput{Content: &text}), `invalid: NUL character in "content"`},
		{"recall", app.ValidateRecallInput(app.RecallInput{Query: "q", Filters: app.RecallFilters{Partitions: []app.Partition{vault.Archive}, Tiers: []app.Tier{vault.Semantic},
			Kinds: []app.Kind{vault.Event}, Fields: []app.Field{vault.Decisions, vault.Constitution}}}), ""},
		{"recall: unknown partition", app.ValidateRecallInput(app.RecallInput{Query: "q", Filters: app.RecallFilters{Partitions: []app.Partition{"privat"}}}), `invalid: unknown partition "privat"; allowed: public, internal, sensitive, archive`},
		{"recall: unknown tier", app.ValidateRecallInput(app.RecallInput{Query: "q", Filters: app.RecallFilters{Tiers: []app.Tier{"semantics"}}}), `invalid: unknown tier "semantics"; allowed: episodic, semantic`},
		{"recall: unknown kind", app.ValidateRecallInput(app.RecallInput{Query: "q", Filters: app.RecallFilters{Kinds: []app.Kind{"facts"}}}), `invalid: unknown kind "facts"; allowed: fact, preference, event, pattern, knowledge`},
		{"recall: unknown field", app.ValidateRecallInput(app.RecallInput{Query: "q", Filters: app.RecallFilters{Fields: []app.Field{"learning"}}}), `invalid: unknown field "learning"; allowed: learnings, preferences, gotchas, conventions, decisions, constitution, authority, system, credentials`},
		{"recall: NUL", app.ValidateRecallInput(app.RecallInput{Query: "q\x00"}), `invalid: NUL character in "query"`},
	}
	for _, tc := range tests {
		want := app.Response{Status: app.StatusOK}
		if tc.want != "" {
			want = app.Response{Status: app.StatusInvalid, Message: tc.want}
		}
		if tc.got != want {
			t.Errorf("%s = %+v, want %+v", tc.name, tc.got, want)
		}
	}
}

// TestInputListsMatchVault: the lists the validation and the contracts
// use are the values the vault stores, and the limits are the guard's.
func TestInputListsMatchVault(t *testing.T) {
	valid := func(edit func(m *vault.Memory)) error {
		m := vault.Memory{Content: "x", Kind: vault.Fact, Field: vault.Learnings, Tier: vault.Episodic, Partition: vault.Internal,
			Trust: vault.TrustStandard, Source: vault.Source{Type: vault.SourceToolOutput}, Confidence: 0.5}
		edit(&m)
		return m.Validate()
	}
	for _, k := range app.Kinds {
		if err := valid(func(m *vault.Memory) { m.Kind = k }); err != nil {
			t.Errorf("kind %q: %v", k, err)
		}
	}
	for _, tier := range app.WriteTiers {
		if err := valid(func(m *vault.Memory) { m.Tier = tier }); (err != nil) != (tier == app.TierWorking) {
			t.Errorf("tier %q: %v (working memory never reaches the vault; the others do)", tier, err)
		}
	}
	if !slices.Equal(app.Tiers, slices.DeleteFunc(slices.Clone(app.WriteTiers), func(t app.Tier) bool { return t == app.TierWorking })) {
		t.Errorf("WriteTiers %v are not Tiers %v and working", app.WriteTiers, app.Tiers)
	}
	for _, s := range app.SourceTypes {
		if err := valid(func(m *vault.Memory) { m.Source.Type = s }); err != nil {
			t.Errorf("source type %q: %v", s, err)
		}
	}
	for _, bad := range []func(m *vault.Memory){
		func(m *vault.Memory) { m.Kind = "facts" }, func(m *vault.Memory) { m.Tier = "working" }, func(m *vault.Memory) { m.Source.Type = "user" },
	} {
		if valid(bad) == nil {
			t.Error("the vault accepts a value the lists leave out; the test's probe is stale")
		}
	}
	limits := app.FieldLimits()
	if got := slices.Sorted(maps.Keys(limits)); !slices.Equal(got, slices.Sorted(slices.Values(vault.AgentFields))) {
		t.Errorf("FieldLimits covers %v, want every agent field %v", got, vault.AgentFields)
	}
	for f, n := range limits {
		if n != guard.DefaultFieldLimits()[string(f)] || n <= 0 || n > app.MaxFieldLimit() {
			t.Errorf("FieldLimits()[%s] = %d, guard's %d, max %d", f, n, guard.DefaultFieldLimits()[string(f)], app.MaxFieldLimit())
		}
	}
	if app.MaxFieldLimit() > vault.MaxContent {
		t.Errorf("MaxFieldLimit = %d", app.MaxFieldLimit())
	}
}

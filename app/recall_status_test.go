package app_test

import (
	"testing"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/recall"
	"github.com/engram-app/engram/vault/vaulttest"
)

// Without an embedding model every recall that asked for meaning says so
// in its answer, not only in a log; an exact (keyword) recall asked for
// nothing more.
func TestRecallSaysWhenKeywordOnly(t *testing.T) {
	const why = "the embedding model is not installed at /nowhere"
	tests := []struct {
		name     string
		opts     app.Options
		status   app.RecallStatus
		keywords string // KeywordOnly of a hybrid recall
	}{
		{"no model", app.Options{Recall: recall.New(recall.DefaultConfig(nil)), RecallStatus: app.RecallStatus{Model: "use-lite-v2", Location: "/nowhere", KeywordOnly: why}},
			app.RecallStatus{Model: "use-lite-v2", Location: "/nowhere", KeywordOnly: why}, why},
		{"no model, no reason given", app.Options{Recall: recall.New(recall.DefaultConfig(nil))},
			app.RecallStatus{KeywordOnly: "no embedding model is configured"}, "no embedding model is configured"},
		{"model", app.Options{Recall: recall.New(recall.DefaultConfig(&countingEmbedder{})), RecallStatus: app.RecallStatus{Location: "embedded", Verified: true}},
			app.RecallStatus{Semantic: true, Model: "bag-test", Location: "embedded", Verified: true}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, _ := vaulttest.New(t)
			s, err := app.New(v, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := s.RecallStatus(); got != tc.status {
				t.Errorf("RecallStatus() = %+v, want %+v", got, tc.status)
			}
			if r := s.Store(ctx, claude, app.StoreInput{Content: "the team deploys on Tuesdays"}); !r.OK() {
				t.Fatalf("Store = %+v", r.Response)
			}
			for _, mode := range []app.RecallMode{"", recall.Hybrid} {
				r := s.Recall(ctx, claude, app.RecallInput{Query: "when does the team deploy", Mode: mode})
				if !r.OK() || len(r.Results) != 1 || r.KeywordOnly != tc.keywords {
					t.Errorf("Recall(mode %q) = %+v, %d results, keyword_only %q; want ok, 1, %q", mode, r.Response, len(r.Results), r.KeywordOnly, tc.keywords)
				}
			}
			if r := s.Recall(ctx, claude, app.RecallInput{Query: "when does the team deploy", Mode: recall.Exact}); !r.OK() || r.KeywordOnly != "" {
				t.Errorf("exact Recall = %+v, keyword_only %q; want ok without keyword_only", r.Response, r.KeywordOnly)
			}
			r := s.Recall(ctx, claude, app.RecallInput{Query: "when does the team deploy", Mode: recall.Semantic})
			if tc.status.Semantic != r.OK() || r.KeywordOnly != tc.keywords {
				t.Errorf("semantic Recall = %+v, keyword_only %q; want ok %v, keyword_only %q", r.Response, r.KeywordOnly, tc.status.Semantic, tc.keywords)
			}
		})
	}
}

// An agent reads its own memories as its own, never as external content;
// the user reads them by the agent's name; web content stays labelled as
// such whoever stored it.
func TestRecallLabelsOwnMemories(t *testing.T) {
	v, _ := vaulttest.New(t)
	s, err := app.New(v, app.Options{Recall: recall.New(recall.DefaultConfig(nil))})
	if err != nil {
		t.Fatal(err)
	}
	if r := s.Store(ctx, claude, app.StoreInput{Content: "the linter runs before every commit"}); !r.OK() {
		t.Fatalf("Store = %+v", r.Response)
	}
	tests := []struct {
		name string
		req  app.Request
		want string
	}{
		{"the agent itself", claude, "[from you] <user_memory>the linter runs before every commit</user_memory>\n"},
		{"the user", operator, "[from agent claude-code] <user_memory>the linter runs before every commit</user_memory>\n"},
	}
	for _, tc := range tests {
		r := s.Recall(ctx, tc.req, app.RecallInput{Query: "linter commit", Mode: recall.Exact})
		if !r.OK() || r.Context != tc.want {
			t.Errorf("%s: Recall context = %q (%+v), want %q", tc.name, r.Context, r.Response, tc.want)
		}
	}
}

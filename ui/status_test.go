package ui

import (
	"strings"
	"testing"

	"github.com/engram-app/engram/app"
)

func TestEmbeddingStatus(t *testing.T) {
	tests := []struct {
		p    app.EmbedProgress
		want string
	}{
		{app.EmbedProgress{Done: 32, Total: 100, Running: true}, "32 of 100 memories embedded"},
		{app.EmbedProgress{Done: 32, Total: 100, Err: "connection refused"}, "incomplete (connection refused)"},
		{app.EmbedProgress{Done: 100, Total: 100}, "ready: 100 memories embedded"},
	}
	for _, tc := range tests {
		if got := embeddingStatus(tc.p); !strings.Contains(got, tc.want) {
			t.Errorf("embeddingStatus(%+v) = %q, want it to say %q", tc.p, got, tc.want)
		}
	}
}

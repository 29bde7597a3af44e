package ui

import (
	"fmt"
	"testing"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/vault"
)

// TestSearchShowsEveryMatch is issue 36, item 3: a search shows every
// memory above the relevance floor, not the agents' recall cap of 10.
func TestSearchShowsEveryMatch(t *testing.T) {
	u, _ := openUI(t)
	op := u.h.Operator()
	for i := range 38 {
		store(t, u, op, app.StoreInput{Content: fmt.Sprintf("deploy step %d goes through the staging pipeline", i), Tier: vault.Episodic})
	}
	store(t, u, op, app.StoreInput{Content: "the office wifi is slow on fridays", Tier: vault.Episodic})
	s := u.memories
	s.search.SetText("deploy")
	s.refresh()
	if len(s.rows.data) != 38 || s.count.Text != `38 memories match "deploy"` {
		t.Fatalf("search for deploy: %d rows, %q; want 38", len(s.rows.data), s.count.Text)
	}
}

package app_test

import (
	"strings"
	"testing"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/vault"
)

// TestUserWritesAreClassifiedLikeAnyOther: the user's own memory with no
// partition chosen ("automatic" in the app) is classified as an agent's
// would be: a PIN hint or a card number goes to the sensitive partition,
// readable by no agent without the grant.
func TestUserWritesAreClassifiedLikeAnyOther(t *testing.T) {
	for _, text := range []string{
		"My bank PIN hint is the dog's birthday; the card ends in 4417",
		"My bank PIN hint: first dog's name. Visa card ending 4417",
		"the door code to the office is 4417",
	} {
		t.Run(text, func(t *testing.T) {
			s, _ := newService(t)
			user := s.Store(ctx, operator, app.StoreInput{Content: text})
			agent := s.Store(ctx, claude, app.StoreInput{Content: text})
			if agent.OK() && agent.Memory.Partition != part(user) {
				t.Errorf("the same text went to %s from an agent, %s from the user", agent.Memory.Partition, part(user))
			}
			if !user.OK() {
				t.Fatalf("the user's write: %+v", user.Response)
			}
			m := user.Memory
			if m.Partition != vault.Sensitive && strings.Contains(m.Content, "4417") {
				t.Fatalf("the user's %q went to %s as it was, want sensitive (or the code redacted)", text, m.Partition)
			}
			if strings.Contains(text, "PIN") && m.Partition != vault.Sensitive {
				t.Fatalf("the user's PIN hint %q went to %s, want sensitive", text, m.Partition)
			}
		})
	}
}

func part(r app.MemoryResponse) vault.Partition {
	if r.Memory == nil {
		return ""
	}
	return r.Memory.Partition
}

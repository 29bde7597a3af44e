package recall

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/engram-app/engram/app/embed"
)

// TestShortQueryFindsMeaning is issue 35: an agent's one- or two-word
// query finds the memory it means with the default floors and the
// built-in model, although it shares no word with it ("indentation" for
// tabs over spaces), and a word about nothing the vault holds still
// finds nothing. It needs the model (ENGRAM_MODEL_DIR, else
// .cache/model/use-lite) and skips without it.
func TestShortQueryFindsMeaning(t *testing.T) {
	dir := os.Getenv("ENGRAM_MODEL_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", ".cache", "model", "use-lite")
	}
	u, err := embed.LoadUSE(dir)
	if err != nil {
		t.Skipf("no USE Lite model: %v", err)
	}
	e := New(DefaultConfig(u))
	texts := map[string]string{
		"tabs":    "User prefers tabs over spaces in Go code",
		"deploy":  "The deploy script lives in ops/deploy.sh and needs two reviewers.",
		"gateway": "The payment gateway retries a failed charge three times.",
		"standup": "The team standup is at 9:30 every weekday.",
		"db":      "Production Postgres runs on version 16 with daily backups.",
	}
	for id, text := range texts {
		vs, err := e.EmbedDocs(ctx, []string{text})
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Put(doc(id, text), vs[0]); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ query, want string }{
		{"indentation", "tabs"},
		{"whitespace", "tabs"},
		{"code style", "tabs"},
		{"football", ""},
		{"pizza recipe", ""},
	} {
		r, err := e.Search(ctx, Query{Text: tc.query, Mode: Hybrid, Now: t0, Floor: true})
		if err != nil {
			t.Fatal(err)
		}
		switch got := ids(r.Hits); {
		case tc.want == "" && len(got) > 0:
			t.Errorf("Search(%q) = %q, want nothing", tc.query, got)
		case tc.want != "" && (len(got) == 0 || got[0] != tc.want):
			t.Errorf("Search(%q) = %q, want %s first", tc.query, got, tc.want)
		}
	}
}

package recall

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/engram-app/engram/app/embed"
	"github.com/engram-app/engram/vault"
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

// TestSlipOfTheKeyboard: a word typed with a slip that no memory holds
// ("meilisearh", "testfligt", "clipy") finds the memory that spells it
// right, where the answer was empty; a word within a slip of nothing the
// caller may see still finds nothing, and numbers are never respelled.
func TestSlipOfTheKeyboard(t *testing.T) {
	e := New(DefaultConfig(nil))
	docs := []Doc{
		{ID: "search", Content: "Incident: Meilisearch ran out of disk during a reindex and search returned nothing for 40 minutes."},
		{ID: "beta", Content: "fastlane uploads the iOS build to TestFlight from CI on release branches."},
		{ID: "lint", Content: "cargo clippy must be clean before any merge; pedantic lints are off."},
		{ID: "port", Content: "The billing service listens on port 10024."},
		{ID: "theirs", Content: "Grafana dashboards live in the observability folder.", Owner: "other-agent"},
	}
	for _, d := range docs {
		if d.Owner == "" {
			d.Owner = "claude"
		}
		d.Trust, d.Partition, d.Created = vault.TrustStandard, vault.Internal, t0
		if err := e.Put(d, nil); err != nil {
			t.Fatal(err)
		}
	}
	mine := func(d *Doc) bool { return d.Owner == "claude" }
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"meilisearh", []string{"search"}},
		{"testfligt", []string{"beta"}},
		{"clipy", []string{"lint"}},
		{"10025", nil},        // a number is not respelled
		{"grafanna", nil},     // only another agent's memory spells it
		{"observabilty", nil}, // the same
	} {
		for _, mode := range []Mode{Exact, Hybrid} {
			res, err := e.Search(ctx, Query{Text: tc.query, Mode: mode, Now: t0, Floor: true, Allow: mine})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, h := range res.Hits {
				got = append(got, h.Doc.ID)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("%s search %q = %v, want %v", mode, tc.query, got, tc.want)
			}
		}
	}
}

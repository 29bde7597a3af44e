package host

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The host says which model recall uses, or why it matches keywords only,
// both in its warnings and in the service's RecallStatus (what the
// desktop app's Settings and every recall answer show).
func TestHostReportsModel(t *testing.T) {
	h, cfg, _ := testHost(t)
	st := h.Service().RecallStatus()
	if st.Semantic || st.Location != cfg.ModelDir || st.Model != "use-lite-v2" || !strings.Contains(st.KeywordOnly, cfg.ModelDir) {
		t.Errorf("RecallStatus without a model = %+v, want keyword only, naming %s", st, cfg.ModelDir)
	}
	if len(h.Warnings) != 1 || !strings.Contains(h.Warnings[0], st.KeywordOnly) {
		t.Errorf("Warnings = %q, want one saying %q", h.Warnings, st.KeywordOnly)
	}

	dir := os.Getenv("ENGRAM_MODEL_DIR")
	if dir == "" {
		t.Skip("ENGRAM_MODEL_DIR not set: the model's half of the test is skipped")
	}
	_, got := NewRecall(Settings{}, dir)
	if !got.Semantic || !got.Verified || got.Location != dir || got.Model != "use-lite-v2" || got.KeywordOnly != "" {
		t.Errorf("NewRecall(%s) status = %+v, want semantic, verified, at %s", dir, got, dir)
	}
	if _, got := NewRecall(Settings{Embedder: EmbedderOff}, dir); got.Semantic || got.KeywordOnly == "" {
		t.Errorf("NewRecall with the embedder off = %+v, want keyword only with the reason", got)
	}
	// A model whose file differs from its pinned hash is refused.
	bad := t.TempDir()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if err := os.Symlink(filepath.Join(dir, e.Name()), filepath.Join(bad, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	os.Remove(filepath.Join(bad, "vocab.json"))
	if err := os.WriteFile(filepath.Join(bad, "vocab.json"), []byte("[]"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, got := NewRecall(Settings{}, bad); got.Semantic || !strings.Contains(got.KeywordOnly, "vocab.json does not match its pinned SHA-256") {
		t.Errorf("NewRecall(altered model) = %+v, want keyword only naming vocab.json's hash", got)
	}
}

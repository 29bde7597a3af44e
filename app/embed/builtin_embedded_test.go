//go:build engram_model

package embed

import "testing"

// A binary built with the model (make build) loads the embedded copy when
// no directory is named, verified, with the same vectors as the files.
func TestLoadBuiltinEmbedded(t *testing.T) {
	t.Setenv("ENGRAM_MODEL_DIR", "")
	u, info, err := LoadBuiltin("")
	if err != nil {
		t.Fatal(err)
	}
	if want := (ModelInfo{Name: u.Name(), Location: Embedded, Verified: true}); info != want {
		t.Errorf("LoadBuiltin(\"\") info = %+v, want %+v", info, want)
	}
	ref := testUSE(t)
	text := "The team indents with tabs"
	if got, want := embedOne(t, u, text), embedOne(t, ref, text); Cosine(got, want) < 0.99999 {
		t.Errorf("embedded model's vector differs from the files': cosine %v", Cosine(got, want))
	}
}

package embed

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// fuzzTokenizer is the real vocabulary when the model is installed, else a
// small one that still has multi-rune pieces, a duplicate and the
// separator.
func fuzzTokenizer(f *testing.F) *tokenizer {
	dir := os.Getenv("ENGRAM_MODEL_DIR")
	if dir == "" {
		if root := repoRoot(); root != "" {
			dir = filepath.Join(root, ".cache", "model", "use-lite")
		}
	}
	vocab, err := os.ReadFile(filepath.Join(dir, vocabFile))
	if err != nil {
		vocab = []byte(`[["\ufffd",0],["<s>",0],["</s>",0],["x1",0],["x2",0],["x3",0],
			["▁",-2],["▁the",-3],["e",-4],["th",-5],["▁t",-6],["é",-7],["ab",-1],["ab",-9],["😀",-8]]`)
	}
	tok, err := newTokenizer(vocab)
	if err != nil {
		f.Fatal(err)
	}
	return tok
}

// FuzzTokenize: arbitrary bytes, valid or not, never panic, always give ids
// inside the vocabulary, never two unknowns in a row, and give the same ids
// as the same text with invalid bytes already replaced.
func FuzzTokenize(f *testing.F) {
	tok := fuzzTokenizer(f)
	for _, s := range []string{"", " ", "the theme", "Café\u0301", "😀😀 x", "\xff\xfe", "a\x00b", "\u2581\u2581"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ids := tok.encode(nil, s)
		for i, id := range ids {
			if id < 0 || int(id) >= tok.vocabSize() {
				t.Fatalf("encode(%q)[%d] = %d, outside the vocabulary", s, i, id)
			}
			if i > 0 && id == unkID && ids[i-1] == unkID {
				t.Fatalf("encode(%q) = %v: consecutive unknowns", s, ids)
			}
		}
		valid := s
		if !utf8.ValidString(s) {
			valid = string([]rune(s)) // each invalid byte becomes U+FFFD
		}
		if norm.NFKC.String(valid) != "" && len(ids) == 0 {
			t.Fatalf("encode(%q) = no ids for a non-empty text", s)
		}
		if again := tok.encode([]int32{7}, valid); !slices.Equal(again[1:], ids) {
			t.Fatalf("encode(%q) = %v, but after replacing invalid bytes %v", s, ids, again[1:])
		}
	})
}

package vault

import (
	"fmt"
	"strings"
	"testing"
)

// kv builds kept versions from a pattern: one letter per version, its
// content; an upper-case letter is pinned.
func kv(pattern string) []keptVersion {
	var out []keptVersion
	for _, c := range pattern {
		s := string(c)
		out = append(out, keptVersion{contentHash: strings.ToLower(s), pinned: s != strings.ToLower(s)})
	}
	return out
}

func TestVersionsToDrop(t *testing.T) {
	tests := []struct {
		name    string
		pattern string
		want    string // indexes dropped
	}{
		{"within both budgets", "abcdefghij", "[]"},
		{"one content too many", "abcdefghijk", "[0]"},
		{"a content goes with its metadata", "aaabcdefghijk", "[0 1 2]"},
		{"pinned content stays, the next goes", "Abcdefghijk", "[1]"},
		{"pinned metadata keeps its content", "aAbcdefghijk", "[0 2]"},
		{"metadata beyond its budget, oldest first", "a" + strings.Repeat("b", 12), "[2]"},
		{"metadata never pushes content out", "abcdefghij" + strings.Repeat("j", 11), "[10]"},
		{"the newest run stays even if all else is pinned", "ABCDEFGHIJkk", "[]"},
		{"the newest version stays", "abcdefghijk" + strings.Repeat("k", 11), "[0 11]"},
		// Dropping b joins the pinned A and the a after it into one run.
		{"runs that meet become one", "Abacdefghijk", "[1]"},
		{"nothing kept", "", "[]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := versionsToDrop(kv(tc.pattern))
			if fmt.Sprint(got) != tc.want && !(got == nil && tc.want == "[]") {
				t.Errorf("versionsToDrop(%q) = %v, want %s", tc.pattern, got, tc.want)
			}
		})
	}
}

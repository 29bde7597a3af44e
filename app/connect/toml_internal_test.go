package connect

import (
	"slices"
	"testing"
)

// TestTOMLTopLines: only lines that begin outside multi-line strings and
// arrays can be headers or keys.
func TestTOMLTopLines(t *testing.T) {
	tests := []struct {
		name  string
		lines []string
		want  []bool
	}{
		{"plain", []string{"a = 1", "[t]", "b = 'x'"}, []bool{true, true, true}},
		{"multi-line basic string", []string{`s = """`, "[t]", `"""`, "b = 1"}, []bool{true, false, false, true}},
		{"multi-line literal string", []string{"s = '''", "k = 1", "'''", "b = 1"}, []bool{true, false, false, true}},
		{"opened and closed on one line", []string{`s = """x"""`, "[t]"}, []bool{true, true}},
		{"escaped quotes inside", []string{`s = """a\"""`, `[t]`, `"""`, "[u]"}, []bool{true, false, false, true}},
		{"quotes before the end", []string{`s = """`, `x""""`, "[t]"}, []bool{true, false, true}},
		{"delimiter inside a one-line string", []string{`s = "a\"""b"`, "[t]"}, []bool{true, true}},
		{"delimiter inside a comment", []string{`a = 1 # """`, "[t]"}, []bool{true, true}},
		{"multi-line array", []string{"m = [", "  [1, 2],", "  [3, 4]", "]", "[t]"}, []bool{true, false, false, false, true}},
		{"brackets in strings", []string{`a = "["`, `b = '{'`, "[t]"}, []bool{true, true, true}},
		{"array of tables header", []string{"[[t]]", "a = 1"}, []bool{true, true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tomlTopLines(tc.lines); !slices.Equal(got, tc.want) {
				t.Errorf("tomlTopLines(%q) = %v, want %v", tc.lines, got, tc.want)
			}
		})
	}
}

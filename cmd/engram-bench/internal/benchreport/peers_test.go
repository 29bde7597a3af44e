package benchreport

import (
	"strings"
	"testing"
)

func TestChunks(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		n          int
		want       []string
	}{
		{"short", "abc", 8, []string{"abc"}},
		{"at line ends", "ab\ncd\nef\n", 6, []string{"ab\ncd\n", "ef\n"}},
		{"long line", "abcdefghij", 4, []string{"abcd", "efgh", "ij"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := chunks(tc.text, tc.n)
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("chunks(%q, %d) = %q, want %q", tc.text, tc.n, got, tc.want)
			}
		})
	}
}

func TestRatio(t *testing.T) {
	for _, tc := range []struct {
		a, b float64
		want string
	}{{3, 2, "1.50×"}, {1, 0, "n/a"}, {1, 80, "0.013×"}} {
		if got := ratio(tc.a, tc.b); got != tc.want {
			t.Errorf("ratio(%v, %v) = %q, want %q", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 200: "200", 1000: "1,000", 10000: "10,000", 1234567: "1,234,567"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

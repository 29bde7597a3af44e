package ui

import "testing"

func TestShouldTrim(t *testing.T) {
	const mib = 1 << 20
	for _, tc := range []struct {
		name           string
		live, retained uint64
		want           bool
	}{
		{"nothing beyond the live heap", 80 * mib, 80 * mib, false},
		{"a little garbage", 80 * mib, 90 * mib, false},
		{"twice the live heap, as the collector leaves it", 80 * mib, 160 * mib, true},
		{"small heap, excess under the slack", 8 * mib, 20 * mib, false},
		{"large heap, excess under a quarter", 400 * mib, 480 * mib, false},
		{"large heap, excess over a quarter", 400 * mib, 520 * mib, true},
		{"retained below live (metrics read between collections)", 80 * mib, 70 * mib, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := shouldTrim(tc.live, tc.retained); got != tc.want {
				t.Errorf("shouldTrim(%d MiB, %d MiB) = %v, want %v", tc.live/mib, tc.retained/mib, got, tc.want)
			}
		})
	}
}

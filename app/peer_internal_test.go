//go:build linux

package app

import (
	"net/netip"
	"testing"
)

func TestProcAddr(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"0100007F:1D2A", "127.0.0.1:7466"},
		{"00000000000000000000000001000000:1F90", "[::1]:8080"},
		{"0000000000000000FFFF00000100007F:0050", "[::ffff:127.0.0.1]:80"},
	} {
		got, ok := procAddr(tc.in)
		if !ok || got != netip.MustParseAddrPort(tc.want) {
			t.Errorf("procAddr(%q) = %v, %v, want %s", tc.in, got, ok, tc.want)
		}
	}
	if _, ok := procAddr("zz:1"); ok {
		t.Error("procAddr accepted garbage")
	}
}

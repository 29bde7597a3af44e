package embed

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// TestPackedMul checks the packed product (assembly kernel where the CPU
// has it) against a plain triple loop in float64: with float32 panels, and
// where the CPU has F16C with half-precision ones too, compared on the
// weights as rounded to half precision.
func TestPackedMul(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	tests := []struct{ m, k, n int }{
		{4, 1, 16}, {4, 3, 16}, {20, 40, 32}, {52, 100, 16}, {8, 64, 32}, {12, 256, 768}, {16, 512, 48}, {24, 1536, 64},
		{132, 512, 1536}, // parallel path
	}
	precisions := []bool{false}
	if halfWeights {
		precisions = append(precisions, true) // the half-precision kernels too
	}
	for _, half := range precisions {
		for _, tc := range tests {
			t.Run(fmt.Sprintf("%dx%dx%d/half=%v", tc.m, tc.k, tc.n, half), func(t *testing.T) {
				w := randSlice(rng, tc.k*tc.n)
				a := randSlice(rng, tc.m*tc.k)
				bias := randSlice(rng, tc.n)
				c := make([]float32, tc.m*tc.n)
				p := packAs(w, tc.k, tc.n, half)
				if half {
					for i, x := range w {
						w[i] = fromHalf(toHalf(x))
					}
				}
				p.mul(c, a, tc.m, bias, runtime.GOMAXPROCS(0))
				for i := range tc.m {
					for j := range tc.n {
						want := float64(bias[j])
						for kk := range tc.k {
							want += float64(a[i*tc.k+kk]) * float64(w[kk*tc.n+j])
						}
						if got := float64(c[i*tc.n+j]); math.Abs(got-want) > 1e-4*(1+math.Abs(want)) {
							t.Fatalf("c[%d][%d] = %v, want %v", i, j, got, want)
						}
					}
				}
			})
		}
	}
}

func randSlice(rng *rand.Rand, n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = rng.Float32()*2 - 1
	}
	return s
}

// TestHalf checks the binary16 conversions: every half value widens and
// narrows back to itself, and float32 values round to the nearest half,
// ties to even, with overflow to infinity and underflow through the
// subnormals to zero.
func TestHalf(t *testing.T) {
	for h := range 1 << 16 {
		f := fromHalf(uint16(h))
		if f != f { // NaN
			if g := toHalf(f); g&0x7c00 != 0x7c00 || g&0x3ff == 0 {
				t.Fatalf("toHalf(NaN %#04x) = %#04x, not a NaN", h, g)
			}
			continue
		}
		if g := toHalf(f); g != uint16(h) {
			t.Fatalf("toHalf(fromHalf(%#04x) = %v) = %#04x", h, f, g)
		}
	}
	tests := []struct {
		f    float32
		want uint16
	}{
		{1, 0x3c00},
		{-2, 0xc000},
		{65504, 0x7bff},                 // largest finite half
		{65520, 0x7c00},                 // halfway to the next: rounds to even, Inf
		{1e6, 0x7c00},                   // overflow
		{float32(math.Inf(-1)), 0xfc00}, // -Inf
		{1 + 1.0/2048, 0x3c00},          // tie between 1 and 1+2^-10: even, down
		{1 + 3.0/2048, 0x3c02},          // tie: even, up
		{1 + 1.0/2048 + 1.0/65536, 0x3c01},
		{0x1p-24, 0x0001},   // smallest subnormal
		{0x1p-25, 0x0000},   // its half: tie, to even zero
		{0x1.8p-25, 0x0001}, // above the tie
		{0x1p-14, 0x0400},   // smallest normal
		{-0x1p-30, 0x8000},  // underflow keeps the sign
	}
	for _, tc := range tests {
		if got := toHalf(tc.f); got != tc.want {
			t.Errorf("toHalf(%v) = %#04x, want %#04x", tc.f, got, tc.want)
		}
	}
}

package embed

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// TestPackedMul checks the packed product (assembly kernel where the CPU
// has it) against a plain triple loop in float64.
func TestPackedMul(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	tests := []struct{ m, k, n int }{
		{4, 1, 16}, {4, 3, 16}, {20, 40, 32}, {52, 100, 16}, {8, 64, 32}, {12, 256, 768}, {16, 512, 48}, {24, 1536, 64},
		{132, 512, 1536}, // parallel path
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%dx%dx%d", tc.m, tc.k, tc.n), func(t *testing.T) {
			w := randSlice(rng, tc.k*tc.n)
			a := randSlice(rng, tc.m*tc.k)
			bias := randSlice(rng, tc.n)
			c := make([]float32, tc.m*tc.n)
			p := pack(w, tc.k, tc.n)
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

func randSlice(rng *rand.Rand, n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = rng.Float32()*2 - 1
	}
	return s
}

//go:build amd64 && !purego

package recall

import "golang.org/x/sys/cpu"

// useAVX2 selects the AVX2 kernel; without AVX2 the portable loop runs.
var useAVX2 = cpu.X86.HasAVX2

// dotsInt8AVX2 computes out[i] = Σ_j codes[i*dim+j]·q[j] for i < n. dim
// must be a positive multiple of 32.
//
//go:noescape
func dotsInt8AVX2(q *int16, codes *int8, dim, n int, out *int32)

// dotsInt8 sets out[i] to the dot product of q and the i-th row of codes,
// whose rows are dim long.
func dotsInt8(q []int16, codes []int8, dim int, out []int32) {
	if !useAVX2 || dim%32 != 0 || dim == 0 || len(out) == 0 {
		dotsInt8Go(q, codes, dim, out)
		return
	}
	// Bounds the assembly relies on, checked once here.
	_ = q[dim-1]
	_ = codes[len(out)*dim-1]
	dotsInt8AVX2(&q[0], &codes[0], dim, len(out), &out[0])
}

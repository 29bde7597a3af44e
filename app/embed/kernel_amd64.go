//go:build amd64 && !purego

package embed

import "golang.org/x/sys/cpu"

// useAsm selects the AVX2/FMA micro-kernel; without those instructions the
// portable Go kernel runs instead.
var useAsm = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// kern4x16AVX2 computes, for r in 0..3 and j in 0..15,
//
//	c[r*ldc+j] = bias[j] + sum over kk<k of a[r*lda+kk] * b[kk*16+j]
//
// where b is one 16-column panel of a packed matrix. lda and ldc count
// float32 elements. k must be positive.
//
//go:noescape
func kern4x16AVX2(a *float32, lda int, b *float32, k int, c *float32, ldc int, bias *float32)

func kern4x16(a []float32, lda int, b []float32, k int, c []float32, ldc int, bias []float32) {
	if useAsm && k > 0 {
		// Bounds the assembly relies on, checked once here.
		_ = a[3*lda+k-1]
		_ = b[16*k-1]
		_ = c[3*ldc+15]
		_ = bias[15]
		kern4x16AVX2(&a[0], lda, &b[0], k, &c[0], ldc, &bias[0])
		return
	}
	kern4x16Go(a, lda, b, k, c, ldc, bias)
}

// kern6x16AVX2 is kern4x16AVX2 for six rows.
//
//go:noescape
func kern6x16AVX2(a *float32, lda int, b *float32, k int, c *float32, ldc int, bias *float32)

// kern6x16 is kern4x16 for six rows; only called when useAsm is true.
func kern6x16(a []float32, lda int, b []float32, k int, c []float32, ldc int, bias []float32) {
	_ = a[5*lda+k-1]
	_ = b[16*k-1]
	_ = c[5*ldc+15]
	_ = bias[15]
	kern6x16AVX2(&a[0], lda, &b[0], k, &c[0], ldc, &bias[0])
}

// halfWeights keeps packed weights in half precision (see packed); the
// kernels that read them need F16C besides AVX2 and FMA.
var halfWeights = useAsm && cpu.X86.HasF16C

// kern4x16F16 is kern4x16AVX2 with the panel b in binary16.
//
//go:noescape
func kern4x16F16(a *float32, lda int, b *uint16, k int, c *float32, ldc int, bias *float32)

// kern6x16F16 is kern6x16AVX2 with the panel b in binary16.
//
//go:noescape
func kern6x16F16(a *float32, lda int, b *uint16, k int, c *float32, ldc int, bias *float32)

// kern4x16Half is kern4x16 on a binary16 panel; only called when
// halfWeights is true, with k positive.
func kern4x16Half(a []float32, lda int, b []uint16, k int, c []float32, ldc int, bias []float32) {
	_ = a[3*lda+k-1]
	_ = b[16*k-1]
	_ = c[3*ldc+15]
	_ = bias[15]
	kern4x16F16(&a[0], lda, &b[0], k, &c[0], ldc, &bias[0])
}

// kern6x16Half is kern6x16 on a binary16 panel; only called when
// halfWeights is true, with k positive.
func kern6x16Half(a []float32, lda int, b []uint16, k int, c []float32, ldc int, bias []float32) {
	_ = a[5*lda+k-1]
	_ = b[16*k-1]
	_ = c[5*ldc+15]
	_ = bias[15]
	kern6x16F16(&a[0], lda, &b[0], k, &c[0], ldc, &bias[0])
}

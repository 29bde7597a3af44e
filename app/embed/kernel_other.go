//go:build !amd64 || purego

package embed

const useAsm = false

func kern4x16(a []float32, lda int, b []float32, k int, c []float32, ldc int, bias []float32) {
	kern4x16Go(a, lda, b, k, c, ldc, bias)
}

func kern6x16(a []float32, lda int, b []float32, k int, c []float32, ldc int, bias []float32) {
	panic("embed: kern6x16 without assembly")
}

const halfWeights = false

func kern4x16Half(a []float32, lda int, b []uint16, k int, c []float32, ldc int, bias []float32) {
	panic("embed: half-precision kernel without assembly")
}

func kern6x16Half(a []float32, lda int, b []uint16, k int, c []float32, ldc int, bias []float32) {
	panic("embed: half-precision kernel without assembly")
}

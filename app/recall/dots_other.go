//go:build !amd64 || purego

package recall

// dotsInt8 sets out[i] to the dot product of q and the i-th row of codes,
// whose rows are dim long.
func dotsInt8(q []int16, codes []int8, dim int, out []int32) { dotsInt8Go(q, codes, dim, out) }

package embed

import (
	"sync"
)

// panelWidth is the number of output columns a micro-kernel call produces.
const panelWidth = 16

// packed is a k×n weight matrix rearranged into n/16 panels of k×16
// values, each contiguous, so a kernel streams its panel front to back.
// Where the CPU converts half precision (F16C), the values are binary16
// (half): the weights are read from memory once per product, and for a
// short text, a query, that read and not the arithmetic bounds the time,
// so halving the bytes nearly halves the time. The kernels widen each
// value to float32 as they load it and compute in float32. Elsewhere the
// panels hold float32 (data).
type packed struct {
	k, n int
	data []float32
	half []uint16
}

// pack rearranges the row-major k×n matrix w. n must be a multiple of 16.
func pack(w []float32, k, n int) packed { return packAs(w, k, n, halfWeights) }

// packAs is pack with the precision chosen: half only where halfWeights.
func packAs(w []float32, k, n int, half bool) packed {
	p := packed{k: k, n: n}
	if half {
		p.half = make([]uint16, k*n)
	} else {
		p.data = make([]float32, k*n)
	}
	for j0 := 0; j0 < n; j0 += panelWidth {
		at := j0 * k
		for kk := 0; kk < k; kk++ {
			src := w[kk*n+j0 : kk*n+j0+panelWidth]
			if p.half != nil {
				dst := p.half[at+kk*panelWidth : at+(kk+1)*panelWidth]
				for i, x := range src {
					dst[i] = toHalf(x)
				}
			} else {
				copy(p.data[at+kk*panelWidth:at+(kk+1)*panelWidth], src)
			}
		}
	}
	return p
}

func (p *packed) panel(i int) []float32 {
	return p.data[i*panelWidth*p.k : (i+1)*panelWidth*p.k]
}

func (p *packed) halfPanel(i int) []uint16 {
	return p.half[i*panelWidth*p.k : (i+1)*panelWidth*p.k]
}

// rowBlock is how many rows of A one pass over a range of panels covers,
// so that those rows stay in cache while the panels stream past. A
// multiple of both kernel heights, 4 and 6.
const rowBlock = 48

// parallelMACs is the work below which a product runs on one goroutine:
// under it, waking other cores costs more than it saves.
const parallelMACs = 1 << 20

// mul sets c = a·p + bias. a holds m rows of p.k floats and c m rows of
// p.n floats; m must be a multiple of 4 (callers pad with zero rows).
// Large products are split by panel over up to workers goroutines.
func (p *packed) mul(c, a []float32, m int, bias []float32, workers int) {
	panels := p.n / panelWidth
	if m*p.k*p.n < parallelMACs || workers < 2 {
		p.mulPanels(c, a, m, bias, 0, panels)
		return
	}
	workers = min(workers, panels)
	var wg sync.WaitGroup
	for w := 1; w < workers; w++ {
		lo, hi := panels*w/workers, panels*(w+1)/workers
		wg.Go(func() { p.mulPanels(c, a, m, bias, lo, hi) })
	}
	p.mulPanels(c, a, m, bias, 0, panels/workers) // share 0 on this goroutine
	wg.Wait()
}

func (p *packed) mulPanels(c, a []float32, m int, bias []float32, lo, hi int) {
	k, n := p.k, p.n
	six := p.half != nil || (useAsm && k > 0) // a six-row kernel exists
	for r0 := 0; r0 < m; r0 += rowBlock {
		r1 := min(r0+rowBlock, m)
		for pi := lo; pi < hi; pi++ {
			j0 := pi * panelWidth
			bj := bias[j0 : j0+panelWidth]
			r := r0
			if six {
				for ; r+6 <= r1; r += 6 {
					p.kern6(pi, a[r*k:], c[r*n+j0:], bj)
				}
				if r1-r == 2 {
					// Two rows left: redo the last four; rows r1-4 and
					// r1-3 get the same values again.
					r = r1 - 4
				}
			}
			for ; r < r1; r += 4 {
				p.kern4(pi, a[r*k:], c[r*n+j0:], bj)
			}
		}
	}
}

// kern4 runs the four-row kernel of p's precision on panel pi: a holds
// rows of p.k floats, c rows of p.n.
func (p *packed) kern4(pi int, a, c, bias []float32) {
	if p.half != nil {
		kern4x16Half(a, p.k, p.halfPanel(pi), p.k, c, p.n, bias)
		return
	}
	kern4x16(a, p.k, p.panel(pi), p.k, c, p.n, bias)
}

// kern6 is kern4 for six rows; only called where a six-row kernel exists.
func (p *packed) kern6(pi int, a, c, bias []float32) {
	if p.half != nil {
		kern6x16Half(a, p.k, p.halfPanel(pi), p.k, c, p.n, bias)
		return
	}
	kern6x16(a, p.k, p.panel(pi), p.k, c, p.n, bias)
}

// kern4x16Go is the portable micro-kernel; see kern4x16AVX2 for the
// contract. It walks the panel four columns at a time with sixteen scalar
// accumulators, which stay in registers on arm64 (where the compiler also
// fuses the multiply-adds).
func kern4x16Go(a []float32, lda int, b []float32, k int, c []float32, ldc int, bias []float32) {
	a0, a1, a2, a3 := a[:k], a[lda:lda+k], a[2*lda:2*lda+k], a[3*lda:3*lda+k]
	b = b[:k*panelWidth]
	for j := 0; j < panelWidth; j += 4 {
		bj := bias[j : j+4 : j+4]
		c00, c01, c02, c03 := bj[0], bj[1], bj[2], bj[3]
		c10, c11, c12, c13 := c00, c01, c02, c03
		c20, c21, c22, c23 := c00, c01, c02, c03
		c30, c31, c32, c33 := c00, c01, c02, c03
		for kk := range a0 {
			bv := b[kk*panelWidth+j : kk*panelWidth+j+4 : kk*panelWidth+j+4]
			b0, b1, b2, b3 := bv[0], bv[1], bv[2], bv[3]
			x := a0[kk]
			c00 += x * b0
			c01 += x * b1
			c02 += x * b2
			c03 += x * b3
			x = a1[kk]
			c10 += x * b0
			c11 += x * b1
			c12 += x * b2
			c13 += x * b3
			x = a2[kk]
			c20 += x * b0
			c21 += x * b1
			c22 += x * b2
			c23 += x * b3
			x = a3[kk]
			c30 += x * b0
			c31 += x * b1
			c32 += x * b2
			c33 += x * b3
		}
		r := c[j : j+4 : j+4]
		r[0], r[1], r[2], r[3] = c00, c01, c02, c03
		r = c[ldc+j : ldc+j+4 : ldc+j+4]
		r[0], r[1], r[2], r[3] = c10, c11, c12, c13
		r = c[2*ldc+j : 2*ldc+j+4 : 2*ldc+j+4]
		r[0], r[1], r[2], r[3] = c20, c21, c22, c23
		r = c[3*ldc+j : 3*ldc+j+4 : 3*ldc+j+4]
		r[0], r[1], r[2], r[3] = c30, c31, c32, c33
	}
}

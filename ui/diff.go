package ui

import "strings"

// diffOp is one run of words in a diff: kept, removed or added.
type diffOp struct {
	Kind  byte // '=', '-', '+'
	Words string
}

// maxDiffWords bounds the quadratic table; longer texts diff as a whole.
const maxDiffWords = 2000

// wordDiff compares a and b word by word (longest common subsequence) and
// returns the runs, merged by kind.
func wordDiff(a, b string) []diffOp {
	x, y := strings.Fields(a), strings.Fields(b)
	if len(x) > maxDiffWords || len(y) > maxDiffWords {
		if a == b {
			return []diffOp{{'=', a}}
		}
		return []diffOp{{'-', a}, {'+', b}}
	}
	// lcs[i][j] is the LCS length of x[i:] and y[j:].
	lcs := make([][]int, len(x)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(y)+1)
	}
	for i := len(x) - 1; i >= 0; i-- {
		for j := len(y) - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out []diffOp
	emit := func(kind byte, w string) {
		if n := len(out); n > 0 && out[n-1].Kind == kind {
			out[n-1].Words += " " + w
			return
		}
		out = append(out, diffOp{kind, w})
	}
	i, j := 0, 0
	for i < len(x) && j < len(y) {
		switch {
		case x[i] == y[j]:
			emit('=', x[i])
			i, j = i+1, j+1
		case lcs[i+1][j] >= lcs[i][j+1]:
			emit('-', x[i])
			i++
		default:
			emit('+', y[j])
			j++
		}
	}
	for ; i < len(x); i++ {
		emit('-', x[i])
	}
	for ; j < len(y); j++ {
		emit('+', y[j])
	}
	return out
}

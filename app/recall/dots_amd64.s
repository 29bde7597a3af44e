//go:build amd64 && !purego

#include "textflag.h"

// func dotsInt8AVX2(q *int16, codes *int8, dim, n int, out *int32)
//
// For each of n rows of dim int8 codes: sign-extend 32 codes to int16
// (two VPMOVSXBW), multiply with the int16 query and add adjacent pairs
// into int32 lanes (VPMADDWD), accumulate in Y0 and Y1, then sum the
// lanes. The query is small enough to stay in L1 across rows.
TEXT ·dotsInt8AVX2(SB), NOSPLIT, $0-40
	MOVQ q+0(FP), SI
	MOVQ codes+8(FP), DI
	MOVQ dim+16(FP), R8
	MOVQ n+24(FP), CX
	MOVQ out+32(FP), DX

row:
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	XORQ  AX, AX
	MOVQ  SI, BX

inner:
	VPMOVSXBW (DI)(AX*1), Y2
	VPMOVSXBW 16(DI)(AX*1), Y3
	VPMADDWD  (BX), Y2, Y2
	VPMADDWD  32(BX), Y3, Y3
	VPADDD    Y2, Y0, Y0
	VPADDD    Y3, Y1, Y1
	ADDQ      $64, BX
	ADDQ      $32, AX
	CMPQ      AX, R8
	JB        inner

	VPADDD       Y1, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0x4E, X0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0xB1, X0, X1
	VPADDD       X1, X0, X0
	VMOVD        X0, (DX)
	ADDQ         $4, DX
	ADDQ         R8, DI
	DECQ         CX
	JNZ          row

	VZEROUPPER
	RET

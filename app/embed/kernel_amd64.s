//go:build amd64 && !purego

#include "textflag.h"

// The four kernels share their parts through the macros below; they differ
// in how many rows of A they take (four or six) and in how they load B
// (float32, or binary16 widened to float32 as it is loaded).
//
// Registers: SI, R8 a and its row stride in bytes; DI b; CX k, the steps
// left; DX, R9 c and its row stride in bytes; BX bias; AX the byte offset
// of the current step into each row of A; R10..R13 (and BX, R8 for six
// rows) the rows of A.

// ARGS loads the arguments, strides in bytes.
#define ARGS \
	MOVQ a+0(FP), SI; \
	MOVQ lda+8(FP), R8; \
	MOVQ b+16(FP), DI; \
	MOVQ k+24(FP), CX; \
	MOVQ c+32(FP), DX; \
	MOVQ ldc+40(FP), R9; \
	MOVQ bias+48(FP), BX; \
	SHLQ $2, R8; \
	SHLQ $2, R9

// BIAS4 starts the accumulators of four rows at the bias: row r in Y2r
// (low 8 columns) and Y2r+1 (high 8).
#define BIAS4 \
	VMOVUPS (BX), Y0; \
	VMOVUPS 32(BX), Y1; \
	VMOVAPS Y0, Y2; \
	VMOVAPS Y1, Y3; \
	VMOVAPS Y0, Y4; \
	VMOVAPS Y1, Y5; \
	VMOVAPS Y0, Y6; \
	VMOVAPS Y1, Y7

// BIAS6 is BIAS4 for six rows.
#define BIAS6 \
	BIAS4; \
	VMOVAPS Y0, Y8; \
	VMOVAPS Y1, Y9; \
	VMOVAPS Y0, Y10; \
	VMOVAPS Y1, Y11

// ROWS4 points R10..R13 at the four rows of A.
#define ROWS4 \
	MOVQ SI, R10; \
	LEAQ (R10)(R8*1), R11; \
	LEAQ (R11)(R8*1), R12; \
	LEAQ (R12)(R8*1), R13; \
	XORQ AX, AX

// ROWS6 points R10..R13, BX, R8 at the six rows of A (bias and lda are no
// longer needed).
#define ROWS6 \
	MOVQ SI, R10; \
	LEAQ (R10)(R8*1), R11; \
	LEAQ (R11)(R8*1), R12; \
	LEAQ (R12)(R8*1), R13; \
	LEAQ (R13)(R8*1), BX; \
	LEAQ (BX)(R8*1), R8; \
	XORQ AX, AX

// FMAROW broadcasts row's A value of the current step into t and adds
// its products with B (b0, b1) to that row's accumulators (c0, c1).
#define FMAROW(row, t, b0, b1, c0, c1) \
	VBROADCASTSS (row)(AX*1), t; \
	VFMADD231PS b0, t, c0; \
	VFMADD231PS b1, t, c1

// FMA4 is one step of four rows, B in Y8, Y9, the broadcasts in Y10..Y13.
#define FMA4 \
	FMAROW(R10, Y10, Y8, Y9, Y0, Y1); \
	FMAROW(R11, Y11, Y8, Y9, Y2, Y3); \
	FMAROW(R12, Y12, Y8, Y9, Y4, Y5); \
	FMAROW(R13, Y13, Y8, Y9, Y6, Y7)

// FMA6 is one step of six rows, B in Y12, Y13, the broadcast in Y14:
// twelve multiply-adds per two loads of B and six broadcasts.
#define FMA6 \
	FMAROW(R10, Y14, Y12, Y13, Y0, Y1); \
	FMAROW(R11, Y14, Y12, Y13, Y2, Y3); \
	FMAROW(R12, Y14, Y12, Y13, Y4, Y5); \
	FMAROW(R13, Y14, Y12, Y13, Y6, Y7); \
	FMAROW(BX, Y14, Y12, Y13, Y8, Y9); \
	FMAROW(R8, Y14, Y12, Y13, Y10, Y11)

// STORE4 writes the accumulators of four rows to c.
#define STORE4 \
	VMOVUPS Y0, (DX); \
	VMOVUPS Y1, 32(DX); \
	ADDQ    R9, DX; \
	VMOVUPS Y2, (DX); \
	VMOVUPS Y3, 32(DX); \
	ADDQ    R9, DX; \
	VMOVUPS Y4, (DX); \
	VMOVUPS Y5, 32(DX); \
	ADDQ    R9, DX; \
	VMOVUPS Y6, (DX); \
	VMOVUPS Y7, 32(DX)

// STORE6 is STORE4 for six rows.
#define STORE6 \
	STORE4; \
	ADDQ    R9, DX; \
	VMOVUPS Y8, (DX); \
	VMOVUPS Y9, 32(DX); \
	ADDQ    R9, DX; \
	VMOVUPS Y10, (DX); \
	VMOVUPS Y11, 32(DX)

// func kern4x16AVX2(a *float32, lda int, b *float32, k int, c *float32, ldc int, bias *float32)
//
// Four rows of A times one packed 16-column panel of B. Each step loads 16
// floats of B once and broadcasts one A value per row.
TEXT ·kern4x16AVX2(SB), NOSPLIT, $0-56
	ARGS
	BIAS4
	ROWS4

loop:
	VMOVUPS (DI), Y8
	VMOVUPS 32(DI), Y9
	FMA4
	ADDQ $64, DI
	ADDQ $4, AX
	DECQ CX
	JNZ  loop

	STORE4
	VZEROUPPER
	RET

// func kern6x16AVX2(a *float32, lda int, b *float32, k int, c *float32, ldc int, bias *float32)
//
// As kern4x16AVX2 for six rows: more rows per load of B.
TEXT ·kern6x16AVX2(SB), NOSPLIT, $0-56
	ARGS
	BIAS6
	ROWS6

loop:
	VMOVUPS (DI), Y12
	VMOVUPS 32(DI), Y13
	FMA6
	ADDQ $64, DI
	ADDQ $4, AX
	DECQ CX
	JNZ  loop

	STORE6
	VZEROUPPER
	RET

// func kern4x16F16(a *float32, lda int, b *uint16, k int, c *float32, ldc int, bias *float32)
//
// kern4x16AVX2 with B in binary16: each step widens 16 values of B (32
// bytes) to float32 as it loads them.
TEXT ·kern4x16F16(SB), NOSPLIT, $0-56
	ARGS
	BIAS4
	ROWS4

loop:
	VCVTPH2PS (DI), Y8
	VCVTPH2PS 16(DI), Y9
	FMA4
	ADDQ $32, DI
	ADDQ $4, AX
	DECQ CX
	JNZ  loop

	STORE4
	VZEROUPPER
	RET

// func kern6x16F16(a *float32, lda int, b *uint16, k int, c *float32, ldc int, bias *float32)
//
// kern6x16AVX2 with B in binary16.
TEXT ·kern6x16F16(SB), NOSPLIT, $0-56
	ARGS
	BIAS6
	ROWS6

loop:
	VCVTPH2PS (DI), Y12
	VCVTPH2PS 16(DI), Y13
	FMA6
	ADDQ $32, DI
	ADDQ $4, AX
	DECQ CX
	JNZ  loop

	STORE6
	VZEROUPPER
	RET

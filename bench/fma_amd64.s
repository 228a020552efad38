//go:build !noasm

#include "textflag.h"

// fmaZ(n int) and fmaY(n int) run n rounds of twelve independent chains of
// VFMADD231PD, on 8-wide (AVX-512) or 4-wide (AVX2) registers: the solve
// kernels' multiply-adds with nothing else, twelve chains being enough to
// hide the latency of the two FMA units of a core. The registers start at
// zero, so that no value is ever subnormal. Written by hand: two loops of
// one instruction each (CHAINS), the peak that Roofline measures.

// CHAINS applies op to each of the twelve accumulators a0…a11 with both
// sources s: VFMADD231PD adds s·s to each, an XOR zeroes each.
#define CHAINS(op, s, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11) \
	op s, s, a0; op s, s, a1; op s, s, a2; op s, s, a3; \
	op s, s, a4; op s, s, a5; op s, s, a6; op s, s, a7; \
	op s, s, a8; op s, s, a9; op s, s, a10; op s, s, a11

TEXT ·fmaZ(SB), NOSPLIT, $0-8
	MOVQ n+0(FP), CX
	VPXORQ Z12, Z12, Z12
	CHAINS(VPXORQ, Z12, Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7, Z8, Z9, Z10, Z11)
	TESTQ CX, CX
	JLE fmaZdone
fmaZloop:
	CHAINS(VFMADD231PD, Z12, Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7, Z8, Z9, Z10, Z11)
	DECQ CX
	JNZ fmaZloop
fmaZdone:
	VZEROUPPER
	RET

TEXT ·fmaY(SB), NOSPLIT, $0-8
	MOVQ n+0(FP), CX
	VXORPD Y12, Y12, Y12
	CHAINS(VXORPD, Y12, Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7, Y8, Y9, Y10, Y11)
	TESTQ CX, CX
	JLE fmaYdone
fmaYloop:
	CHAINS(VFMADD231PD, Y12, Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7, Y8, Y9, Y10, Y11)
	DECQ CX
	JNZ fmaYloop
fmaYdone:
	VZEROUPPER
	RET

// triadY(a, b, c *float64, n int, s float64) sets a[i] = b[i] + s·c[i] for
// i < n, n a multiple of 16, in 4-wide registers (AVX2 with FMA), sixteen
// values a turn: the triad whose bandwidth Roofline measures, with the
// vector loads and stores the solve kernels stream with, where a Go loop
// moves one value at a time and caps a cache's bandwidth at that.
TEXT ·triadY(SB), NOSPLIT, $0-40
	MOVQ a+0(FP), DI
	MOVQ b+8(FP), SI
	MOVQ c+16(FP), DX
	MOVQ n+24(FP), CX
	VBROADCASTSD s+32(FP), Y15
	SHRQ $4, CX
	JZ triadYdone
triadYloop:
	VMOVUPD 0(SI), Y0
	VMOVUPD 32(SI), Y1
	VMOVUPD 64(SI), Y2
	VMOVUPD 96(SI), Y3
	VFMADD231PD 0(DX), Y15, Y0
	VFMADD231PD 32(DX), Y15, Y1
	VFMADD231PD 64(DX), Y15, Y2
	VFMADD231PD 96(DX), Y15, Y3
	VMOVUPD Y0, 0(DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, 64(DI)
	VMOVUPD Y3, 96(DI)
	ADDQ $128, SI
	ADDQ $128, DX
	ADDQ $128, DI
	DECQ CX
	JNZ triadYloop
triadYdone:
	VZEROUPPER
	RET

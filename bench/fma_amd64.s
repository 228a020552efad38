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

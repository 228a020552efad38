//go:build amd64 && !noasm

#include "textflag.h"

// The solve's vector kernels (AVX2 and FMA, see kernels_amd64.go; with
// AVX-512 paths in fwdBlockAVX and bwd4AVX). The kernels for rows of 8,
// 16, 20, 24 and 32 values held whole in registers (…8AVX to …32AVX and
// their …RowsAVX entry points, AVX-512 only) and the 4-wide kernels of
// runs of one-column supernodes (…Quads1AVX to …Quads8AVX) are in
// kernels_rows_amd64.s, which asmgen writes. Each ends with VZEROUPPER:
// the Go code around them is scalar SSE, which runs slowly while the upper
// halves of the vector registers are in use.

// fwdrow<> subtracts from the row y = DI, quad by quad (R9 = nq quads),
// Σ_{k<nl} l[k]·x_k with l = SI and nl = CX, where quad q of x_k is at
// DX + q·R8 + 32k (the packed block of forwardAVX; R8 = 32·w): the
// products of eight columns at a time, then four, then the last three, two
// or one, split between two accumulators to shorten the chain of dependent
// multiply-adds. It
// clobbers CX, DX, SI, R10-R12 and Y0-Y9, and keeps the others.
TEXT fwdrow<>(SB), NOSPLIT|NOFRAME, $0
fchunk8:
	CMPQ CX, $8
	JLT fchunk4
	VBROADCASTSD 0(SI), Y0
	VBROADCASTSD 8(SI), Y1
	VBROADCASTSD 16(SI), Y2
	VBROADCASTSD 24(SI), Y3
	VBROADCASTSD 32(SI), Y4
	VBROADCASTSD 40(SI), Y5
	VBROADCASTSD 48(SI), Y6
	VBROADCASTSD 56(SI), Y7
	MOVQ DI, R10
	MOVQ DX, R11
	MOVQ R9, R12

floop8:
	VMOVUPD 0(R10), Y8
	VMULPD 32(R11), Y1, Y9
	VFNMADD231PD 0(R11), Y0, Y8
	VFMADD231PD 96(R11), Y3, Y9
	VFNMADD231PD 64(R11), Y2, Y8
	VFMADD231PD 160(R11), Y5, Y9
	VFNMADD231PD 128(R11), Y4, Y8
	VFMADD231PD 224(R11), Y7, Y9
	VFNMADD231PD 192(R11), Y6, Y8
	VSUBPD Y9, Y8, Y8
	VMOVUPD Y8, 0(R10)
	ADDQ $32, R10
	ADDQ R8, R11
	DECQ R12
	JNZ floop8
	ADDQ $64, SI
	ADDQ $256, DX
	SUBQ $8, CX
	JMP fchunk8

fchunk4:
	CMPQ CX, $4
	JLT fone
	VBROADCASTSD 0(SI), Y0
	VBROADCASTSD 8(SI), Y1
	VBROADCASTSD 16(SI), Y2
	VBROADCASTSD 24(SI), Y3
	MOVQ DI, R10
	MOVQ DX, R11
	MOVQ R9, R12

floop4:
	VMOVUPD 0(R10), Y8
	VMULPD 32(R11), Y1, Y9
	VFNMADD231PD 0(R11), Y0, Y8
	VFMADD231PD 96(R11), Y3, Y9
	VFNMADD231PD 64(R11), Y2, Y8
	VSUBPD Y9, Y8, Y8
	VMOVUPD Y8, 0(R10)
	ADDQ $32, R10
	ADDQ R8, R11
	DECQ R12
	JNZ floop4
	ADDQ $32, SI
	ADDQ $128, DX
	SUBQ $4, CX

fchunk3:
	CMPQ CX, $3
	JLT fchunk2
	VBROADCASTSD 0(SI), Y0
	VBROADCASTSD 8(SI), Y1
	VBROADCASTSD 16(SI), Y2
	MOVQ DI, R10
	MOVQ DX, R11
	MOVQ R9, R12

floop3:
	VMOVUPD 0(R10), Y8
	VMULPD 32(R11), Y1, Y9
	VFNMADD231PD 0(R11), Y0, Y8
	VFNMADD231PD 64(R11), Y2, Y8
	VSUBPD Y9, Y8, Y8
	VMOVUPD Y8, 0(R10)
	ADDQ $32, R10
	ADDQ R8, R11
	DECQ R12
	JNZ floop3
	RET

fchunk2:
	CMPQ CX, $2
	JLT fone
	VBROADCASTSD 0(SI), Y0
	VBROADCASTSD 8(SI), Y1
	MOVQ DI, R10
	MOVQ DX, R11
	MOVQ R9, R12

floop2:
	VMOVUPD 0(R10), Y8
	VMULPD 32(R11), Y1, Y9
	VFNMADD231PD 0(R11), Y0, Y8
	VSUBPD Y9, Y8, Y8
	VMOVUPD Y8, 0(R10)
	ADDQ $32, R10
	ADDQ R8, R11
	DECQ R12
	JNZ floop2
	RET

fone:
	TESTQ CX, CX
	JEQ fdone
	VBROADCASTSD 0(SI), Y0
	MOVQ DI, R10
	MOVQ DX, R11
	MOVQ R9, R12

floop1:
	VMOVUPD 0(R10), Y8
	VFNMADD231PD 0(R11), Y0, Y8
	VMOVUPD Y8, 0(R10)
	ADDQ $32, R10
	ADDQ R8, R11
	DECQ R12
	JNZ floop1
	ADDQ $8, SI
	ADDQ $32, DX
	DECQ CX
	JMP fone

fdone:
	RET

// FWD4COLn applies one column to the accumulators of four rows by n
// quads (row a, quad b in Y(3a+b)): l at SI (row stride R10, row 3 at
// R11), the column's quads of pk at DX (quad stride R8). Each accumulator
// takes one fused multiply-add per column whatever n is, so that a lane's
// arithmetic does not depend on the width of the block.
#define FWD4COL1 \
	VMOVUPD (DX), Y12 \
	VBROADCASTSD (SI), Y15 \
	VFNMADD231PD Y12, Y15, Y0 \
	VBROADCASTSD (SI)(R10*1), Y15 \
	VFNMADD231PD Y12, Y15, Y3 \
	VBROADCASTSD (SI)(R10*2), Y15 \
	VFNMADD231PD Y12, Y15, Y6 \
	VBROADCASTSD (SI)(R11*1), Y15 \
	VFNMADD231PD Y12, Y15, Y9

#define FWD4COL2 \
	VMOVUPD (DX), Y12 \
	VMOVUPD (DX)(R8*1), Y13 \
	VBROADCASTSD (SI), Y15 \
	VFNMADD231PD Y12, Y15, Y0 \
	VFNMADD231PD Y13, Y15, Y1 \
	VBROADCASTSD (SI)(R10*1), Y15 \
	VFNMADD231PD Y12, Y15, Y3 \
	VFNMADD231PD Y13, Y15, Y4 \
	VBROADCASTSD (SI)(R10*2), Y15 \
	VFNMADD231PD Y12, Y15, Y6 \
	VFNMADD231PD Y13, Y15, Y7 \
	VBROADCASTSD (SI)(R11*1), Y15 \
	VFNMADD231PD Y12, Y15, Y9 \
	VFNMADD231PD Y13, Y15, Y10

#define FWD4COL3 \
	VMOVUPD (DX), Y12 \
	VMOVUPD (DX)(R8*1), Y13 \
	VMOVUPD (DX)(R8*2), Y14 \
	VBROADCASTSD (SI), Y15 \
	VFNMADD231PD Y12, Y15, Y0 \
	VFNMADD231PD Y13, Y15, Y1 \
	VFNMADD231PD Y14, Y15, Y2 \
	VBROADCASTSD (SI)(R10*1), Y15 \
	VFNMADD231PD Y12, Y15, Y3 \
	VFNMADD231PD Y13, Y15, Y4 \
	VFNMADD231PD Y14, Y15, Y5 \
	VBROADCASTSD (SI)(R10*2), Y15 \
	VFNMADD231PD Y12, Y15, Y6 \
	VFNMADD231PD Y13, Y15, Y7 \
	VFNMADD231PD Y14, Y15, Y8 \
	VBROADCASTSD (SI)(R11*1), Y15 \
	VFNMADD231PD Y12, Y15, Y9 \
	VFNMADD231PD Y13, Y15, Y10 \
	VFNMADD231PD Y14, Y15, Y11

// ROWADDR sets AX to quad q0 of row rows[j+a] of x: BX = &rows[j],
// R9 = bytes per row of x, R12 = 32·q0.
#define ROWADDR(a) \
	MOVLQSX (4*a)(BX), AX \
	IMULQ R9, AX \
	ADDQ x+0(FP), AX \
	ADDQ R12, AX

// LOAD4 loads the vector at byte off of each of the four rows' groups
// (ROWADDR) into r0..r3; STORE4 stores r0..r3 there.
#define LOAD4(off, r0, r1, r2, r3) \
	ROWADDR(0) \
	VMOVUPD off(AX), r0 \
	ROWADDR(1) \
	VMOVUPD off(AX), r1 \
	ROWADDR(2) \
	VMOVUPD off(AX), r2 \
	ROWADDR(3) \
	VMOVUPD off(AX), r3

#define STORE4(off, r0, r1, r2, r3) \
	ROWADDR(0) \
	VMOVUPD r0, off(AX) \
	ROWADDR(1) \
	VMOVUPD r1, off(AX) \
	ROWADDR(2) \
	VMOVUPD r2, off(AX) \
	ROWADDR(3) \
	VMOVUPD r3, off(AX)

// LOADZ2 loads the four quads of the group (ROWADDR) of row j+a into the
// 8-wide registers z0 and z1; STOREZ2 stores them there.
#define LOADZ2(a, z0, z1) \
	ROWADDR(a) \
	VMOVUPD 0(AX), z0 \
	VMOVUPD 64(AX), z1

#define STOREZ2(a, z0, z1) \
	ROWADDR(a) \
	VMOVUPD z0, 0(AX) \
	VMOVUPD z1, 64(AX)

// FNMAZ2 broadcasts the factor entry at addr into b and subtracts its
// products with pk's joined quads (Z16, Z17) from z0 and z1.
#define FNMAZ2(addr, b, z0, z1) \
	VBROADCASTSD addr, b \
	VFNMADD231PD Z16, b, z0 \
	VFNMADD231PD Z17, b, z1

// COLSETUP prepares the loop over the nk columns for the four rows from j
// (R13): SI = &l[j·w], R10 and R11 one and three rows of l in bytes, DX =
// quad q0 (R12 = 32·q0) of row 0 of pk, CX = nk, with the flags of CX.
#define COLSETUP \
	MOVQ w+48(FP), R10 \
	SHLQ $3, R10 \
	LEAQ (R10)(R10*2), R11 \
	MOVQ R13, SI \
	IMULQ R10, SI \
	ADDQ l+24(FP), SI \
	MOVQ R12, DX \
	IMULQ w+48(FP), DX \
	ADDQ pk+32(FP), DX \
	MOVQ nk+40(FP), CX \
	TESTQ CX, CX

// func fwdBlockAVX(x *float64, rows *int32, nr int, l *float64, pk *float64, nk int, w int, nq int, wide bool)
//
// For j < nr, row i = rows[j] of the block x (4·nq values a row):
// x_i −= Σ_{k<nk} l[j·w+k]·(row k of the packed block pk, quad q at
// pk[4(q·w+k)]). Four rows by three quads at a time stay in registers
// while the nk columns are applied, each (row, quad) one chain of
// multiply-adds in k order, so that every quad of pk loaded serves four
// rows and the rows are loaded and stored once; the rows left over go
// through fwdrow<>. With wide (AVX-512), groups of four quads come first,
// and two quads are one 8-wide register, with the same operations in each
// lane; a group of four quads takes eight rows at a time when the panel
// has at most 64 columns (nk), each quad of pk then serving eight rows.
TEXT ·fwdBlockAVX(SB), NOSPLIT, $24-65
	MOVQ w+48(FP), R8
	SHLQ $5, R8 // bytes per quad of pk
	MOVQ nq+56(FP), AX
	MOVQ AX, q-8(SP) // quads left
	MOVQ $0, o-24(SP) // 32·q0, q0 the group's first quad

fbgroup:
	MOVQ q-8(SP), AX
	TESTQ AX, AX
	JEQ fbdone
	XORQ R13, R13 // j
	CMPB wide+64(FP), $0
	JEQ fbgroup3
	// 8-wide: four quads at a time while they last.
	CMPQ AX, $4
	JLT fbgroup3
	MOVQ $4, grp-16(SP)
	JMP fbrows4

fbgroup3:
	CMPQ AX, $3
	JLT fbsmall
	MOVQ $3, grp-16(SP) // quads in the group
	JMP fbrows4

fbsmall:
	MOVQ AX, grp-16(SP)
	JMP fbrows4

fbrows4:
	MOVQ nr+16(FP), AX
	SUBQ R13, AX
	CMPQ AX, $4
	JLT fbone
	MOVQ nq+56(FP), R9
	SHLQ $5, R9 // bytes per row of x
	MOVQ o-24(SP), R12
	MOVQ R13, BX
	SHLQ $2, BX
	ADDQ rows+8(FP), BX // &rows[j]
	CMPB wide+64(FP), $0
	JEQ fbnarrow
	CMPQ grp-16(SP), $2
	JGE fbwide

fbnarrow:
	// The four rows' quads of the group, in registers until stored.
	LOAD4(0, Y0, Y3, Y6, Y9)
	CMPQ grp-16(SP), $2
	JLT fbload
	LOAD4(32, Y1, Y4, Y7, Y10)
	CMPQ grp-16(SP), $3
	JLT fbload
	LOAD4(64, Y2, Y5, Y8, Y11)

fbload:
	COLSETUP
	JEQ fbstore
	CMPQ grp-16(SP), $2
	JLT fbcol1
	JEQ fbcol2
fbcol3:
	FWD4COL3
	ADDQ $8, SI
	ADDQ $32, DX
	DECQ CX
	JNZ fbcol3
	JMP fbstore

fbcol2:
	FWD4COL2
	ADDQ $8, SI
	ADDQ $32, DX
	DECQ CX
	JNZ fbcol2
	JMP fbstore

fbcol1:
	FWD4COL1
	ADDQ $8, SI
	ADDQ $32, DX
	DECQ CX
	JNZ fbcol1

fbstore:
	STORE4(0, Y0, Y3, Y6, Y9)
	CMPQ grp-16(SP), $2
	JLT fbstored
	STORE4(32, Y1, Y4, Y7, Y10)
	CMPQ grp-16(SP), $3
	JLT fbstored
	STORE4(64, Y2, Y5, Y8, Y11)

fbstored:
	ADDQ $4, R13
	JMP fbrows4

fbwide:
	CMPQ grp-16(SP), $4
	JEQ fbwide4
	// Two or three quads of four rows: row a's first two quads in Za,
	// its third in Y(4+a); pk's first two quads are joined into Z12.
	LOAD4(0, Z0, Z1, Z2, Z3)
	CMPQ grp-16(SP), $3
	JLT fbwload
	LOAD4(64, Y4, Y5, Y6, Y7)

fbwload:
	COLSETUP
	JEQ fbwstore
	CMPQ grp-16(SP), $3
	JLT fbwcol2

fbwcol3:
	VMOVUPD (DX), Y12
	VINSERTF64X4 $1, (DX)(R8*1), Z12, Z12
	VMOVUPD (DX)(R8*2), Y14
	VBROADCASTSD (SI), Z15
	VFNMADD231PD Z12, Z15, Z0
	VFNMADD231PD Y14, Y15, Y4
	VBROADCASTSD (SI)(R10*1), Z15
	VFNMADD231PD Z12, Z15, Z1
	VFNMADD231PD Y14, Y15, Y5
	VBROADCASTSD (SI)(R10*2), Z15
	VFNMADD231PD Z12, Z15, Z2
	VFNMADD231PD Y14, Y15, Y6
	VBROADCASTSD (SI)(R11*1), Z15
	VFNMADD231PD Z12, Z15, Z3
	VFNMADD231PD Y14, Y15, Y7
	ADDQ $8, SI
	ADDQ $32, DX
	DECQ CX
	JNZ fbwcol3
	JMP fbwstore

fbwcol2:
	VMOVUPD (DX), Y12
	VINSERTF64X4 $1, (DX)(R8*1), Z12, Z12
	VBROADCASTSD (SI), Z15
	VFNMADD231PD Z12, Z15, Z0
	VBROADCASTSD (SI)(R10*1), Z15
	VFNMADD231PD Z12, Z15, Z1
	VBROADCASTSD (SI)(R10*2), Z15
	VFNMADD231PD Z12, Z15, Z2
	VBROADCASTSD (SI)(R11*1), Z15
	VFNMADD231PD Z12, Z15, Z3
	ADDQ $8, SI
	ADDQ $32, DX
	DECQ CX
	JNZ fbwcol2

fbwstore:
	STORE4(0, Z0, Z1, Z2, Z3)
	CMPQ grp-16(SP), $3
	JLT fbstored
	STORE4(64, Y4, Y5, Y6, Y7)
	JMP fbstored

fbwide4:
	// Eight rows at a time while eight are left and the panel has at most
	// 64 columns (fbwide8), else four.
	MOVQ nr+16(FP), AX
	SUBQ R13, AX
	CMPQ AX, $8
	JLT fbwide4rows
	CMPQ nk+40(FP), $64
	JLE fbwide8

fbwide4rows:
	// Four quads of four rows: row a's quads 0-1 in Za, 2-3 in Z(4+a);
	// pk's quads are joined pairwise into Z12 and Z13.
	LOAD4(0, Z0, Z1, Z2, Z3)
	LOAD4(64, Z4, Z5, Z6, Z7)
	LEAQ (R8)(R8*2), DI // bytes to quad 3 of pk
	COLSETUP
	JEQ fbw4store

fbwcol4:
	VMOVUPD (DX), Y12
	VINSERTF64X4 $1, (DX)(R8*1), Z12, Z12
	VMOVUPD (DX)(R8*2), Y13
	VINSERTF64X4 $1, (DX)(DI*1), Z13, Z13
	VBROADCASTSD (SI), Z15
	VFNMADD231PD Z12, Z15, Z0
	VFNMADD231PD Z13, Z15, Z4
	VBROADCASTSD (SI)(R10*1), Z15
	VFNMADD231PD Z12, Z15, Z1
	VFNMADD231PD Z13, Z15, Z5
	VBROADCASTSD (SI)(R10*2), Z15
	VFNMADD231PD Z12, Z15, Z2
	VFNMADD231PD Z13, Z15, Z6
	VBROADCASTSD (SI)(R11*1), Z15
	VFNMADD231PD Z12, Z15, Z3
	VFNMADD231PD Z13, Z15, Z7
	ADDQ $8, SI
	ADDQ $32, DX
	DECQ CX
	JNZ fbwcol4

fbw4store:
	STORE4(0, Z0, Z1, Z2, Z3)
	STORE4(64, Z4, Z5, Z6, Z7)
	JMP fbstored

fbwide8:
	// Four quads of eight rows: row a's quads 0-1 in Z(2a), 2-3 in
	// Z(2a+1); pk's quads are joined pairwise into Z16 and Z17, so that
	// each serves eight rows. Eight rows of l are eight streams w entries
	// apart: with a whole wide supernode (a 32³ factor's top, hundreds of
	// columns) they ran slower than four rows, hence the bound on nk.
	LOADZ2(0, Z0, Z1)
	LOADZ2(1, Z2, Z3)
	LOADZ2(2, Z4, Z5)
	LOADZ2(3, Z6, Z7)
	LOADZ2(4, Z8, Z9)
	LOADZ2(5, Z10, Z11)
	LOADZ2(6, Z12, Z13)
	LOADZ2(7, Z14, Z15)
	LEAQ (R8)(R8*2), DI // bytes to quad 3 of pk
	COLSETUP
	JEQ fbw8store
	LEAQ (SI)(R10*4), AX // &l[(j+4)·w]

fbwcol8:
	VMOVUPD (DX), Y16
	VINSERTF64X4 $1, (DX)(R8*1), Z16, Z16
	VMOVUPD (DX)(R8*2), Y17
	VINSERTF64X4 $1, (DX)(DI*1), Z17, Z17
	FNMAZ2((SI), Z18, Z0, Z1)
	FNMAZ2((SI)(R10*1), Z19, Z2, Z3)
	FNMAZ2((SI)(R10*2), Z20, Z4, Z5)
	FNMAZ2((SI)(R11*1), Z21, Z6, Z7)
	FNMAZ2((AX), Z22, Z8, Z9)
	FNMAZ2((AX)(R10*1), Z23, Z10, Z11)
	FNMAZ2((AX)(R10*2), Z24, Z12, Z13)
	FNMAZ2((AX)(R11*1), Z25, Z14, Z15)
	ADDQ $8, SI
	ADDQ $8, AX
	ADDQ $32, DX
	DECQ CX
	JNZ fbwcol8

fbw8store:
	STOREZ2(0, Z0, Z1)
	STOREZ2(1, Z2, Z3)
	STOREZ2(2, Z4, Z5)
	STOREZ2(3, Z6, Z7)
	STOREZ2(4, Z8, Z9)
	STOREZ2(5, Z10, Z11)
	STOREZ2(6, Z12, Z13)
	STOREZ2(7, Z14, Z15)
	ADDQ $4, R13 // and four more at fbstored
	JMP fbstored

fbone:
	// The rows left, one at a time, on the group's quads.
	CMPQ R13, nr+16(FP)
	JGE fbnext
	MOVQ R13, BX
	SHLQ $2, BX
	ADDQ rows+8(FP), BX
	MOVLQSX (BX), DI
	IMULQ nq+56(FP), DI
	SHLQ $5, DI
	ADDQ x+0(FP), DI
	ADDQ o-24(SP), DI // quad q0 of row rows[j]
	MOVQ R13, SI
	IMULQ w+48(FP), SI
	SHLQ $3, SI
	ADDQ l+24(FP), SI // &l[j·w]
	MOVQ o-24(SP), DX
	IMULQ w+48(FP), DX
	ADDQ pk+32(FP), DX // quad q0 of row 0 of pk
	MOVQ nk+40(FP), CX
	MOVQ grp-16(SP), R9
	CALL fwdrow<>(SB)
	INCQ R13
	JMP fbone

fbnext:
	MOVQ grp-16(SP), AX
	SUBQ AX, q-8(SP)
	SHLQ $5, AX
	ADDQ AX, o-24(SP)
	JMP fbgroup

fbdone:
	VZEROUPPER
	RET

// func fwdDiagAVX(x1 *float64, l *float64, w int, ld int, pk *float64, dinv *float64, nq int)
//
// Solves the triangle of w columns of a supernode's diagonal block in
// place: for r < w, x_r = (x_r − Σ_{k<r} l[r·ld+k]·x_k)·dinv[r], with x_r
// the row r of x1 (4·nq values), copying each solved row into the packed
// block pk (quad q of row r at pk[4(q·ld+r)]); ld is the row stride of l.
TEXT ·fwdDiagAVX(SB), NOSPLIT, $0-56
	MOVQ ld+24(FP), R8
	SHLQ $5, R8
	MOVQ nq+48(FP), R9
	MOVQ dinv+40(FP), BX
	XORQ AX, AX // r

fdloop:
	CMPQ AX, w+16(FP)
	JGE fddone
	MOVQ AX, DI
	IMULQ R9, DI
	SHLQ $5, DI
	ADDQ x1+0(FP), DI // x_r
	MOVQ AX, SI
	IMULQ ld+24(FP), SI
	SHLQ $3, SI
	ADDQ l+8(FP), SI // &l[r·ld]
	MOVQ AX, CX
	MOVQ pk+32(FP), DX
	CALL fwdrow<>(SB)
	VBROADCASTSD (BX)(AX*8), Y0
	MOVQ AX, R10
	SHLQ $5, R10
	ADDQ pk+32(FP), R10 // quad 0 of row r in pk
	MOVQ R9, R12

fdscale:
	VMULPD 0(DI), Y0, Y1
	VMOVUPD Y1, 0(DI)
	VMOVUPD Y1, 0(R10)
	ADDQ $32, DI
	ADDQ R8, R10
	DECQ R12
	JNZ fdscale
	INCQ AX
	JMP fdloop

fddone:
	VZEROUPPER
	RET

// SUBROWn subtracts the accumulators from the row of a at AX, whose
// quads go through Y12-Y14 (Y8-Y9 for SUBROW2 and SUBROW1); the Z and ZY
// forms take the row's first two quads as one 8-wide vector.
#define SUBROW3(r0, r1, r2) \
	VMOVUPD 0(AX), Y12 \
	VMOVUPD 32(AX), Y13 \
	VMOVUPD 64(AX), Y14 \
	VSUBPD r0, Y12, Y12 \
	VSUBPD r1, Y13, Y13 \
	VSUBPD r2, Y14, Y14 \
	VMOVUPD Y12, 0(AX) \
	VMOVUPD Y13, 32(AX) \
	VMOVUPD Y14, 64(AX)

#define SUBROWZY(z, y) \
	VMOVUPD 0(AX), Z12 \
	VMOVUPD 64(AX), Y13 \
	VSUBPD z, Z12, Z12 \
	VSUBPD y, Y13, Y13 \
	VMOVUPD Z12, 0(AX) \
	VMOVUPD Y13, 64(AX)

#define SUBROW2(r0, r1) \
	VMOVUPD 0(AX), Y8 \
	VMOVUPD 32(AX), Y9 \
	VSUBPD r0, Y8, Y8 \
	VSUBPD r1, Y9, Y9 \
	VMOVUPD Y8, 0(AX) \
	VMOVUPD Y9, 32(AX)

#define SUBROWZ(z) \
	VMOVUPD 0(AX), Z12 \
	VSUBPD z, Z12, Z12 \
	VMOVUPD Z12, 0(AX)

#define SUBROW1(r) \
	VMOVUPD 0(AX), Y8 \
	VSUBPD r, Y8, Y8 \
	VMOVUPD Y8, 0(AX)

// func bwd4AVX(a *float64, x *float64, below *int32, nr int, l *float64, w int, cw int, nq int, wide bool)
//
// For the four rows a_j = a[j·cw:] (j < 4) and every quad q < nq:
// a_j[4q:4q+4] -= Σ_{r<nr} l[r·w+j]·x[below[r]·cw+4q:+4], each sum taken
// from r = nr−1 down to 0 (nr ≥ 1) in an accumulator of its own and
// subtracted once: three quads at a time while they last, then two, then
// one, with the same arithmetic in every lane. With wide (AVX-512), two
// quads are one 8-wide register, taken two at a time (three, as an 8-wide
// and a 4-wide register, when three are left). Each row prefetches the
// factor entries of the row 16 on, as the generated bwdNx kernels do
// (for the first 16 rows, walked last, an address before l: a prefetch
// never faults).
TEXT ·bwd4AVX(SB), NOSPLIT, $8-65
	MOVQ a+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ below+16(FP), BX
	MOVQ nr+24(FP), CX
	MOVQ l+32(FP), DX
	MOVQ w+40(FP), R8
	SHLQ $3, R8 // bytes per row of l
	MOVQ R8, AX
	SHLQ $4, AX
	MOVQ AX, ahead-8(SP) // 16 rows of l: how far ahead each row prefetches
	MOVQ cw+48(FP), R9
	SHLQ $3, R9 // bytes per row of a and x
	MOVQ nq+56(FP), R10
	MOVQ CX, R13
	DECQ R13
	IMULQ R8, R13
	ADDQ DX, R13 // &l[(nr-1)·w]
	XORQ R11, R11 // byte offset of the quad

b4triple:
	CMPB wide+64(FP), $0
	JNE b4wide
	CMPQ R10, $3
	JLT b4pair
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	VXORPD Y8, Y8, Y8
	VXORPD Y9, Y9, Y9
	VXORPD Y10, Y10, Y10
	VXORPD Y11, Y11, Y11
	MOVQ CX, R12
	MOVQ R13, DX

b4rows3:
	MOVQ DX, AX
	SUBQ ahead-8(SP), AX
	PREFETCHT0 (AX)
	PREFETCHT0 24(AX)
	DECQ R12
	MOVLQSX (BX)(R12*4), AX
	IMULQ R9, AX
	ADDQ SI, AX
	ADDQ R11, AX
	VMOVUPD 0(AX), Y12
	VMOVUPD 32(AX), Y13
	VMOVUPD 64(AX), Y14
	VBROADCASTSD 0(DX), Y15
	VFMADD231PD Y12, Y15, Y0
	VFMADD231PD Y13, Y15, Y1
	VFMADD231PD Y14, Y15, Y2
	VBROADCASTSD 8(DX), Y15
	VFMADD231PD Y12, Y15, Y3
	VFMADD231PD Y13, Y15, Y4
	VFMADD231PD Y14, Y15, Y5
	VBROADCASTSD 16(DX), Y15
	VFMADD231PD Y12, Y15, Y6
	VFMADD231PD Y13, Y15, Y7
	VFMADD231PD Y14, Y15, Y8
	VBROADCASTSD 24(DX), Y15
	VFMADD231PD Y12, Y15, Y9
	VFMADD231PD Y13, Y15, Y10
	VFMADD231PD Y14, Y15, Y11
	SUBQ R8, DX
	TESTQ R12, R12
	JNZ b4rows3
	LEAQ (DI)(R11*1), AX
	SUBROW3(Y0, Y1, Y2)
	ADDQ R9, AX
	SUBROW3(Y3, Y4, Y5)
	ADDQ R9, AX
	SUBROW3(Y6, Y7, Y8)
	ADDQ R9, AX
	SUBROW3(Y9, Y10, Y11)
	ADDQ $96, R11
	SUBQ $3, R10
	JMP b4triple

b4wide:
	// 8-wide: two quads at a time, three when three are left.
	CMPQ R10, $3
	JEQ b4tripleZ
	CMPQ R10, $2
	JGE b4pairZ
	JMP b4single

b4tripleZ:
	// Column j's quads 0-1 in Zj, quad 2 in Y(4+j).
	VPXORQ Z0, Z0, Z0
	VPXORQ Z1, Z1, Z1
	VPXORQ Z2, Z2, Z2
	VPXORQ Z3, Z3, Z3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	MOVQ CX, R12
	MOVQ R13, DX

b4rows3Z:
	MOVQ DX, AX
	SUBQ ahead-8(SP), AX
	PREFETCHT0 (AX)
	PREFETCHT0 24(AX)
	DECQ R12
	MOVLQSX (BX)(R12*4), AX
	IMULQ R9, AX
	ADDQ SI, AX
	ADDQ R11, AX
	VMOVUPD 0(AX), Z12
	VMOVUPD 64(AX), Y13
	VBROADCASTSD 0(DX), Z15
	VFMADD231PD Z12, Z15, Z0
	VFMADD231PD Y13, Y15, Y4
	VBROADCASTSD 8(DX), Z15
	VFMADD231PD Z12, Z15, Z1
	VFMADD231PD Y13, Y15, Y5
	VBROADCASTSD 16(DX), Z15
	VFMADD231PD Z12, Z15, Z2
	VFMADD231PD Y13, Y15, Y6
	VBROADCASTSD 24(DX), Z15
	VFMADD231PD Z12, Z15, Z3
	VFMADD231PD Y13, Y15, Y7
	SUBQ R8, DX
	TESTQ R12, R12
	JNZ b4rows3Z
	LEAQ (DI)(R11*1), AX
	SUBROWZY(Z0, Y4)
	ADDQ R9, AX
	SUBROWZY(Z1, Y5)
	ADDQ R9, AX
	SUBROWZY(Z2, Y6)
	ADDQ R9, AX
	SUBROWZY(Z3, Y7)
	ADDQ $96, R11
	SUBQ $3, R10
	JMP b4triple

b4pair:
	CMPQ R10, $2
	JLT b4single
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	MOVQ CX, R12
	MOVQ R13, DX

b4rows2:
	MOVQ DX, AX
	SUBQ ahead-8(SP), AX
	PREFETCHT0 (AX)
	PREFETCHT0 24(AX)
	DECQ R12
	MOVLQSX (BX)(R12*4), AX
	IMULQ R9, AX
	ADDQ SI, AX
	ADDQ R11, AX
	VMOVUPD 0(AX), Y8
	VMOVUPD 32(AX), Y9
	VBROADCASTSD 0(DX), Y10
	VBROADCASTSD 8(DX), Y11
	VBROADCASTSD 16(DX), Y12
	VBROADCASTSD 24(DX), Y13
	VFMADD231PD Y8, Y10, Y0
	VFMADD231PD Y9, Y10, Y1
	VFMADD231PD Y8, Y11, Y2
	VFMADD231PD Y9, Y11, Y3
	VFMADD231PD Y8, Y12, Y4
	VFMADD231PD Y9, Y12, Y5
	VFMADD231PD Y8, Y13, Y6
	VFMADD231PD Y9, Y13, Y7
	SUBQ R8, DX
	TESTQ R12, R12
	JNZ b4rows2
	LEAQ (DI)(R11*1), AX
	SUBROW2(Y0, Y1)
	ADDQ R9, AX
	SUBROW2(Y2, Y3)
	ADDQ R9, AX
	SUBROW2(Y4, Y5)
	ADDQ R9, AX
	SUBROW2(Y6, Y7)
	ADDQ $64, R11
	SUBQ $2, R10
	JMP b4pair

b4pairZ:
	// Column j's two quads in Zj.
	VPXORQ Z0, Z0, Z0
	VPXORQ Z1, Z1, Z1
	VPXORQ Z2, Z2, Z2
	VPXORQ Z3, Z3, Z3
	MOVQ CX, R12
	MOVQ R13, DX

b4rows2Z:
	MOVQ DX, AX
	SUBQ ahead-8(SP), AX
	PREFETCHT0 (AX)
	PREFETCHT0 24(AX)
	DECQ R12
	MOVLQSX (BX)(R12*4), AX
	IMULQ R9, AX
	ADDQ SI, AX
	ADDQ R11, AX
	VMOVUPD 0(AX), Z12
	VBROADCASTSD 0(DX), Z15
	VFMADD231PD Z12, Z15, Z0
	VBROADCASTSD 8(DX), Z15
	VFMADD231PD Z12, Z15, Z1
	VBROADCASTSD 16(DX), Z15
	VFMADD231PD Z12, Z15, Z2
	VBROADCASTSD 24(DX), Z15
	VFMADD231PD Z12, Z15, Z3
	SUBQ R8, DX
	TESTQ R12, R12
	JNZ b4rows2Z
	LEAQ (DI)(R11*1), AX
	SUBROWZ(Z0)
	ADDQ R9, AX
	SUBROWZ(Z1)
	ADDQ R9, AX
	SUBROWZ(Z2)
	ADDQ R9, AX
	SUBROWZ(Z3)
	ADDQ $64, R11
	SUBQ $2, R10
	JMP b4wide

b4single:
	TESTQ R10, R10
	JEQ b4done
	VXORPD Y0, Y0, Y0
	VXORPD Y2, Y2, Y2
	VXORPD Y4, Y4, Y4
	VXORPD Y6, Y6, Y6
	MOVQ CX, R12
	MOVQ R13, DX

b4rows1:
	MOVQ DX, AX
	SUBQ ahead-8(SP), AX
	PREFETCHT0 (AX)
	PREFETCHT0 24(AX)
	DECQ R12
	MOVLQSX (BX)(R12*4), AX
	IMULQ R9, AX
	ADDQ SI, AX
	ADDQ R11, AX
	VMOVUPD 0(AX), Y8
	VBROADCASTSD 0(DX), Y10
	VBROADCASTSD 8(DX), Y11
	VBROADCASTSD 16(DX), Y12
	VBROADCASTSD 24(DX), Y13
	VFMADD231PD Y8, Y10, Y0
	VFMADD231PD Y8, Y11, Y2
	VFMADD231PD Y8, Y12, Y4
	VFMADD231PD Y8, Y13, Y6
	SUBQ R8, DX
	TESTQ R12, R12
	JNZ b4rows1
	LEAQ (DI)(R11*1), AX
	SUBROW1(Y0)
	ADDQ R9, AX
	SUBROW1(Y2)
	ADDQ R9, AX
	SUBROW1(Y4)
	ADDQ R9, AX
	SUBROW1(Y6)

b4done:
	VZEROUPPER
	RET

// bwd1<> subtracts from the row a = DI, for every quad q < nq = R10, its
// products Σ_{r<nr} l[r·w]·x[below[r]·cw+4q:+4] with x = SI, below = BX,
// nr = CX ≥ 1, l = DX, R8 = 8·w and R9 = 8·cw, each sum taken from r = nr−1
// down to 0: four quads at a time, then two, then one. It clobbers AX, DX,
// R10-R13, Y0-Y3, Y8 and Y10, and keeps the others.
TEXT bwd1<>(SB), NOSPLIT|NOFRAME, $0
	MOVQ CX, R13
	DECQ R13
	IMULQ R8, R13
	ADDQ DX, R13
	XORQ R11, R11

b1four:
	CMPQ R10, $4
	JLT b1pair
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	MOVQ CX, R12
	MOVQ R13, DX

b1rows4:
	DECQ R12
	MOVLQSX (BX)(R12*4), AX
	IMULQ R9, AX
	ADDQ SI, AX
	ADDQ R11, AX
	VBROADCASTSD 0(DX), Y10
	VFMADD231PD 0(AX), Y10, Y0
	VFMADD231PD 32(AX), Y10, Y1
	VFMADD231PD 64(AX), Y10, Y2
	VFMADD231PD 96(AX), Y10, Y3
	SUBQ R8, DX
	TESTQ R12, R12
	JNZ b1rows4
	LEAQ (DI)(R11*1), AX
	VMOVUPD 0(AX), Y8
	VSUBPD Y0, Y8, Y8
	VMOVUPD Y8, 0(AX)
	VMOVUPD 32(AX), Y8
	VSUBPD Y1, Y8, Y8
	VMOVUPD Y8, 32(AX)
	VMOVUPD 64(AX), Y8
	VSUBPD Y2, Y8, Y8
	VMOVUPD Y8, 64(AX)
	VMOVUPD 96(AX), Y8
	VSUBPD Y3, Y8, Y8
	VMOVUPD Y8, 96(AX)
	ADDQ $128, R11
	SUBQ $4, R10
	JMP b1four

b1pair:
	CMPQ R10, $2
	JLT b1single
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	MOVQ CX, R12
	MOVQ R13, DX

b1rows2:
	DECQ R12
	MOVLQSX (BX)(R12*4), AX
	IMULQ R9, AX
	ADDQ SI, AX
	ADDQ R11, AX
	VBROADCASTSD 0(DX), Y10
	VFMADD231PD 0(AX), Y10, Y0
	VFMADD231PD 32(AX), Y10, Y1
	SUBQ R8, DX
	TESTQ R12, R12
	JNZ b1rows2
	LEAQ (DI)(R11*1), AX
	VMOVUPD 0(AX), Y8
	VSUBPD Y0, Y8, Y8
	VMOVUPD Y8, 0(AX)
	VMOVUPD 32(AX), Y8
	VSUBPD Y1, Y8, Y8
	VMOVUPD Y8, 32(AX)
	ADDQ $64, R11
	SUBQ $2, R10

b1single:
	TESTQ R10, R10
	JEQ b1done
	VXORPD Y0, Y0, Y0
	MOVQ CX, R12
	MOVQ R13, DX

b1rows1:
	DECQ R12
	MOVLQSX (BX)(R12*4), AX
	IMULQ R9, AX
	ADDQ SI, AX
	ADDQ R11, AX
	VBROADCASTSD 0(DX), Y10
	VFMADD231PD 0(AX), Y10, Y0
	SUBQ R8, DX
	TESTQ R12, R12
	JNZ b1rows1
	LEAQ (DI)(R11*1), AX
	VMOVUPD 0(AX), Y8
	VSUBPD Y0, Y8, Y8
	VMOVUPD Y8, 0(AX)
	ADDQ $32, R11
	DECQ R10
	JMP b1single

b1done:
	RET

// func bwd1AVX(a *float64, x *float64, below *int32, nr int, l *float64, w int, cw int, nq int)
//
// bwd4AVX for the one row a (see bwd1<>).
TEXT ·bwd1AVX(SB), NOSPLIT, $0-64
	MOVQ a+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ below+16(FP), BX
	MOVQ nr+24(FP), CX
	MOVQ l+32(FP), DX
	MOVQ w+40(FP), R8
	SHLQ $3, R8
	MOVQ cw+48(FP), R9
	SHLQ $3, R9
	MOVQ nq+56(FP), R10
	CALL bwd1<>(SB)
	VZEROUPPER
	RET

// func bwdDiagAVX(x *float64, own *int32, x1 *float64, l *float64, w int, ld int, dinv *float64, cw int)
//
// Solves the transposed triangle of w columns of a supernode's diagonal
// block in place: for r from w−1 down to 0,
// x_r = (x_r − Σ_{r<i<w} l[i·ld+r]·x_i)·dinv[r], where x_i is row own[i]
// of x and row i of x1 (cw values, a multiple of 4) and ld is the row
// stride of l.
TEXT ·bwdDiagAVX(SB), NOSPLIT, $8-64
	MOVQ w+32(FP), AX
	DECQ AX

bdloop:
	TESTQ AX, AX
	JLT bddone
	MOVQ AX, r-8(SP)
	MOVQ cw+56(FP), R9
	SHLQ $3, R9
	MOVQ AX, DI
	IMULQ R9, DI
	ADDQ x1+16(FP), DI // x_r
	MOVQ w+32(FP), CX
	SUBQ AX, CX
	DECQ CX // w−1−r rows below r
	JEQ bdscale
	MOVQ x+0(FP), SI
	MOVQ own+8(FP), BX
	LEAQ 4(BX)(AX*4), BX // &own[r+1]
	MOVQ ld+40(FP), R8
	MOVQ AX, DX
	INCQ DX
	IMULQ R8, DX
	ADDQ AX, DX
	SHLQ $3, DX
	ADDQ l+24(FP), DX // &l[(r+1)·ld+r]
	SHLQ $3, R8
	MOVQ R9, R10
	SHRQ $5, R10 // nq
	CALL bwd1<>(SB)
	MOVQ r-8(SP), AX

bdscale:
	MOVQ dinv+48(FP), BX
	VBROADCASTSD (BX)(AX*8), Y0
	MOVQ cw+56(FP), R12
	SHRQ $2, R12

bdquad:
	VMULPD 0(DI), Y0, Y1
	VMOVUPD Y1, 0(DI)
	ADDQ $32, DI
	DECQ R12
	JNZ bdquad
	DECQ AX
	JMP bdloop

bddone:
	VZEROUPPER
	RET

// func edgeDotAVX(acc *float64, u *float64, w *float64, from *int, to *int, pinv *int, ne int, nq int, rb int)
//
// For e < ne, with rows i = pinv[from[e]] and j = pinv[to[e]] of the
// vertex-major blocks u and w (rows rb bytes apart, 4·nq values of each
// taken): acc[e] += Σ_k (u_i[k]−u_j[k])·(w_i[k]−w_j[k]), the quads'
// products summed lane by lane (a multiply, then fused multiply-adds), then
// the lanes as (l0+l2)+(l1+l3).
TEXT ·edgeDotAVX(SB), NOSPLIT, $0-72
	MOVQ acc+0(FP), DI
	MOVQ u+8(FP), SI
	MOVQ w+16(FP), DX
	MOVQ from+24(FP), R8
	MOVQ to+32(FP), R9
	MOVQ pinv+40(FP), R10
	MOVQ ne+48(FP), CX
	MOVQ nq+56(FP), R11
	MOVQ rb+64(FP), R12
	TESTQ CX, CX
	JEQ edone

eloop:
	MOVQ 0(R8), AX
	MOVQ (R10)(AX*8), AX
	IMULQ R12, AX // row i
	MOVQ 0(R9), BX
	MOVQ (R10)(BX*8), BX
	IMULQ R12, BX // row j
	VMOVUPD (SI)(AX*1), Y0
	VSUBPD (SI)(BX*1), Y0, Y0
	VMOVUPD (DX)(AX*1), Y1
	VSUBPD (DX)(BX*1), Y1, Y1
	VMULPD Y1, Y0, Y2
	MOVQ R11, R13
	DECQ R13
	JEQ esum

equad:
	ADDQ $32, AX
	ADDQ $32, BX
	VMOVUPD (SI)(AX*1), Y0
	VSUBPD (SI)(BX*1), Y0, Y0
	VMOVUPD (DX)(AX*1), Y1
	VSUBPD (DX)(BX*1), Y1, Y1
	VFMADD231PD Y1, Y0, Y2
	DECQ R13
	JNZ equad

esum:
	VEXTRACTF128 $1, Y2, X3
	VADDPD X3, X2, X2
	VHADDPD X2, X2, X2
	VADDSD 0(DI), X2, X2
	VMOVSD X2, 0(DI)
	ADDQ $8, DI
	ADDQ $8, R8
	ADDQ $8, R9
	DECQ CX
	JNZ eloop

edone:
	VZEROUPPER
	RET

// func addRowsAVX(x *float64, buf *float64, rows *int32, ptr *int, src *int32, j0 int, j1 int, nq int)
//
// For j0 ≤ j < j1: row rows[j] of x (4·nq values a row) += the rows
// src[ptr[j]], …, src[ptr[j+1]−1] of buf, one after the other, a quad at a
// time, so that each value takes the same additions in the same order as
// one at a time.
TEXT ·addRowsAVX(SB), NOSPLIT, $0-64
	MOVQ x+0(FP), DI
	MOVQ buf+8(FP), SI
	MOVQ rows+16(FP), R8
	MOVQ ptr+24(FP), R9
	MOVQ src+32(FP), R10
	MOVQ j0+40(FP), CX
	MOVQ nq+56(FP), R11
	SHLQ $5, R11 // bytes of a row

arow:
	CMPQ CX, j1+48(FP)
	JGE adone
	MOVLQSX (R8)(CX*4), AX
	IMULQ R11, AX
	ADDQ DI, AX // row rows[j] of x
	MOVQ (R9)(CX*8), BX // first source
	MOVQ 8(R9)(CX*8), DX // end of the sources
	XORQ R12, R12 // byte offset of the quad

aquad:
	VMOVUPD (AX)(R12*1), Y0
	MOVQ BX, R13

asrc:
	CMPQ R13, DX
	JGE astore
	MOVLQSX (R10)(R13*4), R14
	IMULQ R11, R14
	ADDQ SI, R14
	VADDPD (R14)(R12*1), Y0, Y0
	INCQ R13
	JMP asrc

astore:
	VMOVUPD Y0, (AX)(R12*1)
	ADDQ $32, R12
	CMPQ R12, R11
	JLT aquad
	INCQ CX
	JMP arow

adone:
	VZEROUPPER
	RET

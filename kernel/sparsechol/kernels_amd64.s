//go:build amd64 && !noasm

#include "textflag.h"

// The solve's vector kernels (AVX2 and FMA, see kernels_amd64.go; with
// AVX-512 paths in fwdBlockAVX, bwd4AVX and the one-column runs, and the
// kernels named …8AVX, …16AVX, …20AVX, …24AVX and …32AVX, for rows of
// that many values held whole in registers, AVX-512 only, reached through
// the …RowsAVX entry points at the end). Each ends with VZEROUPPER: the Go
// code around them is scalar SSE, which runs slowly while the upper halves
// of the vector registers are in use.

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

// FMAZ2 broadcasts the factor entry at addr into b and adds its products
// with the row in Z16 and Z17 to z0 and z1; SUBZ2 subtracts z0 and z1
// from the 16 values at byte off of DI.
#define FMAZ2(addr, b, z0, z1) \
	VBROADCASTSD addr, b \
	VFMADD231PD Z16, b, z0 \
	VFMADD231PD Z17, b, z1

#define SUBZ2(off, z0, z1) \
	VMOVUPD off(DI), Z16 \
	VSUBPD z0, Z16, Z16 \
	VMOVUPD Z16, off(DI) \
	VMOVUPD (off+64)(DI), Z17 \
	VSUBPD z1, Z17, Z17 \
	VMOVUPD Z17, (off+64)(DI)

// ROW16 takes the next row below, r = CX−1, into Z16 and Z17: row
// below[r] of x = SI (16 values a row), with below = BX.
#define ROW16 \
	DECQ CX \
	MOVLQSX (BX)(CX*4), AX \
	SHLQ $7, AX \
	ADDQ SI, AX \
	VMOVUPD 0(AX), Z16 \
	VMOVUPD 64(AX), Z17

// func bwdNx16AVX(a *float64, x *float64, below *int32, nr int, l *float64, w int, n int)
//
// bwd4AVX's 8-wide path for n = 1, 2, 3, 4 or 8 rows of two 8-wide
// registers (cw = 16, AVX-512): for j < n, a[16j:16j+16] -= Σ_{r<nr}
// l[r·w+j]·x[below[r]·16:+16], each sum taken from r = nr−1 down to 0
// (nr ≥ 1) in an accumulator of its own and subtracted once, the
// arithmetic of bwd4AVX and bwd1AVX in every lane. One pass over the rows
// below serves the n rows and both registers, where bwd4AVX makes two
// passes for each four rows and bwd1AVX one pass of four quads for each
// row.
TEXT ·bwdNx16AVX(SB), NOSPLIT, $0-56
	MOVQ a+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ below+16(FP), BX
	MOVQ nr+24(FP), CX
	MOVQ l+32(FP), DX
	MOVQ w+40(FP), R8
	SHLQ $3, R8 // bytes per row of l
	MOVQ CX, R13
	DECQ R13
	IMULQ R8, R13
	ADDQ R13, DX // &l[(nr-1)·w]
	VPXORQ Z0, Z0, Z0
	VPXORQ Z1, Z1, Z1
	VPXORQ Z2, Z2, Z2
	VPXORQ Z3, Z3, Z3
	VPXORQ Z4, Z4, Z4
	VPXORQ Z5, Z5, Z5
	VPXORQ Z6, Z6, Z6
	VPXORQ Z7, Z7, Z7
	VPXORQ Z8, Z8, Z8
	VPXORQ Z9, Z9, Z9
	VPXORQ Z10, Z10, Z10
	VPXORQ Z11, Z11, Z11
	VPXORQ Z12, Z12, Z12
	VPXORQ Z13, Z13, Z13
	VPXORQ Z14, Z14, Z14
	VPXORQ Z15, Z15, Z15
	MOVQ n+48(FP), R9

bnrows:
	ROW16
	FMAZ2(0(DX), Z18, Z0, Z1)
	CMPQ R9, $1
	JEQ bnnext
	FMAZ2(8(DX), Z19, Z2, Z3)
	CMPQ R9, $2
	JEQ bnnext
	FMAZ2(16(DX), Z20, Z4, Z5)
	CMPQ R9, $3
	JEQ bnnext
	FMAZ2(24(DX), Z21, Z6, Z7)
	CMPQ R9, $4
	JEQ bnnext
	FMAZ2(32(DX), Z22, Z8, Z9)
	FMAZ2(40(DX), Z23, Z10, Z11)
	FMAZ2(48(DX), Z24, Z12, Z13)
	FMAZ2(56(DX), Z25, Z14, Z15)

bnnext:
	SUBQ R8, DX
	TESTQ CX, CX
	JNZ bnrows
	SUBZ2(0, Z0, Z1)
	CMPQ R9, $1
	JEQ bndone
	SUBZ2(128, Z2, Z3)
	CMPQ R9, $2
	JEQ bndone
	SUBZ2(256, Z4, Z5)
	CMPQ R9, $3
	JEQ bndone
	SUBZ2(384, Z6, Z7)
	CMPQ R9, $4
	JEQ bndone
	SUBZ2(512, Z8, Z9)
	SUBZ2(640, Z10, Z11)
	SUBZ2(768, Z12, Z13)
	SUBZ2(896, Z14, Z15)

bndone:
	VZEROUPPER
	RET

// func bwd4AVX(a *float64, x *float64, below *int32, nr int, l *float64, w int, cw int, nq int, wide bool)
//
// For the four rows a_j = a[j·cw:] (j < 4) and every quad q < nq:
// a_j[4q:4q+4] -= Σ_{r<nr} l[r·w+j]·x[below[r]·cw+4q:+4], each sum taken
// from r = nr−1 down to 0 (nr ≥ 1) in an accumulator of its own and
// subtracted once: three quads at a time while they last, then two, then
// one, with the same arithmetic in every lane. With wide (AVX-512), two
// quads are one 8-wide register, taken two at a time (three, as an 8-wide
// and a 4-wide register, when three are left).
TEXT ·bwd4AVX(SB), NOSPLIT, $0-65
	MOVQ a+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ below+16(FP), BX
	MOVQ nr+24(FP), CX
	MOVQ l+32(FP), DX
	MOVQ w+40(FP), R8
	SHLQ $3, R8 // bytes per row of l
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

// func edgeDotAVX(acc *float64, u *float64, w *float64, from *int, to *int, pinv *int, ne int, nq int)
//
// For e < ne, with rows i = pinv[from[e]] and j = pinv[to[e]] of the
// vertex-major blocks u and w (4·nq values a row): acc[e] +=
// Σ_k (u_i[k]−u_j[k])·(w_i[k]−w_j[k]), the quads' products summed lane by
// lane (a multiply, then fused multiply-adds), then the lanes as
// (l0+l2)+(l1+l3).
TEXT ·edgeDotAVX(SB), NOSPLIT, $0-64
	MOVQ acc+0(FP), DI
	MOVQ u+8(FP), SI
	MOVQ w+16(FP), DX
	MOVQ from+24(FP), R8
	MOVQ to+32(FP), R9
	MOVQ pinv+40(FP), R10
	MOVQ ne+48(FP), CX
	MOVQ nq+56(FP), R11
	MOVQ R11, R12
	SHLQ $5, R12 // bytes of a row
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

// func fwd1RunAVX(x *float64, s0 int, s1 int, first *int, rowPtr *int, rows *int32, off *int, lx *float64, dinv *float64, nq int, wide bool)
//
// Eliminates the supernodes s0..s1-1, each of one column f = first[s] whose
// rows below all lie in x (4·nq values a row): x_f ·= dinv[f], then
// x_i −= l·x_f for each row i below, with the arithmetic of fwdDiagAVX and
// fwdBlockAVX for one column, in one call for the whole run. With wide
// (AVX-512) and rows of 16 values, x_f stays in two 8-wide registers while
// the rows below take it, each row one load, update and store per half.
TEXT ·fwd1RunAVX(SB), NOSPLIT, $0-81
// F1ROW moves to the next row below (position DX, done at R8: to next),
// broadcasts its entry of l into b and points DI at the row x_i.
#define F1ROW(next, b) \
	CMPQ DX, R8 \
	JGE next \
	ADDQ $8, SI \
	VBROADCASTSD 0(SI), b \
	MOVLQSX (R10)(DX*4), DI \
	IMULQ R12, DI \
	ADDQ x+0(FP), DI

	MOVQ s0+8(FP), CX
	MOVQ nq+72(FP), R11
	MOVQ R11, R12
	SHLQ $5, R12 // bytes of a row

f1snode:
	CMPQ CX, s1+16(FP)
	JGE f1done
	MOVQ first+24(FP), BX
	MOVQ (BX)(CX*8), AX // f
	MOVQ dinv+64(FP), BX
	LEAQ (BX)(AX*8), R13 // &dinv[f]
	IMULQ R12, AX
	ADDQ x+0(FP), AX // x_f
	MOVQ rowPtr+32(FP), BX
	MOVQ (BX)(CX*8), DX // the own row's position
	MOVQ 8(BX)(CX*8), R8 // the end of the rows
	MOVQ off+48(FP), BX
	MOVQ (BX)(CX*8), SI
	SHLQ $3, SI
	ADDQ lx+56(FP), SI // the diagonal entry
	MOVQ rows+40(FP), R10
	INCQ DX
	CMPB wide+80(FP), $0
	JEQ f1quads
	CMPQ R11, $4
	JEQ f1wide

f1quads:
	VBROADCASTSD (R13), Y0
	MOVQ AX, DI
	MOVQ R11, R13

f1scale:
	VMULPD 0(DI), Y0, Y1
	VMOVUPD Y1, 0(DI)
	ADDQ $32, DI
	DECQ R13
	JNZ f1scale

f1row:
	F1ROW(f1next, Y0)
	MOVQ AX, R9
	MOVQ R11, R13

f1quad:
	VMOVUPD 0(DI), Y8
	VFNMADD231PD 0(R9), Y0, Y8
	VMOVUPD Y8, 0(DI)
	ADDQ $32, DI
	ADDQ $32, R9
	DECQ R13
	JNZ f1quad
	INCQ DX
	JMP f1row

f1wide:
	// Rows of 16 values (R12 = 128 bytes), x_f in Z1 and Z2.
	VBROADCASTSD (R13), Z0
	VMULPD 0(AX), Z0, Z1
	VMULPD 64(AX), Z0, Z2
	VMOVUPD Z1, 0(AX)
	VMOVUPD Z2, 64(AX)

f1wrow:
	F1ROW(f1next, Z0)
	VMOVUPD 0(DI), Z8
	VMOVUPD 64(DI), Z9
	VFNMADD231PD Z1, Z0, Z8
	VFNMADD231PD Z2, Z0, Z9
	VMOVUPD Z8, 0(DI)
	VMOVUPD Z9, 64(DI)
	INCQ DX
	JMP f1wrow

f1next:
	INCQ CX
	JMP f1snode

f1done:
	VZEROUPPER
	RET

// func bwd1RunAVX(x *float64, s0 int, s1 int, first *int, rowPtr *int, rows *int32, off *int, lx *float64, dinv *float64, nq int, wide bool)
//
// Solves with the transposes of the supernodes s1-1 down to s0, each of one
// column f = first[s]: x_f = (x_f − Σ_i l_i·x_i)·dinv[f] over the rows i
// below, summed from the last to the first, with the arithmetic of
// bwd1AVX and bwdDiagAVX for one column, in one call for the whole run.
// Quad by quad, or with wide (AVX-512) and rows of 16 values in one pass
// over the rows, both halves of each row summed in two 8-wide registers.
TEXT ·bwd1RunAVX(SB), NOSPLIT, $0-81
// B1ROW moves to the row above (position DX, done at R8: to sub),
// broadcasts its entry of l into b and points DI at the row x_i.
#define B1ROW(sub, b) \
	DECQ DX \
	CMPQ DX, R8 \
	JLE sub \
	VBROADCASTSD (SI)(DX*8), b \
	MOVLQSX (R10)(DX*4), DI \
	IMULQ R12, DI \
	ADDQ x+0(FP), DI

// B1SUBZ subtracts the sum in z from the 8 values at byte off of x_f (AX)
// and scales them by 1/l_ff (Z9).
#define B1SUBZ(off, z) \
	VMOVUPD off(AX), Z8 \
	VSUBPD z, Z8, Z8 \
	VMULPD Z9, Z8, Z8 \
	VMOVUPD Z8, off(AX)

	MOVQ s1+16(FP), CX
	MOVQ nq+72(FP), R11
	MOVQ R11, R12
	SHLQ $5, R12 // bytes of a row

b1snode:
	CMPQ CX, s0+8(FP)
	JLE b1done
	DECQ CX
	MOVQ first+24(FP), BX
	MOVQ (BX)(CX*8), AX // f
	MOVQ dinv+64(FP), BX
	LEAQ (BX)(AX*8), R13 // &dinv[f]
	IMULQ R12, AX
	ADDQ x+0(FP), AX // x_f
	MOVQ rowPtr+32(FP), BX
	MOVQ (BX)(CX*8), R8 // the own row's position
	MOVQ 8(BX)(CX*8), R9 // the end of the rows
	MOVQ off+48(FP), BX
	MOVQ (BX)(CX*8), SI
	SUBQ R8, SI
	SHLQ $3, SI
	ADDQ lx+56(FP), SI // SI + 8p: the entry of row position p
	MOVQ rows+40(FP), R10
	CMPB wide+80(FP), $0
	JEQ b1quads
	CMPQ R11, $4
	JEQ b1wide

b1quads:
	VBROADCASTSD (R13), Y9
	XORQ BX, BX // the quad's byte offset
	MOVQ R11, R13

b1quad:
	VXORPD Y0, Y0, Y0
	MOVQ R9, DX

b1row:
	B1ROW(b1sub, Y10)
	VFMADD231PD (DI)(BX*1), Y10, Y0
	JMP b1row

b1sub:
	VMOVUPD (AX)(BX*1), Y8
	VSUBPD Y0, Y8, Y8
	VMULPD Y9, Y8, Y8
	VMOVUPD Y8, (AX)(BX*1)
	ADDQ $32, BX
	DECQ R13
	JNZ b1quad
	JMP b1snode

b1wide:
	// Rows of 16 values (R12 = 128 bytes), the sums in Z0 and Z1.
	VBROADCASTSD (R13), Z9
	VPXORQ Z0, Z0, Z0
	VPXORQ Z1, Z1, Z1
	MOVQ R9, DX

b1wrow:
	B1ROW(b1wsub, Z10)
	VFMADD231PD 0(DI), Z10, Z0
	VFMADD231PD 64(DI), Z10, Z1
	JMP b1wrow

b1wsub:
	B1SUBZ(0, Z0)
	B1SUBZ(64, Z1)
	JMP b1snode

b1done:
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

// FWD16HEAD, FWD16PAIR and FWD16TAIL apply a chunk of columns to one
// 8-wide half (at byte off) of the row at DI, as fwdrow<> does to each of
// its quads: the even columns subtracted from the row in Z8, the odd ones
// summed in Z9 from a product, then Z9 subtracted; column k's half at
// off+128k(DX), its entry of l in Zk. A pair takes the columns whose
// halves are at odd+off and even+off.
#define FWD16HEAD(off) \
	VMOVUPD off(DI), Z8 \
	VMULPD (128+off)(DX), Z1, Z9 \
	VFNMADD231PD off(DX), Z0, Z8

#define FWD16PAIR(off, odd, even, zodd, zeven) \
	VFMADD231PD (odd+off)(DX), zodd, Z9 \
	VFNMADD231PD (even+off)(DX), zeven, Z8

#define FWD16TAIL(off) \
	VSUBPD Z9, Z8, Z8 \
	VMOVUPD Z8, off(DI)

#define FWD16H1(off) \
	VMOVUPD off(DI), Z8 \
	VFNMADD231PD off(DX), Z0, Z8 \
	VMOVUPD Z8, off(DI)

// fwdrow16<> is fwdrow<> for a row of 16 values (AVX-512) whose columns
// x_k are the rows of 16 values at DX + 128k, with the same operations in
// every lane: y = DI −= Σ_{k<nl} l[k]·x_k, l = SI, nl = CX. It clobbers
// CX, DX, SI and Z0-Z9.
TEXT fwdrow16<>(SB), NOSPLIT|NOFRAME, $0
f16chunk8:
	CMPQ CX, $8
	JLT f16chunk4
	VBROADCASTSD 0(SI), Z0
	VBROADCASTSD 8(SI), Z1
	VBROADCASTSD 16(SI), Z2
	VBROADCASTSD 24(SI), Z3
	VBROADCASTSD 32(SI), Z4
	VBROADCASTSD 40(SI), Z5
	VBROADCASTSD 48(SI), Z6
	VBROADCASTSD 56(SI), Z7
	FWD16HEAD(0)
	FWD16PAIR(0, 384, 256, Z3, Z2)
	FWD16PAIR(0, 640, 512, Z5, Z4)
	FWD16PAIR(0, 896, 768, Z7, Z6)
	FWD16TAIL(0)
	FWD16HEAD(64)
	FWD16PAIR(64, 384, 256, Z3, Z2)
	FWD16PAIR(64, 640, 512, Z5, Z4)
	FWD16PAIR(64, 896, 768, Z7, Z6)
	FWD16TAIL(64)
	ADDQ $64, SI
	ADDQ $1024, DX
	SUBQ $8, CX
	JMP f16chunk8

f16chunk4:
	// As in fwdrow<>: four columns, then three, two or one; or, with
	// fewer than four left after the chunks of eight, one at a time.
	CMPQ CX, $4
	JLT f16one
	VBROADCASTSD 0(SI), Z0
	VBROADCASTSD 8(SI), Z1
	VBROADCASTSD 16(SI), Z2
	VBROADCASTSD 24(SI), Z3
	FWD16HEAD(0)
	FWD16PAIR(0, 384, 256, Z3, Z2)
	FWD16TAIL(0)
	FWD16HEAD(64)
	FWD16PAIR(64, 384, 256, Z3, Z2)
	FWD16TAIL(64)
	ADDQ $32, SI
	ADDQ $512, DX
	SUBQ $4, CX
	CMPQ CX, $3
	JLT f16chunk2
	VBROADCASTSD 0(SI), Z0
	VBROADCASTSD 8(SI), Z1
	VBROADCASTSD 16(SI), Z2
	FWD16HEAD(0)
	VFNMADD231PD 256(DX), Z2, Z8
	FWD16TAIL(0)
	FWD16HEAD(64)
	VFNMADD231PD 320(DX), Z2, Z8
	FWD16TAIL(64)
	RET

f16chunk2:
	CMPQ CX, $2
	JLT f16one
	VBROADCASTSD 0(SI), Z0
	VBROADCASTSD 8(SI), Z1
	FWD16HEAD(0)
	FWD16TAIL(0)
	FWD16HEAD(64)
	FWD16TAIL(64)
	RET

f16one:
	TESTQ CX, CX
	JEQ f16done
	VBROADCASTSD 0(SI), Z0
	FWD16H1(0)
	FWD16H1(64)
	ADDQ $8, SI
	ADDQ $128, DX
	DECQ CX
	JMP f16one

f16done:
	RET

// ROW16ADDR sets AX to row rows[j+a] of x (128 bytes a row): BX =
// &rows[j], R9 = x.
#define ROW16ADDR(a) \
	MOVLQSX (4*(a))(BX), AX \
	SHLQ $7, AX \
	ADDQ R9, AX

// LOAD16X4 loads the rows rows[j+a], …, rows[j+a+3] of x into the register
// pairs (z0, z1), …, (z6, z7); STORE16X4 stores them there.
#define LOAD16X4(a, z0, z1, z2, z3, z4, z5, z6, z7) \
	ROW16ADDR(a) \
	VMOVUPD 0(AX), z0 \
	VMOVUPD 64(AX), z1 \
	ROW16ADDR(a+1) \
	VMOVUPD 0(AX), z2 \
	VMOVUPD 64(AX), z3 \
	ROW16ADDR(a+2) \
	VMOVUPD 0(AX), z4 \
	VMOVUPD 64(AX), z5 \
	ROW16ADDR(a+3) \
	VMOVUPD 0(AX), z6 \
	VMOVUPD 64(AX), z7

#define STORE16X4(a, z0, z1, z2, z3, z4, z5, z6, z7) \
	ROW16ADDR(a) \
	VMOVUPD z0, 0(AX) \
	VMOVUPD z1, 64(AX) \
	ROW16ADDR(a+1) \
	VMOVUPD z2, 0(AX) \
	VMOVUPD z3, 64(AX) \
	ROW16ADDR(a+2) \
	VMOVUPD z4, 0(AX) \
	VMOVUPD z5, 64(AX) \
	ROW16ADDR(a+3) \
	VMOVUPD z6, 0(AX) \
	VMOVUPD z7, 64(AX)

// FNMA16X4 subtracts the column in Z16 and Z17 from four rows held in
// (z0, z1), …, (z6, z7), their entries of l at p, p+R8, p+2·R8, p+R11.
#define FNMA16X4(p, z0, z1, z2, z3, z4, z5, z6, z7) \
	FNMAZ2((p), Z18, z0, z1) \
	FNMAZ2((p)(R8*1), Z19, z2, z3) \
	FNMAZ2((p)(R8*2), Z20, z4, z5) \
	FNMAZ2((p)(R11*1), Z21, z6, z7)

// func fwdBlock16AVX(x *float64, rows *int32, nr int, l *float64, xk *float64, nk int, w int)
//
// fwdBlockAVX for rows of 16 values (AVX-512), reading the columns where
// they were solved, as rows of 16 values from xk (row k at xk[16k:]), with
// the same operations in every lane: for j < nr, row rows[j] of x −=
// Σ_{k<nk} l[j·w+k]·x_k. Each row takes two 8-wide registers, one chain of
// multiply-adds in k order each; eight rows at a time while eight are
// left and nk ≤ 64, four while four are left, then one at a time as
// fwdrow16<> takes them.
TEXT ·fwdBlock16AVX(SB), NOSPLIT, $0-56
	MOVQ x+0(FP), R9
	MOVQ w+48(FP), R8
	SHLQ $3, R8 // bytes per row of l
	LEAQ (R8)(R8*2), R11
	XORQ R13, R13 // j

fb16rows:
	MOVQ nr+16(FP), R10
	SUBQ R13, R10 // rows left
	CMPQ R10, $4
	JLT fb16one
	MOVQ R13, BX
	SHLQ $2, BX
	ADDQ rows+8(FP), BX // &rows[j]
	MOVQ R13, SI
	IMULQ R8, SI
	ADDQ l+24(FP), SI // &l[j·w]
	MOVQ xk+32(FP), DX
	MOVQ nk+40(FP), CX
	LOAD16X4(0, Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	CMPQ R10, $8
	JLT fb16four
	CMPQ CX, $64
	JLE fb16eight

fb16four:
	TESTQ CX, CX
	JEQ fb16store4

fb16col4:
	VMOVUPD (DX), Z16
	VMOVUPD 64(DX), Z17
	FNMA16X4(SI, Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	ADDQ $8, SI
	ADDQ $128, DX
	DECQ CX
	JNZ fb16col4

fb16store4:
	STORE16X4(0, Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	ADDQ $4, R13
	JMP fb16rows

fb16eight:
	LOAD16X4(4, Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15)
	LEAQ (SI)(R8*4), DI // &l[(j+4)·w]
	TESTQ CX, CX
	JEQ fb16store8

fb16col8:
	VMOVUPD (DX), Z16
	VMOVUPD 64(DX), Z17
	FNMA16X4(SI, Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	FNMA16X4(DI, Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15)
	ADDQ $8, SI
	ADDQ $8, DI
	ADDQ $128, DX
	DECQ CX
	JNZ fb16col8

fb16store8:
	STORE16X4(0, Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	STORE16X4(4, Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15)
	ADDQ $8, R13
	JMP fb16rows

fb16one:
	CMPQ R13, nr+16(FP)
	JGE fb16done
	MOVQ rows+8(FP), BX
	MOVLQSX (BX)(R13*4), DI
	SHLQ $7, DI
	ADDQ R9, DI // row rows[j]
	MOVQ R13, SI
	IMULQ R8, SI
	ADDQ l+24(FP), SI // &l[j·w]
	MOVQ xk+32(FP), DX
	MOVQ nk+40(FP), CX
	CALL fwdrow16<>(SB)
	INCQ R13
	JMP fb16one

fb16done:
	VZEROUPPER
	RET

// FNMAZ subtracts the products of the factor entry at addr with the row
// in (x0, x1) from the row in (y0, y1).
#define FNMAZ(addr, x0, x1, y0, y1) \
	VBROADCASTSD addr, Z21 \
	VFNMADD231PD x0, Z21, y0 \
	VFNMADD231PD x1, Z21, y1

// ROWZ loads the row of 16 values at byte off of DI into (y0, y1);
// SCALEZ multiplies it by the value at addr and stores it back.
#define ROWZ(off, y0, y1) \
	VMOVUPD off(DI), y0 \
	VMOVUPD (off+64)(DI), y1

#define SCALEZ(off, addr, y0, y1) \
	VBROADCASTSD addr, Z20 \
	VMULPD y0, Z20, y0 \
	VMULPD y1, Z20, y1 \
	VMOVUPD y0, off(DI) \
	VMOVUPD y1, (off+64)(DI)

// FTRINEXT ends fwdTri16AVX after row k, else moves SI to the next row of
// l and loads the next row of the block (at byte off of DI) into (y0, y1).
#define FTRINEXT(k, off, y0, y1) \
	CMPQ CX, $k \
	JEQ ft16done \
	ADDQ R8, SI \
	ROWZ(off, y0, y1)

// func fwdTri16AVX(x1 *float64, l *float64, b int, ld int, dinv *float64)
//
// fwdDiagAVX for a triangle of b ≤ 4 rows of 16 values (AVX-512), the
// rows held in two 8-wide registers each from load to store: for r < b,
// x_r = (x_r − l[r·ld]·x_0 − … − l[r·ld+r−1]·x_{r−1})·dinv[r], each
// product subtracted from the row in that order, as fwdrow<> takes fewer
// than four columns.
TEXT ·fwdTri16AVX(SB), NOSPLIT, $0-40
	MOVQ x1+0(FP), DI
	MOVQ l+8(FP), SI
	MOVQ b+16(FP), CX
	MOVQ ld+24(FP), R8
	SHLQ $3, R8 // bytes per row of l
	MOVQ dinv+32(FP), BX
	ROWZ(0, Z0, Z1)
	SCALEZ(0, 0(BX), Z0, Z1)
	FTRINEXT(1, 128, Z2, Z3)
	FNMAZ(0(SI), Z0, Z1, Z2, Z3)
	SCALEZ(128, 8(BX), Z2, Z3)
	FTRINEXT(2, 256, Z4, Z5)
	FNMAZ(0(SI), Z0, Z1, Z4, Z5)
	FNMAZ(8(SI), Z2, Z3, Z4, Z5)
	SCALEZ(256, 16(BX), Z4, Z5)
	FTRINEXT(3, 384, Z6, Z7)
	FNMAZ(0(SI), Z0, Z1, Z6, Z7)
	FNMAZ(8(SI), Z2, Z3, Z6, Z7)
	FNMAZ(16(SI), Z4, Z5, Z6, Z7)
	SCALEZ(384, 24(BX), Z6, Z7)

ft16done:
	VZEROUPPER
	RET

// ACCZ starts the accumulator (Z8, Z9) at zero and adds the products of
// the factor entry at addr with the row in (x0, x1); FMAZ adds more.
// SUBSCALEZ sets the row in (y0, y1) to (y − the accumulator)·(the value
// at addr) and stores it at byte off of DI, as bwd1<> and bwdDiagAVX do.
#define ACCZ(addr, x0, x1) \
	VPXORQ Z8, Z8, Z8 \
	VPXORQ Z9, Z9, Z9 \
	FMAZ(addr, x0, x1)

#define FMAZ(addr, x0, x1) \
	VBROADCASTSD addr, Z21 \
	VFMADD231PD x0, Z21, Z8 \
	VFMADD231PD x1, Z21, Z9

#define SUBSCALEZ(off, addr, y0, y1) \
	VSUBPD Z8, y0, y0 \
	VSUBPD Z9, y1, y1 \
	SCALEZ(off, addr, y0, y1)

// BTRINEXT ends bwdTri16AVX after k rows, else loads the row at byte off
// of DI into (y0, y1).
#define BTRINEXT(k, off, y0, y1) \
	CMPQ CX, $k \
	JEQ bt16done \
	ROWZ(off, y0, y1)

// func bwdTri16AVX(x1 *float64, l *float64, b int, ld int, dinv *float64)
//
// bwdDiagAVX for the transposed triangle of b ≤ 4 columns of rows of 16
// values (AVX-512), the rows held in two 8-wide registers each: for r
// from b−1 down to 0, x_r = (x_r − Σ_{r<i<b} l[i·ld+r]·x_i)·dinv[r], the
// sum taken from i = b−1 down in an accumulator that starts at zero and
// subtracted once, as bwd1<> takes it. The addresses are taken from the
// last row, so that the code for the row j places before the last is the
// same whatever b is.
TEXT ·bwdTri16AVX(SB), NOSPLIT, $0-40
	MOVQ b+16(FP), CX
	LEAQ -1(CX), AX // b−1
	MOVQ AX, DI
	SHLQ $7, DI
	ADDQ x1+0(FP), DI // the last row
	MOVQ ld+24(FP), R8
	SHLQ $3, R8 // bytes per row of l
	MOVQ AX, R9
	IMULQ R8, R9
	LEAQ (R9)(AX*8), R9
	ADDQ l+8(FP), R9 // &l[(b−1)·ld+b−1]
	MOVQ R9, R10
	SUBQ R8, R10 // one row of l up
	MOVQ R10, R11
	SUBQ R8, R11 // two rows up
	MOVQ dinv+32(FP), BX
	LEAQ (BX)(AX*8), BX // &dinv[b−1]
	ROWZ(0, Z0, Z1)
	SCALEZ(0, 0(BX), Z0, Z1)
	BTRINEXT(1, -128, Z2, Z3)
	ACCZ(-8(R9), Z0, Z1)
	SUBSCALEZ(-128, -8(BX), Z2, Z3)
	BTRINEXT(2, -256, Z4, Z5)
	ACCZ(-16(R9), Z0, Z1)
	FMAZ(-16(R10), Z2, Z3)
	SUBSCALEZ(-256, -16(BX), Z4, Z5)
	BTRINEXT(3, -384, Z6, Z7)
	ACCZ(-24(R9), Z0, Z1)
	FMAZ(-24(R10), Z2, Z3)
	FMAZ(-24(R11), Z4, Z5)
	SUBSCALEZ(-384, -24(BX), Z6, Z7)

bt16done:
	VZEROUPPER
	RET

// The kernels named …20AVX are the …16AVX ones for rows of 20 values
// (AVX-512): two 8-wide registers and a 4-wide one a row, the rows 160
// bytes apart, with the same operations in every lane. Every 4-wide
// operation keeps its registers below 16, so that it needs no more than
// AVX-512F (VEX encodings).

// FWD20H, FWD20P and FWD20T are FWD16HEAD, FWD16PAIR and FWD16TAIL for
// the part of a row at byte off (0 and 64: 8-wide, a, b and r… Z
// registers; 128: 4-wide, Y registers), column k's part at off+160k(DX).
// FWD20ONE is FWD16H1 for one part.
#define FWD20H(off, a, b, r0, r1) \
	VMOVUPD off(DI), a \
	VMULPD (160+off)(DX), r1, b \
	VFNMADD231PD off(DX), r0, a

#define FWD20P(off, odd, even, rodd, reven, a, b) \
	VFMADD231PD (odd+off)(DX), rodd, b \
	VFNMADD231PD (even+off)(DX), reven, a

#define FWD20T(off, a, b) \
	VSUBPD b, a, a \
	VMOVUPD a, off(DI)

#define FWD20ONE(off, a, r0) \
	VMOVUPD off(DI), a \
	VFNMADD231PD off(DX), r0, a \
	VMOVUPD a, off(DI)

// FWD20CHUNK8 applies eight columns (entries of l in Z0-Z7) to the part
// at byte off: FWD20CHUNK4 four, FWD20CHUNK3 three, FWD20CHUNK2 two.
#define FWD20CHUNK8(off, a, b, r0, r1, r2, r3, r4, r5, r6, r7) \
	FWD20H(off, a, b, r0, r1) \
	FWD20P(off, 480, 320, r3, r2, a, b) \
	FWD20P(off, 800, 640, r5, r4, a, b) \
	FWD20P(off, 1120, 960, r7, r6, a, b) \
	FWD20T(off, a, b)

#define FWD20CHUNK4(off, a, b, r0, r1, r2, r3) \
	FWD20H(off, a, b, r0, r1) \
	FWD20P(off, 480, 320, r3, r2, a, b) \
	FWD20T(off, a, b)

#define FWD20CHUNK3(off, a, b, r0, r1, r2) \
	FWD20H(off, a, b, r0, r1) \
	VFNMADD231PD (320+off)(DX), r2, a \
	FWD20T(off, a, b)

#define FWD20CHUNK2(off, a, b, r0, r1) \
	FWD20H(off, a, b, r0, r1) \
	FWD20T(off, a, b)

// fwdrow20<> is fwdrow16<> for a row of 20 values whose columns x_k are
// the rows of 20 values at DX + 160k: y = DI −= Σ_{k<nl} l[k]·x_k, l = SI,
// nl = CX. It clobbers CX, DX, SI and Z0-Z9.
TEXT fwdrow20<>(SB), NOSPLIT|NOFRAME, $0
f20chunk8:
	CMPQ CX, $8
	JLT f20chunk4
	VBROADCASTSD 0(SI), Z0
	VBROADCASTSD 8(SI), Z1
	VBROADCASTSD 16(SI), Z2
	VBROADCASTSD 24(SI), Z3
	VBROADCASTSD 32(SI), Z4
	VBROADCASTSD 40(SI), Z5
	VBROADCASTSD 48(SI), Z6
	VBROADCASTSD 56(SI), Z7
	FWD20CHUNK8(0, Z8, Z9, Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	FWD20CHUNK8(64, Z8, Z9, Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	FWD20CHUNK8(128, Y8, Y9, Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7)
	ADDQ $64, SI
	ADDQ $1280, DX
	SUBQ $8, CX
	JMP f20chunk8

f20chunk4:
	CMPQ CX, $4
	JLT f20one
	VBROADCASTSD 0(SI), Z0
	VBROADCASTSD 8(SI), Z1
	VBROADCASTSD 16(SI), Z2
	VBROADCASTSD 24(SI), Z3
	FWD20CHUNK4(0, Z8, Z9, Z0, Z1, Z2, Z3)
	FWD20CHUNK4(64, Z8, Z9, Z0, Z1, Z2, Z3)
	FWD20CHUNK4(128, Y8, Y9, Y0, Y1, Y2, Y3)
	ADDQ $32, SI
	ADDQ $640, DX
	SUBQ $4, CX
	CMPQ CX, $3
	JLT f20chunk2
	VBROADCASTSD 0(SI), Z0
	VBROADCASTSD 8(SI), Z1
	VBROADCASTSD 16(SI), Z2
	FWD20CHUNK3(0, Z8, Z9, Z0, Z1, Z2)
	FWD20CHUNK3(64, Z8, Z9, Z0, Z1, Z2)
	FWD20CHUNK3(128, Y8, Y9, Y0, Y1, Y2)
	RET

f20chunk2:
	CMPQ CX, $2
	JLT f20one
	VBROADCASTSD 0(SI), Z0
	VBROADCASTSD 8(SI), Z1
	FWD20CHUNK2(0, Z8, Z9, Z0, Z1)
	FWD20CHUNK2(64, Z8, Z9, Z0, Z1)
	FWD20CHUNK2(128, Y8, Y9, Y0, Y1)
	RET

f20one:
	TESTQ CX, CX
	JEQ f20done
	VBROADCASTSD 0(SI), Z0
	FWD20ONE(0, Z8, Z0)
	FWD20ONE(64, Z8, Z0)
	FWD20ONE(128, Y8, Y0)
	ADDQ $8, SI
	ADDQ $160, DX
	DECQ CX
	JMP f20one

f20done:
	RET

// ROW20ADDR sets AX to row rows[j+a] of x (160 bytes a row): BX =
// &rows[j], R9 = x.
#define ROW20ADDR(a) \
	MOVLQSX (4*(a))(BX), AX \
	LEAQ (AX)(AX*4), AX \
	SHLQ $5, AX \
	ADDQ R9, AX

// LOAD20 loads the row rows[j+a] of x into (z0, z1, y2); STORE20 stores
// it there.
#define LOAD20(a, z0, z1, y2) \
	ROW20ADDR(a) \
	VMOVUPD 0(AX), z0 \
	VMOVUPD 64(AX), z1 \
	VMOVUPD 128(AX), y2

#define STORE20(a, z0, z1, y2) \
	ROW20ADDR(a) \
	VMOVUPD z0, 0(AX) \
	VMOVUPD z1, 64(AX) \
	VMOVUPD y2, 128(AX)

// FNMA20 broadcasts the factor entry at addr into b (y: its 4-wide half)
// and subtracts its products with the column in (Z29, Z30, Y8) from the
// row in (z0, z1, y2).
#define FNMA20(addr, b, y, z0, z1, y2) \
	VBROADCASTSD addr, b \
	VFNMADD231PD Z29, b, z0 \
	VFNMADD231PD Z30, b, z1 \
	VFNMADD231PD Y8, y, y2

// FNMA20X4 is FNMA16X4 for rows of 20 values: the four rows of l at p,
// p+R8, p+2·R8, p+R11.
#define FNMA20X4(p, a0, a1, a2, b0, b1, b2, c0, c1, c2, d0, d1, d2) \
	FNMA20((p), Z9, Y9, a0, a1, a2) \
	FNMA20((p)(R8*1), Z10, Y10, b0, b1, b2) \
	FNMA20((p)(R8*2), Z11, Y11, c0, c1, c2) \
	FNMA20((p)(R11*1), Z12, Y12, d0, d1, d2)

// func fwdBlock20AVX(x *float64, rows *int32, nr int, l *float64, xk *float64, nk int, w int)
//
// fwdBlock16AVX for rows of 20 values (row k of the solved columns at
// xk[20k:]): rows in (Z13, Z14, Y0), …, (Z27, Z28, Y7), the column in
// (Z29, Z30, Y8), the factor entries in Z9-Z12; the rows left over after
// the groups of four through fwdrow20<>.
TEXT ·fwdBlock20AVX(SB), NOSPLIT, $0-56
	MOVQ x+0(FP), R9
	MOVQ w+48(FP), R8
	SHLQ $3, R8 // bytes per row of l
	LEAQ (R8)(R8*2), R11
	XORQ R13, R13 // j

fb20rows:
	MOVQ nr+16(FP), R10
	SUBQ R13, R10 // rows left
	CMPQ R10, $4
	JLT fb20one
	MOVQ R13, BX
	SHLQ $2, BX
	ADDQ rows+8(FP), BX // &rows[j]
	MOVQ R13, SI
	IMULQ R8, SI
	ADDQ l+24(FP), SI // &l[j·w]
	MOVQ xk+32(FP), DX
	MOVQ nk+40(FP), CX
	LOAD20(0, Z13, Z14, Y0)
	LOAD20(1, Z15, Z16, Y1)
	LOAD20(2, Z17, Z18, Y2)
	LOAD20(3, Z19, Z20, Y3)
	CMPQ R10, $8
	JLT fb20four
	CMPQ CX, $64
	JLE fb20eight

fb20four:
	TESTQ CX, CX
	JEQ fb20store4

fb20col4:
	VMOVUPD (DX), Z29
	VMOVUPD 64(DX), Z30
	VMOVUPD 128(DX), Y8
	FNMA20X4(SI, Z13, Z14, Y0, Z15, Z16, Y1, Z17, Z18, Y2, Z19, Z20, Y3)
	ADDQ $8, SI
	ADDQ $160, DX
	DECQ CX
	JNZ fb20col4

fb20store4:
	STORE20(0, Z13, Z14, Y0)
	STORE20(1, Z15, Z16, Y1)
	STORE20(2, Z17, Z18, Y2)
	STORE20(3, Z19, Z20, Y3)
	ADDQ $4, R13
	JMP fb20rows

fb20eight:
	LOAD20(4, Z21, Z22, Y4)
	LOAD20(5, Z23, Z24, Y5)
	LOAD20(6, Z25, Z26, Y6)
	LOAD20(7, Z27, Z28, Y7)
	LEAQ (SI)(R8*4), DI // &l[(j+4)·w]
	TESTQ CX, CX
	JEQ fb20store8

fb20col8:
	VMOVUPD (DX), Z29
	VMOVUPD 64(DX), Z30
	VMOVUPD 128(DX), Y8
	FNMA20X4(SI, Z13, Z14, Y0, Z15, Z16, Y1, Z17, Z18, Y2, Z19, Z20, Y3)
	FNMA20X4(DI, Z21, Z22, Y4, Z23, Z24, Y5, Z25, Z26, Y6, Z27, Z28, Y7)
	ADDQ $8, SI
	ADDQ $8, DI
	ADDQ $160, DX
	DECQ CX
	JNZ fb20col8

fb20store8:
	STORE20(0, Z13, Z14, Y0)
	STORE20(1, Z15, Z16, Y1)
	STORE20(2, Z17, Z18, Y2)
	STORE20(3, Z19, Z20, Y3)
	STORE20(4, Z21, Z22, Y4)
	STORE20(5, Z23, Z24, Y5)
	STORE20(6, Z25, Z26, Y6)
	STORE20(7, Z27, Z28, Y7)
	ADDQ $8, R13
	JMP fb20rows

fb20one:
	CMPQ R13, nr+16(FP)
	JGE fb20done
	MOVQ rows+8(FP), BX
	MOVLQSX (BX)(R13*4), DI
	LEAQ (DI)(DI*4), DI
	SHLQ $5, DI
	ADDQ R9, DI // row rows[j]
	MOVQ R13, SI
	IMULQ R8, SI
	ADDQ l+24(FP), SI // &l[j·w]
	MOVQ xk+32(FP), DX
	MOVQ nk+40(FP), CX
	CALL fwdrow20<>(SB)
	INCQ R13
	JMP fb20one

fb20done:
	VZEROUPPER
	RET

// ROW3 loads the row of three registers at byte off of DI (the parts
// at off, off+64 and off+128: two 8-wide and, for rows of 20 values, a
// 4-wide third, or three 8-wide for rows of 24) into (r0, r1, r2). The
// macros below serve both widths; s, b and a name the Z15, Z12 and Z14
// they use in the width of the third part (Y15 or Z15, …). SCALE3
// multiplies the row by the value at addr (broadcast into Z15) and
// stores it back.
#define ROW3(off, r0, r1, r2) \
	VMOVUPD off(DI), r0 \
	VMOVUPD (off+64)(DI), r1 \
	VMOVUPD (off+128)(DI), r2

#define SCALE3(off, addr, s, r0, r1, r2) \
	VBROADCASTSD addr, Z15 \
	VMULPD r0, Z15, r0 \
	VMULPD r1, Z15, r1 \
	VMULPD r2, s, r2 \
	VMOVUPD r0, off(DI) \
	VMOVUPD r1, (off+64)(DI) \
	VMOVUPD r2, (off+128)(DI)

// FNMA3T subtracts the products of the factor entry at addr (broadcast
// into Z12) with the row in (x0, x1, x2) from the row in (y0, y1, y2).
#define FNMA3T(addr, b, x0, x1, x2, y0, y1, y2) \
	VBROADCASTSD addr, Z12 \
	VFNMADD231PD x0, Z12, y0 \
	VFNMADD231PD x1, Z12, y1 \
	VFNMADD231PD x2, b, y2

// FTRI3NEXT ends a forward triangle after row k (jumping to done), else
// moves SI to the next row of l and loads the next row of the block (at
// byte off of DI); BTRI3NEXT ends a backward one after k rows, else loads
// the row at byte off of DI.
#define FTRI3NEXT(k, off, done, r0, r1, r2) \
	CMPQ CX, $k \
	JEQ done \
	ADDQ R8, SI \
	ROW3(off, r0, r1, r2)

#define BTRI3NEXT(k, off, done, r0, r1, r2) \
	CMPQ CX, $k \
	JEQ done \
	ROW3(off, r0, r1, r2)

// ACC3 starts the accumulator (Z12, Z13, Z14) at zero and adds the
// products of the factor entry at addr with the row in (x0, x1, x2);
// FMA3 adds more. SUBSCALE3 sets the row in (y0, y1, y2) to (y − the
// accumulator)·(the value at addr) and stores it at byte off of DI.
#define ACC3(addr, b, a, x0, x1, x2) \
	VPXORQ Z12, Z12, Z12 \
	VPXORQ Z13, Z13, Z13 \
	VPXORQ Z14, Z14, Z14 \
	FMA3(addr, b, a, x0, x1, x2)

#define FMA3(addr, b, a, x0, x1, x2) \
	VBROADCASTSD addr, Z15 \
	VFMADD231PD x0, Z15, Z12 \
	VFMADD231PD x1, Z15, Z13 \
	VFMADD231PD x2, b, a

#define SUBSCALE3(off, addr, a, s, y0, y1, y2) \
	VSUBPD Z12, y0, y0 \
	VSUBPD Z13, y1, y1 \
	VSUBPD a, y2, y2 \
	SCALE3(off, addr, s, y0, y1, y2)

// func fwdTri20AVX(x1 *float64, l *float64, b int, ld int, dinv *float64)
//
// fwdTri16AVX for rows of 20 values, in (Z4, Z5, Y0), …, (Z10, Z11, Y3).
TEXT ·fwdTri20AVX(SB), NOSPLIT, $0-40
	MOVQ x1+0(FP), DI
	MOVQ l+8(FP), SI
	MOVQ b+16(FP), CX
	MOVQ ld+24(FP), R8
	SHLQ $3, R8 // bytes per row of l
	MOVQ dinv+32(FP), BX
	ROW3(0, Z4, Z5, Y0)
	SCALE3(0, 0(BX), Y15, Z4, Z5, Y0)
	FTRI3NEXT(1, 160, ft20done, Z6, Z7, Y1)
	FNMA3T(0(SI), Y12, Z4, Z5, Y0, Z6, Z7, Y1)
	SCALE3(160, 8(BX), Y15, Z6, Z7, Y1)
	FTRI3NEXT(2, 320, ft20done, Z8, Z9, Y2)
	FNMA3T(0(SI), Y12, Z4, Z5, Y0, Z8, Z9, Y2)
	FNMA3T(8(SI), Y12, Z6, Z7, Y1, Z8, Z9, Y2)
	SCALE3(320, 16(BX), Y15, Z8, Z9, Y2)
	FTRI3NEXT(3, 480, ft20done, Z10, Z11, Y3)
	FNMA3T(0(SI), Y12, Z4, Z5, Y0, Z10, Z11, Y3)
	FNMA3T(8(SI), Y12, Z6, Z7, Y1, Z10, Z11, Y3)
	FNMA3T(16(SI), Y12, Z8, Z9, Y2, Z10, Z11, Y3)
	SCALE3(480, 24(BX), Y15, Z10, Z11, Y3)

ft20done:
	VZEROUPPER
	RET

// func bwdTri20AVX(x1 *float64, l *float64, b int, ld int, dinv *float64)
//
// bwdTri16AVX for rows of 20 values, in (Z4, Z5, Y0), …, (Z10, Z11, Y3).
TEXT ·bwdTri20AVX(SB), NOSPLIT, $0-40
	MOVQ b+16(FP), CX
	LEAQ -1(CX), AX // b−1
	LEAQ (AX)(AX*4), DI
	SHLQ $5, DI
	ADDQ x1+0(FP), DI // the last row
	MOVQ ld+24(FP), R8
	SHLQ $3, R8 // bytes per row of l
	MOVQ AX, R9
	IMULQ R8, R9
	LEAQ (R9)(AX*8), R9
	ADDQ l+8(FP), R9 // &l[(b−1)·ld+b−1]
	MOVQ R9, R10
	SUBQ R8, R10 // one row of l up
	MOVQ R10, R11
	SUBQ R8, R11 // two rows up
	MOVQ dinv+32(FP), BX
	LEAQ (BX)(AX*8), BX // &dinv[b−1]
	ROW3(0, Z4, Z5, Y0)
	SCALE3(0, 0(BX), Y15, Z4, Z5, Y0)
	BTRI3NEXT(1, -160, bt20done, Z6, Z7, Y1)
	ACC3(-8(R9), Y15, Y14, Z4, Z5, Y0)
	SUBSCALE3(-160, -8(BX), Y14, Y15, Z6, Z7, Y1)
	BTRI3NEXT(2, -320, bt20done, Z8, Z9, Y2)
	ACC3(-16(R9), Y15, Y14, Z4, Z5, Y0)
	FMA3(-16(R10), Y15, Y14, Z6, Z7, Y1)
	SUBSCALE3(-320, -16(BX), Y14, Y15, Z8, Z9, Y2)
	BTRI3NEXT(3, -480, bt20done, Z10, Z11, Y3)
	ACC3(-24(R9), Y15, Y14, Z4, Z5, Y0)
	FMA3(-24(R10), Y15, Y14, Z6, Z7, Y1)
	FMA3(-24(R11), Y15, Y14, Z8, Z9, Y2)
	SUBSCALE3(-480, -24(BX), Y14, Y15, Z10, Z11, Y3)

bt20done:
	VZEROUPPER
	RET

// ROW20B takes the next row below, r = CX−1, into (Z8, Z9, Y10): row
// below[r] of x = SI (20 values a row), with below = BX.
#define ROW20B \
	DECQ CX \
	MOVLQSX (BX)(CX*4), AX \
	LEAQ (AX)(AX*4), AX \
	SHLQ $5, AX \
	ADDQ SI, AX \
	VMOVUPD 0(AX), Z8 \
	VMOVUPD 64(AX), Z9 \
	VMOVUPD 128(AX), Y10

// FMA20B broadcasts the factor entry at addr into b (y: its 4-wide half)
// and adds its products with the row in (Z8, Z9, Y10) to (z0, z1, y2);
// SUB20B subtracts (z0, z1, y2) from the row of 20 values at byte off of
// DI.
#define FMA20B(addr, b, y, z0, z1, y2) \
	VBROADCASTSD addr, b \
	VFMADD231PD Z8, b, z0 \
	VFMADD231PD Z9, b, z1 \
	VFMADD231PD Y10, y, y2

#define SUB20B(off, z0, z1, y2) \
	VMOVUPD off(DI), Z8 \
	VSUBPD z0, Z8, Z8 \
	VMOVUPD Z8, off(DI) \
	VMOVUPD (off+64)(DI), Z9 \
	VSUBPD z1, Z9, Z9 \
	VMOVUPD Z9, (off+64)(DI) \
	VMOVUPD (off+128)(DI), Y10 \
	VSUBPD y2, Y10, Y10 \
	VMOVUPD Y10, (off+128)(DI)

// func bwdNx20AVX(a *float64, x *float64, below *int32, nr int, l *float64, w int, n int)
//
// bwdNx16AVX for rows of 20 values: the n accumulators in (Z16, Z17, Y0),
// …, (Z30, Z31, Y7), the row below in (Z8, Z9, Y10), the factor entries
// in Z11-Z14.
TEXT ·bwdNx20AVX(SB), NOSPLIT, $0-56
	MOVQ a+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ below+16(FP), BX
	MOVQ nr+24(FP), CX
	MOVQ l+32(FP), DX
	MOVQ w+40(FP), R8
	SHLQ $3, R8 // bytes per row of l
	MOVQ CX, R13
	DECQ R13
	IMULQ R8, R13
	ADDQ R13, DX // &l[(nr-1)·w]
	VPXORQ Z16, Z16, Z16
	VPXORQ Z17, Z17, Z17
	VPXORQ Z18, Z18, Z18
	VPXORQ Z19, Z19, Z19
	VPXORQ Z20, Z20, Z20
	VPXORQ Z21, Z21, Z21
	VPXORQ Z22, Z22, Z22
	VPXORQ Z23, Z23, Z23
	VPXORQ Z24, Z24, Z24
	VPXORQ Z25, Z25, Z25
	VPXORQ Z26, Z26, Z26
	VPXORQ Z27, Z27, Z27
	VPXORQ Z28, Z28, Z28
	VPXORQ Z29, Z29, Z29
	VPXORQ Z30, Z30, Z30
	VPXORQ Z31, Z31, Z31
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	MOVQ n+48(FP), R9

bn20rows:
	ROW20B
	FMA20B(0(DX), Z11, Y11, Z16, Z17, Y0)
	CMPQ R9, $1
	JEQ bn20next
	FMA20B(8(DX), Z12, Y12, Z18, Z19, Y1)
	CMPQ R9, $2
	JEQ bn20next
	FMA20B(16(DX), Z13, Y13, Z20, Z21, Y2)
	CMPQ R9, $3
	JEQ bn20next
	FMA20B(24(DX), Z14, Y14, Z22, Z23, Y3)
	CMPQ R9, $4
	JEQ bn20next
	FMA20B(32(DX), Z11, Y11, Z24, Z25, Y4)
	FMA20B(40(DX), Z12, Y12, Z26, Z27, Y5)
	FMA20B(48(DX), Z13, Y13, Z28, Z29, Y6)
	FMA20B(56(DX), Z14, Y14, Z30, Z31, Y7)

bn20next:
	SUBQ R8, DX
	TESTQ CX, CX
	JNZ bn20rows
	SUB20B(0, Z16, Z17, Y0)
	CMPQ R9, $1
	JEQ bn20done
	SUB20B(160, Z18, Z19, Y1)
	CMPQ R9, $2
	JEQ bn20done
	SUB20B(320, Z20, Z21, Y2)
	CMPQ R9, $3
	JEQ bn20done
	SUB20B(480, Z22, Z23, Y3)
	CMPQ R9, $4
	JEQ bn20done
	SUB20B(640, Z24, Z25, Y4)
	SUB20B(800, Z26, Z27, Y5)
	SUB20B(960, Z28, Z29, Y6)
	SUB20B(1120, Z30, Z31, Y7)

bn20done:
	VZEROUPPER
	RET

// The kernels named …8AVX are the …16AVX ones for rows of 8 values
// (AVX-512): one 8-wide register a row, the rows 64 bytes apart, with the
// same operations in every lane.

// FWD8H, FWD8P and FWD8T are FWD16HEAD, FWD16PAIR and FWD16TAIL for a row
// of 8 values, column k at 64k(DX).
#define FWD8H \
	VMOVUPD 0(DI), Z8 \
	VMULPD 64(DX), Z1, Z9 \
	VFNMADD231PD 0(DX), Z0, Z8

#define FWD8P(odd, even, rodd, reven) \
	VFMADD231PD odd(DX), rodd, Z9 \
	VFNMADD231PD even(DX), reven, Z8

#define FWD8T \
	VSUBPD Z9, Z8, Z8 \
	VMOVUPD Z8, 0(DI)

// fwdrow8<> is fwdrow16<> for a row of 8 values whose columns x_k are the
// rows of 8 values at DX + 64k: y = DI −= Σ_{k<nl} l[k]·x_k, l = SI, nl =
// CX. It clobbers CX, DX, SI and Z0-Z9.
TEXT fwdrow8<>(SB), NOSPLIT|NOFRAME, $0
f8chunk8:
	CMPQ CX, $8
	JLT f8chunk4
	VBROADCASTSD 0(SI), Z0
	VBROADCASTSD 8(SI), Z1
	VBROADCASTSD 16(SI), Z2
	VBROADCASTSD 24(SI), Z3
	VBROADCASTSD 32(SI), Z4
	VBROADCASTSD 40(SI), Z5
	VBROADCASTSD 48(SI), Z6
	VBROADCASTSD 56(SI), Z7
	FWD8H
	FWD8P(192, 128, Z3, Z2)
	FWD8P(320, 256, Z5, Z4)
	FWD8P(448, 384, Z7, Z6)
	FWD8T
	ADDQ $64, SI
	ADDQ $512, DX
	SUBQ $8, CX
	JMP f8chunk8

f8chunk4:
	CMPQ CX, $4
	JLT f8one
	VBROADCASTSD 0(SI), Z0
	VBROADCASTSD 8(SI), Z1
	VBROADCASTSD 16(SI), Z2
	VBROADCASTSD 24(SI), Z3
	FWD8H
	FWD8P(192, 128, Z3, Z2)
	FWD8T
	ADDQ $32, SI
	ADDQ $256, DX
	SUBQ $4, CX
	CMPQ CX, $3
	JLT f8chunk2
	VBROADCASTSD 0(SI), Z0
	VBROADCASTSD 8(SI), Z1
	VBROADCASTSD 16(SI), Z2
	FWD8H
	VFNMADD231PD 128(DX), Z2, Z8
	FWD8T
	RET

f8chunk2:
	CMPQ CX, $2
	JLT f8one
	VBROADCASTSD 0(SI), Z0
	VBROADCASTSD 8(SI), Z1
	FWD8H
	FWD8T
	RET

f8one:
	TESTQ CX, CX
	JEQ f8done
	VBROADCASTSD 0(SI), Z0
	VMOVUPD 0(DI), Z8
	VFNMADD231PD 0(DX), Z0, Z8
	VMOVUPD Z8, 0(DI)
	ADDQ $8, SI
	ADDQ $64, DX
	DECQ CX
	JMP f8one

f8done:
	RET

// ROW8ADDR sets AX to row rows[j+a] of x (64 bytes a row): BX = &rows[j],
// R9 = x. LOAD8 and STORE8 load and store that row.
#define ROW8ADDR(a) \
	MOVLQSX (4*(a))(BX), AX \
	SHLQ $6, AX \
	ADDQ R9, AX

#define LOAD8(a, z) \
	ROW8ADDR(a) \
	VMOVUPD 0(AX), z

#define STORE8(a, z) \
	ROW8ADDR(a) \
	VMOVUPD z, 0(AX)

// FNMA8X4 is FNMA16X4 for rows of 8 values: the column in Z16, the rows
// in z0..z3, their entries of l at p, p+R8, p+2·R8, p+R11.
#define FNMA8X4(p, z0, z1, z2, z3) \
	VBROADCASTSD (p), Z18 \
	VFNMADD231PD Z16, Z18, z0 \
	VBROADCASTSD (p)(R8*1), Z19 \
	VFNMADD231PD Z16, Z19, z1 \
	VBROADCASTSD (p)(R8*2), Z20 \
	VFNMADD231PD Z16, Z20, z2 \
	VBROADCASTSD (p)(R11*1), Z21 \
	VFNMADD231PD Z16, Z21, z3

// func fwdBlock8AVX(x *float64, rows *int32, nr int, l *float64, xk *float64, nk int, w int)
//
// fwdBlock16AVX for rows of 8 values (row k of the solved columns at
// xk[8k:]), in Z0-Z7; the rows left over after the groups of four
// through fwdrow8<>.
TEXT ·fwdBlock8AVX(SB), NOSPLIT, $0-56
	MOVQ x+0(FP), R9
	MOVQ w+48(FP), R8
	SHLQ $3, R8 // bytes per row of l
	LEAQ (R8)(R8*2), R11
	XORQ R13, R13 // j

fb8rows:
	MOVQ nr+16(FP), R10
	SUBQ R13, R10 // rows left
	CMPQ R10, $4
	JLT fb8one
	MOVQ R13, BX
	SHLQ $2, BX
	ADDQ rows+8(FP), BX // &rows[j]
	MOVQ R13, SI
	IMULQ R8, SI
	ADDQ l+24(FP), SI // &l[j·w]
	MOVQ xk+32(FP), DX
	MOVQ nk+40(FP), CX
	LOAD8(0, Z0)
	LOAD8(1, Z1)
	LOAD8(2, Z2)
	LOAD8(3, Z3)
	CMPQ R10, $8
	JLT fb8four
	CMPQ CX, $64
	JLE fb8eight

fb8four:
	TESTQ CX, CX
	JEQ fb8store4

fb8col4:
	VMOVUPD (DX), Z16
	FNMA8X4(SI, Z0, Z1, Z2, Z3)
	ADDQ $8, SI
	ADDQ $64, DX
	DECQ CX
	JNZ fb8col4

fb8store4:
	STORE8(0, Z0)
	STORE8(1, Z1)
	STORE8(2, Z2)
	STORE8(3, Z3)
	ADDQ $4, R13
	JMP fb8rows

fb8eight:
	LOAD8(4, Z4)
	LOAD8(5, Z5)
	LOAD8(6, Z6)
	LOAD8(7, Z7)
	LEAQ (SI)(R8*4), DI // &l[(j+4)·w]
	TESTQ CX, CX
	JEQ fb8store8

fb8col8:
	VMOVUPD (DX), Z16
	FNMA8X4(SI, Z0, Z1, Z2, Z3)
	FNMA8X4(DI, Z4, Z5, Z6, Z7)
	ADDQ $8, SI
	ADDQ $8, DI
	ADDQ $64, DX
	DECQ CX
	JNZ fb8col8

fb8store8:
	STORE8(0, Z0)
	STORE8(1, Z1)
	STORE8(2, Z2)
	STORE8(3, Z3)
	STORE8(4, Z4)
	STORE8(5, Z5)
	STORE8(6, Z6)
	STORE8(7, Z7)
	ADDQ $8, R13
	JMP fb8rows

fb8one:
	CMPQ R13, nr+16(FP)
	JGE fb8done
	MOVQ rows+8(FP), BX
	MOVLQSX (BX)(R13*4), DI
	SHLQ $6, DI
	ADDQ R9, DI // row rows[j]
	MOVQ R13, SI
	IMULQ R8, SI
	ADDQ l+24(FP), SI // &l[j·w]
	MOVQ xk+32(FP), DX
	MOVQ nk+40(FP), CX
	CALL fwdrow8<>(SB)
	INCQ R13
	JMP fb8one

fb8done:
	VZEROUPPER
	RET

// SCALE8 multiplies the row in z by the value at addr (broadcast into
// Z20) and stores it at byte off of DI.
#define SCALE8(off, addr, z) \
	VBROADCASTSD addr, Z20 \
	VMULPD z, Z20, z \
	VMOVUPD z, off(DI)

// FNMA8T subtracts the products of the factor entry at addr (broadcast
// into Z21) with the row in x from the row in y.
#define FNMA8T(addr, x, y) \
	VBROADCASTSD addr, Z21 \
	VFNMADD231PD x, Z21, y

// FTRI8NEXT ends fwdTri8AVX after row k, else moves SI to the next row of
// l and loads the next row of the block (at byte off of DI) into z.
#define FTRI8NEXT(k, off, z) \
	CMPQ CX, $k \
	JEQ ft8done \
	ADDQ R8, SI \
	VMOVUPD off(DI), z

// func fwdTri8AVX(x1 *float64, l *float64, b int, ld int, dinv *float64)
//
// fwdTri16AVX for rows of 8 values, in Z0-Z3.
TEXT ·fwdTri8AVX(SB), NOSPLIT, $0-40
	MOVQ x1+0(FP), DI
	MOVQ l+8(FP), SI
	MOVQ b+16(FP), CX
	MOVQ ld+24(FP), R8
	SHLQ $3, R8 // bytes per row of l
	MOVQ dinv+32(FP), BX
	VMOVUPD 0(DI), Z0
	SCALE8(0, 0(BX), Z0)
	FTRI8NEXT(1, 64, Z1)
	FNMA8T(0(SI), Z0, Z1)
	SCALE8(64, 8(BX), Z1)
	FTRI8NEXT(2, 128, Z2)
	FNMA8T(0(SI), Z0, Z2)
	FNMA8T(8(SI), Z1, Z2)
	SCALE8(128, 16(BX), Z2)
	FTRI8NEXT(3, 192, Z3)
	FNMA8T(0(SI), Z0, Z3)
	FNMA8T(8(SI), Z1, Z3)
	FNMA8T(16(SI), Z2, Z3)
	SCALE8(192, 24(BX), Z3)

ft8done:
	VZEROUPPER
	RET

// ACC8 starts the accumulator Z8 at zero and adds the product of the
// factor entry at addr with the row in x; FMA8 adds more. SUBSCALE8 sets
// the row in y to (y − Z8)·(the value at addr) and stores it at byte off
// of DI.
#define ACC8(addr, x) \
	VPXORQ Z8, Z8, Z8 \
	FMA8(addr, x)

#define FMA8(addr, x) \
	VBROADCASTSD addr, Z21 \
	VFMADD231PD x, Z21, Z8

#define SUBSCALE8(off, addr, y) \
	VSUBPD Z8, y, y \
	SCALE8(off, addr, y)

// BTRI8NEXT ends bwdTri8AVX after k rows, else loads the row at byte off
// of DI into z.
#define BTRI8NEXT(k, off, z) \
	CMPQ CX, $k \
	JEQ bt8done \
	VMOVUPD off(DI), z

// func bwdTri8AVX(x1 *float64, l *float64, b int, ld int, dinv *float64)
//
// bwdTri16AVX for rows of 8 values, in Z0-Z3.
TEXT ·bwdTri8AVX(SB), NOSPLIT, $0-40
	MOVQ b+16(FP), CX
	LEAQ -1(CX), AX // b−1
	MOVQ AX, DI
	SHLQ $6, DI
	ADDQ x1+0(FP), DI // the last row
	MOVQ ld+24(FP), R8
	SHLQ $3, R8 // bytes per row of l
	MOVQ AX, R9
	IMULQ R8, R9
	LEAQ (R9)(AX*8), R9
	ADDQ l+8(FP), R9 // &l[(b−1)·ld+b−1]
	MOVQ R9, R10
	SUBQ R8, R10 // one row of l up
	MOVQ R10, R11
	SUBQ R8, R11 // two rows up
	MOVQ dinv+32(FP), BX
	LEAQ (BX)(AX*8), BX // &dinv[b−1]
	VMOVUPD 0(DI), Z0
	SCALE8(0, 0(BX), Z0)
	BTRI8NEXT(1, -64, Z1)
	ACC8(-8(R9), Z0)
	SUBSCALE8(-64, -8(BX), Z1)
	BTRI8NEXT(2, -128, Z2)
	ACC8(-16(R9), Z0)
	FMA8(-16(R10), Z1)
	SUBSCALE8(-128, -16(BX), Z2)
	BTRI8NEXT(3, -192, Z3)
	ACC8(-24(R9), Z0)
	FMA8(-24(R10), Z1)
	FMA8(-24(R11), Z2)
	SUBSCALE8(-192, -24(BX), Z3)

bt8done:
	VZEROUPPER
	RET

// FMA8B broadcasts the factor entry at addr into b and adds its products
// with the row below in Z16 to z; SUB8B subtracts z from the row of 8
// values at byte off of DI.
#define FMA8B(addr, b, z) \
	VBROADCASTSD addr, b \
	VFMADD231PD Z16, b, z

#define SUB8B(off, z) \
	VMOVUPD off(DI), Z16 \
	VSUBPD z, Z16, Z16 \
	VMOVUPD Z16, off(DI)

// func bwdNx8AVX(a *float64, x *float64, below *int32, nr int, l *float64, w int, n int)
//
// bwdNx16AVX for rows of 8 values: the n accumulators in Z0-Z7, the row
// below in Z16, the factor entries in Z18-Z25.
TEXT ·bwdNx8AVX(SB), NOSPLIT, $0-56
	MOVQ a+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ below+16(FP), BX
	MOVQ nr+24(FP), CX
	MOVQ l+32(FP), DX
	MOVQ w+40(FP), R8
	SHLQ $3, R8 // bytes per row of l
	MOVQ CX, R13
	DECQ R13
	IMULQ R8, R13
	ADDQ R13, DX // &l[(nr-1)·w]
	VPXORQ Z0, Z0, Z0
	VPXORQ Z1, Z1, Z1
	VPXORQ Z2, Z2, Z2
	VPXORQ Z3, Z3, Z3
	VPXORQ Z4, Z4, Z4
	VPXORQ Z5, Z5, Z5
	VPXORQ Z6, Z6, Z6
	VPXORQ Z7, Z7, Z7
	MOVQ n+48(FP), R9

bn8rows:
	DECQ CX
	MOVLQSX (BX)(CX*4), AX
	SHLQ $6, AX
	ADDQ SI, AX
	VMOVUPD 0(AX), Z16
	FMA8B(0(DX), Z18, Z0)
	CMPQ R9, $1
	JEQ bn8next
	FMA8B(8(DX), Z19, Z1)
	CMPQ R9, $2
	JEQ bn8next
	FMA8B(16(DX), Z20, Z2)
	CMPQ R9, $3
	JEQ bn8next
	FMA8B(24(DX), Z21, Z3)
	CMPQ R9, $4
	JEQ bn8next
	FMA8B(32(DX), Z22, Z4)
	FMA8B(40(DX), Z23, Z5)
	FMA8B(48(DX), Z24, Z6)
	FMA8B(56(DX), Z25, Z7)

bn8next:
	SUBQ R8, DX
	TESTQ CX, CX
	JNZ bn8rows
	SUB8B(0, Z0)
	CMPQ R9, $1
	JEQ bn8done
	SUB8B(64, Z1)
	CMPQ R9, $2
	JEQ bn8done
	SUB8B(128, Z2)
	CMPQ R9, $3
	JEQ bn8done
	SUB8B(192, Z3)
	CMPQ R9, $4
	JEQ bn8done
	SUB8B(256, Z4)
	SUB8B(320, Z5)
	SUB8B(384, Z6)
	SUB8B(448, Z7)

bn8done:
	VZEROUPPER
	RET

// The …RowsAVX entry points take the row width cw (8, 16, 20, 24 or 32) as a last
// argument and jump to that width's kernel, whose arguments lie at the
// same places: one call from Go whatever the width.

// func fwdBlockRowsAVX(x *float64, rows *int32, nr int, l *float64, xk *float64, nk int, w int, cw int)
TEXT ·fwdBlockRowsAVX(SB), NOSPLIT, $0-64
	MOVQ cw+56(FP), AX
	CMPQ AX, $16
	JNE fbr1
	JMP ·fwdBlock16AVX(SB)
fbr1:
	CMPQ AX, $20
	JNE fbr2
	JMP ·fwdBlock20AVX(SB)
fbr2:
	CMPQ AX, $24
	JNE fbr3
	JMP ·fwdBlock24AVX(SB)
fbr3:
	CMPQ AX, $32
	JNE fbr4
	JMP ·fwdBlock32AVX(SB)
fbr4:
	JMP ·fwdBlock8AVX(SB)

// func fwdTriRowsAVX(x1 *float64, l *float64, b int, ld int, dinv *float64, cw int)
TEXT ·fwdTriRowsAVX(SB), NOSPLIT, $0-48
	MOVQ cw+40(FP), AX
	CMPQ AX, $16
	JNE ftr1
	JMP ·fwdTri16AVX(SB)
ftr1:
	CMPQ AX, $20
	JNE ftr2
	JMP ·fwdTri20AVX(SB)
ftr2:
	CMPQ AX, $24
	JNE ftr3
	JMP ·fwdTri24AVX(SB)
ftr3:
	CMPQ AX, $32
	JNE ftr4
	JMP ·fwdTri32AVX(SB)
ftr4:
	JMP ·fwdTri8AVX(SB)

// func bwdNxRowsAVX(a *float64, x *float64, below *int32, nr int, l *float64, w int, n int, cw int)
TEXT ·bwdNxRowsAVX(SB), NOSPLIT, $0-64
	MOVQ cw+56(FP), AX
	CMPQ AX, $16
	JNE bnr1
	JMP ·bwdNx16AVX(SB)
bnr1:
	CMPQ AX, $20
	JNE bnr2
	JMP ·bwdNx20AVX(SB)
bnr2:
	CMPQ AX, $24
	JNE bnr3
	JMP ·bwdNx24AVX(SB)
bnr3:
	CMPQ AX, $32
	JNE bnr4
	JMP ·bwdNx32AVX(SB)
bnr4:
	JMP ·bwdNx8AVX(SB)

// func bwdTriRowsAVX(x1 *float64, l *float64, b int, ld int, dinv *float64, cw int)
TEXT ·bwdTriRowsAVX(SB), NOSPLIT, $0-48
	MOVQ cw+40(FP), AX
	CMPQ AX, $16
	JNE btr1
	JMP ·bwdTri16AVX(SB)
btr1:
	CMPQ AX, $20
	JNE btr2
	JMP ·bwdTri20AVX(SB)
btr2:
	CMPQ AX, $24
	JNE btr3
	JMP ·bwdTri24AVX(SB)
btr3:
	CMPQ AX, $32
	JNE btr4
	JMP ·bwdTri32AVX(SB)
btr4:
	JMP ·bwdTri8AVX(SB)

// The kernels named …24AVX are the …16AVX ones for rows of 24 values
// (AVX-512): three 8-wide registers a row, the rows 192 bytes apart, with
// the same operations in every lane.

// FWD24H, FWD24P and FWD24T are FWD20H, FWD20P and FWD20T for rows 192
// bytes apart (the parts at byte off 0, 64 and 128).
#define FWD24H(off, r0, r1) \
	VMOVUPD off(DI), Z8 \
	VMULPD (192+off)(DX), r1, Z9 \
	VFNMADD231PD off(DX), r0, Z8

#define FWD24P(off, odd, even, rodd, reven) \
	VFMADD231PD (odd+off)(DX), rodd, Z9 \
	VFNMADD231PD (even+off)(DX), reven, Z8

#define FWD24T(off) \
	VSUBPD Z9, Z8, Z8 \
	VMOVUPD Z8, off(DI)

#define FWD24CHUNK8(off) \
	FWD24H(off, Z0, Z1) \
	FWD24P(off, 576, 384, Z3, Z2) \
	FWD24P(off, 960, 768, Z5, Z4) \
	FWD24P(off, 1344, 1152, Z7, Z6) \
	FWD24T(off)

#define FWD24CHUNK4(off) \
	FWD24H(off, Z0, Z1) \
	FWD24P(off, 576, 384, Z3, Z2) \
	FWD24T(off)

#define FWD24CHUNK3(off) \
	FWD24H(off, Z0, Z1) \
	VFNMADD231PD (384+off)(DX), Z2, Z8 \
	FWD24T(off)

#define FWD24CHUNK2(off) \
	FWD24H(off, Z0, Z1) \
	FWD24T(off)

#define FWD24ONE(off) \
	VMOVUPD off(DI), Z8 \
	VFNMADD231PD off(DX), Z0, Z8 \
	VMOVUPD Z8, off(DI)

// fwdrow24<> is fwdrow16<> for a row of 24 values whose columns x_k are
// the rows of 24 values at DX + 192k: y = DI −= Σ_{k<nl} l[k]·x_k, l = SI,
// nl = CX. It clobbers CX, DX, SI and Z0-Z9.
TEXT fwdrow24<>(SB), NOSPLIT|NOFRAME, $0
f24chunk8:
	CMPQ CX, $8
	JLT f24chunk4
	VBROADCASTSD 0(SI), Z0
	VBROADCASTSD 8(SI), Z1
	VBROADCASTSD 16(SI), Z2
	VBROADCASTSD 24(SI), Z3
	VBROADCASTSD 32(SI), Z4
	VBROADCASTSD 40(SI), Z5
	VBROADCASTSD 48(SI), Z6
	VBROADCASTSD 56(SI), Z7
	FWD24CHUNK8(0)
	FWD24CHUNK8(64)
	FWD24CHUNK8(128)
	ADDQ $64, SI
	ADDQ $1536, DX
	SUBQ $8, CX
	JMP f24chunk8

f24chunk4:
	CMPQ CX, $4
	JLT f24one
	VBROADCASTSD 0(SI), Z0
	VBROADCASTSD 8(SI), Z1
	VBROADCASTSD 16(SI), Z2
	VBROADCASTSD 24(SI), Z3
	FWD24CHUNK4(0)
	FWD24CHUNK4(64)
	FWD24CHUNK4(128)
	ADDQ $32, SI
	ADDQ $768, DX
	SUBQ $4, CX
	CMPQ CX, $3
	JLT f24chunk2
	VBROADCASTSD 0(SI), Z0
	VBROADCASTSD 8(SI), Z1
	VBROADCASTSD 16(SI), Z2
	FWD24CHUNK3(0)
	FWD24CHUNK3(64)
	FWD24CHUNK3(128)
	RET

f24chunk2:
	CMPQ CX, $2
	JLT f24one
	VBROADCASTSD 0(SI), Z0
	VBROADCASTSD 8(SI), Z1
	FWD24CHUNK2(0)
	FWD24CHUNK2(64)
	FWD24CHUNK2(128)
	RET

f24one:
	TESTQ CX, CX
	JEQ f24done
	VBROADCASTSD 0(SI), Z0
	FWD24ONE(0)
	FWD24ONE(64)
	FWD24ONE(128)
	ADDQ $8, SI
	ADDQ $192, DX
	DECQ CX
	JMP f24one

f24done:
	RET

// ROW24ADDR sets AX to row rows[j+a] of x (192 bytes a row): BX =
// &rows[j], R9 = x. LOAD24 and STORE24 load and store that row.
#define ROW24ADDR(a) \
	MOVLQSX (4*(a))(BX), AX \
	LEAQ (AX)(AX*2), AX \
	SHLQ $6, AX \
	ADDQ R9, AX

#define LOAD24(a, z0, z1, z2) \
	ROW24ADDR(a) \
	VMOVUPD 0(AX), z0 \
	VMOVUPD 64(AX), z1 \
	VMOVUPD 128(AX), z2

#define STORE24(a, z0, z1, z2) \
	ROW24ADDR(a) \
	VMOVUPD z0, 0(AX) \
	VMOVUPD z1, 64(AX) \
	VMOVUPD z2, 128(AX)

// FNMA24 broadcasts the factor entry at addr into b and subtracts its
// products with the column in (Z24, Z25, Z26) from the row in (z0, z1,
// z2); FNMA24X4 does it for four rows, their entries of l at p, p+R8,
// p+2·R8, p+R11.
#define FNMA24(addr, b, z0, z1, z2) \
	VBROADCASTSD addr, b \
	VFNMADD231PD Z24, b, z0 \
	VFNMADD231PD Z25, b, z1 \
	VFNMADD231PD Z26, b, z2

#define FNMA24X4(p, a0, a1, a2, b0, b1, b2, c0, c1, c2, d0, d1, d2) \
	FNMA24((p), Z27, a0, a1, a2) \
	FNMA24((p)(R8*1), Z28, b0, b1, b2) \
	FNMA24((p)(R8*2), Z29, c0, c1, c2) \
	FNMA24((p)(R11*1), Z30, d0, d1, d2)

// func fwdBlock24AVX(x *float64, rows *int32, nr int, l *float64, xk *float64, nk int, w int)
//
// fwdBlock16AVX for rows of 24 values (row k of the solved columns at
// xk[24k:]): rows in (Z0, Z1, Z2), …, (Z21, Z22, Z23), the column in
// (Z24, Z25, Z26), the factor entries in Z27-Z30; the rows left over after
// the groups of four through fwdrow24<>.
TEXT ·fwdBlock24AVX(SB), NOSPLIT, $0-56
	MOVQ x+0(FP), R9
	MOVQ w+48(FP), R8
	SHLQ $3, R8 // bytes per row of l
	LEAQ (R8)(R8*2), R11
	XORQ R13, R13 // j

fb24rows:
	MOVQ nr+16(FP), R10
	SUBQ R13, R10 // rows left
	CMPQ R10, $4
	JLT fb24one
	MOVQ R13, BX
	SHLQ $2, BX
	ADDQ rows+8(FP), BX // &rows[j]
	MOVQ R13, SI
	IMULQ R8, SI
	ADDQ l+24(FP), SI // &l[j·w]
	MOVQ xk+32(FP), DX
	MOVQ nk+40(FP), CX
	LOAD24(0, Z0, Z1, Z2)
	LOAD24(1, Z3, Z4, Z5)
	LOAD24(2, Z6, Z7, Z8)
	LOAD24(3, Z9, Z10, Z11)
	CMPQ R10, $8
	JLT fb24four
	CMPQ CX, $64
	JLE fb24eight

fb24four:
	TESTQ CX, CX
	JEQ fb24store4

fb24col4:
	VMOVUPD (DX), Z24
	VMOVUPD 64(DX), Z25
	VMOVUPD 128(DX), Z26
	FNMA24X4(SI, Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7, Z8, Z9, Z10, Z11)
	ADDQ $8, SI
	ADDQ $192, DX
	DECQ CX
	JNZ fb24col4

fb24store4:
	STORE24(0, Z0, Z1, Z2)
	STORE24(1, Z3, Z4, Z5)
	STORE24(2, Z6, Z7, Z8)
	STORE24(3, Z9, Z10, Z11)
	ADDQ $4, R13
	JMP fb24rows

fb24eight:
	LOAD24(4, Z12, Z13, Z14)
	LOAD24(5, Z15, Z16, Z17)
	LOAD24(6, Z18, Z19, Z20)
	LOAD24(7, Z21, Z22, Z23)
	LEAQ (SI)(R8*4), DI // &l[(j+4)·w]
	TESTQ CX, CX
	JEQ fb24store8

fb24col8:
	VMOVUPD (DX), Z24
	VMOVUPD 64(DX), Z25
	VMOVUPD 128(DX), Z26
	FNMA24X4(SI, Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7, Z8, Z9, Z10, Z11)
	FNMA24X4(DI, Z12, Z13, Z14, Z15, Z16, Z17, Z18, Z19, Z20, Z21, Z22, Z23)
	ADDQ $8, SI
	ADDQ $8, DI
	ADDQ $192, DX
	DECQ CX
	JNZ fb24col8

fb24store8:
	STORE24(0, Z0, Z1, Z2)
	STORE24(1, Z3, Z4, Z5)
	STORE24(2, Z6, Z7, Z8)
	STORE24(3, Z9, Z10, Z11)
	STORE24(4, Z12, Z13, Z14)
	STORE24(5, Z15, Z16, Z17)
	STORE24(6, Z18, Z19, Z20)
	STORE24(7, Z21, Z22, Z23)
	ADDQ $8, R13
	JMP fb24rows

fb24one:
	CMPQ R13, nr+16(FP)
	JGE fb24done
	MOVQ rows+8(FP), BX
	MOVLQSX (BX)(R13*4), DI
	LEAQ (DI)(DI*2), DI
	SHLQ $6, DI
	ADDQ R9, DI // row rows[j]
	MOVQ R13, SI
	IMULQ R8, SI
	ADDQ l+24(FP), SI // &l[j·w]
	MOVQ xk+32(FP), DX
	MOVQ nk+40(FP), CX
	CALL fwdrow24<>(SB)
	INCQ R13
	JMP fb24one

fb24done:
	VZEROUPPER
	RET

// func fwdTri24AVX(x1 *float64, l *float64, b int, ld int, dinv *float64)
//
// fwdTri16AVX for rows of 24 values, in (Z0, Z1, Z2), …, (Z9, Z10, Z11).
TEXT ·fwdTri24AVX(SB), NOSPLIT, $0-40
	MOVQ x1+0(FP), DI
	MOVQ l+8(FP), SI
	MOVQ b+16(FP), CX
	MOVQ ld+24(FP), R8
	SHLQ $3, R8 // bytes per row of l
	MOVQ dinv+32(FP), BX
	ROW3(0, Z0, Z1, Z2)
	SCALE3(0, 0(BX), Z15, Z0, Z1, Z2)
	FTRI3NEXT(1, 192, ft24done, Z3, Z4, Z5)
	FNMA3T(0(SI), Z12, Z0, Z1, Z2, Z3, Z4, Z5)
	SCALE3(192, 8(BX), Z15, Z3, Z4, Z5)
	FTRI3NEXT(2, 384, ft24done, Z6, Z7, Z8)
	FNMA3T(0(SI), Z12, Z0, Z1, Z2, Z6, Z7, Z8)
	FNMA3T(8(SI), Z12, Z3, Z4, Z5, Z6, Z7, Z8)
	SCALE3(384, 16(BX), Z15, Z6, Z7, Z8)
	FTRI3NEXT(3, 576, ft24done, Z9, Z10, Z11)
	FNMA3T(0(SI), Z12, Z0, Z1, Z2, Z9, Z10, Z11)
	FNMA3T(8(SI), Z12, Z3, Z4, Z5, Z9, Z10, Z11)
	FNMA3T(16(SI), Z12, Z6, Z7, Z8, Z9, Z10, Z11)
	SCALE3(576, 24(BX), Z15, Z9, Z10, Z11)

ft24done:
	VZEROUPPER
	RET

// func bwdTri24AVX(x1 *float64, l *float64, b int, ld int, dinv *float64)
//
// bwdTri16AVX for rows of 24 values, in (Z0, Z1, Z2), …, (Z9, Z10, Z11).
TEXT ·bwdTri24AVX(SB), NOSPLIT, $0-40
	MOVQ b+16(FP), CX
	LEAQ -1(CX), AX // b−1
	LEAQ (AX)(AX*2), DI
	SHLQ $6, DI
	ADDQ x1+0(FP), DI // the last row
	MOVQ ld+24(FP), R8
	SHLQ $3, R8 // bytes per row of l
	MOVQ AX, R9
	IMULQ R8, R9
	LEAQ (R9)(AX*8), R9
	ADDQ l+8(FP), R9 // &l[(b−1)·ld+b−1]
	MOVQ R9, R10
	SUBQ R8, R10 // one row of l up
	MOVQ R10, R11
	SUBQ R8, R11 // two rows up
	MOVQ dinv+32(FP), BX
	LEAQ (BX)(AX*8), BX // &dinv[b−1]
	ROW3(0, Z0, Z1, Z2)
	SCALE3(0, 0(BX), Z15, Z0, Z1, Z2)
	BTRI3NEXT(1, -192, bt24done, Z3, Z4, Z5)
	ACC3(-8(R9), Z15, Z14, Z0, Z1, Z2)
	SUBSCALE3(-192, -8(BX), Z14, Z15, Z3, Z4, Z5)
	BTRI3NEXT(2, -384, bt24done, Z6, Z7, Z8)
	ACC3(-16(R9), Z15, Z14, Z0, Z1, Z2)
	FMA3(-16(R10), Z15, Z14, Z3, Z4, Z5)
	SUBSCALE3(-384, -16(BX), Z14, Z15, Z6, Z7, Z8)
	BTRI3NEXT(3, -576, bt24done, Z9, Z10, Z11)
	ACC3(-24(R9), Z15, Z14, Z0, Z1, Z2)
	FMA3(-24(R10), Z15, Z14, Z3, Z4, Z5)
	FMA3(-24(R11), Z15, Z14, Z6, Z7, Z8)
	SUBSCALE3(-576, -24(BX), Z14, Z15, Z9, Z10, Z11)

bt24done:
	VZEROUPPER
	RET

// ROW24B takes the next row below, r = CX−1, into (Z24, Z25, Z26): row
// below[r] of x = SI (24 values a row), with below = BX.
#define ROW24B \
	DECQ CX \
	MOVLQSX (BX)(CX*4), AX \
	LEAQ (AX)(AX*2), AX \
	SHLQ $6, AX \
	ADDQ SI, AX \
	VMOVUPD 0(AX), Z24 \
	VMOVUPD 64(AX), Z25 \
	VMOVUPD 128(AX), Z26

// FMA24B broadcasts the factor entry at addr into b and adds its products
// with the row in (Z24, Z25, Z26) to (z0, z1, z2); SUB24B subtracts (z0,
// z1, z2) from the row of 24 values at byte off of DI.
#define FMA24B(addr, b, z0, z1, z2) \
	VBROADCASTSD addr, b \
	VFMADD231PD Z24, b, z0 \
	VFMADD231PD Z25, b, z1 \
	VFMADD231PD Z26, b, z2

#define SUB24B(off, z0, z1, z2) \
	VMOVUPD off(DI), Z24 \
	VSUBPD z0, Z24, Z24 \
	VMOVUPD Z24, off(DI) \
	VMOVUPD (off+64)(DI), Z25 \
	VSUBPD z1, Z25, Z25 \
	VMOVUPD Z25, (off+64)(DI) \
	VMOVUPD (off+128)(DI), Z26 \
	VSUBPD z2, Z26, Z26 \
	VMOVUPD Z26, (off+128)(DI)

// func bwdNx24AVX(a *float64, x *float64, below *int32, nr int, l *float64, w int, n int)
//
// bwdNx16AVX for rows of 24 values: the n accumulators in (Z0, Z1, Z2),
// …, (Z21, Z22, Z23), the row below in (Z24, Z25, Z26), the factor
// entries in Z27-Z30.
TEXT ·bwdNx24AVX(SB), NOSPLIT, $0-56
	MOVQ a+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ below+16(FP), BX
	MOVQ nr+24(FP), CX
	MOVQ l+32(FP), DX
	MOVQ w+40(FP), R8
	SHLQ $3, R8 // bytes per row of l
	MOVQ CX, R13
	DECQ R13
	IMULQ R8, R13
	ADDQ R13, DX // &l[(nr-1)·w]
	VPXORQ Z0, Z0, Z0
	VPXORQ Z1, Z1, Z1
	VPXORQ Z2, Z2, Z2
	VPXORQ Z3, Z3, Z3
	VPXORQ Z4, Z4, Z4
	VPXORQ Z5, Z5, Z5
	VPXORQ Z6, Z6, Z6
	VPXORQ Z7, Z7, Z7
	VPXORQ Z8, Z8, Z8
	VPXORQ Z9, Z9, Z9
	VPXORQ Z10, Z10, Z10
	VPXORQ Z11, Z11, Z11
	VPXORQ Z12, Z12, Z12
	VPXORQ Z13, Z13, Z13
	VPXORQ Z14, Z14, Z14
	VPXORQ Z15, Z15, Z15
	VPXORQ Z16, Z16, Z16
	VPXORQ Z17, Z17, Z17
	VPXORQ Z18, Z18, Z18
	VPXORQ Z19, Z19, Z19
	VPXORQ Z20, Z20, Z20
	VPXORQ Z21, Z21, Z21
	VPXORQ Z22, Z22, Z22
	VPXORQ Z23, Z23, Z23
	MOVQ n+48(FP), R9

bn24rows:
	ROW24B
	FMA24B(0(DX), Z27, Z0, Z1, Z2)
	CMPQ R9, $1
	JEQ bn24next
	FMA24B(8(DX), Z28, Z3, Z4, Z5)
	CMPQ R9, $2
	JEQ bn24next
	FMA24B(16(DX), Z29, Z6, Z7, Z8)
	CMPQ R9, $3
	JEQ bn24next
	FMA24B(24(DX), Z30, Z9, Z10, Z11)
	CMPQ R9, $4
	JEQ bn24next
	FMA24B(32(DX), Z27, Z12, Z13, Z14)
	FMA24B(40(DX), Z28, Z15, Z16, Z17)
	FMA24B(48(DX), Z29, Z18, Z19, Z20)
	FMA24B(56(DX), Z30, Z21, Z22, Z23)

bn24next:
	SUBQ R8, DX
	TESTQ CX, CX
	JNZ bn24rows
	SUB24B(0, Z0, Z1, Z2)
	CMPQ R9, $1
	JEQ bn24done
	SUB24B(192, Z3, Z4, Z5)
	CMPQ R9, $2
	JEQ bn24done
	SUB24B(384, Z6, Z7, Z8)
	CMPQ R9, $3
	JEQ bn24done
	SUB24B(576, Z9, Z10, Z11)
	CMPQ R9, $4
	JEQ bn24done
	SUB24B(768, Z12, Z13, Z14)
	SUB24B(960, Z15, Z16, Z17)
	SUB24B(1152, Z18, Z19, Z20)
	SUB24B(1344, Z21, Z22, Z23)

bn24done:
	VZEROUPPER
	RET

// The kernels named …32AVX are the …16AVX ones for rows of 32 values
// (AVX-512): four 8-wide registers a row, the rows 256 bytes apart, with
// the same operations in every lane. With four registers a row, the block
// kernels take four rows (fwdBlock32AVX) or four columns (bwdNx32AVX, n ≤
// 4) at a time.

// FWD32H, FWD32P and FWD32T are FWD20H, FWD20P and FWD20T for rows 256
// bytes apart (the parts at byte off 0, 64, 128 and 192).
#define FWD32H(off) \
	VMOVUPD off(DI), Z8 \
	VMULPD (256+off)(DX), Z1, Z9 \
	VFNMADD231PD off(DX), Z0, Z8

#define FWD32P(off, odd, even, rodd, reven) \
	VFMADD231PD (odd+off)(DX), rodd, Z9 \
	VFNMADD231PD (even+off)(DX), reven, Z8

#define FWD32T(off) \
	VSUBPD Z9, Z8, Z8 \
	VMOVUPD Z8, off(DI)

#define FWD32CHUNK8(off) \
	FWD32H(off) \
	FWD32P(off, 768, 512, Z3, Z2) \
	FWD32P(off, 1280, 1024, Z5, Z4) \
	FWD32P(off, 1792, 1536, Z7, Z6) \
	FWD32T(off)

#define FWD32CHUNK4(off) \
	FWD32H(off) \
	FWD32P(off, 768, 512, Z3, Z2) \
	FWD32T(off)

#define FWD32CHUNK3(off) \
	FWD32H(off) \
	VFNMADD231PD (512+off)(DX), Z2, Z8 \
	FWD32T(off)

#define FWD32CHUNK2(off) \
	FWD32H(off) \
	FWD32T(off)

#define FWD32ONE(off) \
	VMOVUPD off(DI), Z8 \
	VFNMADD231PD off(DX), Z0, Z8 \
	VMOVUPD Z8, off(DI)

// fwdrow32<> is fwdrow16<> for a row of 32 values whose columns x_k are
// the rows of 32 values at DX + 256k: y = DI −= Σ_{k<nl} l[k]·x_k, l = SI,
// nl = CX. It clobbers CX, DX, SI and Z0-Z9.
TEXT fwdrow32<>(SB), NOSPLIT|NOFRAME, $0
f32chunk8:
	CMPQ CX, $8
	JLT f32chunk4
	VBROADCASTSD 0(SI), Z0
	VBROADCASTSD 8(SI), Z1
	VBROADCASTSD 16(SI), Z2
	VBROADCASTSD 24(SI), Z3
	VBROADCASTSD 32(SI), Z4
	VBROADCASTSD 40(SI), Z5
	VBROADCASTSD 48(SI), Z6
	VBROADCASTSD 56(SI), Z7
	FWD32CHUNK8(0)
	FWD32CHUNK8(64)
	FWD32CHUNK8(128)
	FWD32CHUNK8(192)
	ADDQ $64, SI
	ADDQ $2048, DX
	SUBQ $8, CX
	JMP f32chunk8

f32chunk4:
	CMPQ CX, $4
	JLT f32one
	VBROADCASTSD 0(SI), Z0
	VBROADCASTSD 8(SI), Z1
	VBROADCASTSD 16(SI), Z2
	VBROADCASTSD 24(SI), Z3
	FWD32CHUNK4(0)
	FWD32CHUNK4(64)
	FWD32CHUNK4(128)
	FWD32CHUNK4(192)
	ADDQ $32, SI
	ADDQ $1024, DX
	SUBQ $4, CX
	CMPQ CX, $3
	JLT f32chunk2
	VBROADCASTSD 0(SI), Z0
	VBROADCASTSD 8(SI), Z1
	VBROADCASTSD 16(SI), Z2
	FWD32CHUNK3(0)
	FWD32CHUNK3(64)
	FWD32CHUNK3(128)
	FWD32CHUNK3(192)
	RET

f32chunk2:
	CMPQ CX, $2
	JLT f32one
	VBROADCASTSD 0(SI), Z0
	VBROADCASTSD 8(SI), Z1
	FWD32CHUNK2(0)
	FWD32CHUNK2(64)
	FWD32CHUNK2(128)
	FWD32CHUNK2(192)
	RET

f32one:
	TESTQ CX, CX
	JEQ f32done
	VBROADCASTSD 0(SI), Z0
	FWD32ONE(0)
	FWD32ONE(64)
	FWD32ONE(128)
	FWD32ONE(192)
	ADDQ $8, SI
	ADDQ $256, DX
	DECQ CX
	JMP f32one

f32done:
	RET

// ROW32ADDR sets AX to row rows[j+a] of x (256 bytes a row): BX =
// &rows[j], R9 = x. LOAD32 and STORE32 load and store that row.
#define ROW32ADDR(a) \
	MOVLQSX (4*(a))(BX), AX \
	SHLQ $8, AX \
	ADDQ R9, AX

#define LOAD32(a, z0, z1, z2, z3) \
	ROW32ADDR(a) \
	VMOVUPD 0(AX), z0 \
	VMOVUPD 64(AX), z1 \
	VMOVUPD 128(AX), z2 \
	VMOVUPD 192(AX), z3

#define STORE32(a, z0, z1, z2, z3) \
	ROW32ADDR(a) \
	VMOVUPD z0, 0(AX) \
	VMOVUPD z1, 64(AX) \
	VMOVUPD z2, 128(AX) \
	VMOVUPD z3, 192(AX)

// FNMA32 broadcasts the factor entry at addr into b and subtracts its
// products with the column in (Z16, …, Z19) from the row in (z0, …, z3).
#define FNMA32(addr, b, z0, z1, z2, z3) \
	VBROADCASTSD addr, b \
	VFNMADD231PD Z16, b, z0 \
	VFNMADD231PD Z17, b, z1 \
	VFNMADD231PD Z18, b, z2 \
	VFNMADD231PD Z19, b, z3

// func fwdBlock32AVX(x *float64, rows *int32, nr int, l *float64, xk *float64, nk int, w int)
//
// fwdBlock16AVX for rows of 32 values (row k of the solved columns at
// xk[32k:]), four rows at a time: the rows in (Z0, …, Z3), …, (Z12, …,
// Z15), the column in (Z16, …, Z19), the factor entries in Z20-Z23; the
// rows left over after the groups of four through fwdrow32<>.
TEXT ·fwdBlock32AVX(SB), NOSPLIT, $0-56
	MOVQ x+0(FP), R9
	MOVQ w+48(FP), R8
	SHLQ $3, R8 // bytes per row of l
	LEAQ (R8)(R8*2), R11
	XORQ R13, R13 // j

fb32rows:
	MOVQ nr+16(FP), R10
	SUBQ R13, R10 // rows left
	CMPQ R10, $4
	JLT fb32one
	MOVQ R13, BX
	SHLQ $2, BX
	ADDQ rows+8(FP), BX // &rows[j]
	MOVQ R13, SI
	IMULQ R8, SI
	ADDQ l+24(FP), SI // &l[j·w]
	MOVQ xk+32(FP), DX
	MOVQ nk+40(FP), CX
	LOAD32(0, Z0, Z1, Z2, Z3)
	LOAD32(1, Z4, Z5, Z6, Z7)
	LOAD32(2, Z8, Z9, Z10, Z11)
	LOAD32(3, Z12, Z13, Z14, Z15)
	TESTQ CX, CX
	JEQ fb32store

fb32col:
	VMOVUPD (DX), Z16
	VMOVUPD 64(DX), Z17
	VMOVUPD 128(DX), Z18
	VMOVUPD 192(DX), Z19
	FNMA32((SI), Z20, Z0, Z1, Z2, Z3)
	FNMA32((SI)(R8*1), Z21, Z4, Z5, Z6, Z7)
	FNMA32((SI)(R8*2), Z22, Z8, Z9, Z10, Z11)
	FNMA32((SI)(R11*1), Z23, Z12, Z13, Z14, Z15)
	ADDQ $8, SI
	ADDQ $256, DX
	DECQ CX
	JNZ fb32col

fb32store:
	STORE32(0, Z0, Z1, Z2, Z3)
	STORE32(1, Z4, Z5, Z6, Z7)
	STORE32(2, Z8, Z9, Z10, Z11)
	STORE32(3, Z12, Z13, Z14, Z15)
	ADDQ $4, R13
	JMP fb32rows

fb32one:
	CMPQ R13, nr+16(FP)
	JGE fb32done
	MOVQ rows+8(FP), BX
	MOVLQSX (BX)(R13*4), DI
	SHLQ $8, DI
	ADDQ R9, DI // row rows[j]
	MOVQ R13, SI
	IMULQ R8, SI
	ADDQ l+24(FP), SI // &l[j·w]
	MOVQ xk+32(FP), DX
	MOVQ nk+40(FP), CX
	CALL fwdrow32<>(SB)
	INCQ R13
	JMP fb32one

fb32done:
	VZEROUPPER
	RET

// ROW32 loads the row of 32 values at byte off of DI into (z0, …, z3);
// SCALE32 multiplies it by the value at addr (broadcast into Z20) and
// stores it back.
#define ROW32(off, z0, z1, z2, z3) \
	VMOVUPD off(DI), z0 \
	VMOVUPD (off+64)(DI), z1 \
	VMOVUPD (off+128)(DI), z2 \
	VMOVUPD (off+192)(DI), z3

#define SCALE32(off, addr, z0, z1, z2, z3) \
	VBROADCASTSD addr, Z20 \
	VMULPD z0, Z20, z0 \
	VMULPD z1, Z20, z1 \
	VMULPD z2, Z20, z2 \
	VMULPD z3, Z20, z3 \
	VMOVUPD z0, off(DI) \
	VMOVUPD z1, (off+64)(DI) \
	VMOVUPD z2, (off+128)(DI) \
	VMOVUPD z3, (off+192)(DI)

// FNMA32T subtracts the products of the factor entry at addr (broadcast
// into Z21) with the row in (x0, …, x3) from the row in (y0, …, y3).
#define FNMA32T(addr, x0, x1, x2, x3, y0, y1, y2, y3) \
	VBROADCASTSD addr, Z21 \
	VFNMADD231PD x0, Z21, y0 \
	VFNMADD231PD x1, Z21, y1 \
	VFNMADD231PD x2, Z21, y2 \
	VFNMADD231PD x3, Z21, y3

// FTRI32NEXT ends fwdTri32AVX after row k, else moves SI to the next row
// of l and loads the next row of the block (at byte off of DI).
#define FTRI32NEXT(k, off, z0, z1, z2, z3) \
	CMPQ CX, $k \
	JEQ ft32done \
	ADDQ R8, SI \
	ROW32(off, z0, z1, z2, z3)

// func fwdTri32AVX(x1 *float64, l *float64, b int, ld int, dinv *float64)
//
// fwdTri16AVX for rows of 32 values, in (Z0, …, Z3), …, (Z12, …, Z15).
TEXT ·fwdTri32AVX(SB), NOSPLIT, $0-40
	MOVQ x1+0(FP), DI
	MOVQ l+8(FP), SI
	MOVQ b+16(FP), CX
	MOVQ ld+24(FP), R8
	SHLQ $3, R8 // bytes per row of l
	MOVQ dinv+32(FP), BX
	ROW32(0, Z0, Z1, Z2, Z3)
	SCALE32(0, 0(BX), Z0, Z1, Z2, Z3)
	FTRI32NEXT(1, 256, Z4, Z5, Z6, Z7)
	FNMA32T(0(SI), Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	SCALE32(256, 8(BX), Z4, Z5, Z6, Z7)
	FTRI32NEXT(2, 512, Z8, Z9, Z10, Z11)
	FNMA32T(0(SI), Z0, Z1, Z2, Z3, Z8, Z9, Z10, Z11)
	FNMA32T(8(SI), Z4, Z5, Z6, Z7, Z8, Z9, Z10, Z11)
	SCALE32(512, 16(BX), Z8, Z9, Z10, Z11)
	FTRI32NEXT(3, 768, Z12, Z13, Z14, Z15)
	FNMA32T(0(SI), Z0, Z1, Z2, Z3, Z12, Z13, Z14, Z15)
	FNMA32T(8(SI), Z4, Z5, Z6, Z7, Z12, Z13, Z14, Z15)
	FNMA32T(16(SI), Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15)
	SCALE32(768, 24(BX), Z12, Z13, Z14, Z15)

ft32done:
	VZEROUPPER
	RET

// ACC32 starts the accumulator (Z16, …, Z19) at zero and adds the
// products of the factor entry at addr with the row in (x0, …, x3); FMA32
// adds more. SUBSCALE32 sets the row in (y0, …, y3) to (y − the
// accumulator)·(the value at addr) and stores it at byte off of DI.
#define ACC32(addr, x0, x1, x2, x3) \
	VPXORQ Z16, Z16, Z16 \
	VPXORQ Z17, Z17, Z17 \
	VPXORQ Z18, Z18, Z18 \
	VPXORQ Z19, Z19, Z19 \
	FMA32(addr, x0, x1, x2, x3)

#define FMA32(addr, x0, x1, x2, x3) \
	VBROADCASTSD addr, Z21 \
	VFMADD231PD x0, Z21, Z16 \
	VFMADD231PD x1, Z21, Z17 \
	VFMADD231PD x2, Z21, Z18 \
	VFMADD231PD x3, Z21, Z19

#define SUBSCALE32(off, addr, y0, y1, y2, y3) \
	VSUBPD Z16, y0, y0 \
	VSUBPD Z17, y1, y1 \
	VSUBPD Z18, y2, y2 \
	VSUBPD Z19, y3, y3 \
	SCALE32(off, addr, y0, y1, y2, y3)

// BTRI32NEXT ends bwdTri32AVX after k rows, else loads the row at byte
// off of DI.
#define BTRI32NEXT(k, off, z0, z1, z2, z3) \
	CMPQ CX, $k \
	JEQ bt32done \
	ROW32(off, z0, z1, z2, z3)

// func bwdTri32AVX(x1 *float64, l *float64, b int, ld int, dinv *float64)
//
// bwdTri16AVX for rows of 32 values, in (Z0, …, Z3), …, (Z12, …, Z15).
TEXT ·bwdTri32AVX(SB), NOSPLIT, $0-40
	MOVQ b+16(FP), CX
	LEAQ -1(CX), AX // b−1
	MOVQ AX, DI
	SHLQ $8, DI
	ADDQ x1+0(FP), DI // the last row
	MOVQ ld+24(FP), R8
	SHLQ $3, R8 // bytes per row of l
	MOVQ AX, R9
	IMULQ R8, R9
	LEAQ (R9)(AX*8), R9
	ADDQ l+8(FP), R9 // &l[(b−1)·ld+b−1]
	MOVQ R9, R10
	SUBQ R8, R10 // one row of l up
	MOVQ R10, R11
	SUBQ R8, R11 // two rows up
	MOVQ dinv+32(FP), BX
	LEAQ (BX)(AX*8), BX // &dinv[b−1]
	ROW32(0, Z0, Z1, Z2, Z3)
	SCALE32(0, 0(BX), Z0, Z1, Z2, Z3)
	BTRI32NEXT(1, -256, Z4, Z5, Z6, Z7)
	ACC32(-8(R9), Z0, Z1, Z2, Z3)
	SUBSCALE32(-256, -8(BX), Z4, Z5, Z6, Z7)
	BTRI32NEXT(2, -512, Z8, Z9, Z10, Z11)
	ACC32(-16(R9), Z0, Z1, Z2, Z3)
	FMA32(-16(R10), Z4, Z5, Z6, Z7)
	SUBSCALE32(-512, -16(BX), Z8, Z9, Z10, Z11)
	BTRI32NEXT(3, -768, Z12, Z13, Z14, Z15)
	ACC32(-24(R9), Z0, Z1, Z2, Z3)
	FMA32(-24(R10), Z4, Z5, Z6, Z7)
	FMA32(-24(R11), Z8, Z9, Z10, Z11)
	SUBSCALE32(-768, -24(BX), Z12, Z13, Z14, Z15)

bt32done:
	VZEROUPPER
	RET

// ROW32B takes the next row below, r = CX−1, into (Z16, …, Z19): row
// below[r] of x = SI (32 values a row), with below = BX.
#define ROW32B \
	DECQ CX \
	MOVLQSX (BX)(CX*4), AX \
	SHLQ $8, AX \
	ADDQ SI, AX \
	VMOVUPD 0(AX), Z16 \
	VMOVUPD 64(AX), Z17 \
	VMOVUPD 128(AX), Z18 \
	VMOVUPD 192(AX), Z19

// FMA32B broadcasts the factor entry at addr into b and adds its products
// with the row in (Z16, …, Z19) to (z0, …, z3); SUB32B subtracts (z0, …,
// z3) from the row of 32 values at byte off of DI.
#define FMA32B(addr, b, z0, z1, z2, z3) \
	VBROADCASTSD addr, b \
	VFMADD231PD Z16, b, z0 \
	VFMADD231PD Z17, b, z1 \
	VFMADD231PD Z18, b, z2 \
	VFMADD231PD Z19, b, z3

#define SUB32B(off, z0, z1, z2, z3) \
	VMOVUPD off(DI), Z16 \
	VSUBPD z0, Z16, Z16 \
	VMOVUPD Z16, off(DI) \
	VMOVUPD (off+64)(DI), Z17 \
	VSUBPD z1, Z17, Z17 \
	VMOVUPD Z17, (off+64)(DI) \
	VMOVUPD (off+128)(DI), Z18 \
	VSUBPD z2, Z18, Z18 \
	VMOVUPD Z18, (off+128)(DI) \
	VMOVUPD (off+192)(DI), Z19 \
	VSUBPD z3, Z19, Z19 \
	VMOVUPD Z19, (off+192)(DI)

// func bwdNx32AVX(a *float64, x *float64, below *int32, nr int, l *float64, w int, n int)
//
// bwdNx16AVX for rows of 32 values and n = 1, 2, 3 or 4: the accumulators
// in (Z0, …, Z3), …, (Z12, …, Z15), the row below in (Z16, …, Z19), the
// factor entries in Z20-Z23.
TEXT ·bwdNx32AVX(SB), NOSPLIT, $0-56
	MOVQ a+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ below+16(FP), BX
	MOVQ nr+24(FP), CX
	MOVQ l+32(FP), DX
	MOVQ w+40(FP), R8
	SHLQ $3, R8 // bytes per row of l
	MOVQ CX, R13
	DECQ R13
	IMULQ R8, R13
	ADDQ R13, DX // &l[(nr-1)·w]
	VPXORQ Z0, Z0, Z0
	VPXORQ Z1, Z1, Z1
	VPXORQ Z2, Z2, Z2
	VPXORQ Z3, Z3, Z3
	VPXORQ Z4, Z4, Z4
	VPXORQ Z5, Z5, Z5
	VPXORQ Z6, Z6, Z6
	VPXORQ Z7, Z7, Z7
	VPXORQ Z8, Z8, Z8
	VPXORQ Z9, Z9, Z9
	VPXORQ Z10, Z10, Z10
	VPXORQ Z11, Z11, Z11
	VPXORQ Z12, Z12, Z12
	VPXORQ Z13, Z13, Z13
	VPXORQ Z14, Z14, Z14
	VPXORQ Z15, Z15, Z15
	MOVQ n+48(FP), R9

bn32rows:
	ROW32B
	FMA32B(0(DX), Z20, Z0, Z1, Z2, Z3)
	CMPQ R9, $1
	JEQ bn32next
	FMA32B(8(DX), Z21, Z4, Z5, Z6, Z7)
	CMPQ R9, $2
	JEQ bn32next
	FMA32B(16(DX), Z22, Z8, Z9, Z10, Z11)
	CMPQ R9, $3
	JEQ bn32next
	FMA32B(24(DX), Z23, Z12, Z13, Z14, Z15)

bn32next:
	SUBQ R8, DX
	TESTQ CX, CX
	JNZ bn32rows
	SUB32B(0, Z0, Z1, Z2, Z3)
	CMPQ R9, $1
	JEQ bn32done
	SUB32B(256, Z4, Z5, Z6, Z7)
	CMPQ R9, $2
	JEQ bn32done
	SUB32B(512, Z8, Z9, Z10, Z11)
	CMPQ R9, $3
	JEQ bn32done
	SUB32B(768, Z12, Z13, Z14, Z15)

bn32done:
	VZEROUPPER
	RET

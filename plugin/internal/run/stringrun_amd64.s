//go:build !purego

#include "textflag.h"

// SPECIAL sets in m each byte of the 16 in x that is a quote (X1 holds
// them), a backslash (X2) or a control character (below 0x20: X3 holds
// 0x1f, and the unsigned minimum with it is the byte itself); t and u are
// scratch.
#define SPECIAL(x, m, t, u) \
	MOVO x, m \
	PCMPEQB X1, m \
	MOVO x, t \
	PCMPEQB X2, t \
	MOVO x, u \
	PMINUB X3, u \
	PCMPEQB x, u \
	POR t, m \
	POR u, m

// SSEBYTES loads X1, X2 and X3 with ·stringbytes's quotes, backslashes
// and 0x1f.
#define SSEBYTES \
	MOVOU ·stringbytes+0(SB), X1 \
	MOVOU ·stringbytes+16(SB), X2 \
	MOVOU ·stringbytes+32(SB), X3

// STEP32 sets m to the special bytes (SPECIAL) of the 32 at AX and goes to
// found when there is one, to short when fewer than 32 are left, else
// moves AX past them; R9 is scratch.
#define STEP32(m, short, found) \
	LEAQ 32(AX), CX \
	CMPQ CX, DX \
	JA short \
	MOVOU (SI)(AX*1), X0 \
	MOVOU 16(SI)(AX*1), X7 \
	SPECIAL(X0, X4, X5, X6) \
	SPECIAL(X7, X8, X9, X10) \
	PMOVMSKB X4, m \
	PMOVMSKB X8, R9 \
	SHLQ $16, R9 \
	ORQ R9, m \
	TESTQ m, m \
	JNZ found \
	ADDQ $32, AX

// STEP16 is STEP32 for 16 bytes.
#define STEP16(m, short, found) \
	LEAQ 16(AX), CX \
	CMPQ CX, DX \
	JA short \
	MOVOU (SI)(AX*1), X0 \
	SPECIAL(X0, X4, X5, X6) \
	PMOVMSKB X4, m \
	TESTQ m, m \
	JNZ found \
	ADDQ $16, AX

// TAILSTEP goes to done at the end of b, to special when b[AX] is a quote,
// a backslash or a control character, else moves AX past it; R8 is
// scratch.
#define TAILSTEP(done, special) \
	CMPQ AX, DX \
	JAE done \
	MOVBLZX (SI)(AX*1), R8 \
	CMPB R8, $0x22 \
	JEQ special \
	CMPB R8, $0x5c \
	JEQ special \
	CMPB R8, $0x20 \
	JB special \
	INCQ AX

// The bytes that follow a backslash in a two-byte escape, as bit sets of
// 0x00-0x3f (" and /) and 0x40-0x7f (\ b f n r t).
#define ESC_LOW $0x0000800400000000
#define ESC_HIGH $0x0014404410000000

// The bytes X1, X2 and X3 hold, sixteen of each (stage1_amd64.s uses
// them too).
DATA ·stringbytes+0(SB)/8, $0x2222222222222222
DATA ·stringbytes+8(SB)/8, $0x2222222222222222
DATA ·stringbytes+16(SB)/8, $0x5c5c5c5c5c5c5c5c
DATA ·stringbytes+24(SB)/8, $0x5c5c5c5c5c5c5c5c
DATA ·stringbytes+32(SB)/8, $0x1f1f1f1f1f1f1f1f
DATA ·stringbytes+40(SB)/8, $0x1f1f1f1f1f1f1f1f
GLOBL ·stringbytes(SB), RODATA|NOPTR, $48

// func stringScan(b []byte, i int) (end int, ok, escaped bool)
//
// stringRun's scan, sixteen bytes at a time (thirty-two with AVX2 where
// the processor has it, scanAVX2), and where it stops what stringEnd
// does: a quote (or the end of b) ends the string, a control character or
// a bad escape is an error (ok 0), and a \u escape with four hex digits
// is skipped.
TEXT ·stringScan(SB), NOSPLIT, $0-42
	MOVQ b_base+0(FP), SI
	MOVQ b_len+8(FP), DX
	MOVQ i+24(FP), AX
	XORL DI, DI
	MOVL $1, BX // ok
	MOVBLZX ·scanAVX2(SB), R12
	TESTQ R12, R12
	JZ scansse
	VPBROADCASTB ·stringbytes+0(SB), Y1
	VPBROADCASTB ·stringbytes+16(SB), Y2
	VPBROADCASTB ·stringbytes+32(SB), Y3
scanavx:
	// With AVX2 (R12 set), 32 bytes at a time, and the rest a byte at a
	// time.
	LEAQ 32(AX), CX
	CMPQ CX, DX
	JA scantail
	VMOVDQU (SI)(AX*1), Y0
	VPCMPEQB Y1, Y0, Y4
	VPCMPEQB Y2, Y0, Y5
	VPMINUB Y3, Y0, Y6
	VPCMPEQB Y0, Y6, Y6
	VPOR Y4, Y5, Y4
	VPOR Y6, Y4, Y4
	VPMOVMSKB Y4, R8
	TESTL R8, R8
	JNZ scanfound
	ADDQ $32, AX
	JMP scanavx
scansse:
	SSEBYTES
scan32:
	STEP32(R8, scan16, scanfound)
	JMP scan32
scan16:
	STEP16(R8, scantail, scanfound)
	JMP scan16
scanfound:
	BSFQ R8, R8
	ADDQ R8, AX
scanspecial:
	// b[AX] is a quote, a backslash or a control character.
	MOVBLZX (SI)(AX*1), R8
	CMPB R8, $0x22
	JEQ scandone
	CMPB R8, $0x5c
	JNE scanbad // a control character
	LEAQ 1(AX), CX
	CMPQ CX, DX
	JAE scanbad
	MOVBLZX (SI)(CX*1), R8
	CMPQ R8, $0x75
	JEQ scanu
	MOVQ ESC_LOW, R10
	CMPQ R8, $64
	JB scantest
	SUBQ $64, R8
	MOVQ ESC_HIGH, R10
	CMPQ R8, $64
	JAE scanbad
scantest:
	BTQ R8, R10
	JCC scanbad
	ADDQ $2, AX
	JMP scanon
scanu:
	// \u and four hex digits: b[AX+2:AX+6].
	LEAQ 6(AX), CX
	CMPQ CX, DX
	JA scanbad
	LEAQ (SI)(AX*1), R10
	MOVQ $2, R9
scanhex:
	MOVBLZX (R10)(R9*1), R8
	LEAL -48(R8), R11
	CMPL R11, $10
	JB scanhexok
	ORL $0x20, R8
	SUBL $97, R8
	CMPL R8, $6
	JAE scanbad
scanhexok:
	INCQ R9
	CMPQ R9, $6
	JB scanhex
	MOVQ CX, AX
scanon:
	// Past an escape: on in the loop the scan started in.
	MOVL $1, DI
	TESTQ R12, R12
	JNZ scanavx
	JMP scan32
scantail:
	TAILSTEP(scandone, scanspecial)
	JMP scantail
scanbad:
	XORL BX, BX
scandone:
	TESTQ R12, R12
	JZ scanret
	VZEROUPPER
scanret:
	MOVQ AX, end+32(FP)
	MOVB BX, ok+40(FP)
	MOVB DI, escaped+41(FP)
	RET

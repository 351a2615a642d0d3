#include "textflag.h"

// LANE puts in q, bs and ctl the masks of the quotes (X1 holds them), the
// backslashes (X2) and the control characters (below X3's 0x20: the
// unsigned minimum with 0x1f is the byte itself) of the 16 bytes at
// off(SI).
#define LANE(off, q, bs, ctl) \
	MOVOU off(SI), X0 \
	MOVO X0, X4 \
	PCMPEQB X1, X4 \
	PMOVMSKB X4, q \
	MOVO X0, X5 \
	PCMPEQB X2, X5 \
	PMOVMSKB X5, bs \
	MOVO X3, X6 \
	PMINUB X0, X6 \
	PCMPEQB X0, X6 \
	PMOVMSKB X6, ctl

// MERGE ors the masks of the lane at bit shift into AX, BX and DX.
#define MERGE(shift) \
	SHLQ $shift, R8 \
	SHLQ $shift, R9 \
	SHLQ $shift, R10 \
	ORQ R8, AX \
	ORQ R9, BX \
	ORQ R10, DX

// STORE writes the block's masks (AX, BX, DX, and the brackets' R11 and
// R12) and moves on to the next.
#define STORE \
	MOVQ AX, 0(DI) \
	MOVQ DX, 8(DI) \
	MOVQ BX, 16(DI) \
	MOVQ R11, 24(DI) \
	MOVQ R12, 32(DI) \
	ADDQ $64, SI \
	ADDQ $40, DI \
	DECQ CX

// X1, X2 and X3 (Y1, Y2 and Y3) hold quotes, backslashes and 0x1f, from
// stringrun_amd64.s's ·stringbytes; X7, X8 and X9 (Y8, Y9 and Y10) 0x20,
// '{' and '}', from bracketbytes. In stageMasksSSE2, with brackets (R13
// not 0) a block's opening and closing brackets go to R11 and R12; else,
// and in stageMasksAVX2, they stay 0.

// The bytes the brackets are found with, sixteen of each: 0x20 (ORed in,
// it makes '[' a '{' and ']' a '}'), '{' and '}'.
DATA bracketbytes<>+0(SB)/8, $0x2020202020202020
DATA bracketbytes<>+8(SB)/8, $0x2020202020202020
DATA bracketbytes<>+16(SB)/8, $0x7b7b7b7b7b7b7b7b
DATA bracketbytes<>+24(SB)/8, $0x7b7b7b7b7b7b7b7b
DATA bracketbytes<>+32(SB)/8, $0x7d7d7d7d7d7d7d7d
DATA bracketbytes<>+40(SB)/8, $0x7d7d7d7d7d7d7d7d
GLOBL bracketbytes<>(SB), RODATA|NOPTR, $48

// BLANE ors into R11 and R12 the masks, shifted left by shift, of the
// opening and closing brackets of the 16 bytes at off(SI); R8 and R9 are
// scratch.
#define BLANE(off, shift) \
	MOVOU off(SI), X0 \
	POR X7, X0 \
	MOVO X0, X4 \
	PCMPEQB X8, X4 \
	PMOVMSKB X4, R8 \
	PCMPEQB X9, X0 \
	PMOVMSKB X0, R9 \
	SHLQ $shift, R8 \
	SHLQ $shift, R9 \
	ORQ R8, R11 \
	ORQ R9, R12

// PROLOGUE loads the arguments, zeroes the bracket masks and tests the
// number of blocks.
#define PROLOGUE \
	MOVQ b_base+0(FP), SI \
	MOVQ out_base+24(FP), DI \
	MOVQ out_len+32(FP), CX \
	XORQ R11, R11 \
	XORQ R12, R12 \
	TESTQ CX, CX

// func stageMasksSSE2(b []byte, out []stageBlock, brackets bool)
TEXT ·stageMasksSSE2(SB), NOSPLIT, $0-49
	MOVBQZX brackets+48(FP), R13
	PROLOGUE
	JZ done
	MOVOU ·stringbytes+0(SB), X1
	MOVOU ·stringbytes+16(SB), X2
	MOVOU ·stringbytes+32(SB), X3
	MOVOU bracketbytes<>+0(SB), X7
	MOVOU bracketbytes<>+16(SB), X8
	MOVOU bracketbytes<>+32(SB), X9
loop:
	LANE(0, AX, BX, DX)
	LANE(16, R8, R9, R10)
	MERGE(16)
	LANE(32, R8, R9, R10)
	MERGE(32)
	LANE(48, R8, R9, R10)
	MERGE(48)
	TESTQ R13, R13
	JZ store
	XORQ R11, R11
	XORQ R12, R12
	BLANE(0, 0)
	BLANE(16, 16)
	BLANE(32, 32)
	BLANE(48, 48)
store:
	STORE
	JNZ loop
done:
	RET

// HALF puts in q, bs and ctl the masks of the quotes (Y1 holds them), the
// backslashes (Y2) and the control characters (Y3 holds 0x1f) of the 32
// bytes in y.
#define HALF(y, q, bs, ctl) \
	VPCMPEQB Y1, y, Y4 \
	VPMOVMSKB Y4, q \
	VPCMPEQB Y2, y, Y5 \
	VPMOVMSKB Y5, bs \
	VPMINUB Y3, y, Y6 \
	VPCMPEQB y, Y6, Y6 \
	VPMOVMSKB Y6, ctl

// BHALF sets r to the mask of the bytes of Y4 and Y5 equal to those of
// yc (Y4's in the low half); Y6 and R8 are scratch.
#define BHALF(yc, r) \
	VPCMPEQB yc, Y4, Y6 \
	VPMOVMSKB Y6, r \
	VPCMPEQB yc, Y5, Y6 \
	VPMOVMSKB Y6, R8 \
	SHLQ $32, R8 \
	ORQ R8, r

// AVXBYTES loads Y1, Y2 and Y3 with quotes, backslashes and 0x1f, and
// Y8, Y9 and Y10 with 0x20, '{' and '}'.
#define AVXBYTES \
	VPBROADCASTB ·stringbytes+0(SB), Y1 \
	VPBROADCASTB ·stringbytes+16(SB), Y2 \
	VPBROADCASTB ·stringbytes+32(SB), Y3 \
	VPBROADCASTB bracketbytes<>+0(SB), Y8 \
	VPBROADCASTB bracketbytes<>+16(SB), Y9 \
	VPBROADCASTB bracketbytes<>+32(SB), Y10

// AVXBLOCK loads the 64 bytes at SI into Y0 and Y7 and puts their
// quotes, backslashes and control characters in AX, BX and DX.
#define AVXBLOCK \
	VMOVDQU 0(SI), Y0 \
	VMOVDQU 32(SI), Y7 \
	HALF(Y0, AX, BX, DX) \
	HALF(Y7, R8, R9, R10) \
	MERGE(32)

// AVXBRACKETS puts the opening and closing brackets of Y0 and Y7 in R11
// and R12.
#define AVXBRACKETS \
	VPOR Y8, Y0, Y4 \
	VPOR Y8, Y7, Y5 \
	BHALF(Y9, R11) \
	BHALF(Y10, R12)

// func stageMasksAVX2(b []byte, out []stageBlock)
TEXT ·stageMasksAVX2(SB), NOSPLIT, $0-48
	PROLOGUE
	JZ avxdone
	AVXBYTES
avxloop:
	AVXBLOCK
	STORE
	JNZ avxloop
	VZEROUPPER
avxdone:
	RET

// func stageLooseAVX2(b []byte, out []stageBlock, found []int32, first int, st *looseState) int
//
// Per block: the raw masks as stageMasksAVX2 finds them (quotes AX,
// backslashes BX, control characters DX), then, as looseMasks does, the
// escaped bytes (BX, with the carry in R14) and the prefix XOR of the
// quotes (a carry-less multiply by all ones, X11) with the state of the
// blocks before (X13: all ones in a string), and the brackets (R11 and
// R12) outside strings. R15 is the block's index in the line, R13 where
// the next index goes in found: each is written, and R13 moves on only
// when the block holds a bracket.
TEXT ·stageLooseAVX2(SB), NOSPLIT, $0-96
	MOVQ b_base+0(FP), SI
	MOVQ out_base+24(FP), DI
	MOVQ out_len+32(FP), CX
	MOVQ found_base+48(FP), R13
	TESTQ CX, CX
	JZ loosedone
	AVXBYTES
	VPCMPEQB Y11, Y11, Y11
	MOVQ st+80(FP), R8
	MOVQ 0(R8), R14
	VMOVQ 8(R8), X13
	MOVQ first+72(FP), R15
looseloop:
	AVXBLOCK
	// The escaped bytes, as escapes finds them, when there is a backslash
	// or a carry.
	MOVQ BX, R9
	ORQ R14, R9
	JZ looseplain
	MOVQ R14, R10
	NOTQ R10
	ANDQ BX, R10 // potential
	MOVQ R10, R8
	SHLQ $1, R8
	MOVQ $0xaaaaaaaaaaaaaaaa, R11
	ORQ R11, R8
	SUBQ R10, R8
	XORQ R11, R8 // code
	XORQ R8, R9 // escaped
	ANDQ BX, R8
	SHRQ $63, R8
	MOVQ R8, R14 // carry
	MOVQ R9, BX
	ORQ R9, DX
	NOTQ R9
	ANDQ R9, AX
looseplain:
	AVXBRACKETS
	VMOVQ AX, X12
	VPCLMULQDQ $0, X11, X12, X12
	VPXOR X13, X12, X12
	VMOVQ X12, R8 // in strings
	MOVQ R8, R9
	SARQ $63, R9
	VMOVQ R9, X13
	ORQ BX, R8
	NOTQ R8 // outside strings, not escaped
	ANDQ R8, R11
	ANDQ R8, R12
	MOVL R15, 0(R13)
	LEAQ 4(R13), R9
	MOVQ R11, R10
	ORQ R12, R10
	CMOVQNE R9, R13 // on past the index when the block holds a bracket
	INCQ R15
	STORE
	JNZ looseloop
	MOVQ st+80(FP), R8
	MOVQ R14, 0(R8)
	VMOVQ X13, 8(R8)
	VZEROUPPER
loosedone:
	SUBQ found_base+48(FP), R13
	SHRQ $2, R13
	MOVQ R13, ret+88(FP)
	RET

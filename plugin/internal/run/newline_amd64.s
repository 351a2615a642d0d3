//go:build !purego

#include "textflag.h"

// NEWLINES puts 32 newlines in Y1.
#define NEWLINES \
	MOVL $0x0a, AX \
	MOVD AX, X0 \
	VPBROADCASTB X0, Y1

// STEP128 compares the 128 bytes at DI with the newlines in Y1 (into Y2
// to Y5) and goes to found when one is.
#define STEP128 \
	VPCMPEQB 0(DI), Y1, Y2 \
	VPCMPEQB 32(DI), Y1, Y3 \
	VPCMPEQB 64(DI), Y1, Y4 \
	VPCMPEQB 96(DI), Y1, Y5 \
	VPOR Y2, Y3, Y6 \
	VPOR Y4, Y5, Y7 \
	VPOR Y6, Y7, Y7 \
	VPTEST Y7, Y7 \
	JNZ found

// func newlineAVX2(b []byte) int
//
// The index of the first '\n' in b (len(b) >= 128), -1 when there is
// none: 128 bytes a step (four compares with a memory operand, ORed and
// tested at once), then the last 128 bytes of b, which may overlap bytes
// already seen (they hold no newline); in the 128 bytes that hold one, its
// place from the four masks.
TEXT ·newlineAVX2(SB), NOSPLIT, $0-32
	MOVQ b_base+0(FP), SI
	MOVQ b_len+8(FP), BX
	MOVQ SI, DI
	LEAQ -128(SI)(BX*1), R11 // the last 128 bytes
	NEWLINES
loop:
	CMPQ DI, R11
	JAE last
	STEP128
	ADDQ $128, DI
	JMP loop
last:
	MOVQ R11, DI
	STEP128
	VZEROUPPER
	MOVQ $-1, ret+24(FP)
	RET
found:
	VPMOVMSKB Y2, AX
	VPMOVMSKB Y3, CX
	SHLQ $32, CX
	ORQ CX, AX
	JNZ at
	VPMOVMSKB Y4, AX
	VPMOVMSKB Y5, CX
	SHLQ $32, CX
	ORQ CX, AX
	ADDQ $64, DI
at:
	VZEROUPPER
	BSFQ AX, AX
	SUBQ SI, DI
	ADDQ DI, AX
	MOVQ AX, ret+24(FP)
	RET

// func lastNewlineAVX2(b []byte) int
//
// The index of the last '\n' in b (len(b) >= 128), -1 when there is none:
// newlineAVX2 backwards. 128 bytes a step from the end, then the first 128
// bytes of b, which may overlap bytes already seen (they hold no newline);
// in the 128 bytes that hold one, its place from the four masks, the upper
// half first.
TEXT ·lastNewlineAVX2(SB), NOSPLIT, $0-32
	MOVQ b_base+0(FP), SI
	MOVQ b_len+8(FP), BX
	LEAQ -128(SI)(BX*1), DI // the last 128 bytes
	NEWLINES
loop:
	CMPQ DI, SI
	JBE first
	STEP128
	SUBQ $128, DI
	JMP loop
first:
	MOVQ SI, DI
	STEP128
	VZEROUPPER
	MOVQ $-1, ret+24(FP)
	RET
found:
	VPMOVMSKB Y4, AX
	VPMOVMSKB Y5, CX
	SHLQ $32, CX
	ORQ CX, AX
	JZ low
	ADDQ $64, DI
	JMP at
low:
	VPMOVMSKB Y2, AX
	VPMOVMSKB Y3, CX
	SHLQ $32, CX
	ORQ CX, AX
at:
	VZEROUPPER
	BSRQ AX, AX
	SUBQ SI, DI
	ADDQ DI, AX
	MOVQ AX, ret+24(FP)
	RET

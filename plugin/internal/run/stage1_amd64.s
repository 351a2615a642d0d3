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

// STORE writes the block's masks (AX, BX, DX) and moves on to the next.
#define STORE \
	MOVQ AX, 0(DI) \
	MOVQ DX, 8(DI) \
	MOVQ BX, 16(DI) \
	ADDQ $64, SI \
	ADDQ $40, DI \
	DECQ CX

// X1, X2 and X3 (Y1, Y2 and Y3) hold quotes, backslashes and 0x1f, from
// stringrun_amd64.s's ·stringbytes.

// func stageMasksSSE2(b []byte, out []stageBlock)
TEXT ·stageMasksSSE2(SB), NOSPLIT, $0-48
	MOVQ b_base+0(FP), SI
	MOVQ out_base+24(FP), DI
	MOVQ out_len+32(FP), CX
	MOVOU ·stringbytes+0(SB), X1
	MOVOU ·stringbytes+16(SB), X2
	MOVOU ·stringbytes+32(SB), X3
	TESTQ CX, CX
	JZ done
loop:
	LANE(0, AX, BX, DX)
	LANE(16, R8, R9, R10)
	MERGE(16)
	LANE(32, R8, R9, R10)
	MERGE(32)
	LANE(48, R8, R9, R10)
	MERGE(48)
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

// func stageMasksAVX2(b []byte, out []stageBlock)
TEXT ·stageMasksAVX2(SB), NOSPLIT, $0-48
	MOVQ b_base+0(FP), SI
	MOVQ out_base+24(FP), DI
	MOVQ out_len+32(FP), CX
	TESTQ CX, CX
	JZ avxdone
	VPBROADCASTB ·stringbytes+0(SB), Y1
	VPBROADCASTB ·stringbytes+16(SB), Y2
	VPBROADCASTB ·stringbytes+32(SB), Y3
avxloop:
	VMOVDQU 0(SI), Y0
	VMOVDQU 32(SI), Y7
	HALF(Y0, AX, BX, DX)
	HALF(Y7, R8, R9, R10)
	MERGE(32)
	STORE
	JNZ avxloop
	VZEROUPPER
avxdone:
	RET

// The bytes bracketMasks compares with, sixteen of each: 0x20 (ORed in,
// it makes '[' a '{' and ']' a '}'), '{' and '}'.
DATA bracketbytes<>+0(SB)/8, $0x2020202020202020
DATA bracketbytes<>+8(SB)/8, $0x2020202020202020
DATA bracketbytes<>+16(SB)/8, $0x7b7b7b7b7b7b7b7b
DATA bracketbytes<>+24(SB)/8, $0x7b7b7b7b7b7b7b7b
DATA bracketbytes<>+32(SB)/8, $0x7d7d7d7d7d7d7d7d
DATA bracketbytes<>+40(SB)/8, $0x7d7d7d7d7d7d7d7d
GLOBL bracketbytes<>(SB), RODATA|NOPTR, $48

// BLANE ors into AX and BX the masks, shifted left by shift, of the
// opening and closing brackets of the 16 bytes at off(SI).
#define BLANE(off, shift) \
	MOVOU off(SI), X0 \
	POR X1, X0 \
	MOVO X0, X4 \
	PCMPEQB X2, X4 \
	PMOVMSKB X4, R8 \
	PCMPEQB X3, X0 \
	PMOVMSKB X0, R9 \
	SHLQ $shift, R8 \
	SHLQ $shift, R9 \
	ORQ R8, AX \
	ORQ R9, BX

// BSTORE writes the block's bracket masks (AX, BX) and moves on to the
// next block.
#define BSTORE \
	MOVQ AX, 24(DI) \
	MOVQ BX, 32(DI) \
	ADDQ $64, SI \
	ADDQ $40, DI \
	DECQ CX

// func bracketMasksSSE2(b []byte, out []stageBlock)
TEXT ·bracketMasksSSE2(SB), NOSPLIT, $0-48
	MOVQ b_base+0(FP), SI
	MOVQ out_base+24(FP), DI
	MOVQ out_len+32(FP), CX
	MOVOU bracketbytes<>+0(SB), X1
	MOVOU bracketbytes<>+16(SB), X2
	MOVOU bracketbytes<>+32(SB), X3
	TESTQ CX, CX
	JZ bdone
bloop:
	XORQ AX, AX
	XORQ BX, BX
	BLANE(0, 0)
	BLANE(16, 16)
	BLANE(32, 32)
	BLANE(48, 48)
	BSTORE
	JNZ bloop
bdone:
	RET

// BHALF sets r to the mask of the bytes of Y0 and Y5 equal to those of
// yc (Y0's in the low half); Y4 and R8 are scratch.
#define BHALF(yc, r) \
	VPCMPEQB yc, Y0, Y4 \
	VPMOVMSKB Y4, r \
	VPCMPEQB yc, Y5, Y4 \
	VPMOVMSKB Y4, R8 \
	SHLQ $32, R8 \
	ORQ R8, r

// func bracketMasksAVX2(b []byte, out []stageBlock)
TEXT ·bracketMasksAVX2(SB), NOSPLIT, $0-48
	MOVQ b_base+0(FP), SI
	MOVQ out_base+24(FP), DI
	MOVQ out_len+32(FP), CX
	TESTQ CX, CX
	JZ bavxdone
	VPBROADCASTB bracketbytes<>+0(SB), Y1
	VPBROADCASTB bracketbytes<>+16(SB), Y2
	VPBROADCASTB bracketbytes<>+32(SB), Y3
bavxloop:
	VMOVDQU 0(SI), Y0
	VMOVDQU 32(SI), Y5
	VPOR Y1, Y0, Y0
	VPOR Y1, Y5, Y5
	BHALF(Y2, AX)
	BHALF(Y3, BX)
	BSTORE
	JNZ bavxloop
	VZEROUPPER
bavxdone:
	RET

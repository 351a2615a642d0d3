#include "textflag.h"

// MASK adds to r the bits, shifted left by sh, of the bytes of X0 equal to
// those of xc; X1 and BX are scratch.
#define MASK(xc, r, sh) \
	MOVO X0, X1 \
	PCMPEQB xc, X1 \
	PMOVMSKB X1, BX \
	SHLQ $sh, BX \
	ORQ BX, r

// MASKS16 adds to R8 (quotes), R9 (backslashes), R10 (opening brackets)
// and R11 (closing brackets) the bits of the sixteen bytes at off(p),
// shifted left by sh; X8-X12 hold the bytes compared with (see maskbytes).
#define MASKS16(p, off, sh) \
	MOVOU off(p), X0 \
	MASK(X8, R8, sh) \
	MASK(X9, R9, sh) \
	POR X10, X0 \
	MASK(X11, R10, sh) \
	MASK(X12, R11, sh)

// MASKS64 sets R8-R11 to the masks of the 64 bytes at p.
#define MASKS64(p) \
	XORQ R8, R8 \
	XORQ R9, R9 \
	XORQ R10, R10 \
	XORQ R11, R11 \
	MASKS16(p, 0, 0) \
	MASKS16(p, 16, 16) \
	MASKS16(p, 32, 32) \
	MASKS16(p, 48, 48)

// The bytes X8-X12 hold, sixteen of each: a quote, a backslash, 0x20
// (ORed in, it makes '[' a '{' and ']' a '}'), '{' and '}'.
DATA maskbytes<>+0(SB)/8, $0x2222222222222222
DATA maskbytes<>+8(SB)/8, $0x2222222222222222
DATA maskbytes<>+16(SB)/8, $0x5c5c5c5c5c5c5c5c
DATA maskbytes<>+24(SB)/8, $0x5c5c5c5c5c5c5c5c
DATA maskbytes<>+32(SB)/8, $0x2020202020202020
DATA maskbytes<>+40(SB)/8, $0x2020202020202020
DATA maskbytes<>+48(SB)/8, $0x7b7b7b7b7b7b7b7b
DATA maskbytes<>+56(SB)/8, $0x7b7b7b7b7b7b7b7b
DATA maskbytes<>+64(SB)/8, $0x7d7d7d7d7d7d7d7d
DATA maskbytes<>+72(SB)/8, $0x7d7d7d7d7d7d7d7d
GLOBL maskbytes<>(SB), RODATA|NOPTR, $80

#define LOADBYTES \
	MOVOU maskbytes<>+0(SB), X8 \
	MOVOU maskbytes<>+16(SB), X9 \
	MOVOU maskbytes<>+32(SB), X10 \
	MOVOU maskbytes<>+48(SB), X11 \
	MOVOU maskbytes<>+64(SB), X12

// func blockMasks(p *[64]byte) (quote, backslash, open, close uint64)
TEXT ·blockMasks(SB), NOSPLIT, $0-40
	MOVQ p+0(FP), SI
	LOADBYTES
	MASKS64(SI)
	MOVQ R8, quote+8(FP)
	MOVQ R9, backslash+16(FP)
	MOVQ R10, open+24(FP)
	MOVQ R11, close+32(FP)
	RET

// ESCAPES sets BX to the escaped bytes of the block, R9 its backslashes,
// and DI to whether it ends with an odd run of them (escapedBits); R8,
// the quotes, is kept on the stack meanwhile (an SSE register would cost a
// switch between SSE and AVX state on the AVX2 path); CX is scratch.
#define ESCAPES \
	TESTQ R9, R9 \
	JNZ escapes \
	MOVQ DI, BX \
	XORQ DI, DI \
	JMP escaped \
escapes: \
	MOVQ R8, quotes-8(SP) \
	MOVQ R9, BX \
	SHLQ $1, BX \
	NOTQ BX \
	ANDQ R9, BX \
	MOVQ $0x5555555555555555, CX \
	XORQ DI, CX \
	MOVQ BX, R8 \
	ANDQ CX, R8 \
	NOTQ CX \
	ANDQ CX, BX \
	ADDQ R9, R8 \
	ADDQ R9, BX \
	SETCS CX \
	ORQ DI, BX \
	MOVBQZX CX, DI \
	MOVQ R9, CX \
	NOTQ CX \
	ANDQ CX, R8 \
	ANDQ CX, BX \
	MOVQ $0xaaaaaaaaaaaaaaaa, CX \
	ANDQ CX, R8 \
	MOVQ $0x5555555555555555, CX \
	ANDQ CX, BX \
	ORQ R8, BX \
	MOVQ quotes-8(SP), R8 \
escaped: \
	MOVQ BX, CX \
	NOTQ CX \
	ANDQ CX, R8

// PREFIXSHIFTS sets R8 to its prefix XOR by shifts; CX is scratch.
#define PREFIXSHIFTS \
	MOVQ R8, CX \
	SHLQ $1, CX \
	XORQ CX, R8 \
	MOVQ R8, CX \
	SHLQ $2, CX \
	XORQ CX, R8 \
	MOVQ R8, CX \
	SHLQ $4, CX \
	XORQ CX, R8 \
	MOVQ R8, CX \
	SHLQ $8, CX \
	XORQ CX, R8 \
	MOVQ R8, CX \
	SHLQ $16, CX \
	XORQ CX, R8 \
	MOVQ R8, CX \
	SHLQ $32, CX \
	XORQ CX, R8

// BRACKETS takes R8, the prefix XOR of the quotes not escaped, and BX, the
// escaped bytes: it counts the brackets outside strings (R10, R11) in R12
// and jumps to found with CX the closing one's index in the block, or on
// to next.
#define BRACKETS \
	XORQ R13, R8 \
	MOVQ R8, R13 \
	SARQ $63, R13 \
	ORQ BX, R8 \
	NOTQ R8 \
	ANDQ R8, R10 \
	ANDQ R8, R11 \
	MOVQ R10, BX \
	ORQ R11, BX \
	JZ next \
bracket: \
	BSFQ BX, CX \
	BTQ CX, R10 \
	JCS open \
	DECQ R12 \
	JZ found \
	JMP more \
open: \
	INCQ R12 \
more: \
	LEAQ -1(BX), CX \
	ANDQ CX, BX \
	JNZ bracket

// VMASK sets r to the bits of the 64 bytes in Y0 and Y1 equal to those of
// yc; Y2 and BX are scratch.
#define VMASK(yc, r) \
	VPCMPEQB yc, Y0, Y2 \
	VPMOVMSKB Y2, r \
	VPCMPEQB yc, Y1, Y2 \
	VPMOVMSKB Y2, BX \
	SHLQ $32, BX \
	ORQ BX, r

// func looseBlocksAsm(b []byte, i int, st *looseState, avx2 bool) (int, bool)
//
// looseState.step over each block in registers: SI+AX is the block, DX
// the end of b, R12 the depth, R13 inside, DI odd. With avx2 the masks
// are made 32 bytes at a time and the prefix XOR is a carry-less
// multiplication with all ones (PCLMULQDQ); else SSE2 and shifts.
TEXT ·looseBlocksAsm(SB), NOSPLIT, $8-57
	MOVQ b_base+0(FP), SI
	MOVQ b_len+8(FP), DX
	MOVQ i+24(FP), AX
	MOVQ st+32(FP), CX
	MOVQ 0(CX), R12
	MOVQ 8(CX), R13
	MOVQ 16(CX), DI
	CMPB avx2+40(FP), $0
	JNE avxbytes
	LOADBYTES
	JMP block
avxbytes:
	VPBROADCASTB maskbytes<>+0(SB), Y8
	VPBROADCASTB maskbytes<>+16(SB), Y9
	VPBROADCASTB maskbytes<>+32(SB), Y10
	VPBROADCASTB maskbytes<>+48(SB), Y11
	VPBROADCASTB maskbytes<>+64(SB), Y12
	MOVQ $-1, CX
	VMOVQ CX, X14
block:
	LEAQ 64(AX), CX
	CMPQ CX, DX
	JA short
	CMPB avx2+40(FP), $0
	JNE avxmasks
	LEAQ (SI)(AX*1), CX
	MASKS64(CX)
	JMP masked
avxmasks:
	VMOVDQU (SI)(AX*1), Y0
	VMOVDQU 32(SI)(AX*1), Y1
	VMASK(Y8, R8)
	VMASK(Y9, R9)
	VPOR Y10, Y0, Y0
	VPOR Y10, Y1, Y1
	VMASK(Y11, R10)
	VMASK(Y12, R11)
masked:
	ESCAPES
	CMPB avx2+40(FP), $0
	JNE clmul
	PREFIXSHIFTS
	JMP strings
clmul:
	VMOVQ R8, X3
	VPCLMULQDQ $0, X14, X3, X3
	VMOVQ X3, R8
strings:
	BRACKETS
next:
	ADDQ $64, AX
	JMP block
found:
	LEAQ 1(AX)(CX*1), AX
	MOVQ AX, ret+48(FP)
	MOVB $1, ret1+56(FP)
	JMP out
short:
	MOVQ st+32(FP), CX
	MOVQ R12, 0(CX)
	MOVQ R13, 8(CX)
	MOVQ DI, 16(CX)
	MOVQ AX, ret+48(FP)
	MOVB $0, ret1+56(FP)
out:
	CMPB avx2+40(FP), $0
	JEQ done
	VZEROUPPER
done:
	RET

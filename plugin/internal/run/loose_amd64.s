#include "textflag.h"

// MASKS16 adds to AX (quotes), BX (backslashes), CX (opening brackets) and
// DX (closing brackets) the bits of the sixteen bytes at off(SI), shifted
// left by sh. X8-X12 hold the bytes compared with; R8-R11 are scratch.
#define MASKS16(off, sh) \
	MOVOU off(SI), X0 \
	MOVO X0, X1 \
	PCMPEQB X8, X1 \
	PMOVMSKB X1, R8 \
	MOVO X0, X2 \
	PCMPEQB X9, X2 \
	PMOVMSKB X2, R9 \
	POR X10, X0 \
	MOVO X0, X3 \
	PCMPEQB X11, X3 \
	PMOVMSKB X3, R10 \
	PCMPEQB X12, X0 \
	PMOVMSKB X0, R11 \
	SHLQ $sh, R8 \
	SHLQ $sh, R9 \
	SHLQ $sh, R10 \
	SHLQ $sh, R11 \
	ORQ R8, AX \
	ORQ R9, BX \
	ORQ R10, CX \
	ORQ R11, DX

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

// func blockMasks(p *[64]byte) (quote, backslash, open, close uint64)
TEXT ·blockMasks(SB), NOSPLIT, $0-40
	MOVQ p+0(FP), SI
	MOVOU maskbytes<>+0(SB), X8
	MOVOU maskbytes<>+16(SB), X9
	MOVOU maskbytes<>+32(SB), X10
	MOVOU maskbytes<>+48(SB), X11
	MOVOU maskbytes<>+64(SB), X12
	XORQ AX, AX
	XORQ BX, BX
	XORQ CX, CX
	XORQ DX, DX
	MASKS16(0, 0)
	MASKS16(16, 16)
	MASKS16(32, 32)
	MASKS16(48, 48)
	MOVQ AX, quote+8(FP)
	MOVQ BX, backslash+16(FP)
	MOVQ CX, open+24(FP)
	MOVQ DX, close+32(FP)
	RET

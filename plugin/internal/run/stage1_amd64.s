//go:build !purego

#include "textflag.h"

// LANE puts in q, bs and ctl the masks of the quotes (X1 holds them), the
// backslashes (X2) and the control characters (below 0x20: X3 holds
// 0x1f, and the unsigned minimum with it is the byte itself) of the 16
// bytes at off(SI).
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
// stringrun_amd64.s's ·stringbytes; in looseSkipAVX2, Y8, Y9 and Y10 hold
// 0x20, '{' and '}', from bracketbytes. The stages store 0 for a block's
// brackets (R11 and R12), and PROLOGUE loads their b and out.

// The bytes the brackets are found with, sixteen of each: 0x20 (ORed in,
// it makes '[' a '{' and ']' a '}'), '{' and '}'.
DATA bracketbytes<>+0(SB)/8, $0x2020202020202020
DATA bracketbytes<>+8(SB)/8, $0x2020202020202020
DATA bracketbytes<>+16(SB)/8, $0x7b7b7b7b7b7b7b7b
DATA bracketbytes<>+24(SB)/8, $0x7b7b7b7b7b7b7b7b
DATA bracketbytes<>+32(SB)/8, $0x7d7d7d7d7d7d7d7d
DATA bracketbytes<>+40(SB)/8, $0x7d7d7d7d7d7d7d7d
GLOBL bracketbytes<>(SB), RODATA|NOPTR, $48

// AVXQUOTES loads Y1 and Y2 with quotes and backslashes.
#define AVXQUOTES \
	VPBROADCASTB ·stringbytes+0(SB), Y1 \
	VPBROADCASTB ·stringbytes+16(SB), Y2

// PROLOGUE loads the arguments, zeroes the bracket masks and tests the
// number of blocks.
#define PROLOGUE \
	MOVQ b_base+0(FP), SI \
	MOVQ out_base+24(FP), DI \
	MOVQ out_len+32(FP), CX \
	XORQ R11, R11 \
	XORQ R12, R12 \
	TESTQ CX, CX

// func stageMasksSSE2(b []byte, out []stageBlock)
TEXT ·stageMasksSSE2(SB), NOSPLIT, $0-48
	PROLOGUE
	JZ done
	MOVOU ·stringbytes+0(SB), X1
	MOVOU ·stringbytes+16(SB), X2
	MOVOU ·stringbytes+32(SB), X3
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

// ESCAPES, given the backslashes in BX, the same ORed with the carry (R14)
// in R9 and 0xaaaaaaaaaaaaaaaa in odd, puts the bytes they escape in BX,
// as escapes finds them, and the carry into the next block in R14, and
// drops the escaped quotes from AX; R8 and R10 are scratch.
#define ESCAPES(odd) \
	MOVQ R14, R10 \
	NOTQ R10 \
	ANDQ BX, R10 \
	MOVQ R10, R8 \
	SHLQ $1, R8 \
	ORQ odd, R8 \
	SUBQ R10, R8 \
	XORQ odd, R8 \
	XORQ R8, R9 \
	ANDQ BX, R8 \
	SHRQ $63, R8 \
	MOVQ R8, R14 \
	MOVQ R9, BX \
	NOTQ R9 \
	ANDQ R9, AX

// The bytes that follow a backslash in a two-byte escape (" \ / b f n r t)
// by nibble, for VPSHUFB: a byte is one when the entries of its high
// nibble (the first 16 bytes) and its low nibble (the next 16) share a
// bit; then 0x0f, the low nibble's mask.
DATA escnibbles<>+0(SB)/8, $0x0804020000010000
DATA escnibbles<>+8(SB)/8, $0x0000000000000000
DATA escnibbles<>+16(SB)/8, $0x00040008000d0000
DATA escnibbles<>+24(SB)/8, $0x0104000200000000
DATA escnibbles<>+32(SB)/8, $0x0f0f0f0f0f0f0f0f
GLOBL escnibbles<>(SB), RODATA|NOPTR, $40

// NOTTWO sets r to the mask of the 32 bytes in y that are not the second
// byte of a two-byte escape (Y8 holds 0x0f, Y9 and Y10 the nibbles'
// entries, Y11 zero); Y4 and Y5 are scratch.
#define NOTTWO(y, r) \
	VPSRLW $4, y, Y4 \
	VPAND Y8, Y4, Y4 \
	VPSHUFB Y4, Y9, Y4 \
	VPAND Y8, y, Y5 \
	VPSHUFB Y5, Y10, Y5 \
	VPAND Y4, Y5, Y4 \
	VPCMPEQB Y11, Y4, Y4 \
	VPMOVMSKB Y4, r

// func stageAVX2(b []byte, out []stageBlock, carry *uint64)
//
// Per block: the raw masks (quotes AX, backslashes BX, control characters
// DX) and, when there is a backslash or a carry (R14), as stageEscapes
// does, the escaped bytes (BX), no quote among them, and those that are
// not the second byte of a two-byte escape special.
TEXT ·stageAVX2(SB), NOSPLIT, $0-56
	PROLOGUE
	JZ avxdone
	MOVQ carry+48(FP), R8
	MOVQ 0(R8), R14
	AVXQUOTES
	VPBROADCASTB ·stringbytes+32(SB), Y3
	VBROADCASTI128 escnibbles<>+0(SB), Y9
	VBROADCASTI128 escnibbles<>+16(SB), Y10
	VPBROADCASTB escnibbles<>+32(SB), Y8
	VPXOR Y11, Y11, Y11
	MOVQ $0xaaaaaaaaaaaaaaaa, R13
avxloop:
	VMOVDQU 0(SI), Y0
	VMOVDQU 32(SI), Y7
	HALF(Y0, AX, BX, DX)
	HALF(Y7, R8, R9, R10)
	MERGE(32)
	MOVQ BX, R9
	ORQ R14, R9
	JZ avxstore
	ESCAPES(R13)
	NOTTWO(Y0, R10)
	NOTTWO(Y7, R8)
	SHLQ $32, R8
	ORQ R8, R10
	ANDQ BX, R10
	ORQ R10, DX
avxstore:
	STORE
	JNZ avxloop
	MOVQ carry+48(FP), R8
	MOVQ R14, 0(R8)
	VZEROUPPER
avxdone:
	RET

// EQMASK sets r to the mask of the bytes of lo and hi (hi's in the high
// half) equal to those of yc; t and R8 are scratch.
#define EQMASK(lo, hi, yc, r, t) \
	VPCMPEQB yc, lo, t \
	VPMOVMSKB t, r \
	VPCMPEQB yc, hi, t \
	VPMOVMSKB t, R8 \
	SHLQ $32, R8 \
	ORQ R8, r

// func looseSkipAVX2(b []byte, st *skipState) int
//
// looseSkipWords, a block of 64 bytes at a time: the quotes (AX) and
// backslashes (BX) of the block; the escaped bytes (BX, with the carry in
// R14) as escapes finds them, when there is a backslash or a carry; the
// brackets (R11 and R12) outside strings, by the prefix XOR of the quotes
// no backslash escapes (a carry-less multiply by all ones, X11) and the
// state of the blocks before (R13: all ones in a string), unless the
// block has no bracket (then the parity of its quotes is enough); and the
// depth (R15), by the counts of the brackets when the block's closing
// ones are too few to end the value, else a bracket at a time.
TEXT ·looseSkipAVX2(SB), NOSPLIT, $0-40
	MOVQ b_base+0(FP), SI
	MOVQ b_len+8(FP), CX
	SHRQ $6, CX
	MOVQ st+24(FP), DI
	MOVQ 0(DI), R14
	MOVQ 8(DI), R13
	MOVQ 16(DI), R15
	TESTQ CX, CX
	JZ skipnone
	AVXQUOTES
	VPBROADCASTB bracketbytes<>+0(SB), Y8
	VPBROADCASTB bracketbytes<>+16(SB), Y9
	VPBROADCASTB bracketbytes<>+32(SB), Y10
	VPCMPEQB Y11, Y11, Y11
	MOVQ $0xaaaaaaaaaaaaaaaa, DX
skiploop:
	VMOVDQU 0(SI), Y0
	VMOVDQU 32(SI), Y7
	EQMASK(Y0, Y7, Y1, AX, Y4)
	EQMASK(Y0, Y7, Y2, BX, Y4)
	VPOR Y8, Y0, Y4
	VPOR Y8, Y7, Y5
	EQMASK(Y4, Y5, Y9, R11, Y6)
	EQMASK(Y4, Y5, Y10, R12, Y6)
	MOVQ BX, R9
	ORQ R14, R9
	JZ skipplain
	ESCAPES(DX)
	JMP skipstrings
skipplain:
	// No backslash and no carry: BX, the escaped bytes, is 0.
	MOVQ R11, R9
	ORQ R12, R9
	JNZ skipstrings
	POPCNTQ AX, R9
	ANDQ $1, R9
	NEGQ R9
	XORQ R9, R13
	JMP skipnext
skipstrings:
	VMOVQ AX, X12
	VPCLMULQDQ $0, X11, X12, X12
	VMOVQ X12, R8
	XORQ R13, R8 // in strings
	MOVQ R8, R13
	SARQ $63, R13
	ORQ BX, R8
	NOTQ R8 // outside strings, not escaped
	ANDQ R8, R11
	ANDQ R8, R12
	MOVQ R11, R9
	ORQ R12, R9
	JZ skipnext
	POPCNTQ R12, R10
	CMPQ R10, R15
	JGE skipwalk
	POPCNTQ R11, R8
	ADDQ R8, R15
	SUBQ R10, R15
	JMP skipnext
skipwalk:
	// R9 holds the brackets left, lowest first.
	BSFQ R9, R8
	BTQ R8, R11
	JCC skipclose
	INCQ R15
	JMP skipbit
skipclose:
	DECQ R15
	JZ skipfound
skipbit:
	LEAQ -1(R9), R10
	ANDQ R10, R9
	JNZ skipwalk
skipnext:
	ADDQ $64, SI
	DECQ CX
	JNZ skiploop
	VZEROUPPER
skipnone:
	MOVQ $-1, AX
	JMP skipdone
skipfound:
	VZEROUPPER
	SUBQ b_base+0(FP), SI
	LEAQ 1(SI)(R8*1), AX
skipdone:
	MOVQ st+24(FP), DI
	MOVQ R14, 0(DI)
	MOVQ R13, 8(DI)
	MOVQ R15, 16(DI)
	MOVQ AX, ret+32(FP)
	RET

// The byte the literal values of memberSpansAVX2 end at besides '}'.
DATA commabytes<>+0(SB)/8, $0x2c2c2c2c2c2c2c2c
GLOBL commabytes<>(SB), RODATA|NOPTR, $8

// SPANCONSTS loads memberSpansAVX2's b (SI, DX its length), names (R12)
// and bytes: quotes (Y1), backslashes (Y2), 0x1f (Y3), '}' (Y10) and ','
// (Y12).
#define SPANCONSTS \
	MOVQ b_base+0(FP), SI \
	MOVQ b_len+8(FP), DX \
	MOVQ names+32(FP), R12 \
	AVXQUOTES \
	VPBROADCASTB ·stringbytes+32(SB), Y3 \
	VPBROADCASTB bracketbytes<>+32(SB), Y10 \
	VPBROADCASTB commabytes<>+0(SB), Y12

// PLAINEND moves CX to the first quote, backslash or control character
// of b from CX on, thirty-two bytes a step while they last, then a byte
// at a time; it goes to none when b ends first. loop, tail, hit and at
// are its labels; R8 is scratch.
#define PLAINEND(loop, tail, hit, at, none) \
loop: \
	LEAQ 32(CX), R8 \
	CMPQ R8, DX \
	JA tail \
	VMOVDQU (SI)(CX*1), Y0 \
	VPCMPEQB Y1, Y0, Y4 \
	VPCMPEQB Y2, Y0, Y5 \
	VPMINUB Y3, Y0, Y6 \
	VPCMPEQB Y0, Y6, Y6 \
	VPOR Y4, Y5, Y5 \
	VPOR Y5, Y6, Y6 \
	VPMOVMSKB Y6, R8 \
	TESTL R8, R8 \
	JNZ hit \
	ADDQ $32, CX \
	JMP loop \
tail: \
	CMPQ CX, DX \
	JAE none \
	MOVBLZX (SI)(CX*1), R8 \
	CMPB R8, $0x22 \
	JEQ at \
	CMPB R8, $0x5c \
	JEQ at \
	CMPB R8, $0x20 \
	JB at \
	INCQ CX \
	JMP tail \
hit: \
	BSFL R8, R8 \
	ADDQ R8, CX \
at:

// func memberSpansAVX2(b []byte, i int, names *nameSet, out []memberSpan) (n, next int)
//
// memberSpansWords, the members a step each: AX is the opening quote of
// the member's name, CX the scan, R9 the value's first byte, R13 the
// next member's name's quote, R15 the spans put and DI where the next
// goes. A nested value is skipped by a call of looseSkipAVX2
// (its arguments at 0(SP), its state at 40(SP)), across which AX, R9,
// R15 and DI are kept at 64(SP) to 88(SP) and the bytes reloaded.
TEXT ·memberSpansAVX2(SB), NOSPLIT, $96-80
	SPANCONSTS
	MOVQ i+24(FP), AX
	MOVQ out_base+40(FP), DI
	XORQ R15, R15
spanloop:
	CMPQ R15, out_len+48(FP)
	JAE spanstop
	MOVQ AX, R8
	SUBQ i+24(FP), R8
	CMPQ R8, $32768 // stageRun*64: a call takes a few microseconds at most
	JAE spanstop
	LEAQ 1(AX), CX
	PLAINEND(nameloop, nametail, namehit, nameat, spanstop)
	LEAQ 2(CX), R9
	CMPQ R9, DX
	JAE spanstop
	MOVBLZX (SI)(CX*1), R8
	CMPB R8, $0x22
	JNE spanstop
	MOVBLZX 1(SI)(CX*1), R8
	CMPB R8, $0x3a
	JNE spanstop
	MOVBLZX (SI)(R9*1), R8
	CMPB R8, $0x22
	JEQ spanstring
	CMPB R8, $0x7b
	JEQ spannested
	CMPB R8, $0x5b
	JEQ spannested
	// Anything else runs to the next ',' or '}'.
	MOVQ R9, CX
literalloop:
	LEAQ 32(CX), R8
	CMPQ R8, DX
	JA literaltail
	VMOVDQU (SI)(CX*1), Y0
	VPCMPEQB Y12, Y0, Y4
	VPCMPEQB Y10, Y0, Y5
	VPOR Y4, Y5, Y5
	VPMOVMSKB Y5, R8
	TESTL R8, R8
	JNZ literalhit
	ADDQ $32, CX
	JMP literalloop
literaltail:
	CMPQ CX, DX
	JAE spanstop
	MOVBLZX (SI)(CX*1), R8
	CMPB R8, $0x2c
	JEQ literalat
	CMPB R8, $0x7d
	JEQ literalat
	INCQ CX
	JMP literaltail
literalhit:
	BSFL R8, R8
	ADDQ R8, CX
literalat:
	CMPQ CX, R9
	JEQ spanstop
	JMP spanafter
spanstring:
	LEAQ 1(R9), CX
	PLAINEND(valueloop, valuetail, valuehit, valueat, spanstop)
	MOVBLZX (SI)(CX*1), R8
	CMPB R8, $0x22
	JNE spanstop
	INCQ CX
	JMP spanafter
spannested:
	MOVQ DX, R8
	SUBQ R9, R8
	CMPQ R8, $32768 // stageRun*64 (stage1_amd64.go checks it)
	JBE spanwhole
	MOVQ $32768, R8
spanwhole:
	ANDQ $~63, R8
	JZ spanstop
	LEAQ (SI)(R9*1), R10
	MOVQ R10, 0(SP)
	MOVQ R8, 8(SP)
	MOVQ R8, 16(SP)
	LEAQ 40(SP), R10
	MOVQ R10, 24(SP)
	MOVQ $0, 40(SP)
	MOVQ $0, 48(SP)
	MOVQ $0, 56(SP)
	MOVQ AX, 64(SP)
	MOVQ R9, 72(SP)
	MOVQ R15, 80(SP)
	MOVQ DI, 88(SP)
	CALL ·looseSkipAVX2(SB)
	MOVQ 32(SP), R8
	MOVQ 64(SP), AX
	MOVQ 72(SP), R9
	MOVQ 80(SP), R15
	MOVQ 88(SP), DI
	SPANCONSTS
	TESTQ R8, R8
	JS spanstop
	LEAQ (R9)(R8*1), CX
spanafter:
	// CX is just past the value: a comma and the next name's quote
	// follow (R13 is that quote), or the row ends with '}' (R13 is len(b)).
	LEAQ 1(CX), R13
	CMPQ R13, DX
	JAE spanlast
	MOVBLZX (SI)(CX*1), R8
	CMPB R8, $0x2c
	JNE spanstop
	MOVBLZX 1(SI)(CX*1), R8
	CMPB R8, $0x22
	JNE spanstop
	JMP spanpick
spanlast:
	JNE spanstop // past the end
	MOVBLZX (SI)(CX*1), R8
	CMPB R8, $0x7d
	JNE spanstop
spanpick:
	// A literal is kept, a string or nested value when names has the
	// name (b[AX+1:R9-2], bit nameBit of the set at R12).
	MOVBLZX (SI)(R9*1), R8
	CMPB R8, $0x22
	JEQ spanname
	CMPB R8, $0x7b
	JEQ spanname
	CMPB R8, $0x5b
	JNE spankeep
spanname:
	LEAQ -3(R9), R10
	SUBQ AX, R10
	JZ spannext
	LEAQ (R10)(R10*4), R10
	MOVBLZX 1(SI)(AX*1), R11
	IMULQ $59, R11
	ADDQ R11, R10
	MOVBLZX -3(SI)(R9*1), R11
	ADDQ R11, R10
	ANDQ $255, R10
	MOVQ R10, R11
	SHRQ $6, R11
	MOVQ (R12)(R11*8), R11
	BTQ R10, R11
	JCC spannext
spankeep:
	LEAQ 1(AX), R8
	MOVQ R8, 0(DI)
	MOVQ R9, 8(DI)
	MOVQ CX, 16(DI)
	ADDQ $24, DI
	INCQ R15
spannext:
	MOVQ R13, AX
	CMPQ AX, DX
	JNE spanloop
spanstop:
	VZEROUPPER
	MOVQ R15, n+64(FP)
	MOVQ AX, next+72(FP)
	RET

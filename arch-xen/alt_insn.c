// SPDX-License-Identifier: MIT
/*
 * alt_insn.c - x86-64 instruction length decoder and optimal NOPs for the
 * alternatives engine.  Pure C: compiled into the guest and host tests.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <smpalt/alt_insn.h>
#include <smpalt/errno.h>

/* Legacy prefixes (64-bit mode). */
#define PFX_OPSIZE 0x66
#define PFX_ADSIZE 0x67
#define PFX_LOCK 0xf0
#define PFX_REPNE 0xf2
#define REX_MIN 0x40
#define REX_MAX 0x4f
#define REX_W 0x08

#define OP_ESCAPE 0x0f
#define GRP3_BYTE 0xf6 /* group 3 on a byte operand */
#define OP_XBEGIN 0xc7
#define OP_GRP11_BYTE 0xc6
#define OP_GRP1A 0x8f
#define OP_GRP4 0xfe
#define OP_GRP5 0xff
#define GRP5_UNDEFINED 7
#define MODRM_XBEGIN 0xf8
#define OP_ESCAPE_38 0x38
#define OP2_SSE4A_IMM 0x78 /* 66: extrq, f2: insertq; ib ib */
#define OP_ESCAPE_3A 0x3a

#define MAP_ONE 1
#define MAP_TWO 2
#define MAP_THREE 3

/* ModRM fields. */
#define MODRM_MOD(m) ((uint8_t)(m) >> 6)
#define MODRM_REG(m) (((uint8_t)(m) >> 3) & 7)
#define MODRM_RM(m) ((uint8_t)(m)&7)
#define MOD_MEM_NODISP 0
#define MOD_MEM_DISP8 1
#define MOD_MEM_DISP32 2
#define MOD_REG 3
#define RM_SIB 4
#define RM_RIP_OR_DISP32 5
#define SIB_BASE(s) ((uint8_t)(s)&7)
#define SIB_BASE_NONE 5

#define DISP8 1
#define DISP32 4

/* Operand flags of an opcode. */
#define F_MODRM 0x01u	   /* a ModRM byte follows */
#define F_IMM8 0x02u	   /* 8-bit immediate */
#define F_IMM16 0x04u	   /* 16-bit immediate */
#define F_IMMZ 0x08u	   /* 32-bit immediate, 16 with 0x66 */
#define F_IMMV 0x10u	   /* 32-bit, 64 with REX.W, 16 with 0x66 (mov r,imm) */
#define F_MOFFS 0x20u	   /* 64-bit absolute address, 32 with 0x67 */
#define F_REL 0x40u	   /* relative branch target */
#define F_BAD 0x80u	   /* invalid in 64-bit mode or not decoded here */
#define F_GRP3 0x100u	   /* f6/f7: immediate only for /0 and /1 */
#define F_REL16 0x200u	   /* relative, yet rel16 under 0x66 (xbegin) */
#define F_MODRM_REG 0x400u /* ModRM names registers whatever its mod */

#define IMM16_LEN 2
#define IMM32_LEN 4
#define IMM64_LEN 8

/*
 * One-byte opcode map, 64-bit mode.  Prefix bytes never reach the table.
 * 0xc4/0xc5 (VEX) and 0x62 (EVEX) are marked bad: not decoded here.
 */
/* clang-format off */
static const uint16_t map1[256] = {
	/* 00-3f: ALU ops in groups of 8: r/m,r x4, AL/eAX,imm, 2 others */
	[0x00] = F_MODRM, [0x01] = F_MODRM, [0x02] = F_MODRM, [0x03] = F_MODRM,
	[0x04] = F_IMM8, [0x05] = F_IMMZ, [0x06] = F_BAD, [0x07] = F_BAD,
	[0x08] = F_MODRM, [0x09] = F_MODRM, [0x0a] = F_MODRM, [0x0b] = F_MODRM,
	[0x0c] = F_IMM8, [0x0d] = F_IMMZ, [0x0e] = F_BAD,
	[0x10] = F_MODRM, [0x11] = F_MODRM, [0x12] = F_MODRM, [0x13] = F_MODRM,
	[0x14] = F_IMM8, [0x15] = F_IMMZ, [0x16] = F_BAD, [0x17] = F_BAD,
	[0x18] = F_MODRM, [0x19] = F_MODRM, [0x1a] = F_MODRM, [0x1b] = F_MODRM,
	[0x1c] = F_IMM8, [0x1d] = F_IMMZ, [0x1e] = F_BAD, [0x1f] = F_BAD,
	[0x20] = F_MODRM, [0x21] = F_MODRM, [0x22] = F_MODRM, [0x23] = F_MODRM,
	[0x24] = F_IMM8, [0x25] = F_IMMZ, [0x27] = F_BAD,
	[0x28] = F_MODRM, [0x29] = F_MODRM, [0x2a] = F_MODRM, [0x2b] = F_MODRM,
	[0x2c] = F_IMM8, [0x2d] = F_IMMZ, [0x2f] = F_BAD,
	[0x30] = F_MODRM, [0x31] = F_MODRM, [0x32] = F_MODRM, [0x33] = F_MODRM,
	[0x34] = F_IMM8, [0x35] = F_IMMZ, [0x37] = F_BAD,
	[0x38] = F_MODRM, [0x39] = F_MODRM, [0x3a] = F_MODRM, [0x3b] = F_MODRM,
	[0x3c] = F_IMM8, [0x3d] = F_IMMZ, [0x3f] = F_BAD,
	/* 50-5f push/pop reg: no operand bytes */
	[0x60] = F_BAD, [0x61] = F_BAD, [0x62] = F_BAD, [0x63] = F_MODRM,
	[0x68] = F_IMMZ, [0x69] = F_MODRM | F_IMMZ, [0x6a] = F_IMM8,
	[0x6b] = F_MODRM | F_IMM8,
	[0x70] = F_IMM8 | F_REL, [0x71] = F_IMM8 | F_REL,
	[0x72] = F_IMM8 | F_REL, [0x73] = F_IMM8 | F_REL,
	[0x74] = F_IMM8 | F_REL, [0x75] = F_IMM8 | F_REL,
	[0x76] = F_IMM8 | F_REL, [0x77] = F_IMM8 | F_REL,
	[0x78] = F_IMM8 | F_REL, [0x79] = F_IMM8 | F_REL,
	[0x7a] = F_IMM8 | F_REL, [0x7b] = F_IMM8 | F_REL,
	[0x7c] = F_IMM8 | F_REL, [0x7d] = F_IMM8 | F_REL,
	[0x7e] = F_IMM8 | F_REL, [0x7f] = F_IMM8 | F_REL,
	[0x80] = F_MODRM | F_IMM8, [0x81] = F_MODRM | F_IMMZ, [0x82] = F_BAD,
	[0x83] = F_MODRM | F_IMM8,
	[0x84] = F_MODRM, [0x85] = F_MODRM, [0x86] = F_MODRM, [0x87] = F_MODRM,
	[0x88] = F_MODRM, [0x89] = F_MODRM, [0x8a] = F_MODRM, [0x8b] = F_MODRM,
	[0x8c] = F_MODRM, [0x8d] = F_MODRM, [0x8e] = F_MODRM, [0x8f] = F_MODRM,
	/* 90-9f: xchg eAX, cwde, cdq, pushf... no operand bytes */
	[0x9a] = F_BAD,
	[0xa0] = F_MOFFS, [0xa1] = F_MOFFS, [0xa2] = F_MOFFS, [0xa3] = F_MOFFS,
	[0xa8] = F_IMM8, [0xa9] = F_IMMZ,
	[0xb0] = F_IMM8, [0xb1] = F_IMM8, [0xb2] = F_IMM8, [0xb3] = F_IMM8,
	[0xb4] = F_IMM8, [0xb5] = F_IMM8, [0xb6] = F_IMM8, [0xb7] = F_IMM8,
	[0xb8] = F_IMMV, [0xb9] = F_IMMV, [0xba] = F_IMMV, [0xbb] = F_IMMV,
	[0xbc] = F_IMMV, [0xbd] = F_IMMV, [0xbe] = F_IMMV, [0xbf] = F_IMMV,
	[0xc0] = F_MODRM | F_IMM8, [0xc1] = F_MODRM | F_IMM8,
	[0xc2] = F_IMM16, [0xc4] = F_BAD, [0xc5] = F_BAD,
	[0xc6] = F_MODRM | F_IMM8, [0xc7] = F_MODRM | F_IMMZ,
	[0xc8] = F_IMM16 | F_IMM8, [0xca] = F_IMM16, [0xcd] = F_IMM8,
	[0xce] = F_BAD,
	[0xd0] = F_MODRM, [0xd1] = F_MODRM, [0xd2] = F_MODRM, [0xd3] = F_MODRM,
	[0xd4] = F_BAD, [0xd5] = F_BAD, [0xd6] = F_BAD,
	[0xd8] = F_MODRM, [0xd9] = F_MODRM, [0xda] = F_MODRM, [0xdb] = F_MODRM,
	[0xdc] = F_MODRM, [0xdd] = F_MODRM, [0xde] = F_MODRM, [0xdf] = F_MODRM,
	[0xe0] = F_IMM8 | F_REL, [0xe1] = F_IMM8 | F_REL,
	[0xe2] = F_IMM8 | F_REL, [0xe3] = F_IMM8 | F_REL,
	[0xe4] = F_IMM8, [0xe5] = F_IMM8, [0xe6] = F_IMM8, [0xe7] = F_IMM8,
	[0xe8] = F_IMMZ | F_REL, [0xe9] = F_IMMZ | F_REL, [0xea] = F_BAD,
	[0xeb] = F_IMM8 | F_REL,
	[0xf6] = F_MODRM | F_GRP3, [0xf7] = F_MODRM | F_GRP3,
	[0xfe] = F_MODRM, [0xff] = F_MODRM,
};
/* clang-format on */

/* 0x0f map: ModRM unless listed as taking none; immediates listed. */
static uint16_t map2_flags(uint8_t op)
{
	if (op >= 0x80 && op <= 0x8f) /* jcc rel32 */
		return F_IMMZ | F_REL;
	if (op >= 0xc8 && op <= 0xcf) /* bswap */
		return 0;
	if (op >= 0x30 && op <= 0x37) /* wrmsr rdtsc rdmsr rdpmc sysenter.. */
		return 0;
	if (op >= 0x20 && op <= 0x23) /* mov to/from %crN, %drN */
		return F_MODRM | F_MODRM_REG;
	switch (op) {
	case 0x05: /* syscall */
	case 0x06: /* clts */
	case 0x07: /* sysret */
	case 0x08: /* invd */
	case 0x09: /* wbinvd */
	case 0x0b: /* ud2 */
	case 0x0e: /* femms */
	case 0x77: /* emms */
	case 0xa0: /* push fs */
	case 0xa1: /* pop fs */
	case 0xa2: /* cpuid */
	case 0xa8: /* push gs */
	case 0xa9: /* pop gs */
	case 0xaa: /* rsm */
		return 0;
	case 0x0f: /* 3DNow!: ModRM, opcode as imm8 */
	case 0x70: /* pshuf* */
	case 0x71: /* shift groups */
	case 0x72:
	case 0x73:
	case 0xa4: /* shld imm8 */
	case 0xac: /* shrd imm8 */
	case 0xba: /* bt group imm8 */
	case 0xc2: /* cmpps */
	case 0xc4: /* pinsrw */
	case 0xc5: /* pextrw */
	case 0xc6: /* shufps */
		return F_MODRM | F_IMM8;
	case 0x04:
	case 0x0a:
	case 0x0c:
	case 0x36:
	case 0x39:
	case 0x3b:
	case 0x3c:
	case 0x3d:
	case 0x3e:
	case 0x3f:
	case 0xff:
		return F_BAD;
	default:
		return F_MODRM;
	}
}

static bool is_legacy_prefix(uint8_t b)
{
	switch (b) {
	case 0x26: /* es */
	case 0x2e: /* cs */
	case 0x36: /* ss */
	case 0x3e: /* ds */
	case 0x64: /* fs */
	case 0x65: /* gs */
	case PFX_OPSIZE:
	case PFX_ADSIZE:
	case PFX_LOCK:
	case 0xf2: /* repne */
	case 0xf3: /* rep */
		return true;
	default:
		return false;
	}
}

/* Opcode groups whose ModRM reg field leaves some encodings undefined. */
static bool alt_group_valid(uint8_t op, uint8_t modrm)
{
	uint8_t reg = MODRM_REG(modrm);

	switch (op) {
	case OP_GRP11_BYTE: /* mov r/m8,imm8; c6 f8 xabort */
	case OP_XBEGIN:	    /* mov r/m,imm32; c7 f8 xbegin */
		return reg == 0 || modrm == MODRM_XBEGIN;
	case OP_GRP1A: /* pop r/m */
		return reg == 0;
	case OP_GRP4: /* inc/dec r/m8 */
		return reg <= 1;
	case OP_GRP5: /* inc dec call callf jmp jmpf push; /7 undefined */
		return reg != GRP5_UNDEFINED;
	default:
		return true;
	}
}

/* Bytes of ModRM + SIB + displacement at p; -EINVAL if past max. */
static int modrm_len(const uint8_t *p, size_t max, bool *rip)
{
	uint8_t m, mod, rm;
	int len = 1;

	if (max < 1)
		return -EINVAL;
	m = p[0];
	mod = MODRM_MOD(m);
	rm = MODRM_RM(m);
	*rip = false;
	if (mod == MOD_REG)
		return len;
	if (rm == RM_SIB) {
		if (max < 2)
			return -EINVAL;
		len++;
		if (mod == MOD_MEM_NODISP && SIB_BASE(p[1]) == SIB_BASE_NONE)
			len += DISP32;
	} else if (mod == MOD_MEM_NODISP && rm == RM_RIP_OR_DISP32) {
		/* In 64-bit mode this is [rip + disp32]. */
		*rip = true;
		len += DISP32;
	}
	if (mod == MOD_MEM_DISP8)
		len += DISP8;
	else if (mod == MOD_MEM_DISP32)
		len += DISP32;
	return len;
}

int alt_insn_decode(const uint8_t *p, size_t max, struct alt_insn *out)
{
	size_t i = 0;
	bool opsize = false, adsize = false, repne = false, rex_w = false;
	uint16_t f;
	uint8_t op;
	size_t imm = 0;

	*out = (struct alt_insn){0};
	/*
	 * Prefixes in any order.  A REX prefix counts only directly before the
	 * opcode: one followed by a legacy prefix (or by another REX) is
	 * ignored by the CPU, yet it is part of the instruction, and the
	 * prefixes after it still count.
	 */
	while (i < max && i < ALT_INSN_MAX_LEN) {
		uint8_t b = p[i];

		if (b >= REX_MIN && b <= REX_MAX) {
			rex_w = (b & REX_W) != 0;
		} else if (is_legacy_prefix(b)) {
			rex_w = false; /* a REX before it is ignored */
			if (b == PFX_OPSIZE)
				opsize = true;
			else if (b == PFX_ADSIZE)
				adsize = true;
			else if (b == PFX_LOCK)
				out->lock = true;
			else if (b == PFX_REPNE)
				repne = true;
		} else {
			break;
		}
		i++;
	}
	out->nprefix = (uint8_t)i;
	if (i >= max)
		return -EINVAL;
	op = p[i++];
	out->map = MAP_ONE;
	if (op == OP_ESCAPE) {
		if (i >= max)
			return -EINVAL;
		op = p[i++];
		out->map = MAP_TWO;
		if (op == OP_ESCAPE_38 || op == OP_ESCAPE_3A) {
			f = op == OP_ESCAPE_38 ? F_MODRM : F_MODRM | F_IMM8;
			if (i >= max)
				return -EINVAL;
			op = p[i++];
			out->map = MAP_THREE;
		} else {
			f = map2_flags(op);
			/* 0f 78: vmread; 66/f2 0f 78: extrq/insertq ib ib */
			if (op == OP2_SSE4A_IMM && (opsize || repne))
				f |= F_IMM16;
		}
	} else {
		f = map1[op];
	}
	out->opcode = op;
	if (f & F_BAD)
		return -EINVAL;
	if (f & F_MODRM) {
		bool rip = false;
		int n = 1;

		/* Control and debug register moves ignore mod: registers. */
		if (!(f & F_MODRM_REG))
			n = modrm_len(p + i, max - i, &rip);
		else if (i >= max)
			n = -EINVAL;
		if (n < 0)
			return n;
		/* test r/m,imm (/0, /1): imm8 for 0xf6, immz for 0xf7 */
		if ((f & F_GRP3) && MODRM_REG(p[i]) <= 1)
			f |= op == GRP3_BYTE ? F_IMM8 : F_IMMZ;
		if (out->map == MAP_ONE && !alt_group_valid(op, p[i]))
			return -EINVAL;
		/*
		 * c7 f8: xbegin rel32 (rel16 under 0x66), a relative branch
		 * to the abort path.
		 */
		if (out->map == MAP_ONE && op == OP_XBEGIN &&
		    p[i] == MODRM_XBEGIN)
			f |= F_REL | F_REL16;
		out->rip_relative = rip;
		i += (size_t)n;
	}
	if (f & F_IMM8)
		imm += 1;
	if (f & F_IMM16)
		imm += IMM16_LEN;
	/*
	 * 16-bit immediate under 0x66, unless REX.W makes the operand 64-bit
	 * (REX.W wins over 0x66; the immediate is then 32 bits, sign
	 * extended).  64-bit mode: near call/jmp/jcc keep rel32 under 0x66
	 * (Intel); xbegin does not.
	 */
	if (f & F_IMMZ)
		imm += opsize && !rex_w && (!(f & F_REL) || (f & F_REL16))
			       ? IMM16_LEN
			       : IMM32_LEN;
	if (f & F_IMMV)
		imm += rex_w ? IMM64_LEN : opsize ? IMM16_LEN : IMM32_LEN;
	if (f & F_MOFFS)
		imm += adsize ? IMM32_LEN : IMM64_LEN;
	out->rel_branch = (f & F_REL) != 0;
	i += imm;
	if (i > max || i > ALT_INSN_MAX_LEN)
		return -EINVAL;
	out->len = (uint8_t)i;
	return (int)i;
}

/* The NOPs, longest form first within each length (see alt_insn.h). */
static const uint8_t alt_nops[ALT_NOP_MAX_LEN + 1][ALT_NOP_MAX_LEN] = {
	[1] = {0x90},
	[2] = {0x66, 0x90},
	[3] = {0x0f, 0x1f, 0x00},
	[4] = {0x0f, 0x1f, 0x40, 0x00},
	[5] = {0x0f, 0x1f, 0x44, 0x00, 0x00},
	[6] = {0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00},
	[7] = {0x0f, 0x1f, 0x80, 0x00, 0x00, 0x00, 0x00},
	[8] = {0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00},
	[9] = {0x66, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00},
	[10] = {0x66, 0x2e, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00},
	[11] = {0x66, 0x66, 0x2e, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00,
		0x00},
};

const uint8_t *alt_nop(size_t n)
{
	if (n < 1 || n > ALT_NOP_MAX_LEN)
		return NULL;
	return alt_nops[n];
}

void alt_fill_nops(uint8_t *buf, size_t len)
{
	while (len > 0) {
		size_t n = len > ALT_NOP_MAX_LEN ? ALT_NOP_MAX_LEN : len;

		__builtin_memcpy(buf, alt_nops[n], n);
		buf += n;
		len -= n;
	}
}

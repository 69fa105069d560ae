/* SPDX-License-Identifier: MIT */
/*
 * alt_insn.h - a small x86-64 instruction length decoder and the optimal
 * NOP table, used by the alternatives engine to check that replacement
 * bytes are position-independent and to pad shorter forms.
 *
 * The decoder knows the legacy one-byte map, the 0x0f two-byte map and the
 * 0x0f 0x38 / 0x0f 0x3a three-byte maps, with legacy prefixes and REX.
 * VEX/EVEX-encoded and invalid-in-64-bit opcodes are reported as -EINVAL:
 * a replacement the engine cannot decode is one it will not copy.
 */
#ifndef SMPALT_ALT_INSN_H
#define SMPALT_ALT_INSN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Architectural limit on the length of one x86 instruction. */
#define ALT_INSN_MAX_LEN 15

/* Longest single NOP the engine emits; longer gaps take several NOPs. */
#define ALT_NOP_MAX_LEN 11

/* Prefix bytes the engine writes. */
#define ALT_LOCK_PREFIX_BYTE 0xf0 /* SMP form of a .smp_locks site */
#define ALT_DS_PREFIX_BYTE 0x3e	  /* UP form: harmless DS segment prefix */

struct alt_insn {
	uint8_t len;	   /* total length in bytes */
	uint8_t nprefix;   /* legacy prefixes + REX before the opcode */
	uint8_t opcode;	   /* last opcode byte */
	uint8_t map;	   /* 1: one-byte map, 2: 0x0f, 3: 0x0f38/0x0f3a */
	bool lock;	   /* carries a 0xf0 prefix */
	bool rip_relative; /* has a %rip-relative memory operand */
	bool rel_branch;   /* relative jump, call or loop (not PIC) */
};

/*
 * Decode the instruction at p (at most max bytes readable).  Returns its
 * length (1..15) and fills *out, or -EINVAL if the bytes are not an
 * instruction this decoder knows, or it runs past max.
 */
int alt_insn_decode(const uint8_t *p, size_t max, struct alt_insn *out);

/* True if the decoded instruction is still correct when moved. */
static inline bool alt_insn_is_pic(const struct alt_insn *insn)
{
	return !insn->rip_relative && !insn->rel_branch;
}

/*
 * Fill len bytes at buf with the fewest, longest NOPs:
 * 1: 90   2: 66 90   3: 0f 1f 00   4: 0f 1f 40 00   5: 0f 1f 44 00 00
 * 6: 66 0f 1f 44 00 00   7: 0f 1f 80 00 00 00 00
 * 8: 0f 1f 84 00 00 00 00 00   9: 66 0f 1f 84 00 00 00 00 00
 * 10: 66 2e 0f 1f 84 00 ...   11: 66 66 2e 0f 1f 84 00 ...
 * A gap longer than ALT_NOP_MAX_LEN takes NOPs of ALT_NOP_MAX_LEN bytes
 * followed by one NOP for the rest.
 */
void alt_fill_nops(uint8_t *buf, size_t len);

/* The single NOP of length n (1..ALT_NOP_MAX_LEN), for tests. */
const uint8_t *alt_nop(size_t n);

#endif /* SMPALT_ALT_INSN_H */

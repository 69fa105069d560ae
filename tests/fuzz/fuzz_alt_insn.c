// SPDX-License-Identifier: MIT
/*
 * fuzz_alt_insn.c - libFuzzer target: the length decoder never reads past
 * what it is given, never returns a length above 15, and is deterministic;
 * a prefix in front of an instruction it accepts adds one byte and changes
 * nothing else (a DS prefix in front of anything, a REX in front of a
 * prefix: that REX is ignored); NOP padding of any length decodes back as
 * NOPs of that total length.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <smpalt/alt_insn.h>

#define NOP_FUZZ_MAX 64
#define PFX_DS 0x3e
#define REX_WRXB 0x4f

static bool is_prefix(uint8_t b)
{
	static const uint8_t legacy[] = {0x26, 0x2e, 0x36, 0x3e, 0x64, 0x65,
					 0x66, 0x67, 0xf0, 0xf2, 0xf3};
	size_t i;

	if (b >= 0x40 && b <= 0x4f) /* REX */
		return true;
	for (i = 0; i < sizeof(legacy); i++)
		if (b == legacy[i])
			return true;
	return false;
}

/* Decode pfx + data (an exact-size heap copy): same instruction, +1. */
static void check_with_prefix(uint8_t pfx, const uint8_t *data, size_t size,
			      const struct alt_insn *a)
{
	uint8_t *p = malloc(size + 1);
	struct alt_insn b;

	if (!p)
		return;
	p[0] = pfx;
	memcpy(p + 1, data, size);
	if (alt_insn_decode(p, size + 1, &b) != a->len + 1 ||
	    b.len != a->len + 1 || b.nprefix != a->nprefix + 1 ||
	    b.opcode != a->opcode || b.map != a->map || b.lock != a->lock ||
	    b.rip_relative != a->rip_relative || b.rel_branch != a->rel_branch)
		abort();
	free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct alt_insn a, b;
	uint8_t *copy = malloc(size ? size : 1);
	uint8_t nops[NOP_FUZZ_MAX];
	size_t nop_len, off = 0;
	int n;

	if (!copy)
		return 0;
	/* An exact-size heap copy: ASan catches any read past the end. */
	memcpy(copy, data, size);
	n = alt_insn_decode(copy, size, &a);
	if (n >= 0) {
		if (n < 1 || (size_t)n > size || n > ALT_INSN_MAX_LEN ||
		    alt_insn_decode(copy, size, &b) != n || a.len != n ||
		    a.nprefix >= n)
			abort();
		if (n < ALT_INSN_MAX_LEN) {
			check_with_prefix(PFX_DS, copy, size, &a);
			if (is_prefix(copy[0]))
				check_with_prefix(REX_WRXB, copy, size, &a);
		}
	}
	free(copy);

	nop_len = size ? data[0] % NOP_FUZZ_MAX : 0;
	alt_fill_nops(nops, nop_len);
	while (off < nop_len) {
		n = alt_insn_decode(nops + off, nop_len - off, &a);
		if (n <= 0 || !alt_insn_is_pic(&a))
			abort();
		off += (size_t)n;
	}
	return 0;
}

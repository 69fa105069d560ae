// SPDX-License-Identifier: MIT
/*
 * fuzz_alt_insn.c - libFuzzer target: the length decoder never reads past
 * what it is given, never returns a length above 15, and is deterministic;
 * NOP padding of any length decodes back as NOPs of that total length.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "alt_insn.h"

#define NOP_FUZZ_MAX 64

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
		    alt_insn_decode(copy, size, &b) != n || a.len != n)
			abort();
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

// SPDX-License-Identifier: MIT
/*
 * test_main.c - runs every engine test group; the last line printed is
 * "N passed, N failed" over all of them.
 */
#include <stdlib.h>

#include "alt_test.h"

/* Padding first: it reads the text as the assembler emitted it. */
static const alt_group_fn alt_groups[] = {
	alt_group_padding, alt_group_insn,     alt_group_refuse,
	alt_group_switch,  alt_group_features, alt_group_primitives,
};

int main(void)
{
	size_t total = 0, failed = 0, i;

	for (i = 0; i < sizeof(alt_groups) / sizeof(alt_groups[0]); i++)
		failed += (size_t)alt_groups[i](&total);
	printf("%zu passed, %zu failed\n", total - failed, failed);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

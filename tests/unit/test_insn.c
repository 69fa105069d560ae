// SPDX-License-Identifier: MIT
/*
 * test_insn.c - the length decoder and the NOP padding.
 */
#include <string.h>

#include "alt_insn.h"
#include "alt_test.h"

struct insn_case {
	const char *text; /* what objdump calls it */
	uint8_t bytes[ALT_INSN_MAX_LEN];
	int len;
	bool rip;
	bool rel;
};

/* clang-format off */
static const struct insn_case insn_cases[] = {
	{ "nop", { 0x90 }, 1, false, false },
	{ "lock incl (%rax)", { 0xf0, 0xff, 0x00 }, 3, false, false },
	{ "ds incl (%rax)", { 0x3e, 0xff, 0x00 }, 3, false, false },
	{ "lock cmpxchg %edx,0x0(%rip)",
	  { 0xf0, 0x0f, 0xb1, 0x15, 0, 0, 0, 0 }, 8, true, false },
	{ "movabs $imm64,%rax", { 0x48, 0xb8, 1, 2, 3, 4, 5, 6, 7, 8 }, 10,
	  false, false },
	{ "mov $imm16,%ax", { 0x66, 0xb8, 1, 2 }, 4, false, false },
	{ "movl $imm32,0x8(%rsp)", { 0xc7, 0x44, 0x24, 0x08, 1, 2, 3, 4 }, 8,
	  false, false },
	{ "mov 0x0(,%rax,1) abs via SIB", { 0x48, 0x8b, 0x04, 0x25, 0, 0, 0,
					    0 },
	  8, false, false },
	{ "lock addl $0,-8(%rsp)", { 0xf0, 0x83, 0x44, 0x24, 0xf8, 0x00 }, 6,
	  false, false },
	{ "test $1,%al", { 0xa8, 0x01 }, 2, false, false },
	{ "testb $1,(%rax)", { 0xf6, 0x00, 0x01 }, 3, false, false },
	{ "notl %eax", { 0xf7, 0xd0 }, 2, false, false },
	{ "test $imm16,%ax", { 0x66, 0xf7, 0xc0, 0x34, 0x12 }, 5, false,
	  false },
	{ "movabs 0xmoffs64,%eax", { 0xa1, 1, 2, 3, 4, 5, 6, 7, 8 }, 9, false,
	  false },
	{ "addr32 mov moffs32,%eax", { 0x67, 0xa1, 1, 2, 3, 4 }, 6, false,
	  false },
	{ "mfence", { 0x0f, 0xae, 0xf0 }, 3, false, false },
	{ "movbe (%rdi),%eax", { 0x0f, 0x38, 0xf0, 0x07 }, 4, false, false },
	{ "palignr $8,%xmm1,%xmm0", { 0x66, 0x0f, 0x3a, 0x0f, 0xc1, 0x08 }, 6,
	  false, false },
	{ "cpuid", { 0x0f, 0xa2 }, 2, false, false },
	{ "ret $8", { 0xc2, 0x08, 0x00 }, 3, false, false },
	{ "enter $16,$1", { 0xc8, 0x10, 0x00, 0x01 }, 4, false, false },
	{ "endbr64", { 0xf3, 0x0f, 0x1e, 0xfa }, 4, false, false },
	{ "xchg %eax,(%rdx)", { 0x87, 0x02 }, 2, false, false },
	{ "incl 0x0(%rip)", { 0xff, 0x05, 0, 0, 0, 0 }, 6, true, false },
	{ "call rel32", { 0xe8, 0, 0, 0, 0 }, 5, false, true },
	{ "jmp rel32", { 0xe9, 0, 0, 0, 0 }, 5, false, true },
	{ "jmp rel8", { 0xeb, 0x00 }, 2, false, true },
	{ "je rel8", { 0x74, 0x00 }, 2, false, true },
	{ "je rel32", { 0x0f, 0x84, 0, 0, 0, 0 }, 6, false, true },
	{ "loop rel8", { 0xe2, 0x00 }, 2, false, true },
	{ "xbegin rel32", { 0xc7, 0xf8, 0, 0, 0, 0 }, 6, false, true },
	{ "movl $imm32,%eax (c7 /0)", { 0xc7, 0xc0, 1, 2, 3, 4 }, 6, false,
	  false },
	{ "fwait (not a prefix)", { 0x9b, 0xdf, 0xe0 }, 1, false, false },
	{ "call *%rax", { 0xff, 0xd0 }, 2, false, false },
	{ "call *0x0(%rip)", { 0xff, 0x15, 0, 0, 0, 0 }, 6, true, false },
};
/* clang-format on */

static void
decoder_gives_length_and_pic_flags_of_known_instructions(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(insn_cases) / sizeof(insn_cases[0]); i++) {
		const struct insn_case *c = &insn_cases[i];
		struct alt_insn insn;
		int n = alt_insn_decode(c->bytes, sizeof(c->bytes), &insn);

		if (n != c->len || insn.rip_relative != c->rip ||
		    insn.rel_branch != c->rel)
			print_error("%s: length %d rip %d rel %d\n", c->text, n,
				    insn.rip_relative, insn.rel_branch);
		assert_int_equal(n, c->len);
		assert_int_equal(insn.rip_relative, c->rip);
		assert_int_equal(insn.rel_branch, c->rel);
		assert_int_equal(alt_insn_is_pic(&insn), !c->rip && !c->rel);
	}
}

static void decoder_refuses_truncated_and_vex_encoded_instructions(void **state)
{
	static const uint8_t movabs[] = {0x48, 0xb8, 1, 2, 3, 4, 5, 6, 7, 8};
	static const uint8_t vzeroupper[] = {0xc5, 0xf8, 0x77};
	static const uint8_t prefixes_only[] = {0xf0, 0x66};
	struct alt_insn insn;
	size_t n;

	(void)state;
	for (n = 0; n < sizeof(movabs); n++)
		assert_int_equal(alt_insn_decode(movabs, n, &insn), -EINVAL);
	assert_int_equal(alt_insn_decode(movabs, sizeof(movabs), &insn),
			 (int)sizeof(movabs));
	assert_int_equal(alt_insn_decode(vzeroupper, sizeof(vzeroupper), &insn),
			 -EINVAL);
	assert_int_equal(
		alt_insn_decode(prefixes_only, sizeof(prefixes_only), &insn),
		-EINVAL);
}

/* The reference NOPs, written out independently of alt_insn.c. */
const uint8_t alt_ref_nops[ALT_NOP_MAX_LEN + 1][ALT_NOP_MAX_LEN] = {
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

static void nop_table_holds_the_recommended_multibyte_nops(void **state)
{
	size_t n;

	(void)state;
	for (n = 1; n <= ALT_NOP_MAX_LEN; n++) {
		struct alt_insn insn;

		assert_memory_equal(alt_nop(n), alt_ref_nops[n], n);
		assert_int_equal(alt_insn_decode(alt_nop(n), n, &insn), (int)n);
	}
	assert_null(alt_nop(0));
	assert_null(alt_nop(ALT_NOP_MAX_LEN + 1));
}

static void
nop_padding_of_every_length_1_to_15_is_fewest_longest_nops(void **state)
{
	const uint8_t guard = 0xcc;
	size_t len;

	(void)state;
	for (len = 1; len <= ALT_INSN_MAX_LEN; len++) {
		uint8_t buf[ALT_INSN_MAX_LEN + 1];
		size_t off = 0, count = 0;

		memset(buf, guard, sizeof(buf));
		alt_fill_nops(buf, len);
		assert_int_equal(buf[len], guard); /* nothing past the end */
		while (off < len) {
			size_t want = len - off > ALT_NOP_MAX_LEN
					      ? ALT_NOP_MAX_LEN
					      : len - off;

			assert_memory_equal(buf + off, alt_ref_nops[want],
					    want);
			off += want;
			count++;
		}
		assert_int_equal(off, len);
		assert_int_equal(count,
				 (len + ALT_NOP_MAX_LEN - 1) / ALT_NOP_MAX_LEN);
	}
}

int alt_group_insn(size_t *total)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(
			decoder_gives_length_and_pic_flags_of_known_instructions),
		cmocka_unit_test(
			decoder_refuses_truncated_and_vex_encoded_instructions),
		cmocka_unit_test(
			nop_table_holds_the_recommended_multibyte_nops),
		cmocka_unit_test(
			nop_padding_of_every_length_1_to_15_is_fewest_longest_nops),
	};

	return ALT_RUN_GROUP("instruction decoder and NOPs", tests, total);
}

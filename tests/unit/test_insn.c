// SPDX-License-Identifier: MIT
/*
 * test_insn.c - the length decoder and the NOP padding.
 */
#include <string.h>

#include <smpalt/alt_insn.h>
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
	{ "xbeginw rel16 (0x66 counts here, unlike jmp/call)",
	  { 0x66, 0xc7, 0xf8, 0, 0 }, 5, false, true },
	{ "mov %cr0,%rax (mod ignored: registers)", { 0x0f, 0x20, 0x80 }, 3,
	  false, false },
	{ "mov %rax,%db7 (mod ignored)", { 0x0f, 0x23, 0x05 }, 3, false,
	  false },
	{ "vmread %rax,(%rax)", { 0x0f, 0x78, 0x00 }, 3, false, false },
	{ "extrq $2,$1,%xmm0", { 0x66, 0x0f, 0x78, 0xc0, 1, 2 }, 6, false,
	  false },
	{ "insertq $2,$1,%xmm0,%xmm0", { 0xf2, 0x0f, 0x78, 0xc0, 1, 2 }, 6,
	  false, false },
	{ "data16 jmp rel32 (0x66 ignored, Intel)",
	  { 0x66, 0xe9, 0, 0, 0, 0 }, 6, false, true },
	{ "movl $imm32,%eax (c7 /0)", { 0xc7, 0xc0, 1, 2, 3, 4 }, 6, false,
	  false },
	{ "fwait (not a prefix)", { 0x9b, 0xdf, 0xe0 }, 1, false, false },
	{ "call *%rax", { 0xff, 0xd0 }, 2, false, false },
	{ "call *0x0(%rip)", { 0xff, 0x15, 0, 0, 0, 0 }, 6, true, false },
};

/*
 * A REX prefix not directly before the opcode (a legacy prefix or another
 * REX follows it) is ignored by the CPU but still belongs to the
 * instruction; the legacy prefixes after it still count.
 */
static const struct insn_case rex_not_last_cases[] = {
	{ "rex.W nopw 0x0(%rax,%rax,1)",
	  { 0x48, 0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00 }, 7, false, false },
	{ "rex.W lock incl (%rax)", { 0x48, 0xf0, 0xff, 0x00 }, 4, false,
	  false },
	{ "rex.W ds incl (%rax)", { 0x48, 0x3e, 0xff, 0x00 }, 4, false,
	  false },
	{ "rex.W mov $imm16,%ax (0x66 after the REX counts)",
	  { 0x48, 0x66, 0xb8, 1, 2 }, 5, false, false },
	{ "rex.W mov $imm32,%eax (REX.W ignored)",
	  { 0x48, 0xf0, 0xb8, 1, 2, 3, 4 }, 7, false, false },
	{ "rex rex.W movabs $imm64,%rax (the last REX counts)",
	  { 0x40, 0x48, 0xb8, 1, 2, 3, 4, 5, 6, 7, 8 }, 11, false, false },
	{ "rex.W addr32 mov moffs32,%eax", { 0x48, 0x67, 0xa1, 1, 2, 3, 4 },
	  7, false, false },
	{ "rex.W data16 lock cmpxchg %dx,0x0(%rip)",
	  { 0x48, 0x66, 0xf0, 0x0f, 0xb1, 0x15, 0, 0, 0, 0 }, 10, true,
	  false },
	{ "data16 rex.W cs add $imm16,%ax (0x66 before it counts too)",
	  { 0x66, 0x48, 0x2e, 0x05, 1, 2 }, 6, false, false },
	{ "add $imm16,%ax (0x66 after REX.W: REX ignored)",
	  { 0x48, 0x66, 0x05, 1, 2 }, 5, false, false },
};

/* REX.W wins over 0x66: the immediate is 32 bits, sign-extended. */
static const struct insn_case rex_w_over_opsize_cases[] = {
	{ "data16 add $imm32,%rax", { 0x66, 0x48, 0x81, 0xc0, 1, 2, 3, 4 }, 8,
	  false, false },
	{ "data16 add $imm32,%rax (short form)",
	  { 0x66, 0x48, 0x05, 1, 2, 3, 4 }, 7, false, false },
	{ "data16 test $imm32,%rax", { 0x66, 0x48, 0xf7, 0xc0, 1, 2, 3, 4 },
	  8, false, false },
	{ "data16 movabs $imm64,%rax", { 0x66, 0x48, 0xb8, 1, 2, 3, 4, 5, 6,
					 7, 8 },
	  11, false, false },
};
/* clang-format on */

/* Every case decodes as stated; prints each that does not. */
static void check_insn_cases(const struct insn_case *cases, size_t n)
{
	size_t i, bad = 0;

	for (i = 0; i < n; i++) {
		const struct insn_case *c = &cases[i];
		struct alt_insn insn;
		int len = alt_insn_decode(c->bytes, sizeof(c->bytes), &insn);

		if (len != c->len || insn.rip_relative != c->rip ||
		    insn.rel_branch != c->rel ||
		    alt_insn_is_pic(&insn) != (!c->rip && !c->rel)) {
			print_error("%s: length %d rip %d rel %d, expected "
				    "%d %d %d\n",
				    c->text, len, insn.rip_relative,
				    insn.rel_branch, c->len, c->rip, c->rel);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

#define CHECK_INSN_CASES(cases) \
	check_insn_cases(cases, sizeof(cases) / sizeof((cases)[0]))

static void
decoder_gives_length_and_pic_flags_of_known_instructions(void **state)
{
	(void)state;
	CHECK_INSN_CASES(insn_cases);
}

static void
decoder_counts_a_rex_before_a_legacy_prefix_in_the_instruction(void **state)
{
	(void)state;
	CHECK_INSN_CASES(rex_not_last_cases);
}

static void decoder_lets_rex_w_win_over_operand_size_prefix(void **state)
{
	(void)state;
	CHECK_INSN_CASES(rex_w_over_opsize_cases);
}

static void decoder_refuses_truncated_and_vex_encoded_instructions(void **state)
{
	static const uint8_t movabs[] = {0x48, 0xb8, 1, 2, 3, 4, 5, 6, 7, 8};
	static const uint8_t vzeroupper[] = {0xc5, 0xf8, 0x77};
	static const uint8_t prefixes_only[] = {0xf0, 0x66};
	static const uint8_t rex_prefix_rex[] = {0x48, 0x66, 0x41};
	uint8_t fifteen_prefixes[ALT_INSN_MAX_LEN + 1];
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
	assert_int_equal(
		alt_insn_decode(rex_prefix_rex, sizeof(rex_prefix_rex), &insn),
		-EINVAL);
	/* 15 prefixes and REX bytes leave no room for an opcode. */
	memset(fifteen_prefixes, 0x66, sizeof(fifteen_prefixes));
	for (n = 0; n < ALT_INSN_MAX_LEN; n += 2)
		fifteen_prefixes[n] = 0x48;
	fifteen_prefixes[ALT_INSN_MAX_LEN] = 0x90;
	assert_int_equal(alt_insn_decode(fifteen_prefixes,
					 sizeof(fifteen_prefixes), &insn),
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
			decoder_counts_a_rex_before_a_legacy_prefix_in_the_instruction),
		cmocka_unit_test(
			decoder_lets_rex_w_win_over_operand_size_prefix),
		cmocka_unit_test(
			decoder_refuses_truncated_and_vex_encoded_instructions),
		cmocka_unit_test(
			nop_table_holds_the_recommended_multibyte_nops),
		cmocka_unit_test(
			nop_padding_of_every_length_1_to_15_is_fewest_longest_nops),
	};

	return ALT_RUN_GROUP("instruction decoder and NOPs", tests, total);
}

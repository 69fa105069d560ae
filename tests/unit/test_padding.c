// SPDX-License-Identifier: MIT
/*
 * test_padding.c - the padding the assembler puts after an old form that
 * is shorter than its replacement (alternative.h, ALT_PAD_OLD): the
 * fewest, longest NOPs, the same bytes the engine writes when it switches,
 * never a run of 0x90.
 *
 * The sites below are emitted once, in this program's text, with pads of
 * every length from 0 to ALT_PAD_MAX; they are never run.  The engine
 * tests switch them like every other record of this program.
 */
#include <string.h>

#include "alt_host.h"
#include <smpalt/alt_insn.h>
#include "alt_test.h"
#include <smpalt/alternative.h>

/* The SMP form of every site below: lock incl (%rdi), 3 bytes. */
#define PAD_SMP_FORM "lock; incl (%rdi)"
#define PAD_SMP_BYTES 0xf0, 0xff, 0x07
#define PAD_SMP_LEN 3
/* The feature site: a 1-byte old form (int3), a 12-byte new form: pad 11. */
#define PAD_FEATURE_OLD "int3"
#define PAD_FEATURE_OLD_BYTE 0xcc
#define PAD_FEATURE_OLD_LEN 1
#define PAD_FEATURE_NEW_LEN 12
#define PAD_FEATURE ALT_FEATURE_MOVBE

/* A site whose UP form is PAD_SMP_LEN + pad one-byte NOPs long. */
#define PAD_SITE(pad) alternative_smp(PAD_SMP_FORM, ".fill " #pad " + 3,1,0x90")

/* clang-format off */
__asm__(".pushsection .text\n"
	"alt_pad_sites_start:\n\t"
	PAD_SITE(0) PAD_SITE(1) PAD_SITE(2) PAD_SITE(3) PAD_SITE(4)
	PAD_SITE(5) PAD_SITE(6) PAD_SITE(7) PAD_SITE(8) PAD_SITE(9)
	PAD_SITE(10) PAD_SITE(11) PAD_SITE(12) PAD_SITE(13) PAD_SITE(14)
	PAD_SITE(15) PAD_SITE(16) PAD_SITE(17) PAD_SITE(18) PAD_SITE(19)
	PAD_SITE(20) PAD_SITE(21) PAD_SITE(22) PAD_SITE(23) PAD_SITE(24)
	PAD_SITE(25) PAD_SITE(26) PAD_SITE(27) PAD_SITE(28) PAD_SITE(29)
	PAD_SITE(30) PAD_SITE(31) PAD_SITE(32) PAD_SITE(33)
	alternative(PAD_FEATURE_OLD, ".fill 12,1,0x90", PAD_FEATURE)
	"alt_pad_sites_end:\n"
	".popsection\n");
/* clang-format on */

#define PAD_SITES (ALT_PAD_MAX + 1)

extern const uint8_t alt_pad_sites_start[] __asm__("alt_pad_sites_start");
extern const uint8_t alt_pad_sites_end[] __asm__("alt_pad_sites_end");

static bool in_pad_sites(uintptr_t addr)
{
	return addr >= (uintptr_t)alt_pad_sites_start &&
	       addr < (uintptr_t)alt_pad_sites_end;
}

/* The optimal padding of len bytes, built from the reference NOPs. */
static void ref_fill(uint8_t *buf, size_t len)
{
	while (len > 0) {
		size_t n = len > ALT_NOP_MAX_LEN ? ALT_NOP_MAX_LEN : len;

		memcpy(buf, alt_ref_nops[n], n);
		buf += n;
		len -= n;
	}
}

static void
smp_site_shorter_than_its_up_form_is_padded_with_optimal_nops(void **state)
{
	struct alt_tables t = alt_host_tables();
	static const uint8_t smp_form[] = {PAD_SMP_BYTES};
	bool seen[PAD_SITES] = {false};
	size_t i, found = 0;

	(void)state;
	for (i = 0; i < alt_smp_count(&t); i++) {
		const struct alt_smp_site *s = &t.smp[i];
		const uint8_t *site = (const uint8_t *)alt_site_addr(s);
		uint8_t want[PAD_SMP_LEN + ALT_PAD_MAX];
		size_t pad;

		if (!in_pad_sites((uintptr_t)site))
			continue;
		found++;
		pad = (size_t)s->repl_len - PAD_SMP_LEN;
		assert_in_range(pad, 0, ALT_PAD_MAX);
		assert_false(seen[pad]);
		seen[pad] = true;
		assert_int_equal(s->site_len, PAD_SMP_LEN + pad);
		memcpy(want, smp_form, PAD_SMP_LEN);
		ref_fill(want + PAD_SMP_LEN, pad);
		if (memcmp(site, want, s->site_len))
			print_error("site with a %zu-byte pad at %p: wrong "
				    "padding\n",
				    pad, (const void *)site);
		assert_memory_equal(site, want, s->site_len);
	}
	assert_int_equal(found, PAD_SITES);
}

static void
feature_site_shorter_than_its_new_form_is_padded_with_optimal_nops(void **state)
{
	struct alt_tables t = alt_host_tables();
	uint8_t want[PAD_FEATURE_NEW_LEN];
	size_t i, found = 0;

	(void)state;
	want[0] = PAD_FEATURE_OLD_BYTE;
	ref_fill(want + PAD_FEATURE_OLD_LEN,
		 PAD_FEATURE_NEW_LEN - PAD_FEATURE_OLD_LEN);
	for (i = 0; i < alt_feature_count(&t); i++) {
		const struct alt_feature_site *f = &t.feat[i];
		const uint8_t *site = (const uint8_t *)alt_site_addr(f);

		if (!in_pad_sites((uintptr_t)site))
			continue;
		found++;
		assert_int_equal(f->feature, PAD_FEATURE);
		assert_int_equal(f->site_len, PAD_FEATURE_NEW_LEN);
		assert_int_equal(f->repl_len, PAD_FEATURE_NEW_LEN);
		assert_memory_equal(site, want, PAD_FEATURE_NEW_LEN);
	}
	assert_int_equal(found, 1);
}

/* A NOP of the reference table, as decoded at p (length 0 if not). */
static size_t ref_nop_len(const uint8_t *p, size_t max)
{
	struct alt_insn insn;
	int n = alt_insn_decode(p, max, &insn);

	if (n <= 0 || n > ALT_NOP_MAX_LEN || memcmp(p, alt_ref_nops[n], n))
		return 0;
	return (size_t)n;
}

/*
 * The NOPs that end a site: whole instructions from the site's start, the
 * trailing run of reference NOPs.  Returns its length; 0 if none, or if
 * the site does not decode (reported).
 */
static size_t trailing_nops(const uint8_t *site, size_t len)
{
	size_t off = 0, run = 0;

	while (off < len) {
		struct alt_insn insn;
		int n = alt_insn_decode(site + off, len - off, &insn);

		if (n <= 0) {
			print_error("site at %p: no instruction at +%zu\n",
				    (const void *)site, off);
			return 0;
		}
		run = ref_nop_len(site + off, len - off) ? run + (size_t)n : 0;
		off += (size_t)n;
	}
	return run;
}

static void check_site_padding(const char *kind, size_t index,
			       const uint8_t *site, size_t len)
{
	uint8_t want[UINT8_MAX];
	size_t pad = trailing_nops(site, len);

	ref_fill(want, pad);
	if (memcmp(site + len - pad, want, pad))
		print_error("%s[%zu] at %p: its %zu bytes of padding are not "
			    "the fewest, longest NOPs\n",
			    kind, index, (const void *)site, pad);
	assert_memory_equal(site + len - pad, want, pad);
}

static void every_site_of_this_program_ends_in_optimal_nops(void **state)
{
	struct alt_tables t = alt_host_tables();
	size_t i;

	(void)state;
	for (i = 0; i < alt_smp_count(&t); i++)
		check_site_padding(".smp_altinstructions", i,
				   (const uint8_t *)alt_site_addr(&t.smp[i]),
				   t.smp[i].site_len);
	for (i = 0; i < alt_feature_count(&t); i++)
		check_site_padding(".altinstructions", i,
				   (const uint8_t *)alt_site_addr(&t.feat[i]),
				   t.feat[i].site_len);
}

int alt_group_padding(size_t *total)
{
	/* Run before any other group has switched this program's text. */
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(
			smp_site_shorter_than_its_up_form_is_padded_with_optimal_nops),
		cmocka_unit_test(
			feature_site_shorter_than_its_new_form_is_padded_with_optimal_nops),
		cmocka_unit_test(
			every_site_of_this_program_ends_in_optimal_nops),
	};

	return ALT_RUN_GROUP("padding emitted by the assembler", tests, total);
}

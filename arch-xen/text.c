// SPDX-License-Identifier: MIT
/*
 * text.c - the alternatives engine applied to this kernel's own text.
 *
 * The engine (alt_core.c) is pure: it verifies and decides.  Here it gets
 * the write path (mm_text_write(), through the temporary writable alias of
 * the read-only text), the serializing instruction (mm_text_sync()) and
 * CPUID as Xen lets a PV guest see it.
 */
#define pr_fmt(fmt) "alt: " fmt

#include <smpalt/text.h>
#include <smpalt/alternative.h>
#include <smpalt/errno.h>
#include <smpalt/hypervisor.h>
#include <smpalt/kernel.h>
#include <smpalt/mm.h>
#include <smpalt/page_alloc.h>
#include <smpalt/printk.h>
#include <smpalt/string.h>
#include <smpalt/time.h>
#include <smpalt/vcpu.h>

/*
 * Room for the SMP bytes of every alternative_smp site; checked against
 * alt_save_size() at init.
 */
#define TEXT_SAVE_MAX 4096

/* The SMP-only pages (smpalt.lds.S), given back when maxvcpus is 1. */
extern char __smp_tables_start[], __smp_tables_end[];

/* CPUID leaf with the feature words alternative.h numbers. */
#define CPUID_LEAF_FEATURES 1

/* The canary's counter gains this much per run (1 + 2, see below). */
#define TEXT_CANARY_STEP 3
/* Bytes of the canary compared between the two forms. */
#define TEXT_CANARY_BYTES 16
/* The canary opens with its lock site: the prefix in each form. */
#define TEXT_LOCK_PREFIX_SMP 0xf0
#define TEXT_LOCK_PREFIX_UP 0x3e

static const struct alt_tables text_linked = ALT_TABLES_FROM_LINKER;
static struct alt_engine text_engine;
/*
 * Needed only to switch back to SMP: it lives with the SMP tables, in the
 * pages text_up_for_good() frees.
 */
static uint8_t text_save[TEXT_SAVE_MAX] __section(".smp_save");
/*
 * The SMP tables and the save buffer went back to the page allocator: the
 * text stays UP and nothing may switch (or read the tables) again.
 */
static bool text_freed;

/*
 * The canary: one LOCK_PREFIX site and one alternative_smp site, written
 * as top-level assembly so that the compiler can neither inline nor clone
 * it.  text_canary(p) adds 1 then 2 to *p.
 */
extern const uint8_t text_canary_end[];

/* One assembler line per source line. */
/* clang-format off */
#define TEXT_CANARY_ASM							\
	".pushsection .text\n\t"					\
	".globl text_canary\n\t"					\
	".type text_canary, @function\n"				\
	"text_canary:\n\t"						\
	LOCK_PREFIX "incl (%rdi)\n\t"					\
	alternative_smp("lock; addl $2,(%rdi)", "addl $2,(%rdi)")	\
	"ret\n\t"							\
	".globl text_canary_end\n"					\
	"text_canary_end:\n\t"						\
	".size text_canary, . - text_canary\n\t"			\
	".popsection\n"
/* clang-format on */

__asm__(TEXT_CANARY_ASM);

static int text_write(void *ctx, uintptr_t addr, const void *bytes, size_t len)
{
	(void)ctx;
	return mm_text_write((void *)addr, bytes, len);
}

static void text_serialize(void *ctx)
{
	(void)ctx;
	mm_text_sync();
}

static bool text_has_feature(void *ctx, unsigned int feature)
{
	uint32_t a, b, c, d, word = feature / 32, bit = feature % 32;

	(void)ctx;
	hyp_cpuid(CPUID_LEAF_FEATURES, 0, &a, &b, &c, &d);
	if (word == ALT_FEATURE_WORD_1_EDX)
		return (d >> bit) & 1;
	if (word == ALT_FEATURE_WORD_1_ECX)
		return (c >> bit) & 1;
	return false;
}

int text_init(struct alt_report *rep)
{
	const struct alt_ops ops = {
		.write = text_write, .serialize = text_serialize, .ctx = NULL};

	if (alt_save_size(&text_linked) > sizeof(text_save)) {
		*rep = (struct alt_report){
			.error = -ENOSPC,
			.reason = "save buffer smaller than the SMP forms"};
		return -ENOSPC;
	}
	return alt_init(&text_engine, &text_linked, &ops, text_save,
			sizeof(text_save), rep);
}

int text_apply_features(struct alt_report *rep)
{
	/*
	 * Only vCPU 0 runs at boot and its events are masked around the
	 * rewrite: nothing can execute a half-written site.
	 */
	unsigned long was = vcpu_events_mask();
	int rc = alt_apply_features(&text_engine, text_has_feature, NULL, rep);

	vcpu_events_restore(was);
	return rc;
}

const struct alt_tables *text_tables(void)
{
	return &text_linked;
}

enum alt_mode text_mode(void)
{
	return alt_current_mode(&text_engine);
}

const struct alt_stats *text_stats(void)
{
	return &text_engine.stats;
}

bool text_tables_freed(void)
{
	return text_freed;
}

int text_switch(enum alt_mode to, struct text_result *res)
{
	unsigned long was;
	uint64_t t0, t1;
	uint32_t version;
	bool live;
	int rc;

	res->close_rc = 0;
	res->sites = 0;
	res->ns = 0;
	if (text_freed) {
		/*
		 * Refused before the engine is even called: the pages of its
		 * tables may hold anything by now.
		 */
		res->rep = (struct alt_report){
			.error = -ESTALE,
			.reason = "SMP tables freed, UP for good (maxvcpus 1)"};
		return -ESTALE;
	}
	/*
	 * Timed on this vCPU's own record, from a reading taken once the
	 * clock is seen running: an emulated TSC stands still for a while
	 * after a secondary read it on a pCPU whose clock is ahead (clock.h),
	 * and a switch timed from then looked 1 ns long.  Under one version
	 * the two readings are exact; across a re-base Xen made meanwhile
	 * they are close.  A timing shorter than a clock step (the clock
	 * stood still at the end), or not from a running clock, is reported
	 * as 0: not measured.
	 */
	live = time_local_live(&t0, &version);
	/*
	 * The caller checked that only this vCPU runs; masking events makes
	 * sure that it is not interrupted in the middle of a site it is
	 * rewriting.
	 */
	was = vcpu_events_mask();
	/* One mapping of the whole text for all the writes of the switch. */
	rc = mm_text_open();
	if (!rc) {
		rc = alt_switch(&text_engine, to, &res->rep);
		res->close_rc = mm_text_close();
	} else {
		res->rep = (struct alt_report){.error = rc,
					       .reason = "no text alias"};
	}
	t1 = time_local_ns(&version);
	res->ns = live && t1 > t0 && t1 - t0 >= time_local_step() ? t1 - t0 : 0;
	vcpu_events_restore(was);
	res->sites = text_engine.stats.last_sites;
	return rc;
}

/*
 * Hand the SMP-only pages to the page allocator.  They are data outside the
 * text, mapped read-write like the rest of memory (mm.c makes only the text
 * read-only); check that before giving a page away.
 */
static int text_free_tables(size_t table_bytes)
{
	char *start = __smp_tables_start, *end = __smp_tables_end, *p;
	unsigned long pages;

	for (p = start; p < end; p += PAGE_SIZE) {
		if ((mm_lookup_pte(p) & (PTE_PRESENT | PTE_RW)) !=
		    (PTE_PRESENT | PTE_RW)) {
			pr_err("maxvcpus is 1: UP for good, but SMP table page %p is not mapped read-write: nothing freed\n",
			       p);
			return -EFAULT;
		}
	}
	pages = page_give_back(start, end);
	pr_info("maxvcpus is 1: UP for good, freed %lu bytes (%lu pages) of SMP tables\n",
		pages * PAGE_SIZE, pages);
	pr_info("the engine's SMP tables and save buffer held %zu of those bytes\n",
		table_bytes);
	return 0;
}

int text_up_for_good(struct text_result *res)
{
	size_t freeable;
	unsigned long was;
	int rc;

	res->close_rc = 0;
	res->sites = 0;
	res->ns = 0;
	/*
	 * Only vCPU 0 exists at all (maxvcpus == 1) and its events are
	 * masked: nothing else can run the text or read the tables while
	 * they are applied, and nothing ever will once they are freed.
	 */
	was = vcpu_events_mask();
	rc = mm_text_open();
	if (!rc) {
		rc = alt_apply_up_once(&text_engine, &freeable, &res->rep);
		res->close_rc = mm_text_close();
	} else {
		res->rep = (struct alt_report){.error = rc,
					       .reason = "no text alias"};
	}
	vcpu_events_restore(was);
	if (rc)
		return rc;
	/*
	 * The engine has forgotten the tables and the save buffer (later
	 * switches: -ESTALE); mark them gone here too before their pages
	 * change hands.
	 */
	text_freed = true;
	rc = text_free_tables(freeable);
	/*
	 * The text is UP for good either way; an alias left mapped (mm.c
	 * logged it) is still an error to report.  The tables lie outside
	 * the text, so freeing them does not depend on it.
	 */
	return res->close_rc ? res->close_rc : rc;
}

static const char *text_mode_name(enum alt_mode m)
{
	return m == ALT_MODE_UP ? "up" : "smp";
}

/* Run the canary once and check that it added its step. */
static int text_run_canary(atomic_t *counter, const char *form)
{
	int32_t before = atomic_read(counter);

	text_canary(counter);
	if (atomic_read(counter) != before + TEXT_CANARY_STEP) {
		pr_err("self-test: canary in %s form added %d, not %d\n", form,
		       atomic_read(counter) - before, TEXT_CANARY_STEP);
		return -EINVAL;
	}
	return 0;
}

int text_selftest(text_switch_fn switch_to)
{
	const uint8_t *code = (const uint8_t *)text_canary;
	size_t len = MIN((size_t)(text_canary_end - code),
			 (size_t)TEXT_CANARY_BYTES);
	uint8_t smp_bytes[TEXT_CANARY_BYTES], up_bytes[TEXT_CANARY_BYTES];
	static atomic_t counter = ATOMIC_INIT(0);
	enum alt_mode start = text_mode();
	enum alt_mode other = start == ALT_MODE_UP ? ALT_MODE_SMP : ALT_MODE_UP;
	int rc;

	/* Form 1: whatever the text holds now. */
	if (start == ALT_MODE_UP)
		memcpy(up_bytes, code, len);
	else
		memcpy(smp_bytes, code, len);
	rc = text_run_canary(&counter, text_mode_name(start));
	if (rc)
		return rc;

	/* Form 2: the other one; the canary's bytes must change. */
	rc = switch_to(other);
	if (rc)
		return rc;
	if (other == ALT_MODE_UP)
		memcpy(up_bytes, code, len);
	else
		memcpy(smp_bytes, code, len);
	rc = text_run_canary(&counter, text_mode_name(other));
	if (rc)
		return rc;

	/* Back: exactly the original bytes again. */
	rc = switch_to(start);
	if (rc)
		return rc;
	if (memcmp(code, start == ALT_MODE_UP ? up_bytes : smp_bytes, len)) {
		pr_err("self-test: canary bytes differ after the round trip\n");
		return -EINVAL;
	}
	rc = text_run_canary(&counter, text_mode_name(start));
	if (rc)
		return rc;
	if (smp_bytes[0] != TEXT_LOCK_PREFIX_SMP ||
	    up_bytes[0] != TEXT_LOCK_PREFIX_UP ||
	    !memcmp(smp_bytes, up_bytes, len)) {
		pr_err("self-test: canary starts %#x (SMP) / %#x (UP)\n",
		       smp_bytes[0], up_bytes[0]);
		return -EINVAL;
	}
	pr_info("self-test passed: canary patched both ways and run in each form\n");
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * smpmode.c - the alternatives engine applied to the running kernel.
 *
 * The engine (alt_core.c) is pure: it verifies and decides, we give it the
 * write path (a temporary writable alias of the read-only text, see
 * mm_text_write) and the serializing instruction.
 */
#include <smpalt/smpmode.h>
#include <smpalt/atomic.h>
#include <smpalt/errno.h>
#include <smpalt/hypercall.h>
#include <smpalt/kernel.h>
#include <smpalt/mm.h>
#include <smpalt/printk.h>
#include <smpalt/string.h>
#include <smpalt/time.h>
#include <smpalt/vcpu.h>

/*
 * Room for the SMP bytes of every alternative_smp site; checked against
 * alt_save_size() at init.
 */
#define SMPMODE_SAVE_MAX 4096

/* The SMP-only pages (smpalt.lds.S), given back when maxvcpus is 1. */
extern char __smp_tables_start[], __smp_tables_end[];

/* CPUID leaf with the feature words alternative.h numbers. */
#define CPUID_LEAF_FEATURES 1

/* The canary's counter gains this much per run (1 + 2, see below). */
#define SMPMODE_CANARY_STEP 3
/* Bytes of the canary compared between the two forms. */
#define SMPMODE_CANARY_BYTES 16

static struct alt_engine smpmode_engine;
/*
 * Needed only to switch back to SMP: it lives with the SMP tables, in the
 * pages smpmode_up_for_good() frees.
 */
static uint8_t smpmode_save[SMPMODE_SAVE_MAX] __section(".smp_save");
static uint64_t smpmode_boot_switches;
static bool smpmode_ready;
/*
 * The SMP tables and the save buffer went back to the page allocator: the
 * text stays UP and nothing may switch (or read the tables) again.
 */
static bool smpmode_tables_freed;
/* Switches refused: Xen reported a secondary up (data/smpalt/refused). */
static uint64_t smpmode_refused;

/*
 * The canary: one LOCK_PREFIX site and one alternative_smp site, written
 * as top-level assembly so that the compiler can neither inline nor clone
 * it.  smpmode_canary(p) adds 1 then 2 to *p.
 */
extern const uint8_t smpmode_canary_end[];

/* One assembler line per source line. */
/* clang-format off */
#define SMPMODE_CANARY_ASM						\
	".pushsection .text\n\t"					\
	".globl smpmode_canary\n\t"					\
	".type smpmode_canary, @function\n"				\
	"smpmode_canary:\n\t"						\
	LOCK_PREFIX "incl (%rdi)\n\t"					\
	alternative_smp("lock; addl $2,(%rdi)", "addl $2,(%rdi)")	\
	"ret\n\t"							\
	".globl smpmode_canary_end\n"					\
	"smpmode_canary_end:\n\t"					\
	".size smpmode_canary, . - smpmode_canary\n\t"			\
	".popsection\n"
/* clang-format on */

__asm__(SMPMODE_CANARY_ASM);

static int smpmode_write(void *ctx, uintptr_t addr, const void *bytes,
			 size_t len)
{
	(void)ctx;
	return mm_text_write((void *)addr, bytes, len);
}

static void smpmode_serialize(void *ctx)
{
	(void)ctx;
	mm_text_sync();
}

/*
 * CPUID as Xen lets a PV guest see it: the forced-emulation prefix
 * (ud2; "xen") makes Xen emulate the cpuid with the guest's policy.
 */
static void smpmode_xen_cpuid(uint32_t leaf, uint32_t *a, uint32_t *b,
			      uint32_t *c, uint32_t *d)
{
	__asm__ __volatile__("ud2a; .ascii \"xen\"; cpuid"
			     : "=a"(*a), "=b"(*b), "=c"(*c), "=d"(*d)
			     : "0"(leaf), "2"(0));
}

static bool smpmode_has_feature(void *ctx, unsigned int feature)
{
	uint32_t a, b, c, d, word = feature / 32, bit = feature % 32;

	(void)ctx;
	smpmode_xen_cpuid(CPUID_LEAF_FEATURES, &a, &b, &c, &d);
	if (word == ALT_FEATURE_WORD_1_EDX)
		return (d >> bit) & 1;
	if (word == ALT_FEATURE_WORD_1_ECX)
		return (c >> bit) & 1;
	return false;
}

static const char *smpmode_kind(enum alt_site_kind k)
{
	switch (k) {
	case ALT_SITE_LOCK:
		return "lock";
	case ALT_SITE_SMP:
		return "smp-alt";
	case ALT_SITE_FEATURE:
		return "feature-alt";
	default:
		return "none";
	}
}

static void smpmode_log_failure(const char *what, const struct alt_report *r)
{
	pr_err("alt: %s failed: %d (%s), %s site %zu at %#lx: %s\n", what,
	       r->error, errno_name(r->error), smpmode_kind(r->kind), r->index,
	       (unsigned long)r->addr, r->reason ? r->reason : "?");
}

const char *smpmode_name(enum alt_mode m)
{
	return m == ALT_MODE_UP ? "up" : "smp";
}

enum alt_mode smpmode_current(void)
{
	return alt_current_mode(&smpmode_engine);
}

void smpmode_boot_done(void)
{
	smpmode_boot_switches = smpmode_engine.stats.switches;
}

uint64_t smpmode_switches(void)
{
	return smpmode_engine.stats.switches - smpmode_boot_switches;
}

int smpmode_init(void)
{
	static const struct alt_tables tables = ALT_TABLES_FROM_LINKER;
	const struct alt_ops ops = {.write = smpmode_write,
				    .serialize = smpmode_serialize,
				    .ctx = NULL};
	struct alt_report rep;
	size_t need = alt_save_size(&tables);
	int rc;

	if (need > sizeof(smpmode_save)) {
		pr_err("alt: %zu bytes of SMP forms, room for %zu\n", need,
		       sizeof(smpmode_save));
		return -ENOSPC;
	}
	rc = alt_init(&smpmode_engine, &tables, &ops, smpmode_save,
		      sizeof(smpmode_save), &rep);
	if (rc) {
		smpmode_log_failure("init", &rep);
		return rc;
	}
	pr_info("alt: %zu lock sites, %zu smp alternatives, %zu feature "
		"alternatives\n",
		alt_lock_count(&tables), alt_smp_count(&tables),
		alt_feature_count(&tables));

	{
		/*
		 * Only vCPU 0 runs at boot and its events are masked around
		 * the rewrite: nothing can execute a half-written site.
		 */
		unsigned long was = vcpu_events_mask();

		rc = alt_apply_features(&smpmode_engine, smpmode_has_feature,
					NULL, &rep);
		vcpu_events_restore(was);
	}
	if (rc) {
		smpmode_log_failure("feature alternatives", &rep);
		return rc;
	}
	smpmode_ready = true;
	return 0;
}

uint64_t smpmode_refusals(void)
{
	return smpmode_refused;
}

/*
 * The first secondary Xen reports up (VCPUOP_is_up), 0 if every id in
 * 1..vcpu_max-1 is down, or -errno if Xen could not answer for one (then
 * nobody can say that the vCPU is down).
 */
static int smpmode_secondary_up(void)
{
	unsigned int id;

	for (id = 1; id < vcpu_max; id++) {
		long rc = hyp_vcpu_op(VCPUOP_is_up, id, NULL);

		if (rc > 0)
			return (int)id;
		if (rc < 0)
			return (int)rc;
	}
	return 0;
}

/*
 * The engine's rule, enforced here rather than trusted to the caller: a
 * switch rewrites lock prefixes and multi-byte alternative_smp sites, which
 * is safe only while no other vCPU can execute them.  Both directions are
 * refused while Xen says a secondary is up:
 *   - SMP -> UP: UP text must never run on two vCPUs.  Nothing is
 *     written; the text stays SMP, the safe form.
 *   - UP -> SMP (the text is UP while a secondary runs, which the plans
 *     never do): the lock prefixes alone could go back to SMP form (1-byte
 *     writes cannot be torn), but the alternative_smp sites cannot be
 *     rewritten under a running vCPU, and the engine verifies every site
 *     against one mode, so a half switch would break every later one.
 *     Nothing is written; the caller must take the secondaries down first
 *     (hotplug_plan() puts DOWN and WAIT_DOWN before SWITCH_TO_SMP then).
 * Checked once before the write: only vCPU 0 ever calls VCPUOP_up, and it
 * is busy here until the switch is over, so no secondary can come up in
 * between (Xen never starts a PV guest's vCPU by itself).
 * Returns 0, or -EBUSY after one log line (counted in smpmode_refused).
 */
static int smpmode_check_alone(enum alt_mode to)
{
	int up = smpmode_secondary_up();

	if (!up)
		return 0;
	smpmode_refused++;
	if (up > 0)
		pr_err("alt: switch to %s refused: vCPU %d is up "
		       "(VCPUOP_is_up); nothing written, the text stays %s\n",
		       to == ALT_MODE_UP ? "UP" : "SMP", up,
		       smpmode_name(smpmode_current()));
	else
		pr_err("alt: switch to %s refused: VCPUOP_is_up failed: %d "
		       "(%s); nothing written, the text stays %s\n",
		       to == ALT_MODE_UP ? "UP" : "SMP", up, errno_name(up),
		       smpmode_name(smpmode_current()));
	return -EBUSY;
}

int smpmode_switch(enum alt_mode to, struct smpmode_result *res)
{
	struct alt_report rep;
	unsigned long was;
	uint64_t t0, t1;
	int rc, close_rc;

	if (!smpmode_ready)
		return -ENODEV;
	if (smpmode_tables_freed) {
		/*
		 * Refused before the engine is even called: the pages of its
		 * tables may hold anything by now.
		 */
		rep = (struct alt_report){.error = -ALT_ESTALE,
					  .reason = "SMP tables freed, UP "
						    "for good (maxvcpus 1)"};
		smpmode_log_failure(to == ALT_MODE_UP ? "switch to UP"
						      : "switch to SMP",
				    &rep);
		return -ALT_ESTALE;
	}
	/* Switching to the current mode writes nothing: no check needed. */
	if (to != smpmode_current()) {
		rc = smpmode_check_alone(to);
		if (rc)
			return rc;
	}
	/*
	 * Only vCPU 0 runs (checked just above, with Xen); masking events
	 * here makes sure this vCPU itself is not interrupted in the middle
	 * of a site it is rewriting.
	 */
	was = vcpu_events_mask();
	t0 = time_now_ns();
	/* One mapping of the whole text for all the writes of the switch. */
	rc = mm_text_open();
	close_rc = 0;
	if (!rc) {
		rc = alt_switch(&smpmode_engine, to, &rep);
		close_rc = mm_text_close();
	} else {
		rep = (struct alt_report){.error = rc,
					  .reason = "no text alias"};
	}
	t1 = time_now_ns();
	vcpu_events_restore(was);

	if (rc) {
		smpmode_log_failure(to == ALT_MODE_UP ? "switch to UP"
						      : "switch to SMP",
				    &rep);
		return rc;
	}
	if (close_rc) {
		/* The text did switch; mm.c logged the alias left open. */
		pr_err("alt: switch to %s done, but its text alias is still "
		       "mapped: %d (%s)\n",
		       to == ALT_MODE_UP ? "UP" : "SMP", close_rc,
		       errno_name(close_rc));
		return close_rc;
	}
	if (res) {
		res->sites = smpmode_engine.stats.last_sites;
		res->ns = t1 - t0;
	}
	return 0;
}

/*
 * Hand the SMP-only pages to the page allocator.  They are data outside the
 * text, mapped read-write like the rest of memory (mm.c makes only the text
 * read-only); check that before giving a page away.
 */
static int smpmode_free_tables(size_t table_bytes)
{
	char *start = __smp_tables_start, *end = __smp_tables_end, *p;
	unsigned long pages;

	for (p = start; p < end; p += PAGE_SIZE) {
		if ((mm_lookup_pte(p) & (PTE_PRESENT | PTE_RW)) !=
		    (PTE_PRESENT | PTE_RW)) {
			pr_err("alt: maxvcpus is 1: UP for good, but SMP table "
			       "page %p is not mapped read-write: nothing "
			       "freed\n",
			       p);
			return -EFAULT;
		}
	}
	pages = page_give_back(start, end);
	pr_info("alt: maxvcpus is 1: UP for good, freed %lu bytes (%lu pages) "
		"of SMP tables\n",
		pages * PAGE_SIZE, pages);
	pr_info("alt: the engine's SMP tables and save buffer held %zu of "
		"those bytes\n",
		table_bytes);
	return 0;
}

int smpmode_up_for_good(void)
{
	struct alt_report rep;
	size_t freeable;
	unsigned long was;
	int rc, close_rc;

	if (!smpmode_ready)
		return -ENODEV;
	/*
	 * Only vCPU 0 exists at all (maxvcpus == 1) and its events are
	 * masked: nothing else can run the text or read the tables while
	 * they are applied, and nothing ever will once they are freed.
	 */
	was = vcpu_events_mask();
	rc = mm_text_open();
	close_rc = 0;
	if (!rc) {
		rc = alt_apply_up_once(&smpmode_engine, &freeable, &rep);
		close_rc = mm_text_close();
	} else {
		rep = (struct alt_report){.error = rc,
					  .reason = "no text alias"};
	}
	vcpu_events_restore(was);
	if (rc) {
		smpmode_log_failure("UP for good", &rep);
		return rc;
	}
	/*
	 * The engine has forgotten the tables and the save buffer (later
	 * switches: -ALT_ESTALE); mark them gone here too before their pages
	 * change hands.
	 */
	smpmode_tables_freed = true;
	rc = smpmode_free_tables(freeable);
	/*
	 * The text is UP for good either way; an alias left mapped (mm.c
	 * logged it) is still an error to report.  The tables lie outside
	 * the text, so freeing them does not depend on it.
	 */
	return close_rc ? close_rc : rc;
}

/* Run the canary once and check that it added its step. */
static int smpmode_run_canary(atomic_t *counter, const char *form)
{
	int32_t before = atomic_read(counter);

	smpmode_canary(counter);
	if (atomic_read(counter) != before + SMPMODE_CANARY_STEP) {
		pr_err("alt: self-test: canary in %s form added %d, not %d\n",
		       form, atomic_read(counter) - before,
		       SMPMODE_CANARY_STEP);
		return -EINVAL;
	}
	return 0;
}

int smpmode_selftest(void)
{
	const uint8_t *code = (const uint8_t *)smpmode_canary;
	size_t len = MIN((size_t)(smpmode_canary_end - code),
			 (size_t)SMPMODE_CANARY_BYTES);
	uint8_t smp_bytes[SMPMODE_CANARY_BYTES], up_bytes[SMPMODE_CANARY_BYTES];
	static atomic_t counter = ATOMIC_INIT(0);
	enum alt_mode start = smpmode_current();
	enum alt_mode other = start == ALT_MODE_UP ? ALT_MODE_SMP : ALT_MODE_UP;
	int rc;

	/* Form 1: whatever the text holds now. */
	if (start == ALT_MODE_UP)
		memcpy(up_bytes, code, len);
	else
		memcpy(smp_bytes, code, len);
	rc = smpmode_run_canary(&counter, smpmode_name(start));
	if (rc)
		return rc;

	/* Form 2: the other one; the canary's bytes must change. */
	rc = smpmode_switch(other, NULL);
	if (rc)
		return rc;
	if (other == ALT_MODE_UP)
		memcpy(up_bytes, code, len);
	else
		memcpy(smp_bytes, code, len);
	rc = smpmode_run_canary(&counter, smpmode_name(other));
	if (rc)
		return rc;

	/* Back: exactly the original bytes again. */
	rc = smpmode_switch(start, NULL);
	if (rc)
		return rc;
	if (memcmp(code, start == ALT_MODE_UP ? up_bytes : smp_bytes, len)) {
		pr_err("alt: self-test: canary bytes differ after the round "
		       "trip\n");
		return -EINVAL;
	}
	rc = smpmode_run_canary(&counter, smpmode_name(start));
	if (rc)
		return rc;
	/* The lock prefix opens the canary: 0xf0 in SMP form, 0x3e in UP. */
	if (smp_bytes[0] != 0xf0 || up_bytes[0] != 0x3e ||
	    !memcmp(smp_bytes, up_bytes, len)) {
		pr_err("alt: self-test: canary starts %#x (SMP) / %#x (UP)\n",
		       smp_bytes[0], up_bytes[0]);
		return -EINVAL;
	}
	pr_info("alt: self-test passed: canary patched both ways and run in "
		"each form\n");
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * demo_host.c - the alternatives engine rewriting a running program.
 *
 * Runs the same lock-heavy workload in SMP form, switches this program's
 * own text to UP form, shows what changed at two sample sites and runs
 * the workload again, then switches back and checks the text is exactly
 * as linked.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alt_host.h"
#include <smpalt/alt_insn.h>
#include "workload.h"

#define DEMO_ITERS 2000000ull
#define DEMO_RUNS 9 /* best of */
#define SAVE_MAX 4096

struct demo_loop {
	const char *name;
	int64_t (*fn)(uint64_t n);
};

static const struct demo_loop demo_loops[] = {
	{"atomic increment", wl_atomic_inc_loop},
	{"spinlock acquire/release", wl_spinlock_loop},
	{"refcount get/put", wl_refcount_loop},
	{"cmpxchg", wl_cmpxchg_loop},
};

#define NLOOPS (sizeof(demo_loops) / sizeof(demo_loops[0]))

struct run {
	double ns[NLOOPS];
	int64_t result[NLOOPS];
};

static struct run run_all(void)
{
	struct run r;
	size_t l, k;

	for (l = 0; l < NLOOPS; l++) {
		r.ns[l] = 1e30;
		for (k = 0; k < DEMO_RUNS; k++) {
			uint64_t t0 = alt_host_now_ns();
			double ns;

			r.result[l] = demo_loops[l].fn(DEMO_ITERS);
			ns = (double)(alt_host_now_ns() - t0) / DEMO_ITERS;
			if (ns < r.ns[l])
				r.ns[l] = ns;
		}
	}
	return r;
}

static void show_bytes(const char *label, const void *addr, size_t len)
{
	const uint8_t *p = addr;
	size_t i;

	printf("    %-34s %#014lx:", label, (unsigned long)(uintptr_t)addr);
	for (i = 0; i < len; i++)
		printf(" %02x", p[i]);
	printf("\n");
}

/* The recorded site closest after the start of function fn. */
static uintptr_t lock_site_in(const struct alt_tables *t, const void *fn)
{
	uintptr_t best = 0, start = (uintptr_t)fn;
	size_t i;

	for (i = 0; i < alt_lock_count(t); i++) {
		uintptr_t a = alt_rel_addr(&t->locks[i]);

		if (a >= start && (!best || a < best))
			best = a;
	}
	return best;
}

static const struct alt_smp_site *smp_site_in(const struct alt_tables *t,
					      const void *fn)
{
	const struct alt_smp_site *best = NULL;
	uintptr_t start = (uintptr_t)fn;
	size_t i;

	for (i = 0; i < alt_smp_count(t); i++) {
		uintptr_t a = alt_site_addr(&t->smp[i]);

		if (a >= start && (!best || a < alt_site_addr(best)))
			best = &t->smp[i];
	}
	return best;
}

static void print_run(const char *title, const struct run *r,
		      const struct run *base)
{
	size_t l;

	printf("  %s\n", title);
	for (l = 0; l < NLOOPS; l++) {
		printf("    %-28s %6.2f ns/iteration  result %lld",
		       demo_loops[l].name, r->ns[l], (long long)r->result[l]);
		if (base)
			printf("  (%s, %.1fx faster than SMP)",
			       r->result[l] == base->result[l] ? "same"
							       : "DIFFERENT",
			       base->ns[l] / r->ns[l]);
		printf("\n");
	}
}

static void fail(const char *what, const struct alt_report *rep)
{
	fprintf(stderr, "demo-host: %s: error %d: %s (record %zu at %#lx)\n",
		what, rep->error, rep->reason, rep->index,
		(unsigned long)rep->addr);
	exit(EXIT_FAILURE);
}

int main(void)
{
	static uint8_t save[SAVE_MAX];
	struct alt_host_ctx ctx = {0};
	struct alt_tables t = alt_host_tables();
	struct alt_ops ops = alt_host_ops(&ctx);
	struct alt_engine e;
	struct alt_report rep;
	const uint8_t *lock_site;
	const struct alt_smp_site *mb;
	struct insn_len_probe {
		struct alt_insn insn;
		int len;
	} probe;
	struct run smp, up, back;
	uint8_t *linked;
	uint64_t t0, t1;
	size_t l;

	alt_host_unlock_text();
	if (alt_init(&e, &t, &ops, save, sizeof(save), &rep))
		fail("alt_init", &rep);
	lock_site = (const uint8_t *)lock_site_in(&t, wl_atomic_inc_loop);
	mb = smp_site_in(&t, wl_full_barrier);
	probe.len = alt_insn_decode(lock_site, ALT_INSN_MAX_LEN, &probe.insn);
	linked = alt_host_text_copy();

	printf("smpalt host demo: the alternatives engine rewriting this "
	       "program's own text\n");
	printf("  text %#lx-%#lx (%zu bytes): %zu lock sites (.smp_locks), "
	       "%zu alternative_smp sites, %zu feature sites\n\n",
	       (unsigned long)t.text_start, (unsigned long)t.text_end,
	       alt_host_text_size(), alt_lock_count(&t), alt_smp_count(&t),
	       alt_feature_count(&t));

	printf("1. SMP form, as compiled (%llu iterations, best of %d)\n",
	       DEMO_ITERS, DEMO_RUNS);
	show_bytes("atomic_inc() in wl_atomic_inc_loop", lock_site,
		   (size_t)probe.len);
	show_bytes("smp_mb() in wl_full_barrier",
		   (const void *)alt_site_addr(mb), mb->site_len);
	smp = run_all();
	print_run("workload:", &smp, NULL);

	t0 = alt_host_now_ns();
	if (alt_switch(&e, ALT_MODE_UP, &rep))
		fail("switch to UP", &rep);
	t1 = alt_host_now_ns();
	printf("\n2. switched to UP: %zu sites rewritten in %.1f us "
	       "(%zu writes, %zu bytes, serialized %zu time)\n",
	       e.stats.last_sites, (double)(t1 - t0) / 1e3, ctx.writes,
	       ctx.bytes, ctx.serializes);
	show_bytes("lock prefix 0xf0 -> DS prefix 0x3e", lock_site,
		   (size_t)probe.len);
	show_bytes("lock; addl -> one multi-byte NOP",
		   (const void *)alt_site_addr(mb), mb->site_len);
	up = run_all();
	print_run("workload:", &up, &smp);

	t0 = alt_host_now_ns();
	if (alt_switch(&e, ALT_MODE_SMP, &rep))
		fail("switch to SMP", &rep);
	t1 = alt_host_now_ns();
	printf("\n3. switched back to SMP: %zu sites rewritten in %.1f us; "
	       "text byte-identical to the linked one: %s\n",
	       e.stats.last_sites, (double)(t1 - t0) / 1e3,
	       memcmp(linked, alt_host_text(), alt_host_text_size()) ? "NO"
								     : "yes");
	show_bytes("lock prefix restored", lock_site, (size_t)probe.len);
	show_bytes("smp_mb() restored", (const void *)alt_site_addr(mb),
		   mb->site_len);
	back = run_all();
	print_run("workload:", &back, NULL);

	printf("\n4. a second switch to SMP is a no-op: ");
	ctx.writes = 0;
	if (alt_switch(&e, ALT_MODE_SMP, &rep))
		fail("repeat switch", &rep);
	printf("%zu writes\n", ctx.writes);

	for (l = 0; l < NLOOPS; l++)
		if (smp.result[l] != up.result[l] ||
		    up.result[l] != back.result[l])
			return EXIT_FAILURE;
	free(linked);
	printf("\nspeed-up of the atomic increment loop in UP form: %.1fx\n",
	       smp.ns[0] / up.ns[0]);
	return EXIT_SUCCESS;
}

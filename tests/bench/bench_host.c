// SPDX-License-Identifier: MIT
/*
 * bench_host.c - what the alternatives engine buys, measured on the host.
 *
 * Part 1: four dependent lock-heavy loops built from the kernel's headers,
 * timed in three forms within one run: the SMP form as compiled, the same
 * text patched to UP by the engine, and the same source built with
 * CONFIG_UP_ONLY (a kernel without SMP).  BENCH_REPS interleaved
 * repetitions (the two UP forms BENCH_UP_PAIRS times each, alternating);
 * the minimum of each is reported (the least disturbed run: the machine is
 * shared, and other load only ever adds time).
 * Part 2: the cost of a switch per site, on a generated text of
 * BENCH_SITES sites.  The last line is the machine-readable summary.
 */
#include <stdio.h>
#include <stdlib.h>

#include "alt_host.h"
#include <smpalt/alt_insn.h>
#include "bench_synth.h"
#include "workload.h"

#define BENCH_REPS 31
/* UP-patched / UP-only measurement pairs per repetition. */
#define BENCH_UP_PAIRS 4
#define BENCH_ITERS 1000000ull
#define SWITCH_REPS 15
#define SAVE_MAX 4096

enum form { FORM_SMP, FORM_UP, FORM_PLAIN, FORMS };

struct loop {
	const char *name;
	int64_t (*fn[FORMS])(uint64_t n);
	/* fn[FORM_SMP] and fn[FORM_UP] are the same function, patched */
};

static const struct loop loops[] = {
	{"atomic increment",
	 {wl_atomic_inc_loop, wl_atomic_inc_loop, wl_uponly_atomic_inc_loop}},
	{"spinlock acquire/release",
	 {wl_spinlock_loop, wl_spinlock_loop, wl_uponly_spinlock_loop}},
	{"refcount get/put",
	 {wl_refcount_loop, wl_refcount_loop, wl_uponly_refcount_loop}},
	{"cmpxchg", {wl_cmpxchg_loop, wl_cmpxchg_loop, wl_uponly_cmpxchg_loop}},
	{"atomic inc (alternative_smp)",
	 {wl_atomic_inc_alt_loop, wl_atomic_inc_alt_loop,
	  wl_uponly_atomic_inc_alt_loop}},
};

#define NLOOPS (sizeof(loops) / sizeof(loops[0]))
#define ATOMIC_INC_LOOP 0

static void die_report(const char *what, const struct alt_report *r)
{
	fprintf(stderr, "bench-host: %s failed: %d (%s) record %zu at %#lx\n",
		what, r->error, r->reason, r->index, (unsigned long)r->addr);
	exit(EXIT_FAILURE);
}

static double time_loop(int64_t (*fn)(uint64_t), int64_t *result)
{
	uint64_t t0 = alt_host_now_ns();

	*result = fn(BENCH_ITERS);
	return (double)(alt_host_now_ns() - t0) / (double)BENCH_ITERS;
}

static void switch_or_die(struct alt_engine *e, enum alt_mode m)
{
	struct alt_report rep;

	if (alt_switch(e, m, &rep))
		die_report("alt_switch", &rep);
}

int main(void)
{
	static uint8_t save[SAVE_MAX];
	struct alt_host_ctx ctx = {0};
	struct alt_tables t = alt_host_tables();
	struct alt_ops ops = alt_host_ops(&ctx);
	struct alt_engine e;
	struct alt_report rep;
	double best[NLOOPS][FORMS];
	int64_t result[FORMS];
	size_t l, f, r, k;

	alt_host_unlock_text();
	if (alt_init(&e, &t, &ops, save, sizeof(save), &rep))
		die_report("alt_init", &rep);
	printf("bench-host: %zu lock sites, %zu alternative_smp sites in this "
	       "program; %llu iterations, %d interleaved repetitions, "
	       "minimum shown\n",
	       alt_lock_count(&t), alt_smp_count(&t), BENCH_ITERS, BENCH_REPS);
	for (l = 0; l < NLOOPS; l++)
		for (f = 0; f < FORMS; f++)
			best[l][f] = 1e30;
	for (r = 0; r < BENCH_REPS; r++) {
		for (l = 0; l < NLOOPS; l++) {
			double ns[FORMS];

			switch_or_die(&e, ALT_MODE_SMP);
			ns[FORM_SMP] = time_loop(loops[l].fn[FORM_SMP],
						 &result[FORM_SMP]);
			if (ns[FORM_SMP] < best[l][FORM_SMP])
				best[l][FORM_SMP] = ns[FORM_SMP];
			switch_or_die(&e, ALT_MODE_UP);
			/*
			 * The two UP forms are the ones compared most closely:
			 * alternate them, so that both see the same machine.
			 */
			for (k = 0; k < BENCH_UP_PAIRS; k++) {
				ns[FORM_UP] = time_loop(loops[l].fn[FORM_UP],
							&result[FORM_UP]);
				ns[FORM_PLAIN] =
					time_loop(loops[l].fn[FORM_PLAIN],
						  &result[FORM_PLAIN]);
				for (f = FORM_UP; f < FORMS; f++)
					if (ns[f] < best[l][f])
						best[l][f] = ns[f];
			}
			if (result[FORM_SMP] != result[FORM_UP] ||
			    result[FORM_UP] != result[FORM_PLAIN]) {
				fprintf(stderr,
					"bench-host: %s: results differ: "
					"%lld %lld %lld\n",
					loops[l].name,
					(long long)result[FORM_SMP],
					(long long)result[FORM_UP],
					(long long)result[FORM_PLAIN]);
				return EXIT_FAILURE;
			}
		}
	}
	switch_or_die(&e, ALT_MODE_SMP);

	printf("\n%-30s %10s %10s %10s %8s %8s\n", "loop (ns per iteration)",
	       "SMP", "UP-patch", "UP-only", "smp/up", "up/plain");
	for (l = 0; l < NLOOPS; l++)
		printf("%-30s %10.2f %10.2f %10.2f %8.2f %8.2f\n",
		       loops[l].name, best[l][FORM_SMP], best[l][FORM_UP],
		       best[l][FORM_PLAIN],
		       best[l][FORM_SMP] / best[l][FORM_UP],
		       best[l][FORM_UP] / best[l][FORM_PLAIN]);

	/* Part 2: switch cost on the generated text. */
	{
		static uint8_t synth_save[BENCH_SMP_SITES * ALT_INSN_MAX_LEN];
		struct alt_tables st = bench_synth_build();
		struct alt_ops sops = bench_synth_ops();
		struct alt_engine se;
		double up_best = 1e30, smp_best = 1e30, per_site;
		size_t sites = alt_lock_count(&st) + alt_smp_count(&st);

		if (alt_init(&se, &st, &sops, synth_save, sizeof(synth_save),
			     &rep))
			die_report("alt_init (generated text)", &rep);
		for (r = 0; r < SWITCH_REPS; r++) {
			uint64_t t0 = alt_host_now_ns(), t1, t2;

			switch_or_die(&se, ALT_MODE_UP);
			t1 = alt_host_now_ns();
			switch_or_die(&se, ALT_MODE_SMP);
			t2 = alt_host_now_ns();
			if ((double)(t1 - t0) < up_best)
				up_best = (double)(t1 - t0);
			if ((double)(t2 - t1) < smp_best)
				smp_best = (double)(t2 - t1);
		}
		per_site = (up_best + smp_best) / 2 / (double)sites;
		printf("\nswitch cost on a generated text of %zu sites "
		       "(%zu lock, %zu alternative_smp), minimum of %d:\n"
		       "  SMP -> UP %.1f us, UP -> SMP %.1f us, %.2f ns/site "
		       "(verify + write + serialize)\n",
		       sites, alt_lock_count(&st), alt_smp_count(&st),
		       SWITCH_REPS, up_best / 1e3, smp_best / 1e3, per_site);
		printf("smp/up %.2f up/plain %.2f ns/site %.2f\n",
		       best[ATOMIC_INC_LOOP][FORM_SMP] /
			       best[ATOMIC_INC_LOOP][FORM_UP],
		       best[ATOMIC_INC_LOOP][FORM_UP] /
			       best[ATOMIC_INC_LOOP][FORM_PLAIN],
		       per_site);
	}
	return EXIT_SUCCESS;
}

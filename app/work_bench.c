// SPDX-License-Identifier: MIT
/*
 * work_bench.c - the workload's item timed in the SMP and in the UP form
 * of the text (bench_forms()), the benchmark's verdict (see work.h).
 */
#include <smpalt/work.h>
#include <smpalt/bench.h>
#include <smpalt/report.h>
#include <smpalt/time.h>
#include <smpalt/work_item.h>

/* Alternating rounds of each form, items per timed batch (best counts). */
#define WORK_BENCH_ROUNDS 5
#define WORK_BENCH_ITEMS 2000

/* One batch of the benchmark: WORK_BENCH_ITEMS items, back to back. */
static void work_bench_batch(void)
{
	unsigned int i;

	for (i = 0; i < WORK_BENCH_ITEMS; i++)
		work_item_run();
}

int work_bench(void)
{
	struct bench_case item = {
		.name = "item (" BENCH_XSTR(WORK_ITEM_STEPS) " locked steps)",
		.run = work_bench_batch,
		.ops = WORK_BENCH_ITEMS,
		.per_op = true,
	};
	int rc = bench_forms(&item, 1, WORK_BENCH_ROUNDS, time_local_step());

	/* Every item run counts, for the counters check. */
	work_count_items(item.runs * WORK_BENCH_ITEMS);
	if (rc)
		return rc;
	report_success("smp %llu ns up %llu ns per item",
		       (unsigned long long)(item.best[ALT_MODE_SMP] /
					    WORK_BENCH_ITEMS),
		       (unsigned long long)(item.best[ALT_MODE_UP] /
					    WORK_BENCH_ITEMS));
	return 0;
}

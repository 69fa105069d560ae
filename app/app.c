// SPDX-License-Identifier: MIT
/*
 * app.c - the app, the floor above the kernel: the synthetic workload
 * (work*.c) and its profiles (profile*.c), the benchmarks (bench.c) and
 * the in-guest self-test (selftest.c).  Its one init function hands the
 * kernel, in order, everything the app needs from it (app_hooks.h): the
 * kernel never calls into app/ by name.
 */
#define pr_fmt(fmt) "app: " fmt

#include <smpalt/app_hooks.h>
#include <smpalt/bench.h>
#include <smpalt/cmdline.h>
#include <smpalt/printk.h>
#include <smpalt/selftest.h>
#include <smpalt/status.h>
#include <smpalt/vcpu.h>
#include <smpalt/vcpu_watch.h>
#include <smpalt/watch.h>
#include <smpalt/work.h>

/* control/smpalt/demand (and profile) and control/smpalt/check. */
static void app_watch_demand(const char *path)
{
	(void)path; /* the keys are read whatever changed */
	work_read_demand();
}

static void app_watch_check(const char *path)
{
	(void)path;
	work_handle_check();
}

static const struct watch app_watches[] = {
	{.path = CONTROL_DIR, .handle = app_watch_demand},
	{.path = CONTROL_DIR, .handle = app_watch_check},
};

/* Secondaries run the workload's batches in their idle loops. */
static const struct vcpu_idle_work app_idle_work = {
	.run_batch = work_run_batch,
	.pending = work_pending,
};

/* smpalt.selftest: in-guest checks; then serve as usual (dom0 destroys
 * us). */
static void app_selftest(const struct smpmode_result *boot)
{
	selftest_run(boot);
}

/*
 * smpalt.bench: each primitive alone, then the item; vCPU 0 alone (no
 * secondary is up yet).  After an error nothing more runs.
 */
static void app_bench(const struct smpmode_result *boot)
{
	(void)boot;
	if (!bench_locks())
		work_bench();
	vcpu_watch_publish(); /* its switches count */
}

static int app_init(void)
{
	size_t i;
	int rc;

	work_init();
	for (i = 0; i < ARRAY_SIZE(app_watches); i++) {
		rc = watch_add(&app_watches[i]);
		if (rc) {
			pr_err("no watch on %s: %d\n", app_watches[i].path, rc);
			return rc;
		}
	}
	app_set_poll(work_poll);
	vcpu_set_idle_work(&app_idle_work);
	if (cmdline_get_bool("smpalt.selftest"))
		app_add_boot_test(app_selftest);
	if (cmdline_get_bool("smpalt.bench"))
		app_add_boot_test(app_bench);
	return 0;
}
app_initcall(app_init);

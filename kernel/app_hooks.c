// SPDX-License-Identifier: MIT
/*
 * app_hooks.c - the app's init functions, poll function and boot tests
 * (app_hooks.h).  vCPU 0 only.
 */
#define pr_fmt(fmt) "app: " fmt

#include <smpalt/app_hooks.h>
#include <smpalt/errno.h>
#include <smpalt/printk.h>

/* Bounds of .app_initcall (smpalt.lds.S). */
extern const app_initcall_t __app_initcall_start[], __app_initcall_end[];

static uint64_t (*app_poll_fn)(void);
static void (*app_boot_tests[APP_BOOT_TESTS_MAX])(
	const struct smpmode_result *boot);
static unsigned int app_nr_boot_tests;

unsigned int app_run_initcalls(void)
{
	const app_initcall_t *call;
	unsigned int failed = 0;

	for (call = __app_initcall_start; call < __app_initcall_end; call++) {
		int rc = (*call)();

		if (rc) {
			pr_err("init %p failed: %d\n", (void *)*call, rc);
			failed++;
		}
	}
	return failed;
}

void app_set_poll(uint64_t (*poll)(void))
{
	app_poll_fn = poll;
}

uint64_t app_poll(void)
{
	return app_poll_fn ? app_poll_fn() : 0;
}

int app_add_boot_test(void (*run)(const struct smpmode_result *boot))
{
	if (app_nr_boot_tests == APP_BOOT_TESTS_MAX)
		return -ENOSPC;
	app_boot_tests[app_nr_boot_tests++] = run;
	return 0;
}

void app_run_boot_tests(const struct smpmode_result *boot)
{
	unsigned int i;

	for (i = 0; i < app_nr_boot_tests; i++)
		app_boot_tests[i](boot);
}

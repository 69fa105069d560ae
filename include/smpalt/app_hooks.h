/* SPDX-License-Identifier: MIT */
/*
 * app_hooks.h - what the kernel offers the app, the floor above it (app/:
 * the workload, its profiles, the benchmarks and the in-guest self-test).
 * The kernel never includes an app header: the app hands it functions.
 *
 * An app part names its init function with app_initcall(); start_kernel()
 * runs them all, in link order, once xenstore and the kernel's own watches
 * are up (docs/guest.md, "Boot, in order").  From there a part registers
 * the rest: its xenstore watches (watch.h), a poll function for vCPU 0's
 * control loop and the tests it runs once at boot.
 */
#ifndef SMPALT_APP_HOOKS_H
#define SMPALT_APP_HOOKS_H

#include <stdint.h>

#include <smpalt/kernel.h>
#include <smpalt/smpmode.h>

/* 0 or -errno (logged by the part; the kernel serves on without it). */
typedef int (*app_initcall_t)(void);

#define app_initcall(fn)                                                      \
	static const app_initcall_t __app_initcall_##fn __attribute__((used)) \
	__section(".app_initcall") = fn

/* Run every app_initcall; returns how many failed. */
unsigned int app_run_initcalls(void);

/*
 * vCPU 0's control loop calls poll() after every burst of watch events;
 * poll() returns the Xen time it wants to be called again at (0: only on
 * the next event).  One poll function; a second registration replaces it.
 */
void app_set_poll(uint64_t (*poll)(void));
uint64_t app_poll(void);

/*
 * A test run once at boot, after "smpalt: ready" and before the result
 * line (lib/report.c), in the order registered.
 */
#define APP_BOOT_TESTS_MAX 4
int app_add_boot_test(void (*run)(const struct smpmode_result *boot));
void app_run_boot_tests(const struct smpmode_result *boot);

#endif /* SMPALT_APP_HOOKS_H */

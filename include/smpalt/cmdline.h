/* SPDX-License-Identifier: MIT */
/*
 * cmdline.h - the kernel command line (start_info->cmd_line, from xl's
 * extra=).  Options are space-separated key=value words.
 */
#ifndef SMPALT_CMDLINE_H
#define SMPALT_CMDLINE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Use line (a buffer of size bytes that lives on, from start_info) from
 * now on; a line not terminated inside its buffer counts as empty.
 */
void cmdline_init(const char *line, size_t size);

/* The whole line ("" if none or before cmdline_init()). */
const char *cmdline_get(void);

/*
 * Value of option key, copied into buf (size bytes).  Returns 0, -ENOENT
 * if the key is absent, -E2BIG if the value does not fit.
 */
int cmdline_get_str(const char *key, char *buf, size_t size);

/* Numeric option; returns 0, -ENOENT or -EINVAL (not a number). */
int cmdline_get_ulong(const char *key, unsigned long *val);

/* True if key is present with a non-zero number (or no value at all). */
bool cmdline_get_bool(const char *key);

/*
 * Test-only fault knobs.  Never set in production; scenarios use them to
 * provoke a rare timing on purpose, and the guest logs "TEST ONLY" when one
 * is active.
 *
 * smpalt.test.late_alive_ms=N: every secondary, each time it comes up,
 * spins N ms in its own loop after it really runs (Xen reports it up)
 * before it reports alive to vCPU 0.  With N beyond vCPU 0's bring-up wait
 * this is a vCPU that VCPUOP_up started but that looks late (tests/xen/
 * late-vcpu.sh).
 */
#define CMDLINE_TEST_LATE_ALIVE_MS "smpalt.test.late_alive_ms"

/*
 * smpalt.test.direct_switch: vCPU 0 obeys control/smpalt/test-switch =
 * "up <token>" or "smp <token>" by calling the switch at once, past the
 * hotplug plan, and answers "<token> <rc>" in data/smpalt/test-switch.  It
 * lets a scenario ask for a switch to UP while Xen runs a secondary and
 * watch the switch refuse on its own (tests/xen/refuse-switch.sh).
 */
#define CMDLINE_TEST_DIRECT_SWITCH "smpalt.test.direct_switch"

#endif /* SMPALT_CMDLINE_H */

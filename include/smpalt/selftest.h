/* SPDX-License-Identifier: MIT */
/*
 * selftest.h - in-guest checks of the kernel's own pieces, run on vCPU 0
 * when the command line has smpalt.selftest=1.  The console gets one line
 * per failed check and then exactly one "Test result: SUCCESS|FAILURE
 * [reason]" line, which the harness's selftest scenario reads.
 */
#ifndef SMPALT_SELFTEST_H
#define SMPALT_SELFTEST_H

#include <smpalt/smpmode.h>

/*
 * Run every check and print the result line; returns the failure count.
 * boot: what the boot switch to UP did (sites 0: it never happened).
 */
int selftest_run(const struct smpmode_result *boot);

#endif /* SMPALT_SELFTEST_H */

/* SPDX-License-Identifier: MIT */
/*
 * selftest.h - in-guest checks of the kernel's own pieces, run on vCPU 0
 * when the command line has smpalt.selftest=1.  The console gets one line
 * per failed check; the outcome goes to the result reporter (report.h),
 * whose "Test result: SUCCESS|FAILURE [reason]" line the harness's
 * selftest scenario reads.
 */
#ifndef SMPALT_SELFTEST_H
#define SMPALT_SELFTEST_H

#include <smpalt/smpmode.h>

/*
 * Run every check and report the outcome: SUCCESS "<n> checks passed" or
 * FAILURE "<f> of <n> checks failed, first: <check>"; returns the failure
 * count.
 * boot: what the boot switch to UP did (sites 0: it never happened).
 */
int selftest_run(const struct smpmode_result *boot);

#endif /* SMPALT_SELFTEST_H */

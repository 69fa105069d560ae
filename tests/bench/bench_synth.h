/* SPDX-License-Identifier: MIT */
/*
 * bench_synth.h - a generated text with many sites for timing switches:
 * BENCH_LOCK_SITES "lock incl (%rax)" instructions recorded in a lock
 * table and BENCH_SMP_SITES "lock incl (%rdx)" alternative_smp sites whose
 * UP form is "incl (%rdx)", all in one static buffer.
 */
#ifndef SMPALT_BENCH_SYNTH_H
#define SMPALT_BENCH_SYNTH_H

#include <stdint.h>

#include <smpalt/alt_core.h>

#define BENCH_LOCK_SITES 16384
#define BENCH_SMP_SITES 1024
#define BENCH_SITES (BENCH_LOCK_SITES + BENCH_SMP_SITES)

/* Build the text and records; returns the tables describing them. */
struct alt_tables bench_synth_build(void);

/* Write callback for the synthetic text (plain memory, no mprotect). */
struct alt_ops bench_synth_ops(void);

#endif /* SMPALT_BENCH_SYNTH_H */

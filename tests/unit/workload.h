/* SPDX-License-Identifier: MIT */
/*
 * workload.h - lock-heavy loops written with the kernel's own atomic,
 * spinlock and refcount headers.  workload.c is compiled twice: as is
 * (SMP build, patched at run time; functions wl_*) and with
 * -DCONFIG_UP_ONLY (the kernel built without SMP; functions wl_uponly_*).
 */
#ifndef SMPALT_WORKLOAD_H
#define SMPALT_WORKLOAD_H

#include <stdint.h>

#include <smpalt/alternative.h>

#ifdef CONFIG_UP_ONLY
#define WL(name) wl_uponly_##name
#else
#define WL(name) wl_##name
#endif

#define WL_DECLARE(p)                               \
	int64_t p##atomic_inc_loop(uint64_t n);     \
	int64_t p##atomic_inc_alt_loop(uint64_t n); \
	int64_t p##spinlock_loop(uint64_t n);       \
	int64_t p##refcount_loop(uint64_t n);       \
	int64_t p##cmpxchg_loop(uint64_t n);        \
	int64_t p##mixed(uint64_t n);

WL_DECLARE(wl_)
WL_DECLARE(wl_uponly_)

/* Feature alternative: returns WL_FEATURE_OLD until the feature is on. */
#define WL_FEATURE_OLD 1
#define WL_FEATURE_NEW 2
/* A feature number the test predicate reports present / never present. */
#define WL_FEATURE_PRESENT ALT_FEATURE_SSE2
#define WL_FEATURE_ABSENT ALT_FEATURE_MOVBE
int wl_feature_value(void);
int wl_absent_feature_value(void);

/* Full-barrier sample site (an alternative_smp with an empty UP form). */
void wl_full_barrier(void);

#endif /* SMPALT_WORKLOAD_H */

/* SPDX-License-Identifier: MIT */
/*
 * console.h - the PV console ring (output only).  It is the guest's only
 * output: Xen's console_io hypercall is refused to a domU.  Writers on all
 * vCPUs are serialized by one lock.
 */
#ifndef SMPALT_CONSOLE_H
#define SMPALT_CONSOLE_H

#include <stddef.h>
#include <stdint.h>

/* Find the ring from start_info; usable before events and time exist. */
int cons_init(void);

/* Write n bytes; waits for room (bounded), drops on a stuck backend. */
void cons_write(const char *s, size_t n);

/*
 * Wait until the backend consumed everything (out_cons == out_prod) or
 * timeout_ns passed.  Returns 0 or -ETIMEDOUT.
 */
int cons_flush(uint64_t timeout_ns);

/* Fatal path: never wait for the lock again (the holder may be dead). */
void cons_enter_panic_mode(void);

/* How long shutdown and crash paths wait for the console to drain. */
#define CONS_DRAIN_TIMEOUT_NS (2 * 1000000000ULL)

#endif /* SMPALT_CONSOLE_H */

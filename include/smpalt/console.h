/* SPDX-License-Identifier: MIT */
/*
 * console.h - the PV console ring (output only).  It is the guest's only
 * output: Xen's console_io hypercall is refused to a domU.  Writers on all
 * vCPUs are serialized by one lock.
 */
#ifndef SMPALT_CONSOLE_H
#define SMPALT_CONSOLE_H

/*
 * Find the ring from start_info and become printk's sink; usable before
 * events and time exist.  The sink writes whole messages (waiting for room
 * a bounded time, dropping on a stuck backend), flushes until the backend
 * consumed everything (out_cons == out_prod) or the timeout passed
 * (-ETIMEDOUT), and in panic mode never waits for its lock again.
 */
int cons_init(void);

#endif /* SMPALT_CONSOLE_H */

/* SPDX-License-Identifier: MIT */
/*
 * panic.h - stop the guest on an error it cannot survive.
 *
 * panic() prints one "smpalt: panic:" line and hands over to the halt
 * that arch-xen registered at boot (backtrace, console drained,
 * SHUTDOWN_crash).  Without a halt yet it only spins.
 */
#ifndef SMPALT_PANIC_H
#define SMPALT_PANIC_H

#include <stdint.h>

/* Never returns; rbp is panic()'s own frame, for the backtrace. */
typedef void (*panic_halt_fn)(uintptr_t rbp);

void panic_set_halt(panic_halt_fn halt);

void __attribute__((noreturn, format(printf, 1, 2)))
panic(const char *fmt, ...);

#endif /* SMPALT_PANIC_H */

/* SPDX-License-Identifier: MIT */
/*
 * shutdown.h - leaving the domain: on request from dom0 (control/shutdown)
 * or from the kernel itself.  The console is drained first so that the
 * last lines reach the log.
 */
#ifndef SMPALT_SHUTDOWN_H
#define SMPALT_SHUTDOWN_H

#include <smpalt/kernel.h>

/* Watch control/shutdown (vCPU 0, after xenstore_init). */
int shutdown_init(void);

/*
 * Called by the main loop for a watch event on path; returns true if the
 * event was control/shutdown (and then acts on it).
 */
bool shutdown_handle_watch(const char *path);

/* Print, drain the console, SCHEDOP_shutdown(reason).  Never returns. */
void __noreturn shutdown_domain(unsigned int reason, const char *why);

#endif /* SMPALT_SHUTDOWN_H */

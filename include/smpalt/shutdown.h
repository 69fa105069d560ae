/* SPDX-License-Identifier: MIT */
/*
 * shutdown.h - leaving the domain on request from dom0 (control/shutdown),
 * through hyp_shutdown(), which drains the console first so that the last
 * lines reach the log.
 */
#ifndef SMPALT_SHUTDOWN_H
#define SMPALT_SHUTDOWN_H

#include <stdbool.h>

/* Watch control/shutdown (vCPU 0, after xenstore_init). */
int shutdown_init(void);

/*
 * Called by the main loop for a watch event on path; returns true if the
 * event was control/shutdown (and then acts on it).
 */
bool shutdown_handle_watch(const char *path);

#endif /* SMPALT_SHUTDOWN_H */

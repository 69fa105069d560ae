/* SPDX-License-Identifier: MIT */
/*
 * shutdown.h - leaving the domain on request from dom0 (control/shutdown),
 * through hyp_shutdown(), which drains the console first so that the last
 * lines reach the log.
 */
#ifndef SMPALT_SHUTDOWN_H
#define SMPALT_SHUTDOWN_H

#include <stdbool.h>

/* The key dom0 writes a request to ("poweroff", "halt", "reboot"). */
#define SHUTDOWN_KEY "control/shutdown"

/*
 * Read SHUTDOWN_KEY and act on a request in it; the handler of the
 * kernel's watch on it (path: the key changed, NULL: read it again).
 */
void shutdown_handle_watch(const char *path);

#endif /* SMPALT_SHUTDOWN_H */

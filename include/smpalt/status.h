/* SPDX-License-Identifier: MIT */
/*
 * status.h - what the guest publishes under data/smpalt/ (relative to its
 * xenstore home) and the control/smpalt/ keys it serves.  vCPU 0 only.
 */
#ifndef SMPALT_STATUS_H
#define SMPALT_STATUS_H

#include <smpalt/kernel.h>

#define STATUS_DIR "data/smpalt"
#define CONTROL_DIR "control/smpalt"
/* Watch token of control/smpalt. */

/* Write data/smpalt/<key> = formatted value.  Returns 0 or -errno. */
int status_publish(const char *key, const char *fmt, ...) __printf(2, 3);

/* Publish data/smpalt/version, then watch control/smpalt. */
int status_init(void);

/* A control/smpalt watch fired (or events were lost, NULL): act on it. */
void status_handle_control(const char *path);

#endif /* SMPALT_STATUS_H */

/* SPDX-License-Identifier: MIT */
/*
 * cmdline.h - the kernel command line (start_info->cmd_line, from xl's
 * extra=).  Options are space-separated key=value words.
 */
#ifndef SMPALT_CMDLINE_H
#define SMPALT_CMDLINE_H

#include <stdbool.h>
#include <stddef.h>

/* The whole line ("" if none). */
const char *cmdline_get(void);

/*
 * Value of option key, copied into buf (size bytes).  Returns 0, -ENOENT
 * if the key is absent, -E2BIG if the value does not fit.
 */
int cmdline_get_str(const char *key, char *buf, size_t size);

/* Numeric option; returns 0, -ENOENT or -EINVAL (not a number). */
int cmdline_get_ulong(const char *key, unsigned long *val);

/* True if key is present with a non-zero number (or no value at all). */
bool cmdline_get_bool(const char *key);

#endif /* SMPALT_CMDLINE_H */

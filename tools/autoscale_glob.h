/* SPDX-License-Identifier: MIT */
/*
 * autoscale_glob.h - checking a glob (a DOMAIN argument, a [domain]
 * section's pattern, an exclude) before fnmatch(3) matches with it (host
 * tests: autoscale_config_test.c).
 */
#ifndef SMPALT_AUTOSCALE_GLOB_H
#define SMPALT_AUTOSCALE_GLOB_H

#include <stddef.h>

/*
 * Check a glob as fnmatch(3) without flags reads it, strictly: an
 * unclosed '[', a lone trailing '\', an unknown [:class:], an empty range
 * such as [z-a] and an empty pattern are errors rather than patterns that
 * match nothing.  0, or -EINVAL with what is wrong in err.  Pure.
 */
int as_glob_check(const char *pattern, char *err, size_t len);

#endif /* SMPALT_AUTOSCALE_GLOB_H */

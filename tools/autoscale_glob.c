// SPDX-License-Identifier: MIT
/*
 * autoscale_glob.c - a glob checked as fnmatch(3) without flags reads it,
 * strictly.  See autoscale_glob.h.
 *
 * fnmatch(3) reports no malformed pattern: glibc reads an unclosed '[' or
 * an unknown class as literal text, so that the pattern silently matches
 * nothing.  Matching itself is fnmatch's; this only refuses what it would
 * misread.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <wctype.h>

#include "autoscale_glob.h"

#define CLASS_MAX 32 /* longer than any class name */

/* A class name fnmatch(3) knows: the C library's own list (wctype(3)). */
static bool known_class(const char *name, size_t len)
{
	char buf[CLASS_MAX];

	if (len >= sizeof(buf))
		return false;
	memcpy(buf, name, len);
	buf[len] = '\0';
	return wctype(buf) != 0;
}

/*
 * The bracket expression starting at p[i] == '['.  Returns the index of
 * its ']', or 0 with err set.
 */
static size_t check_bracket(const char *p, size_t i, char *err, size_t len)
{
	size_t open = i, j = i + 1;

	if (p[j] == '!' || p[j] == '^')
		j++;
	if (p[j] == ']') /* a ']' first is a member */
		j++;
	for (;;) {
		unsigned char lo, hi;
		size_t k;

		if (!p[j]) {
			snprintf(err, len,
				 "'[' at column %zu has no closing ']'",
				 open + 1);
			return 0;
		}
		if (p[j] == ']')
			return j;
		if (p[j] == '[' &&
		    (p[j + 1] == ':' || p[j + 1] == '.' || p[j + 1] == '=')) {
			char kind = p[j + 1];
			const char *close;

			for (k = j + 2;
			     p[k] && !(p[k] == kind && p[k + 1] == ']'); k++)
				;
			close = p + k;
			if (!*close) {
				snprintf(err, len,
					 "'[%c' at column %zu has no closing "
					 "'%c]'",
					 kind, j + 1, kind);
				return 0;
			}
			if (kind == ':' &&
			    !known_class(p + j + 2, k - (j + 2))) {
				snprintf(err, len,
					 "unknown character class '[:%.*s:]' "
					 "at column %zu",
					 (int)(k - (j + 2)), p + j + 2, j + 1);
				return 0;
			}
			if (kind != ':' && k != j + 3) {
				snprintf(err, len,
					 "'[%c' at column %zu must hold one "
					 "character",
					 kind, j + 1);
				return 0;
			}
			j = k + 2;
			continue;
		}
		/* One character, maybe escaped, maybe a range lo-hi. */
		if (p[j] == '\\') {
			j++;
			if (!p[j])
				continue; /* reported as no closing ']' */
		}
		lo = (unsigned char)p[j];
		j++;
		if (p[j] == '-' && p[j + 1] && p[j + 1] != ']') {
			k = j + 1;
			if (p[k] == '\\' && p[k + 1])
				k++;
			if (p[k] == '[') {
				/* A range to a class or symbol: fnmatch's own.
				 */
				j = k;
				continue;
			}
			hi = (unsigned char)p[k];
			if (hi < lo) {
				snprintf(err, len,
					 "range '%c-%c' at column %zu is empty "
					 "(reversed)",
					 lo, hi, j);
				return 0;
			}
			j = k + 1;
		}
	}
}

int as_glob_check(const char *pattern, char *err, size_t len)
{
	size_t i;

	if (!pattern[0]) {
		snprintf(err, len, "empty pattern");
		return -EINVAL;
	}
	for (i = 0; pattern[i]; i++) {
		if (pattern[i] == '\\') {
			if (!pattern[i + 1]) {
				snprintf(err, len,
					 "a lone '\\' at the end (write '\\\\' "
					 "for a backslash)");
				return -EINVAL;
			}
			i++;
		} else if (pattern[i] == '[') {
			i = check_bracket(pattern, i, err, len);
			if (!i)
				return -EINVAL;
		}
	}
	return 0;
}

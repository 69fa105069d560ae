/* SPDX-License-Identifier: MIT */
/*
 * autoscale_csv.h - the autoscaler's CSV file: cells escaped so that a
 * guest cannot plant a spreadsheet formula or a terminal escape in it,
 * rows with no length limit, and the file itself, opened safely and
 * reopened for log rotation (host tests: autoscale_csv_test.c).
 *
 * A text cell (domain name, mode, signal) is written as follows, in order:
 *   1. a cell whose first character is = + - @ TAB or CR gets a single
 *      quote in front ("=1+2" -> "'=1+2"), as OWASP's CSV injection advice
 *      has it, so that no spreadsheet reads it as a formula;
 *   2. a backslash becomes "\\"; a control character (U+0000..U+001F,
 *      DEL, U+0080..U+009F) and every byte that is not part of well-formed
 *      UTF-8 becomes "\xHH" (per byte), so that no escape sequence,
 *      newline or CR reaches a terminal or a CSV reader raw;
 *   3. the cell is quoted per RFC 4180 (quotes doubled) when it holds a
 *      comma or a quote, or got the single quote of step 1.
 * Numbers are the program's own and are written as they are.
 *
 * How the daemon uses it:
 *   struct as_csv_file f;
 *   as_csv_open(&f, path)          at start (the header when the file is
 *                                  empty); -errno: report and exit
 *   row = as_csv_format(&r)        per domain per round (malloc'd)
 *   as_csv_write(&f, row, strlen(row)); free(row)
 *   as_csv_reopen(&f)              on SIGHUP (logrotate moved the file);
 *                                  on error the old file stays open
 *   as_csv_close(&f)               at exit
 */
#ifndef SMPALT_AUTOSCALE_CSV_H
#define SMPALT_AUTOSCALE_CSV_H

#include <stddef.h>
#include <sys/types.h>

#include "autoscale_format.h"
#include "autoscale_text.h"

/* Mode of a CSV file the autoscaler creates (less the umask). */
#define AS_CSV_MODE 0640

/* Appends one text cell, escaped as above, to t. */
void as_csv_cell(struct as_text *t, const char *value);

/*
 * One row, AS_CSV_HEADER's columns, with its newline: malloc'd, the
 * caller's to free(); NULL if out of memory.
 */
char *as_csv_format(const struct as_csv_row *r);

struct as_csv_file {
	int fd;	    /* -1 when closed */
	char *path; /* a copy of the path */
};

/*
 * Open path for appending: O_APPEND | O_CLOEXEC | O_NOFOLLOW (a symlink
 * at path is refused, -ELOOP), created with AS_CSV_MODE; anything but a
 * regular file is refused (-EINVAL).  Writes AS_CSV_HEADER when the file
 * is empty.  0 or -errno (f is closed then).
 */
int as_csv_open(struct as_csv_file *f, const char *path);

/*
 * Open the path again and switch to the new file (after logrotate moved
 * the old one away).  On error the old file stays in use: -errno.
 */
int as_csv_reopen(struct as_csv_file *f);

/* Write all of buf (retried on EINTR and short writes).  0 or -errno. */
int as_csv_write(struct as_csv_file *f, const char *buf, size_t len);

void as_csv_close(struct as_csv_file *f);

#endif /* SMPALT_AUTOSCALE_CSV_H */

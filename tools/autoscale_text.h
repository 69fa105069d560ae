/* SPDX-License-Identifier: MIT */
/*
 * autoscale_text.h - a growing text buffer and a UTF-8 check, shared by
 * the autoscaler's output formats (CSV, metrics, log lines), pure
 * (host tests: autoscale_csv_test.c, autoscale_metrics_test.c); and the
 * write of a whole buffer that the CSV, the metrics file and the log
 * lines share.
 *
 * Names and values the autoscaler prints come from the administrator
 * (domain names) and from guests (anything under data/ in xenstore), so
 * every format escapes them; these are the pieces they share.
 */
#ifndef SMPALT_AUTOSCALE_TEXT_H
#define SMPALT_AUTOSCALE_TEXT_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Text that grows as it is appended to.  A failed allocation sets failed
 * and makes every later append a no-op, so a caller checks once, at the
 * end (as_text_take).
 */
struct as_text {
	char *buf; /* NUL-terminated when not NULL */
	size_t len, cap;
	bool failed;
};

#define AS_TEXT_INIT              \
	{                         \
		NULL, 0, 0, false \
	}

void as_text_add(struct as_text *t, const char *s, size_t n);
void as_text_puts(struct as_text *t, const char *s);
void as_text_printf(struct as_text *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/*
 * The text, the caller's to free(), with its length in *len (if not
 * NULL); NULL after a failed allocation (the buffer is freed then).
 * t is empty again afterwards.
 */
char *as_text_take(struct as_text *t, size_t *len);
void as_text_free(struct as_text *t);

/*
 * Appends value with a backslash doubled and each control character
 * (as_is_control) and each byte outside well-formed UTF-8 as "\xHH" (per
 * byte): the result holds no byte a terminal or a line reader acts on.
 */
void as_text_add_escaped(struct as_text *t, const char *value);

/*
 * Length of the well-formed UTF-8 sequence at s (of n bytes, n >= 1):
 * 1 for ASCII, 2..4 for a valid multi-byte character (no overlong forms,
 * no surrogates, at most U+10FFFF), 0 if s does not start one.  *cp gets
 * the code point.
 */
size_t as_utf8_len(const unsigned char *s, size_t n, unsigned int *cp);

/*
 * Writes all of buf to fd, again after a signal or a short write: 0, or
 * -errno of the write that failed.
 */
int as_write_all(int fd, const char *buf, size_t len);

/* A C0 control (U+0000..U+001F), DEL or a C1 control (U+0080..U+009F). */
bool as_is_control(unsigned int cp);

#endif /* SMPALT_AUTOSCALE_TEXT_H */

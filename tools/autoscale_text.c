// SPDX-License-Identifier: MIT
/*
 * autoscale_text.c - a growing text buffer and a UTF-8 check.
 * See autoscale_text.h.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "autoscale_text.h"

#define TEXT_MIN_CAP 256
#define ASCII_END 0x80
#define DEL 0x7f
#define C0_END 0x20
#define C1_START 0x80
#define C1_END 0xa0
#define SURROGATE_START 0xd800
#define SURROGATE_END 0xe000
#define UNICODE_MAX 0x10ffff
#define CONT_MASK 0xc0 /* the top two bits of a byte */
#define CONT_BITS 0x80 /* ... of a continuation byte */
#define CONT_SHIFT 6
#define CONT_VALUE 0x3f

static bool text_reserve(struct as_text *t, size_t more)
{
	size_t need, cap;
	char *p;

	if (t->failed)
		return false;
	if (more > SIZE_MAX - t->len - 1)
		goto fail;
	need = t->len + more + 1;
	if (need <= t->cap)
		return true;
	cap = t->cap ? t->cap : TEXT_MIN_CAP;
	while (cap < need)
		cap = cap > SIZE_MAX / 2 ? need : cap * 2;
	p = realloc(t->buf, cap);
	if (!p)
		goto fail;
	t->buf = p;
	t->cap = cap;
	return true;
fail:
	as_text_free(t);
	t->failed = true;
	return false;
}

void as_text_add(struct as_text *t, const char *s, size_t n)
{
	if (!text_reserve(t, n))
		return;
	memcpy(t->buf + t->len, s, n);
	t->len += n;
	t->buf[t->len] = '\0';
}

void as_text_puts(struct as_text *t, const char *s)
{
	as_text_add(t, s, strlen(s));
}

void as_text_printf(struct as_text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		as_text_free(t);
		t->failed = true;
		return;
	}
	if (!text_reserve(t, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(t->buf + t->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	t->len += (size_t)n;
}

char *as_text_take(struct as_text *t, size_t *len)
{
	char *p;

	if (!t->failed && !text_reserve(t, 0))
		return NULL;
	if (t->failed) {
		*t = (struct as_text)AS_TEXT_INIT;
		return NULL;
	}
	p = t->buf;
	if (len)
		*len = t->len;
	*t = (struct as_text)AS_TEXT_INIT;
	return p;
}

void as_text_free(struct as_text *t)
{
	free(t->buf);
	*t = (struct as_text)AS_TEXT_INIT;
}

size_t as_utf8_len(const unsigned char *s, size_t n, unsigned int *cp)
{
	/* The first byte gives the length and the smallest code point. */
	static const struct {
		unsigned char mask, bits;
		size_t len;
		unsigned int min;
	} lead[] = {
		{0xe0, 0xc0, 2, 0x80},
		{0xf0, 0xe0, 3, 0x800},
		{0xf8, 0xf0, 4, 0x10000},
	};
	unsigned int v;
	size_t i, k;

	if (s[0] < ASCII_END) {
		*cp = s[0];
		return 1;
	}
	for (k = 0; k < sizeof(lead) / sizeof(lead[0]); k++)
		if ((s[0] & lead[k].mask) == lead[k].bits)
			break;
	if (k == sizeof(lead) / sizeof(lead[0]) || n < lead[k].len)
		return 0;
	v = s[0] & (unsigned char)~lead[k].mask;
	for (i = 1; i < lead[k].len; i++) {
		if ((s[i] & CONT_MASK) != CONT_BITS)
			return 0;
		v = (v << CONT_SHIFT) | (s[i] & CONT_VALUE);
	}
	if (v < lead[k].min || v > UNICODE_MAX ||
	    (v >= SURROGATE_START && v < SURROGATE_END))
		return 0;
	*cp = v;
	return lead[k].len;
}

bool as_is_control(unsigned int cp)
{
	return cp < C0_END || cp == DEL || (cp >= C1_START && cp < C1_END);
}

void as_text_add_escaped(struct as_text *t, const char *value)
{
	const unsigned char *s = (const unsigned char *)value;
	size_t n = strlen(value), i = 0, len;
	unsigned int cp;

	while (i < n) {
		len = as_utf8_len(s + i, n - i, &cp);
		if (len == 0 || as_is_control(cp)) {
			/* Each byte of a bad or control sequence. */
			len = len ? len : 1;
			for (size_t k = 0; k < len; k++)
				as_text_printf(t, "\\x%02x", s[i + k]);
		} else if (cp == '\\') {
			as_text_puts(t, "\\\\");
		} else {
			as_text_add(t, (const char *)s + i, len);
		}
		i += len;
	}
}

int as_write_all(int fd, const char *buf, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

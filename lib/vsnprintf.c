// SPDX-License-Identifier: MIT
/*
 * vsnprintf.c - formatted output into a buffer (see printk.h for the
 * conversions supported).
 */
#include <smpalt/printk.h>
#include <smpalt/string.h>

#include <stdbool.h>
#include <stdint.h>

#define FMT_LEFT (1u << 0)
#define FMT_ZERO (1u << 1)
#define FMT_PLUS (1u << 2)
#define FMT_SPACE (1u << 3)
#define FMT_ALT (1u << 4)
#define FMT_UPPER (1u << 5)

/* Digits of a 64-bit number in base 8, plus room. */
#define FMT_NUM_MAX 24

struct fmt_out {
	char *buf;
	size_t size, len;
};

static void fmt_putc(struct fmt_out *o, char c)
{
	if (o->len + 1 < o->size)
		o->buf[o->len] = c;
	o->len++;
}

static void fmt_pad(struct fmt_out *o, char c, int n)
{
	while (n-- > 0)
		fmt_putc(o, c);
}

static void fmt_str(struct fmt_out *o, const char *s, int width, int prec,
		    unsigned int flags)
{
	int len;

	if (!s)
		s = "(null)";
	len = (int)strnlen(s, prec >= 0 ? (size_t)prec : SIZE_MAX);
	if (!(flags & FMT_LEFT))
		fmt_pad(o, ' ', width - len);
	for (int i = 0; i < len; i++)
		fmt_putc(o, s[i]);
	if (flags & FMT_LEFT)
		fmt_pad(o, ' ', width - len);
}

static void fmt_num(struct fmt_out *o, unsigned long long v, bool neg,
		    unsigned int base, int width, int prec, unsigned int flags)
{
	const char *digits =
		(flags & FMT_UPPER) ? "0123456789ABCDEF" : "0123456789abcdef";
	char tmp[FMT_NUM_MAX];
	char sign = 0;
	const char *prefix = "";
	int n = 0, zeros, plen;

	do {
		tmp[n++] = digits[v % base];
		v /= base;
	} while (v);

	if (neg)
		sign = '-';
	else if (flags & FMT_PLUS)
		sign = '+';
	else if (flags & FMT_SPACE)
		sign = ' ';
	if ((flags & FMT_ALT) && base == 16)
		prefix = (flags & FMT_UPPER) ? "0X" : "0x";
	plen = (int)strlen(prefix) + (sign ? 1 : 0);

	zeros = prec > n ? prec - n : 0;
	if ((flags & FMT_ZERO) && !(flags & FMT_LEFT) && prec < 0 &&
	    width > n + plen)
		zeros = width - n - plen;

	if (!(flags & FMT_LEFT))
		fmt_pad(o, ' ', width - n - zeros - plen);
	width -= n + zeros + plen;
	if (sign)
		fmt_putc(o, sign);
	for (const char *p = prefix; *p; p++)
		fmt_putc(o, *p);
	fmt_pad(o, '0', zeros);
	while (n)
		fmt_putc(o, tmp[--n]);
	if (flags & FMT_LEFT)
		fmt_pad(o, ' ', width);
}

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct fmt_out o = {.buf = buf, .size = size, .len = 0};

	for (; *fmt; fmt++) {
		unsigned int flags = 0, base = 10;
		int width = -1, prec = -1, lng = 0;
		bool is_signed = false;
		unsigned long long v;

		if (*fmt != '%') {
			fmt_putc(&o, *fmt);
			continue;
		}
		/* Flags. */
		for (;;) {
			char c = *++fmt;

			if (c == '-')
				flags |= FMT_LEFT;
			else if (c == '0')
				flags |= FMT_ZERO;
			else if (c == '+')
				flags |= FMT_PLUS;
			else if (c == ' ')
				flags |= FMT_SPACE;
			else if (c == '#')
				flags |= FMT_ALT;
			else
				break;
		}
		/* Width and precision. */
		if (*fmt == '*') {
			width = va_arg(ap, int);
			if (width < 0) {
				flags |= FMT_LEFT;
				width = -width;
			}
			fmt++;
		} else {
			for (width = 0; *fmt >= '0' && *fmt <= '9'; fmt++)
				width = width * 10 + (*fmt - '0');
		}
		if (*fmt == '.') {
			fmt++;
			if (*fmt == '*') {
				prec = va_arg(ap, int);
				fmt++;
			} else {
				for (prec = 0; *fmt >= '0' && *fmt <= '9';
				     fmt++)
					prec = prec * 10 + (*fmt - '0');
			}
		}
		/* Length: lng counts l's; z, t, j are long-sized here. */
		for (;; fmt++) {
			if (*fmt == 'l' || *fmt == 'z' || *fmt == 't' ||
			    *fmt == 'j')
				lng++;
			else if (*fmt == 'h')
				lng--;
			else
				break;
		}

		switch (*fmt) {
		case 'c':
			fmt_putc(&o, (char)va_arg(ap, int));
			continue;
		case 's':
			fmt_str(&o, va_arg(ap, const char *), width, prec,
				flags);
			continue;
		case '%':
			fmt_putc(&o, '%');
			continue;
		case 'p':
			v = (uintptr_t)va_arg(ap, void *);
			fmt_num(&o, v, false, 16, width, prec, flags | FMT_ALT);
			continue;
		case 'd':
		case 'i':
			is_signed = true;
			break;
		case 'u':
			break;
		case 'X':
			flags |= FMT_UPPER;
			base = 16;
			break;
		case 'x':
			base = 16;
			break;
		case 'o':
			base = 8;
			break;
		case '\0':
			fmt--;
			continue;
		default:
			/* Unknown conversion: print it as it was. */
			fmt_putc(&o, '%');
			fmt_putc(&o, *fmt);
			continue;
		}
		if (is_signed) {
			long long s;

			if (lng >= 2)
				s = va_arg(ap, long long);
			else if (lng == 1)
				s = va_arg(ap, long);
			else
				s = va_arg(ap, int);
			if (lng == -1)
				s = (short)s;
			else if (lng <= -2)
				s = (signed char)s;
			v = s < 0 ? 0ULL - (unsigned long long)s
				  : (unsigned long long)s;
			fmt_num(&o, v, s < 0, base, width, prec, flags);
		} else {
			if (lng >= 2)
				v = va_arg(ap, unsigned long long);
			else if (lng == 1)
				v = va_arg(ap, unsigned long);
			else
				v = va_arg(ap, unsigned int);
			if (lng == -1)
				v = (unsigned short)v;
			else if (lng <= -2)
				v = (unsigned char)v;
			fmt_num(&o, v, false, base, width, prec, flags);
		}
	}
	if (size)
		buf[o.len < size ? o.len : size - 1] = '\0';
	return (int)o.len;
}

int snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

// SPDX-License-Identifier: MIT
/*
 * printk.c - leveled messages to the console.
 */
#include <smpalt/printk.h>
#include <smpalt/console.h>

static int printk_console_level = CONSOLE_LOGLEVEL_DEFAULT;

void printk_set_console_level(int level)
{
	printk_console_level = level;
}

int vprintk(const char *fmt, va_list ap)
{
	char line[PRINTK_LINE_MAX];
	int level = LOGLEVEL_DEFAULT, n;

	if (fmt[0] == KERN_SOH[0] && fmt[1] >= '0' && fmt[1] <= '7') {
		level = fmt[1] - '0';
		fmt += 2;
	}
	n = vsnprintf(line, sizeof(line), fmt, ap);
	if (n >= (int)sizeof(line)) {
		/* Cut: keep the end of line so the log stays line-based. */
		n = sizeof(line) - 1;
		line[n - 1] = '\n';
	}
	if (level <= printk_console_level)
		cons_write(line, (size_t)n);
	return n;
}

int printk(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vprintk(fmt, ap);
	va_end(ap);
	return n;
}

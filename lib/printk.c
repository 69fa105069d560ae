// SPDX-License-Identifier: MIT
/*
 * printk.c - leveled messages to whichever sink is registered.
 *
 * printk sits on the ground floor and knows no device: the layers above
 * hand it a sink at init (arch-xen: Xen's emergency console first; the PV
 * console driver once its ring is found).  Without a sink, messages are
 * dropped.
 */
#include <smpalt/printk.h>
#include <smpalt/string.h>

static int printk_console_level = CONSOLE_LOGLEVEL_DEFAULT;
static const struct printk_sink *printk_sink;

void printk_set_console_level(int level)
{
	printk_console_level = level;
}

void printk_set_sink(const struct printk_sink *sink)
{
	printk_sink = sink;
}

void printk_enter_panic_mode(void)
{
	const struct printk_sink *sink = printk_sink;

	if (sink && sink->enter_panic_mode)
		sink->enter_panic_mode();
}

int printk_flush(uint64_t timeout_ns)
{
	const struct printk_sink *sink = printk_sink;

	if (!sink || !sink->flush)
		return 0;
	return sink->flush(timeout_ns);
}

int vprintk(const char *fmt, va_list ap)
{
	const struct printk_sink *sink = printk_sink;
	char line[PRINTK_LINE_MAX];
	int level = LOGLEVEL_DEFAULT, n;
	size_t mark;

	if (fmt[0] == KERN_SOH[0] && fmt[1] >= '0' && fmt[1] <= '7') {
		level = fmt[1] - '0';
		fmt += 2;
	}
	/* Errors carry a fixed mark that no wording change can lose. */
	mark = level <= LOGLEVEL_ERR ? sizeof(PRINTK_ERROR_MARK) - 1 : 0;
	memcpy(line, PRINTK_ERROR_MARK, mark);
	n = (int)mark + vsnprintf(line + mark, sizeof(line) - mark, fmt, ap);
	if (n >= (int)sizeof(line)) {
		/* Cut: keep the end of line so the log stays line-based. */
		n = sizeof(line) - 1;
		line[n - 1] = '\n';
	}
	if (level <= printk_console_level && sink)
		sink->write(line, (size_t)n);
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

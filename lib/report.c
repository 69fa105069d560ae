// SPDX-License-Identifier: MIT
/*
 * report.c - one "Test result:" line for every part that reported (see
 * report.h).
 */
#define pr_fmt(fmt) "report: " fmt

#include <smpalt/report.h>
#include <smpalt/printk.h>
#include <smpalt/string.h>

/* Parts whose reasons the line can list; a reason is cut at this length. */
#define REPORT_PARTS_MAX 8
#define REPORT_REASON_MAX 160
/* The line without its newline: with it, it fits one printk unbroken. */
#define REPORT_LINE_MAX (PRINTK_LINE_MAX - 1)

struct report_part {
	enum report_status status;
	char reason[REPORT_REASON_MAX];
};

static struct report_part report_parts[REPORT_PARTS_MAX];
static unsigned int report_nparts;
/* Parts beyond REPORT_PARTS_MAX: their outcome counts, not their reason. */
static unsigned int report_unlisted;
static enum report_status report_worst_status = REPORT_NONE;
static bool report_printed;

static const char *report_name(enum report_status status)
{
	switch (status) {
	case REPORT_SUCCESS:
		return "SUCCESS";
	case REPORT_SKIP:
		return "SKIP";
	case REPORT_ERROR:
		return "ERROR";
	case REPORT_FAILURE:
		return "FAILURE";
	case REPORT_NONE:
		break;
	}
	return "NONE";
}

static void report_add(enum report_status status, const char *fmt, va_list ap)
{
	char reason[REPORT_REASON_MAX];

	vsnprintf(reason, sizeof(reason), fmt, ap);
	if (report_printed) {
		/* The line is out: log this one, never print a second. */
		pr_err("%s after the result line: %s\n", report_name(status),
		       reason);
		return;
	}
	if (status > report_worst_status)
		report_worst_status = status;
	if (report_nparts == REPORT_PARTS_MAX) {
		report_unlisted++;
		return;
	}
	report_parts[report_nparts].status = status;
	memcpy(report_parts[report_nparts].reason, reason, sizeof(reason));
	report_nparts++;
}

void report_success(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report_add(REPORT_SUCCESS, fmt, ap);
	va_end(ap);
}

void report_skip(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report_add(REPORT_SKIP, fmt, ap);
	va_end(ap);
}

void report_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report_add(REPORT_ERROR, fmt, ap);
	va_end(ap);
}

void report_failure(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report_add(REPORT_FAILURE, fmt, ap);
	va_end(ap);
}

enum report_status report_worst(void)
{
	return report_worst_status;
}

/* Append to line[] (of REPORT_LINE_MAX) at *len; a long line is cut. */
static void __printf(3, 4)
	report_append(char *line, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line + *len, REPORT_LINE_MAX - *len, fmt, ap);
	va_end(ap);
	if (n > 0)
		*len = MIN(*len + (size_t)n, (size_t)REPORT_LINE_MAX - 1);
}

void report_print(void)
{
	char line[REPORT_LINE_MAX];
	const char *sep = " ";
	bool others = false;
	size_t len = 0;
	unsigned int i;

	if (report_printed || report_worst_status == REPORT_NONE)
		return;
	report_printed = true;
	report_append(line, &len, "Test result: %s",
		      report_name(report_worst_status));
	/* The winners' reasons, then every other part with its outcome. */
	for (i = 0; i < report_nparts; i++) {
		const struct report_part *p = &report_parts[i];

		if (p->status != report_worst_status || !p->reason[0])
			continue;
		report_append(line, &len, "%s%s", sep, p->reason);
		sep = "; ";
	}
	for (i = 0; i < report_nparts; i++) {
		const struct report_part *p = &report_parts[i];

		if (p->status == report_worst_status)
			continue;
		report_append(line, &len, "%s%s%s%s", others ? "; " : " (",
			      report_name(p->status), p->reason[0] ? " " : "",
			      p->reason);
		others = true;
	}
	if (report_unlisted) {
		report_append(line, &len, "%s%u more not listed",
			      others ? "; " : " (", report_unlisted);
		others = true;
	}
	if (others)
		report_append(line, &len, ")");
	printk("%s\n", line);
}

// SPDX-License-Identifier: MIT
/*
 * smpalt-xs-stamp: print every xenstore watch event on the given paths,
 * stamped with the dom0 clock the moment the event arrived, so that the
 * time between two events (xl writing cpu/N/availability, the guest
 * writing data/smpalt/online) is measured by one clock in one process,
 * free of xl's own run time and of a shell's fork per event.
 *
 *   smpalt-xs-stamp PATH...
 *
 * One line per event on standard output, flushed at once:
 *
 *   <ns> <path> <value>
 *
 * <ns> is CLOCK_BOOTTIME in nanoseconds (the clock of /proc/uptime, so a
 * script can relate it to its own uptime readings), taken when the event
 * is read, before the value is; <value> is the node's value read right
 * after (for a node that is gone: "-"; values are printed up to the first
 * newline). A watch on a folder reports its children by their own path.
 * Xen's xenstored reports every watch once when it is registered: those
 * lines come first, before "ready" on standard error.
 *
 * Runs until it is killed (every line is already out by then); exits 1
 * when xenstore cannot be reached or a watch cannot be set, 2 on bad usage.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <xenstore.h>

#define NS_PER_SEC 1000000000ULL

static unsigned long long boottime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (unsigned long long)ts.tv_sec * NS_PER_SEC +
	       (unsigned long long)ts.tv_nsec;
}

/* The value of PATH up to its first newline, or "-" when it is gone. */
static void print_event(struct xs_handle *xs, unsigned long long ns,
			const char *path)
{
	unsigned int len = 0;
	char *val = xs_read(xs, XBT_NULL, path, &len);
	size_t show = 0;

	if (val)
		show = strcspn(val, "\n");
	printf("%llu %s %.*s\n", ns, path, val ? (int)show : 1,
	       val ? val : "-");
	fflush(stdout);
	free(val);
}

int main(int argc, char **argv)
{
	struct xs_handle *xs;
	int i;

	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fprintf(stderr, "usage: smpalt-xs-stamp PATH...\n"
				"  one line per watch event: <CLOCK_BOOTTIME ns> <path> <value>\n");
		return argc < 2 ? 2 : 0;
	}
	xs = xs_open(0);
	if (!xs) {
		fprintf(stderr, "smpalt-xs-stamp: cannot open xenstore: %s\n",
			strerror(errno));
		return 1;
	}
	for (i = 1; i < argc; i++) {
		/* The token is the index of the path: not used, but unique. */
		char token[16];

		snprintf(token, sizeof(token), "%d", i);
		if (!xs_watch(xs, argv[i], token)) {
			fprintf(stderr, "smpalt-xs-stamp: cannot watch %s: %s\n",
				argv[i], strerror(errno));
			xs_close(xs);
			return 1;
		}
	}
	fprintf(stderr, "smpalt-xs-stamp: ready, %d path(s)\n", argc - 1);

	for (;;) {
		unsigned int n = 0;
		char **ev = xs_read_watch(xs, &n);
		unsigned long long ns = boottime_ns();

		if (!ev) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "smpalt-xs-stamp: lost xenstore: %s\n",
				strerror(errno));
			xs_close(xs);
			return 1;
		}
		if (n > XS_WATCH_PATH)
			print_event(xs, ns, ev[XS_WATCH_PATH]);
		free(ev);
	}
}

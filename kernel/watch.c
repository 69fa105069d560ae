// SPDX-License-Identifier: MIT
/*
 * watch.c - the table of xenstore watches (watch.h).  Pure bookkeeping on
 * top of xenstore_watch(): also compiled for the host
 * (tests/unit/watch_test.c).
 */
#define pr_fmt(fmt) "watch: " fmt

#include <smpalt/watch.h>
#include <smpalt/errno.h>
#include <smpalt/printk.h>
#include <smpalt/string.h>
#include <smpalt/xenstore.h>

static const struct watch *watch_table[WATCH_MAX];
static unsigned int watch_count;

static bool watch_path_known(const char *path)
{
	unsigned int i;

	for (i = 0; i < watch_count; i++)
		if (!strcmp(watch_table[i]->path, path))
			return true;
	return false;
}

int watch_add(const struct watch *w)
{
	int rc;

	if (!w || !w->path || !w->path[0] || !w->handle)
		return -EINVAL;
	if (strlen(w->path) >= WATCH_PATH_MAX)
		return -ENAMETOOLONG;
	if (watch_count == WATCH_MAX)
		return -ENOSPC;
	/* The path is the token: an event names the entries it is for. */
	if (!watch_path_known(w->path)) {
		rc = xenstore_watch(w->path, w->path);
		if (rc)
			return rc;
	}
	watch_table[watch_count++] = w;
	return 0;
}

unsigned int watch_dispatch(const char *path, const char *token)
{
	unsigned int i, called = 0;

	for (i = 0; i < watch_count; i++) {
		if (strcmp(watch_table[i]->path, token))
			continue;
		watch_table[i]->handle(path);
		called++;
	}
	if (!called)
		pr_warn("event %s with unknown token %s\n", path, token);
	return called;
}

unsigned int watch_reread_all(void)
{
	unsigned int i;

	for (i = 0; i < watch_count; i++)
		watch_table[i]->handle(NULL);
	return watch_count;
}

/* SPDX-License-Identifier: MIT */
/*
 * watch.h - the guest's xenstore watches, one table: each part of the
 * kernel and of the app adds its (path, handler) pairs at init, and the
 * control loop hands every watch event to the table.  When xenstored
 * dropped events, the table calls every handler to read its keys again:
 * the same entries serve both paths, so no handler can be left out of
 * either.  vCPU 0 only (init and control loop).
 *
 *   static const struct watch shutdown_watch = {
 *           .path = "control/shutdown",
 *           .handle = shutdown_handle_watch,
 *   };
 *   watch_add(&shutdown_watch);
 */
#ifndef SMPALT_WATCH_H
#define SMPALT_WATCH_H

#include <stdbool.h>

/* Most entries the table holds; and the longest path (it is the token). */
#define WATCH_MAX 16
#define WATCH_PATH_MAX 32

struct watch {
	/* Watched, relative to the guest's home; also the watch's token. */
	const char *path;
	/*
	 * path is the key that changed (path itself or below it), or NULL
	 * when events were lost: read every key of the entry again.
	 */
	void (*handle)(const char *path);
};

/*
 * Add w (kept by pointer) and watch its path, once for all entries of the
 * same path.  0, -ENOSPC when the table is full, -ENAMETOOLONG, -EINVAL
 * for a bad entry, or the xenstore client's error (then w is not added).
 */
int watch_add(const struct watch *w);

/*
 * A watch event: call, in the order added, every handler whose path is
 * token.  Returns the number called; 0 (logged) for a token of no entry.
 */
unsigned int watch_dispatch(const char *path, const char *token);

/* Events were lost: call every handler with a NULL path.  Returns the
 * number called. */
unsigned int watch_reread_all(void);

#endif /* SMPALT_WATCH_H */

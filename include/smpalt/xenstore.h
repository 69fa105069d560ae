/* SPDX-License-Identifier: MIT */
/*
 * Xenstore client over the shared ring page.
 *
 * The wire format (struct xsd_sockmsg, XS_* message types, the ring page
 * layout) comes from Xen's public header io/xs_wire.h; the protocol is
 * described in Xen's docs/misc/xenstore.txt.
 *
 * Concurrency: the client keeps its state in static variables and takes no
 * lock. It must only be called from vCPU 0 and is not reentrant: never call
 * it from the event upcall, only from thread context (the kernel's xenstore
 * event handler should set a flag or wake the vCPU 0 work loop, which then
 * calls xenstore_poll()).
 *
 * Errors are -errno values (<smpalt/errno.h>: -ENOENT,
 * -EAGAIN, ...). The client logs every failure once, naming the key,
 * through xenstore_platform_log(), except the answers a caller is expected to
 * handle itself: -ENOENT from xenstore_read/xenstore_rm/xenstore_directory and
 * -EAGAIN from xenstore_transaction_end(). Callers must not log the other
 * errors again.
 *
 * The implementation uses only the Xen public headers and the guest's own
 * <smpalt/string.h>, <smpalt/barrier.h> and <smpalt/errno.h>, which serve
 * the host tests too (there the C library provides the string functions).
 */
#ifndef SMPALT_XENSTORE_H
#define SMPALT_XENSTORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <xen/xen.h>
#include <xen/event_channel.h>
#include <xen/io/xs_wire.h>

#include <smpalt/errno.h>

/* A transaction id as xenstored hands it out; 0 means "no transaction". */
typedef uint32_t xenstore_transaction_t;
#define XS_TRANSACTION_NONE ((xenstore_transaction_t)0)

/*
 * Watch events waiting for xenstore_next_watch(). On overflow the oldest event
 * is dropped and xenstore_watch_take_dropped() reports it.
 */
#define XS_WATCH_QUEUE_LEN 32
/* Largest watch event kept (path, NUL, token, NUL); longer ones are dropped. */
#define XS_WATCH_EVENT_MAX 256
/* Attempts xenstore_transaction_run() makes before giving up with -EAGAIN. */
#define XS_TRANSACTION_ATTEMPTS 8

/*
 * Platform hooks, implemented by the guest kernel (and by the host tests'
 * fake xenstored).
 *
 * xenstore_platform_notify: send an event on @port (EVTCHNOP_send).
 * xenstore_platform_wait:   block until @port may have fired, then return. It
 * may return spuriously. It must consume the pending event (clear the pending
 * bit) before returning, with a locked/serializing operation, so that the ring
 * state the client reads afterwards is at least as new as the event: otherwise
 * a wake-up can be lost. xenstore_platform_log:    log one line (no trailing
 * newline needed) about an error. xenstore_platform_warn: the same about
 * something the client recovers from by itself (a dropped watch event, a
 * transaction retried). The client uses only %s, %u, %d and %x
 * conversions.
 */
void xenstore_platform_notify(evtchn_port_t port);
void xenstore_platform_wait(evtchn_port_t port);
void xenstore_platform_log(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
void xenstore_platform_warn(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

/*
 * Attach the client to the ring page and event channel from start_info
 * (store_mfn mapped, store_evtchn). Resets all client state (watch queue,
 * dropped flag, request ids). Stale replies left in the response ring are
 * discarded. Returns 0 or -EINVAL if @ring is NULL.
 */
int xenstore_init(struct xenstore_domain_interface *ring, evtchn_port_t port);

/*
 * Read @path into @buf (NUL-terminated). Returns the value's length
 * (without the NUL) or -errno; -ERANGE if @len cannot hold value + NUL.
 */
int xenstore_read(xenstore_transaction_t t, const char *path, char *buf,
		  size_t len);

/* Write @value to @path (created if needed). Returns 0 or -errno. */
int xenstore_write(xenstore_transaction_t t, const char *path,
		   const char *value);

/* Remove @path and everything below it. Returns 0 or -errno. */
int xenstore_rm(xenstore_transaction_t t, const char *path);

/*
 * List the children of @path into @buf as NUL-terminated names one after
 * the other ("0\0" "1\0" ...); *@count receives the number of names.
 * Returns the number of bytes used in @buf or -errno; -ERANGE if @len
 * is too small.
 */
int xenstore_directory(xenstore_transaction_t t, const char *path, char *buf,
		       size_t len, unsigned *count);

/*
 * Watch @path and everything below it. xenstored fires one event at once
 * (so the caller learns the current state) and one per later change; they
 * are delivered by xenstore_next_watch() with @token.
 */
int xenstore_watch(const char *path, const char *token);
int xenstore_unwatch(const char *path, const char *token);

int xenstore_transaction_start(xenstore_transaction_t *t);
/*
 * Commit (@abort false) or abandon (@abort true) transaction @t.
 * Returns -EAGAIN when xenstored refused the commit because of a
 * conflicting change: the whole transaction must be run again.
 */
int xenstore_transaction_end(xenstore_transaction_t t, bool abort);

/*
 * Run @fn inside a transaction, retried on -EAGAIN from the commit at
 * most XS_TRANSACTION_ATTEMPTS times in all (each retry logged with @what).
 * If @fn returns an error the transaction is abandoned and the error
 * returned (@fn logs it). Returns 0, -EAGAIN when every attempt
 * conflicted, or another -errno.
 */
typedef int (*xenstore_transaction_fn)(xenstore_transaction_t t, void *arg);
int xenstore_transaction_run(const char *what, xenstore_transaction_fn fn,
			     void *arg);

/*
 * Dequeue one watch event without blocking (responses already in the ring
 * are taken in first). Returns 1 and fills @path and @token (NUL-terminated)
 * if there was one, 0 if none, -ERANGE if a buffer was too small (the
 * event is consumed and counted as dropped, so xenstore_watch_take_dropped()
 * then tells the caller to re-read everything).
 */
int xenstore_next_watch(char *path, size_t plen, char *token, size_t tlen);

/*
 * True if watch events were lost (queue overflow, oversize or malformed
 * event) since the last call; clears the flag. The caller must then
 * re-read the full state of everything it watches.
 */
bool xenstore_watch_take_dropped(void);

/* Number of watch events dropped since xenstore_init(). */
unsigned long xenstore_watch_dropped_total(void);

/*
 * Take in whatever responses and watch events the ring holds, without
 * sending or blocking. Call it when the xenstore event channel fired while
 * no request is in flight.
 */
void xenstore_poll(void);

#endif /* SMPALT_XENSTORE_H */

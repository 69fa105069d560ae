/* SPDX-License-Identifier: MIT */
/*
 * autoscale_xs.h - reading a domain's keys in xenstore: 0 or -errno, and
 * -ENOENT for a key that is absent.
 */
#ifndef SMPALT_AUTOSCALE_XS_H
#define SMPALT_AUTOSCALE_XS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "autoscaler.h"

/*
 * Is rc (-errno from libxenstore) the connection to xenstored lost
 * (EIO, ECONNRESET, EPIPE, EBADF, ENOTCONN, ESHUTDOWN), rather than one
 * key's trouble (ENOENT: absent; EACCES: one domain's permissions)?  The
 * reads below end the daemon on a lost connection (xenstore_failed), so
 * that its service manager restarts it.
 */
bool xs_connection_lost(int rc);

/*
 * The -errno of a libxenstore call on path that failed.  A lost
 * connection ends the daemon here, whichever read saw it: no later read
 * can succeed.
 */
/*
 * End the daemon (exit 3) unless /local/domain can be listed: once a
 * round, so that a lost connection is found with no domain followed
 * (libxenstore's reader thread closes the socket on its own and says
 * nothing to the watch descriptor) and before a round feeds systemd's
 * watchdog.
 */
void xs_check_connection(struct autoscaler *as);

/*
 * The entries of /local/domain (*n of them; free the array), or the
 * daemon ends (exit 3), saying "connection lost" when it is.
 */
char **xs_list_domain_root(struct autoscaler *as, unsigned int *n);
int xs_error(struct autoscaler *as, const char *path);

/* Read a key into buf (NUL-terminated).  0, or -errno (-ENOENT: absent). */
int xs_get(struct autoscaler *as, const char *path, char *buf, size_t len);

/* A domain's key, whole, in a malloc'd string (*out; free it).  0, or
 * -errno (-ENOENT: absent). */
int xs_get_whole(struct autoscaler *as, unsigned int domid, const char *key,
		 char **out);

/* A domain's key into buf (NUL-terminated): 0 or -errno. */
int xs_get_domid(struct autoscaler *as, unsigned int domid, const char *key,
		 char *buf, size_t len);

/* A key holding a decimal number: 0, -ENOENT, -EINVAL or -errno. */
int xs_get_uint(struct autoscaler *as, const struct domain *d, const char *key,
		unsigned long long max, unsigned long long *out);

/* The connection to xenstored is lost: the error line, then
 * daemon_exit(EXIT_XENSTORE). */
void __attribute__((noreturn))
xenstore_lost(struct autoscaler *as, const char *what, int rc);

/* xenstore cannot be used: the error line ("connection lost" when it
 * is), then daemon_exit(EXIT_XENSTORE). */
void __attribute__((noreturn))
xenstore_failed(struct autoscaler *as, const char *what, int rc);

/* Number of cpu/<i> entries: the domain's maxvcpus (xl writes them all). */
int count_maxvcpus(struct autoscaler *as, unsigned int domid);

/* vCPUs set online by the toolstack: cpu/<i>/availability = online. */
int count_available(struct autoscaler *as, const struct domain *d);

/*
 * The domain's "vm" key, "/vm/<uuid>", written by the toolstack (the guest
 * cannot): *vm malloc'd, or NULL when there is none.  0 or -errno.
 */
int read_vm(struct autoscaler *as, unsigned int domid, char **vm);

/* The UUID in a "/vm/<uuid>" path, if it is one ("" otherwise). */
void uuid_of_vm(const char *vm, char *uuid);

#endif /* SMPALT_AUTOSCALE_XS_H */

// SPDX-License-Identifier: MIT
/*
 * autoscale_xs.c - what the daemon reads from xenstore about a domain:
 * its keys, its maxvcpus and online vCPUs, its /vm path.  See
 * autoscale_xs.h.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <xenstore.h>
#include <xen/xen.h>

#include "autoscaler.h"
#include "autoscale_log.h"
#include "autoscale_policy.h"
#include "autoscale_xs.h"

bool xs_connection_lost(int rc)
{
	return rc == -EIO || rc == -ECONNRESET || rc == -EPIPE ||
	       rc == -EBADF || rc == -ENOTCONN || rc == -ESHUTDOWN;
}

/*
 * List /local/domain, which no guest writes: 0 and *ents (free it), or
 * -errno.  The errors a lost connection gives can also be xenstored's
 * answer about one node (EIO for a node it cannot read), and the nodes
 * read most are the guests' own, so this listing is what tells a lost
 * connection apart.
 */
static int list_domain_root(struct autoscaler *as, char ***ents,
			    unsigned int *n)
{
	errno = 0;
	*ents = xs_directory(as->xsh, XBT_NULL, DOMAIN_ROOT, n);
	if (!*ents)
		return errno ? -errno : -EIO;
	return 0;
}

/*
 * Is rc, from listing /local/domain, a lost connection?  Besides the
 * errors of xs_connection_lost(): EINVAL, which is libxenstore's answer
 * when its reader thread found the socket closed and closed it before a
 * reply came (read_reply() with no reply queued), and which xenstored
 * never gives for listing a node that exists.
 */
static bool root_listing_lost(int rc)
{
	return xs_connection_lost(rc) || rc == -EINVAL;
}

char **xs_list_domain_root(struct autoscaler *as, unsigned int *n)
{
	char **ents;
	int rc = list_domain_root(as, &ents, n);

	if (rc && root_listing_lost(rc))
		xenstore_lost(as, "listing " DOMAIN_ROOT, rc);
	if (rc)
		xenstore_failed(as, "listing " DOMAIN_ROOT, rc);
	return ents;
}

void xs_check_connection(struct autoscaler *as)
{
	unsigned int n;

	free(xs_list_domain_root(as, &n));
}

int xs_error(struct autoscaler *as, const char *path)
{
	int rc = errno ? -errno : -EIO;
	unsigned int n;
	char **ents;
	int root_rc;

	/* Lost only when /local/domain cannot be listed either. */
	if (!xs_connection_lost(rc))
		return rc;
	root_rc = list_domain_root(as, &ents, &n);
	if (!root_rc)
		free(ents);
	else if (root_listing_lost(root_rc))
		xenstore_lost(as, path, rc);
	return rc;
}

/* Read a key into buf (NUL-terminated).  0, or -errno (-ENOENT: absent). */
int xs_get(struct autoscaler *as, const char *path, char *buf, size_t len)
{
	unsigned int n;
	char *v = xs_read(as->xsh, XBT_NULL, path, &n);

	if (!v)
		return xs_error(as, path);
	snprintf(buf, len, "%.*s", (int)n, v);
	free(v);
	return 0;
}

/* A domain's key, whole, in a malloc'd string (*out; free it).  0, or
 * -errno (-ENOENT: absent). */
int xs_get_whole(struct autoscaler *as, unsigned int domid, const char *key,
		 char **out)
{
	char path[PATH_LEN];
	unsigned int n;
	char *v;

	snprintf(path, sizeof(path), DOMAIN_ROOT "/%u/%s", domid, key);
	v = xs_read(as->xsh, XBT_NULL, path, &n);
	if (!v)
		return xs_error(as, path);
	*out = v; /* libxenstore NUL-terminates what it reads */
	return 0;
}

int xs_get_domid(struct autoscaler *as, unsigned int domid, const char *key,
		 char *buf, size_t len)
{
	char path[PATH_LEN];

	snprintf(path, sizeof(path), DOMAIN_ROOT "/%u/%s", domid, key);
	return xs_get(as, path, buf, len);
}

/* A key holding a decimal number: 0, -ENOENT, -EINVAL or -errno. */
int xs_get_uint(struct autoscaler *as, const struct domain *d, const char *key,
		unsigned long long max, unsigned long long *out)
{
	char buf[NUM_MAX];
	int rc = xs_get_domid(as, d->domid, key, buf, sizeof(buf));

	if (rc)
		return rc;
	return parse_uint(buf, 0, max, out) ? 0 : -EINVAL;
}

void __attribute__((noreturn))
xenstore_lost(struct autoscaler *as, const char *what, int rc)
{
	error(as,
	      "xenstore: connection lost (%s: %s): exiting, to be restarted",
	      what, strerror(-rc));
	daemon_exit(as, EXIT_XENSTORE);
}

void __attribute__((noreturn))
xenstore_failed(struct autoscaler *as, const char *what, int rc)
{
	if (xs_connection_lost(rc))
		xenstore_lost(as, what, rc);
	error(as, "xenstore: %s: %s", what, strerror(-rc));
	daemon_exit(as, EXIT_XENSTORE);
}

/* Number of cpu/<i> entries: the domain's maxvcpus (xl writes them all). */
int count_maxvcpus(struct autoscaler *as, unsigned int domid)
{
	char path[PATH_LEN];
	unsigned int n, i, count = 0;
	char **ents;

	snprintf(path, sizeof(path), DOMAIN_ROOT "/%u/cpu", domid);
	ents = xs_directory(as->xsh, XBT_NULL, path, &n);
	if (!ents)
		return xs_error(as, path);
	for (i = 0; i < n; i++) {
		unsigned long long id;

		if (parse_uint(ents[i], 0, AS_VCPUS_MAX - 1, &id))
			count++;
	}
	free(ents);
	return (int)count;
}

/* vCPUs set online by the toolstack: cpu/<i>/availability = online. */
int count_available(struct autoscaler *as, const struct domain *d)
{
	char key[KEY_LEN], v[NUM_MAX];
	unsigned int i, count = 0;

	for (i = 0; i < d->maxvcpus; i++) {
		int rc;

		snprintf(key, sizeof(key), "cpu/%u/availability", i);
		rc = xs_get_domid(as, d->domid, key, v, sizeof(v));
		if (rc == -ENOENT)
			continue;
		if (rc)
			return rc;
		if (!strcmp(v, "online"))
			count++;
	}
	return (int)count;
}

/*
 * The domain's "vm" key, "/vm/<uuid>", written by the toolstack (the guest
 * cannot): *vm malloc'd, or NULL when there is none.  0 or -errno.
 */
int read_vm(struct autoscaler *as, unsigned int domid, char **vm)
{
	int rc = xs_get_whole(as, domid, "vm", vm);

	if (rc == -ENOENT) {
		*vm = NULL;
		return 0;
	}
	return rc;
}

/* The UUID in a "/vm/<uuid>" path, if it is one ("" otherwise). */
void uuid_of_vm(const char *vm, char *uuid)
{
	const char *u;
	size_t i;

	uuid[0] = '\0';
	if (!vm || strncmp(vm, VM_PREFIX, strlen(VM_PREFIX)))
		return;
	u = vm + strlen(VM_PREFIX);
	if (strlen(u) != UUID_LEN)
		return;
	for (i = 0; i < UUID_LEN; i++) {
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;

		if (dash ? u[i] != '-' : !isxdigit((unsigned char)u[i]))
			return;
	}
	memcpy(uuid, u, UUID_LEN + 1);
}

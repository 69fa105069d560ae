// SPDX-License-Identifier: MIT
/*
 * backend_libvirt.c - the autoscaler's libvirt backend: vCPU changes go
 * through a libvirt connection (virDomainSetVcpusFlags, live) instead of
 * `xl vcpu-set`, for domains that libvirt manages.
 *
 * Why: libvirt keeps its own account of each domain's vCPUs.  A domain
 * created through libvirt and scaled behind its back with xl keeps its old
 * count in libvirt (`virsh vcpucount` goes stale), so such a domain must be
 * scaled through libvirt.  Domains libvirt does not know (created with
 * `xl create`) stay with xl.
 *
 * Domains are found by the UUID of their /vm path in xenstore (a name can
 * be reused, and xenstore's and libvirt's views of names need not agree),
 * by domid when no UUID is known; either way, the domain libvirt returns
 * must have the domid the autoscaler follows, or it is not this domain.
 *
 * libvirt.so.0 is loaded with dlopen() when a connection is opened, not
 * linked: it pulls in some 60 MB of libraries (libxml2, ICU, GnuTLS...),
 * and a dom0 that scales with xl alone must not need them.  The prototypes
 * still come from <libvirt/libvirt.h>, so every call is type-checked.
 *
 * The libxl driver applies a live vCPU change before it returns, so
 * set_vcpus() is synchronous: *done is true whenever it returns 0.  A
 * failure returns -errno and is logged on stderr once, with libvirt's own
 * message and the domain it concerns.  See docs/libvirt.md.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

#include "scale_backend.h"

#define PROG "smpalt-autoscaler"
#define LIBVIRT_SONAME "libvirt.so.0"

/* The libvirt calls the backend makes, resolved from LIBVIRT_SONAME. */
struct libvirt_api {
	__typeof__(virConnectOpen) *connect_open;
	__typeof__(virConnectClose) *connect_close;
	__typeof__(virConnectIsAlive) *connect_is_alive;
	__typeof__(virDomainLookupByID) *lookup_by_id;
	__typeof__(virDomainLookupByUUIDString) *lookup_by_uuid;
	__typeof__(virDomainGetID) *get_id;
	__typeof__(virDomainFree) *domain_free;
	__typeof__(virDomainSetVcpusFlags) *set_vcpus_flags;
	__typeof__(virGetLastError) *get_last_error;
	__typeof__(virResetLastError) *reset_last_error;
	__typeof__(virSetErrorFunc) *set_error_func;
};

struct libvirt_backend {
	struct scale_backend ops;
	void *lib; /* dlopen handle of LIBVIRT_SONAME */
	struct libvirt_api api;
	virConnectPtr conn; /* NULL after a failed reconnect */
	char *uri;
};

static struct libvirt_backend *lv_of(struct scale_backend *b)
{
	return (struct libvirt_backend *)b->priv;
}

/* One line on stderr, the autoscaler's error stream. */
static void __attribute__((format(printf, 1, 2))) lv_log(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, PROG ": libvirt: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* libvirt's own message for the last failed call in this thread. */
static const char *lv_last_message(struct libvirt_backend *lv)
{
	virErrorPtr e = lv->api.get_last_error();

	return e && e->message ? e->message : "unknown libvirt error";
}

static int lv_last_code(struct libvirt_backend *lv)
{
	virErrorPtr e = lv->api.get_last_error();

	return e ? e->code : VIR_ERR_OK;
}

/* The -errno that stands for libvirt's last error. */
static int lv_last_errno(struct libvirt_backend *lv)
{
	switch (lv_last_code(lv)) {
	case VIR_ERR_NO_DOMAIN:
		return -ENOENT;
	case VIR_ERR_INVALID_ARG:
	case VIR_ERR_CONFIG_UNSUPPORTED:
		return -EINVAL;
	case VIR_ERR_NO_SUPPORT:
		return -EOPNOTSUPP;
	case VIR_ERR_SYSTEM_ERROR:
	case VIR_ERR_RPC:
	case VIR_ERR_NO_CONNECT:
		return -ENOTCONN;
	default:
		return -EIO;
	}
}

static const char *lv_dom_name(const char *name)
{
	return name && *name ? name : "-";
}

/*
 * libvirt prints every error on stderr by default; the backend reports the
 * ones that matter itself, with the domain they concern (a domain that
 * libvirt does not know is not an error here, only an answer).
 */
static void lv_quiet(void *user, virErrorPtr e)
{
	(void)user;
	(void)e;
}

/* Resolve one symbol; false (and err set) if the library lacks it. */
static bool lv_sym(void *lib, const char *sym, void **slot, char *err,
		   size_t errlen)
{
	*slot = dlsym(lib, sym);
	if (*slot)
		return true;
	snprintf(err, errlen, "%s has no %s", LIBVIRT_SONAME, sym);
	return false;
}

static bool lv_load(struct libvirt_backend *lv, char *err, size_t errlen)
{
	struct libvirt_api *a = &lv->api;

	lv->lib = dlopen(LIBVIRT_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!lv->lib) {
		snprintf(err, errlen, "cannot load %s (package libvirt0): %s",
			 LIBVIRT_SONAME, dlerror());
		return false;
	}
	return lv_sym(lv->lib, "virConnectOpen", (void **)&a->connect_open, err,
		      errlen) &&
	       lv_sym(lv->lib, "virConnectClose", (void **)&a->connect_close,
		      err, errlen) &&
	       lv_sym(lv->lib, "virConnectIsAlive",
		      (void **)&a->connect_is_alive, err, errlen) &&
	       lv_sym(lv->lib, "virDomainLookupByID", (void **)&a->lookup_by_id,
		      err, errlen) &&
	       lv_sym(lv->lib, "virDomainLookupByUUIDString",
		      (void **)&a->lookup_by_uuid, err, errlen) &&
	       lv_sym(lv->lib, "virDomainGetID", (void **)&a->get_id, err,
		      errlen) &&
	       lv_sym(lv->lib, "virDomainFree", (void **)&a->domain_free, err,
		      errlen) &&
	       lv_sym(lv->lib, "virDomainSetVcpusFlags",
		      (void **)&a->set_vcpus_flags, err, errlen) &&
	       lv_sym(lv->lib, "virGetLastError", (void **)&a->get_last_error,
		      err, errlen) &&
	       lv_sym(lv->lib, "virResetLastError",
		      (void **)&a->reset_last_error, err, errlen) &&
	       lv_sym(lv->lib, "virSetErrorFunc", (void **)&a->set_error_func,
		      err, errlen);
}

/*
 * The connection, reopened if libvirtd went away since the last call
 * (libvirtd restarted): NULL, logged, if it cannot be reopened.
 */
static virConnectPtr lv_conn(struct libvirt_backend *lv)
{
	if (lv->conn && lv->api.connect_is_alive(lv->conn) == 1)
		return lv->conn;
	if (lv->conn)
		lv->api.connect_close(lv->conn);
	lv->conn = lv->api.connect_open(lv->uri);
	if (!lv->conn)
		lv_log("cannot reconnect to %s: %s", lv->uri,
		       lv_last_message(lv));
	return lv->conn;
}

/*
 * The domain by UUID (by domid when no UUID is known), checked to have
 * the domid asked for.  NULL with *rc = -ENOENT when libvirt does not know
 * it, or knows that UUID under another domid (an answer, not logged), or
 * another -errno when the lookup itself failed (logged; -ENOTCONN: libvirt
 * is unreachable).
 */
static virDomainPtr lv_lookup(struct libvirt_backend *lv,
			      const struct scale_domain *d, int *rc)
{
	virConnectPtr conn = lv_conn(lv);
	bool by_uuid = d->uuid && *d->uuid;
	virDomainPtr dom;
	unsigned int id;

	*rc = -ENOTCONN;
	if (!conn)
		return NULL;
	lv->api.reset_last_error();
	if (by_uuid)
		dom = lv->api.lookup_by_uuid(conn, d->uuid);
	else
		dom = lv->api.lookup_by_id(conn, (int)d->domid);
	if (!dom) {
		*rc = lv_last_errno(lv);
		if (*rc != -ENOENT)
			lv_log("looking up domain %s (id %u%s%s) in %s: %s",
			       lv_dom_name(d->name), d->domid,
			       by_uuid ? ", uuid " : "", by_uuid ? d->uuid : "",
			       lv->uri, lv_last_message(lv));
		return NULL;
	}
	/* A stopped domain has no id ((unsigned)-1): not this one either. */
	id = lv->api.get_id(dom);
	if (id != d->domid) {
		lv->api.domain_free(dom);
		*rc = -ENOENT;
		return NULL;
	}
	*rc = 0;
	return dom;
}

/* ------------------------------------------------------------ the ops */

static int lv_manages(struct scale_backend *b, const struct scale_domain *d)
{
	struct libvirt_backend *lv = lv_of(b);
	int rc;
	virDomainPtr dom = lv_lookup(lv, d, &rc);

	if (dom) {
		lv->api.domain_free(dom);
		return 1;
	}
	/* Not known: xl's.  Unreachable: no answer yet. */
	return rc == -ENOENT ? 0 : rc;
}

static int lv_set_vcpus(struct scale_backend *b, const struct scale_domain *d,
			unsigned int n, bool *done)
{
	struct libvirt_backend *lv = lv_of(b);
	virDomainPtr dom;
	int rc;

	*done = false;
	dom = lv_lookup(lv, d, &rc);
	if (!dom) {
		if (rc == -ENOENT)
			lv_log("%s has no domain %s with id %u%s%s", lv->uri,
			       lv_dom_name(d->name), d->domid,
			       d->uuid && *d->uuid ? " and uuid " : "",
			       d->uuid && *d->uuid ? d->uuid : "");
		return rc;
	}
	rc = 0;
	if (lv->api.set_vcpus_flags(dom, n, VIR_DOMAIN_AFFECT_LIVE) < 0) {
		rc = lv_last_errno(lv);
		lv_log("%s (id %u): setting %u live vCPUs: %s",
		       lv_dom_name(d->name), d->domid, n, lv_last_message(lv));
	}
	lv->api.domain_free(dom);
	*done = rc == 0;
	return rc;
}

static void lv_close(struct scale_backend *b)
{
	struct libvirt_backend *lv;

	if (!b)
		return;
	lv = lv_of(b);
	if (lv->conn)
		lv->api.connect_close(lv->conn);
	if (lv->lib)
		dlclose(lv->lib);
	free(lv->uri);
	free(lv);
}

struct scale_backend *scale_backend_libvirt_open(const char *uri, char *err,
						 size_t errlen)
{
	struct libvirt_backend *lv = calloc(1, sizeof(*lv));

	if (!lv || !(lv->uri = strdup(uri))) {
		snprintf(err, errlen, "out of memory");
		free(lv);
		return NULL;
	}
	lv->ops.name = "libvirt";
	lv->ops.manages = lv_manages;
	lv->ops.set_vcpus = lv_set_vcpus;
	lv->ops.close = lv_close;
	lv->ops.priv = lv;
	if (!lv_load(lv, err, errlen)) {
		lv_close(&lv->ops);
		return NULL;
	}
	lv->api.set_error_func(NULL, lv_quiet);
	lv->conn = lv->api.connect_open(uri);
	if (!lv->conn) {
		snprintf(err, errlen, "cannot connect to %s: %s", uri,
			 lv_last_message(lv));
		lv_close(&lv->ops);
		return NULL;
	}
	return &lv->ops;
}

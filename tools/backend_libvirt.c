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
 *
 * Every call to libvirt (connecting, looking up, setting) runs in a thread
 * of its own, waited for at most the timeout: a libvirtd that hangs costs
 * the autoscaler that long, then the call fails with -ETIMEDOUT.  A thread
 * cannot be killed: the hung call is abandoned (it frees what it holds if
 * it ever returns), its connection given up, and the next call connects
 * anew.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

#include "scale_backend.h"

#define PROG "smpalt-autoscaler"
#define LIBVIRT_SONAME "libvirt.so.0"
#define MSG_LEN 512
#define MS_PER_SEC 1000
#define NS_PER_MS 1000000L
#define NS_PER_SEC 1000000000L

/* The libvirt calls the backend makes, resolved from LIBVIRT_SONAME. */
struct libvirt_api {
	__typeof__(virInitialize) *initialize;
	__typeof__(virConnectOpen) *connect_open;
	__typeof__(virConnectClose) *connect_close;
	__typeof__(virConnectIsAlive) *connect_is_alive;
	__typeof__(virConnectRef) *connect_ref;
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
	uint64_t timeout_ms;	/* the longest a libvirt call may take */
	unsigned int abandoned; /* calls left running in libvirt's code */
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
	return lv_sym(lv->lib, "virInitialize", (void **)&a->initialize, err,
		      errlen) &&
	       lv_sym(lv->lib, "virConnectOpen", (void **)&a->connect_open, err,
		      errlen) &&
	       lv_sym(lv->lib, "virConnectClose", (void **)&a->connect_close,
		      err, errlen) &&
	       lv_sym(lv->lib, "virConnectIsAlive",
		      (void **)&a->connect_is_alive, err, errlen) &&
	       lv_sym(lv->lib, "virConnectRef", (void **)&a->connect_ref, err,
		      errlen) &&
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

/* ---------------------------------------------- calls with a timeout */

enum lv_job_kind {
	JOB_OPEN,   /* connect to uri */
	JOB_LOOKUP, /* find the domain, check its domid */
	JOB_SET,    /* the same, then set its live vCPUs */
};

/*
 * One libvirt call in a thread of its own.  Whoever of the caller and the
 * thread is last frees it: the caller once it has the result, or the
 * thread when the caller gave up on it (abandoned).
 */
struct lv_job {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool done, abandoned;
	struct libvirt_api api; /* a copy: the backend may be gone */
	enum lv_job_kind kind;
	/* In. */
	virConnectPtr conn; /* a reference of the job's own */
	char uri[MSG_LEN];
	char uuid[VIR_UUID_STRING_BUFLEN]; /* "" : by domid */
	unsigned int domid, n;
	/* Out. */
	int rc;		      /* 0, or the -errno of libvirt's error */
	bool other_id;	      /* found, under another domid (-ENOENT) */
	virConnectPtr opened; /* JOB_OPEN */
	char msg[MSG_LEN];    /* libvirt's message when rc */
};

/* The -errno that stands for libvirt's error code. */
static int lv_errno_of(int code)
{
	switch (code) {
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

/* The job failed: libvirt's last error in this thread says how. */
static void job_failed(struct lv_job *job, int fallback)
{
	virErrorPtr e = job->api.get_last_error();

	job->rc = e ? lv_errno_of(e->code) : fallback;
	snprintf(job->msg, sizeof(job->msg), "%s",
		 e && e->message ? e->message : "unknown libvirt error");
}

static void job_run(struct lv_job *job)
{
	const struct libvirt_api *a = &job->api;
	virDomainPtr dom;
	unsigned int id;

	a->reset_last_error();
	if (job->kind == JOB_OPEN) {
		job->opened = a->connect_open(job->uri);
		if (!job->opened)
			job_failed(job, -ENOTCONN);
		return;
	}
	if (job->uuid[0])
		dom = a->lookup_by_uuid(job->conn, job->uuid);
	else
		dom = a->lookup_by_id(job->conn, (int)job->domid);
	if (!dom) {
		job_failed(job, -EIO);
		return;
	}
	/* A stopped domain has no id ((unsigned)-1): not this one either. */
	id = a->get_id(dom);
	if (id != job->domid) {
		job->rc = -ENOENT;
		job->other_id = true;
	} else if (job->kind == JOB_SET &&
		   a->set_vcpus_flags(dom, job->n, VIR_DOMAIN_AFFECT_LIVE) <
			   0) {
		job_failed(job, -EIO);
	}
	a->domain_free(dom);
}

static void job_free(struct lv_job *job)
{
	if (job->conn)
		job->api.connect_close(job->conn);
	pthread_cond_destroy(&job->cond);
	pthread_mutex_destroy(&job->lock);
	free(job);
}

static void *job_thread(void *arg)
{
	struct lv_job *job = arg;
	bool abandoned;

	job_run(job);
	pthread_mutex_lock(&job->lock);
	job->done = true;
	abandoned = job->abandoned;
	pthread_cond_signal(&job->cond);
	pthread_mutex_unlock(&job->lock);
	if (abandoned) {
		/* Nobody waits for it any more: what it got goes too. */
		if (job->opened)
			job->api.connect_close(job->opened);
		job_free(job);
	}
	return NULL;
}

/* A new job for lv, holding its own reference to conn (if any). */
static struct lv_job *job_new(struct libvirt_backend *lv, enum lv_job_kind kind,
			      virConnectPtr conn)
{
	struct lv_job *job = calloc(1, sizeof(*job));
	pthread_condattr_t ca;

	if (!job)
		return NULL;
	pthread_mutex_init(&job->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&job->cond, &ca);
	pthread_condattr_destroy(&ca);
	job->api = lv->api;
	job->kind = kind;
	if (conn && lv->api.connect_ref(conn) == 0)
		job->conn = conn;
	snprintf(job->uri, sizeof(job->uri), "%s", lv->uri);
	return job;
}

/*
 * Run the job and wait for it at most lv's timeout.  0 with the job's
 * outcome in it (the caller frees it), or -ETIMEDOUT (the job abandoned,
 * freed by its thread) or -errno when no thread could be started (freed).
 */
static int job_wait(struct libvirt_backend *lv, struct lv_job *job)
{
	struct timespec until;
	pthread_attr_t attr;
	pthread_t t;
	int rc = 0;

	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	rc = pthread_create(&t, &attr, job_thread, job);
	pthread_attr_destroy(&attr);
	if (rc) {
		job_free(job);
		return -rc;
	}
	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += (time_t)(lv->timeout_ms / MS_PER_SEC);
	until.tv_nsec += (long)(lv->timeout_ms % MS_PER_SEC) * NS_PER_MS;
	if (until.tv_nsec >= NS_PER_SEC) {
		until.tv_sec++;
		until.tv_nsec -= NS_PER_SEC;
	}
	pthread_mutex_lock(&job->lock);
	while (!job->done && rc != ETIMEDOUT)
		rc = pthread_cond_timedwait(&job->cond, &job->lock, &until);
	if (!job->done) {
		job->abandoned = true;
		pthread_mutex_unlock(&job->lock);
		lv->abandoned++;
		return -ETIMEDOUT;
	}
	pthread_mutex_unlock(&job->lock);
	return 0;
}

/* A call timed out: its connection may be wedged, the next one is new. */
static void lv_give_up_conn(struct libvirt_backend *lv)
{
	if (lv->conn)
		lv->api.connect_close(lv->conn); /* the job keeps its own */
	lv->conn = NULL;
}

/* Connect to lv's uri within the timeout: NULL with a message in err. */
static virConnectPtr lv_open(struct libvirt_backend *lv, char *err,
			     size_t errlen)
{
	struct lv_job *job = job_new(lv, JOB_OPEN, NULL);
	virConnectPtr conn;
	int rc;

	if (!job) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	rc = job_wait(lv, job);
	if (rc) {
		snprintf(err, errlen, "cannot connect to %s: %s", lv->uri,
			 rc == -ETIMEDOUT ? "no answer within the timeout"
					  : strerror(-rc));
		return NULL;
	}
	conn = job->opened;
	if (!conn)
		snprintf(err, errlen, "cannot connect to %s: %s", lv->uri,
			 job->msg);
	job_free(job);
	return conn;
}

/*
 * The connection, reopened if libvirtd went away since the last call
 * (libvirtd restarted) or a call timed out: NULL, logged, if it cannot be
 * reopened.
 */
static virConnectPtr lv_conn(struct libvirt_backend *lv)
{
	char err[MSG_LEN];

	if (lv->conn && lv->api.connect_is_alive(lv->conn) == 1)
		return lv->conn;
	lv_give_up_conn(lv);
	lv->conn = lv_open(lv, err, sizeof(err));
	if (!lv->conn)
		lv_log("%s", err);
	return lv->conn;
}

/* ------------------------------------------------------------ the ops */

/*
 * Look the domain up (by UUID, by domid when no UUID is known) and, for
 * JOB_SET, set its live vCPUs to n, within the timeout.  0, or -ENOENT
 * when libvirt does not know the domain or knows that UUID under another
 * domid (not logged: an answer), or another -errno (logged; -ENOTCONN:
 * libvirt unreachable, -ETIMEDOUT: no answer in time).
 */
static int lv_call(struct libvirt_backend *lv, enum lv_job_kind kind,
		   const struct scale_domain *d, unsigned int n)
{
	virConnectPtr conn = lv_conn(lv);
	bool by_uuid = d->uuid && *d->uuid;
	struct lv_job *job;
	int rc;

	if (!conn)
		return -ENOTCONN;
	job = job_new(lv, kind, conn);
	if (!job)
		return -ENOMEM;
	if (by_uuid)
		snprintf(job->uuid, sizeof(job->uuid), "%s", d->uuid);
	job->domid = d->domid;
	job->n = n;
	rc = job_wait(lv, job);
	if (rc == -ETIMEDOUT) {
		lv_give_up_conn(lv);
		lv_log("domain %s (id %u): no answer from %s within %llu ms: "
		       "given up",
		       lv_dom_name(d->name), d->domid, lv->uri,
		       (unsigned long long)lv->timeout_ms);
		return rc;
	}
	if (rc)
		return rc;
	rc = job->rc;
	if (rc && rc != -ENOENT) {
		if (kind == JOB_SET && !job->other_id)
			lv_log("%s (id %u): setting %u live vCPUs: %s",
			       lv_dom_name(d->name), d->domid, n, job->msg);
		else
			lv_log("looking up domain %s (id %u%s%s) in %s: %s",
			       lv_dom_name(d->name), d->domid,
			       by_uuid ? ", uuid " : "", by_uuid ? d->uuid : "",
			       lv->uri, job->msg);
	}
	job_free(job);
	return rc;
}

static int lv_manages(struct scale_backend *b, const struct scale_domain *d)
{
	int rc = lv_call(lv_of(b), JOB_LOOKUP, d, 0);

	/* Known: libvirt's.  Not known: xl's.  No answer: ask again later. */
	if (!rc)
		return 1;
	return rc == -ENOENT ? 0 : rc;
}

static int lv_set_vcpus(struct scale_backend *b, const struct scale_domain *d,
			unsigned int n, bool *done)
{
	struct libvirt_backend *lv = lv_of(b);
	int rc = lv_call(lv, JOB_SET, d, n);

	if (rc == -ENOENT)
		lv_log("%s has no domain %s with id %u%s%s", lv->uri,
		       lv_dom_name(d->name), d->domid,
		       d->uuid && *d->uuid ? " and uuid " : "",
		       d->uuid && *d->uuid ? d->uuid : "");
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
	/* A call abandoned in libvirt's code may still run it. */
	if (lv->lib && !lv->abandoned)
		dlclose(lv->lib);
	free(lv->uri);
	free(lv);
}

struct scale_backend *scale_backend_libvirt_open(const char *uri,
						 uint64_t timeout_ms, char *err,
						 size_t errlen)
{
	struct libvirt_backend *lv = calloc(1, sizeof(*lv));

	if (!lv || !(lv->uri = strdup(uri))) {
		snprintf(err, errlen, "out of memory");
		free(lv);
		return NULL;
	}
	lv->timeout_ms = timeout_ms;
	lv->ops.name = "libvirt";
	lv->ops.manages = lv_manages;
	lv->ops.set_vcpus = lv_set_vcpus;
	lv->ops.close = lv_close;
	lv->ops.priv = lv;
	if (!lv_load(lv, err, errlen)) {
		lv_close(&lv->ops);
		return NULL;
	}
	/* libvirt (and the GLib under it) set up in this thread, before any
	 * call runs in another: with libvirt loaded by dlopen(), a first
	 * call made in a thread of its own crashed in GLib's allocator
	 * (Debian 12's libvirt 9.0 and GLib 2.74). */
	if (lv->api.initialize() < 0) {
		snprintf(err, errlen, "cannot initialise libvirt");
		lv_close(&lv->ops);
		return NULL;
	}
	lv->api.set_error_func(NULL, lv_quiet);
	lv->conn = lv_open(lv, err, errlen);
	if (!lv->conn) {
		lv_close(&lv->ops);
		return NULL;
	}
	return &lv->ops;
}

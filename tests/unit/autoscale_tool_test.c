// SPDX-License-Identifier: MIT
/*
 * Host tests of the smpalt-autoscaler program itself, end to end, without
 * Xen: the test serves a small in-memory xenstore on a Unix socket
 * (libxenstore connects to XENSTORED_PATH), runs the real binary against
 * it, and stands in for `xl` (the binary runs this program with --xl; in
 * that role it writes cpu/<i>/availability and the guest's
 * data/smpalt/online and mode, as xl and the guest would).
 *
 * The store fires @introduceDomain and @releaseDomain watches as
 * xenstored does when the test adds or removes a domain, and can be made
 * to fail a read with an error of the test's choosing.
 *
 * Xen's CPU figure comes from the autoscaler's test-only source
 * (SMPALT_AUTOSCALER_TEST_XEN_LOAD, a directory of one file per domid
 * holding the percent of one vCPU that Xen is to be taken to see), so the
 * real decision path runs: CPU time over wall time, the clamp, the policy.
 * A truthful guest's claim is its demand, and Xen sees as much of it as
 * its vCPUs can run (the stand-in xl keeps that so after a change); a
 * hostile guest claims what it likes while Xen sees what the test says.
 *
 * Covered: unreachable xenstore (exit 3), bad option (2), missing domain
 * at --once (4), scaling up and down with the load and the CSV, SIGTERM,
 * --once --dry-run, a failing xl, a domain disappearing mid-run (dropped,
 * the daemon stays up), a load key that is absent; domains followed
 * through their life (adopted by glob or --all after the start, a reboot
 * with a new domid, dom0 left out), xl without -i unless --ignore-host,
 * --version, SIGHUP reopening the CSV, log priority prefixes and wall
 * time, the clamp of a guest's claim, --signal xen without Xen.
 * Hostile guests: inflated claims neither grow a guest nor keep it up,
 * flapping, garbage, terminal escapes, huge values and many keys change
 * nothing.  Calm under churn: cooldown, rate limit, backoff after
 * failures, a hung xl killed (and not blocking --duration's exit), a
 * domain whose keys cannot be read skipped while the others are scaled.
 * Identity: whole names (63 'A's do not select a 64-character name), a
 * domid reused by another domain is not the same domain, libvirt's
 * domains found by UUID and domid, not by name (libvirt's test driver).  No
 * small caps: 70 domains, a guest of 64 vCPUs with 48 online.
 * Configuration and output: --check-config's exact output and status, a
 * missing or bad --config file, a malformed DOMAIN glob, a per-domain
 * max, an excluded domain, SIGHUP reloading (a bad file keeps the
 * settings; both reloads counted in the metrics), --metrics-file through
 * promtool, --metrics-listen refused as removed, a guest's mode escaped
 * in the CSV.
 */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <xenstore.h>
#include <xen/io/xs_wire.h>

#ifndef PROMTOOL_BIN
#error "PROMTOOL_BIN: the path of promtool (mk/tools.mk)"
#endif
#ifndef AUTOSCALER_BIN
#error "AUTOSCALER_BIN: the path of smpalt-autoscaler (mk/tools.mk)"
#endif

#define STORE_MAX 4096
#define PATH_LEN 128
#define VALUE_LEN 1100 /* a huge value a guest may write */
#define ERR_LEN 16
#define MSG_MAX 4096
#define TEXT_MAX (256 * 1024)
#define ARGS_MAX 32
#define NUM_LEN 24
#define POLL_MS 10
#define WAIT_MS 5000
#define NS_PER_MS 1000000L
#define MS_PER_SEC 1000
#define LISTEN_BACKLOG 8
#define GUEST_DOMID 3
#define OTHER_DOMID 4
#define REBOOTED_DOMID 5
#define GUEST_MAXVCPUS 4
#define BIG_MAXVCPUS 64
#define BIG_ONLINE 48
#define MANY_DOMAINS 70
#define FIRST_MANY_DOMID 10
#define MANY_KEYS 500
/* libvirt's test driver: its running domain "test". */
#define LIBVIRT_DOMID 1
#define LIBVIRT_MAXVCPUS 2
#define LIBVIRT_UUID "6695eb01-f6a4-8304-79aa-97f2502e193f"
/* Exit of a run that never ends: bounded, so that a test fails, not hangs. */
#define EXIT_WAIT_MS 20000
/* A stand-in xl this slow spans several sample periods. */
#define SLOW_XL_MS "400"

/* smpalt-autoscaler's exit codes (its --help). */
#define EXIT_USAGE 2
#define EXIT_XENSTORE 3
#define EXIT_NO_DOMAIN 4
#define EXIT_RUNTIME 1
#define EXIT_XENSTAT 6
/* The autoscaler's test-only source of Xen's CPU figure. */
#define ENV_XEN_DIR "SMPALT_AUTOSCALER_TEST_XEN_LOAD"
/* Its test-only default configuration path. */
#define ENV_TEST_CONF "SMPALT_AUTOSCALER_TEST_CONF"

/* Short periods so that each test takes a fraction of a second. */
#define FAST_ARGS "--period", "0.05", "--hold", "0.1", "--cooldown", "0.1"

/* ------------------------------------------------- in-memory xenstore */

struct node {
	bool used;
	char path[PATH_LEN];
	char value[VALUE_LEN];
	char err[ERR_LEN]; /* a read fails with this error ("" : none) */
};

static struct node store[STORE_MAX];
static pthread_mutex_t store_lock = PTHREAD_MUTEX_INITIALIZER;
/* Short: a socket path must fit in sockaddr_un's sun_path (108 bytes). */
#define DIR_LEN 48
static char tmpdir[DIR_LEN], sock_path[DIR_LEN + 16];
static int listen_fd = -1;
static char self_exe[PATH_LEN];

/* Watches on xenstored's special paths (@introduceDomain, ...). */
#define WATCH_MAX 16
struct watch {
	bool used;
	int fd;
	char path[PATH_LEN];
	char token[PATH_LEN];
};
static struct watch watches[WATCH_MAX];
/* One message at a time on a socket: replies and events interleave. */
static pthread_mutex_t wire_lock = PTHREAD_MUTEX_INITIALIZER;
/* The clients connected now, so that the store can drop them all, as a
 * xenstored that dies or restarts does. */
#define CLIENT_MAX 64
static int clients[CLIENT_MAX];
static unsigned int nclients;
/* While set, requests wait unanswered: a xenstored that hangs. */
static volatile bool store_stalled;
/* The store closes a connection on its next request, unanswered. */
static volatile bool store_hangs_up;

static void sleep_ms(long ms);

static struct node *store_find(const char *path)
{
	unsigned int i;

	for (i = 0; i < STORE_MAX; i++)
		if (store[i].used && !strcmp(store[i].path, path))
			return &store[i];
	return NULL;
}

static void store_set(const char *path, const char *value)
{
	struct node *n;
	unsigned int i;

	pthread_mutex_lock(&store_lock);
	n = store_find(path);
	for (i = 0; !n && i < STORE_MAX; i++)
		if (!store[i].used)
			n = &store[i];
	assert_non_null(n);
	n->used = true;
	snprintf(n->path, sizeof(n->path), "%s", path);
	snprintf(n->value, sizeof(n->value), "%s", value);
	n->err[0] = '\0';
	pthread_mutex_unlock(&store_lock);
}

/* Reads of path fail with err (an errno name: "EACCES"), "" for none. */
static void store_fail(const char *path, const char *err)
{
	struct node *n;

	pthread_mutex_lock(&store_lock);
	n = store_find(path);
	assert_non_null(n);
	snprintf(n->err, sizeof(n->err), "%s", err);
	pthread_mutex_unlock(&store_lock);
}

static void store_setf(const char *value, const char *fmt, ...)
{
	char path[PATH_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	store_set(path, value);
}

/* Remove path and everything below it. */
static void store_rm(const char *path)
{
	size_t len = strlen(path);
	unsigned int i;

	pthread_mutex_lock(&store_lock);
	for (i = 0; i < STORE_MAX; i++)
		if (store[i].used && !strncmp(store[i].path, path, len) &&
		    (store[i].path[len] == '\0' || store[i].path[len] == '/'))
			store[i].used = false;
	pthread_mutex_unlock(&store_lock);
}

static bool store_get(const char *path, char *value, size_t len)
{
	struct node *n;

	pthread_mutex_lock(&store_lock);
	n = store_find(path);
	if (n)
		snprintf(value, len, "%s", n->value);
	pthread_mutex_unlock(&store_lock);
	return n != NULL;
}

/* The error a read of path is to fail with, if any (err[0] then set). */
static void store_error(const char *path, char *err, size_t len)
{
	struct node *n;

	pthread_mutex_lock(&store_lock);
	n = store_find(path);
	snprintf(err, len, "%s", n ? n->err : "");
	pthread_mutex_unlock(&store_lock);
}

/* Children of path, each NUL-terminated; -1 if path does not exist. */
static int store_directory(const char *path, char *out, size_t cap)
{
	size_t len = strlen(path), used = 0;
	bool exists = false;
	unsigned int i;

	pthread_mutex_lock(&store_lock);
	for (i = 0; i < STORE_MAX; i++) {
		const char *p = store[i].path, *child, *end;
		size_t clen, off;
		bool dup = false;

		if (!store[i].used || strncmp(p, path, len))
			continue;
		if (p[len] == '\0')
			exists = true;
		if (p[len] != '/')
			continue;
		exists = true;
		child = p + len + 1;
		end = strchr(child, '/');
		clen = end ? (size_t)(end - child) : strlen(child);
		for (off = 0; off < used; off += strlen(out + off) + 1)
			if (strlen(out + off) == clen &&
			    !strncmp(out + off, child, clen))
				dup = true;
		if (dup || used + clen + 1 > cap)
			continue;
		memcpy(out + used, child, clen);
		out[used + clen] = '\0';
		used += clen + 1;
	}
	pthread_mutex_unlock(&store_lock);
	return exists ? (int)used : -1;
}

static bool read_full(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t n = read(fd, p, len);

		if (n <= 0)
			return false;
		p += n;
		len -= (size_t)n;
	}
	return true;
}

static void reply(int fd, const struct xsd_sockmsg *req, uint32_t type,
		  const void *body, size_t len)
{
	struct xsd_sockmsg h = *req;
	ssize_t rc;

	h.type = type;
	h.len = (uint32_t)len;
	pthread_mutex_lock(&wire_lock);
	rc = write(fd, &h, sizeof(h));
	if (rc == (ssize_t)sizeof(h) && len)
		rc = write(fd, body, len);
	pthread_mutex_unlock(&wire_lock);
	(void)rc; /* a client gone away is not the test's concern */
}

/* An XS_WATCH_EVENT for one watch: "path\0token\0". */
static void send_event(const struct watch *w)
{
	struct xsd_sockmsg h = {.type = XS_WATCH_EVENT};
	char body[2 * PATH_LEN];
	size_t plen = strlen(w->path) + 1, tlen = strlen(w->token) + 1;

	memcpy(body, w->path, plen);
	memcpy(body + plen, w->token, tlen);
	reply(w->fd, &h, XS_WATCH_EVENT, body, plen + tlen);
}

/* Fire every watch on path, as xenstored does for its special paths. */
static void fire_watch(const char *path)
{
	unsigned int i;

	pthread_mutex_lock(&store_lock);
	for (i = 0; i < WATCH_MAX; i++)
		if (watches[i].used && !strcmp(watches[i].path, path))
			send_event(&watches[i]);
	pthread_mutex_unlock(&store_lock);
}

/* XS_WATCH "path\0token\0": only special paths are needed here. */
static bool add_watch(int fd, const char *body, size_t len)
{
	size_t plen = strnlen(body, len);
	size_t tlen = len - plen - 1; /* wraps if no NUL: refused below */
	struct watch *w = NULL;
	unsigned int i;

	if (plen + 1 >= len || body[0] != '@' || plen >= PATH_LEN ||
	    tlen >= PATH_LEN)
		return false;
	pthread_mutex_lock(&store_lock);
	for (i = 0; !w && i < WATCH_MAX; i++)
		if (!watches[i].used)
			w = &watches[i];
	if (w) {
		w->used = true;
		w->fd = fd;
		memcpy(w->path, body, plen + 1);
		memcpy(w->token, body + plen + 1, tlen);
		w->token[tlen] = '\0';
	}
	pthread_mutex_unlock(&store_lock);
	return w != NULL;
}

static void drop_watches(int fd)
{
	unsigned int i;

	pthread_mutex_lock(&store_lock);
	for (i = 0; i < WATCH_MAX; i++)
		if (watches[i].fd == fd)
			watches[i].used = false;
	pthread_mutex_unlock(&store_lock);
}

static void reply_error(int fd, const struct xsd_sockmsg *req, const char *err)
{
	reply(fd, req, XS_ERROR, err, strlen(err) + 1);
}

/* One client connection: requests in, replies out, until it closes. */
static void *serve_client(void *arg)
{
	int fd = (int)(intptr_t)arg;
	static const char ok[] = "OK";
	struct xsd_sockmsg req;
	char body[MSG_MAX + 1], out[MSG_MAX];

	while (read_full(fd, &req, sizeof(req)) && req.len <= MSG_MAX &&
	       read_full(fd, body, req.len)) {
		static __thread char value[VALUE_LEN];
		char err[ERR_LEN];
		int n;

		while (store_stalled)
			sleep_ms(POLL_MS);
		if (store_hangs_up) {
			shutdown(fd, SHUT_RDWR);
			break;
		}
		body[req.len] = '\0';
		switch (req.type) {
		case XS_READ:
			store_error(body, err, sizeof(err));
			if (err[0])
				reply_error(fd, &req, err);
			else if (store_get(body, value, sizeof(value)))
				reply(fd, &req, XS_READ, value, strlen(value));
			else
				reply_error(fd, &req, "ENOENT");
			break;
		case XS_DIRECTORY:
			n = store_directory(body, out, sizeof(out));
			if (n < 0)
				reply_error(fd, &req, "ENOENT");
			else
				reply(fd, &req, XS_DIRECTORY, out, (size_t)n);
			break;
		case XS_WRITE: {
			size_t plen = strlen(body);

			if (plen >= req.len) {
				reply_error(fd, &req, "EINVAL");
				break;
			}
			snprintf(value, sizeof(value), "%.*s",
				 (int)(req.len - plen - 1), body + plen + 1);
			store_set(body, value);
			reply(fd, &req, XS_WRITE, ok, sizeof(ok));
			break;
		}
		case XS_RM:
			store_rm(body);
			reply(fd, &req, XS_RM, ok, sizeof(ok));
			break;
		case XS_WATCH: {
			struct watch *w;

			if (!add_watch(fd, body, req.len)) {
				reply_error(fd, &req, "EINVAL");
				break;
			}
			reply(fd, &req, XS_WATCH, ok, sizeof(ok));
			/* xenstored fires a new watch once at once. */
			pthread_mutex_lock(&store_lock);
			for (w = watches; w < watches + WATCH_MAX; w++)
				if (w->used && w->fd == fd &&
				    !strcmp(w->path, body))
					send_event(w);
			pthread_mutex_unlock(&store_lock);
			break;
		}
		case XS_UNWATCH:
			reply(fd, &req, XS_UNWATCH, ok, sizeof(ok));
			break;
		default:
			reply_error(fd, &req, "ENOSYS");
		}
	}
	drop_watches(fd);
	pthread_mutex_lock(&store_lock);
	for (unsigned int i = 0; i < nclients; i++)
		if (clients[i] == fd)
			clients[i] = clients[--nclients];
	pthread_mutex_unlock(&store_lock);
	close(fd);
	return NULL;
}

/* Close every client's connection (their threads then end). */
static void drop_clients(void)
{
	pthread_mutex_lock(&store_lock);
	for (unsigned int i = 0; i < nclients; i++)
		shutdown(clients[i], SHUT_RDWR);
	pthread_mutex_unlock(&store_lock);
}

static void *serve(void *arg)
{
	(void)arg;
	for (;;) {
		int fd = accept(listen_fd, NULL, NULL);
		pthread_t t;

		if (fd < 0)
			return NULL; /* closed at the end of the tests */
		pthread_mutex_lock(&store_lock);
		if (nclients < CLIENT_MAX)
			clients[nclients++] = fd;
		pthread_mutex_unlock(&store_lock);
		pthread_create(&t, NULL, serve_client, (void *)(intptr_t)fd);
		pthread_detach(t);
	}
}

static void start_server(void)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	pthread_t t;

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/smpalt-autoscale-XXXXXX");
	assert_non_null(mkdtemp(tmpdir));
	snprintf(sock_path, sizeof(sock_path), "%s/socket", tmpdir);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock_path);
	listen_fd = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_true(listen_fd >= 0);
	assert_int_equal(bind(listen_fd, (struct sockaddr *)&sa, sizeof(sa)),
			 0);
	assert_int_equal(listen(listen_fd, LISTEN_BACKLOG), 0);
	assert_int_equal(pthread_create(&t, NULL, serve, NULL), 0);
	pthread_detach(t);
	setenv("XENSTORED_PATH", sock_path, 1);
}

/* ------------------------------------------------------ the fake xl */

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / MS_PER_SEC, ms % MS_PER_SEC * NS_PER_MS};

	nanosleep(&ts, NULL);
}

/* Xen's figure for a domain, in the autoscaler's test-only source. */
static void write_xen_figure(const char *dir, unsigned int domid,
			     unsigned int pct)
{
	char path[PATH_LEN], tmp[PATH_LEN + 8];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%u", dir, domid);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		return;
	fprintf(f, "%u\n", pct);
	fclose(f);
	rename(tmp, path); /* whole, never half-written */
}

/* A truthful guest's demand (its file "<domid>.demand" beside), or -1. */
static long read_demand(const char *dir, unsigned int domid)
{
	char path[PATH_LEN];
	long demand = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%u.demand", dir, domid);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%ld", &demand) != 1)
			demand = -1;
		fclose(f);
	}
	return demand;
}

/*
 * xl vcpu-set [-i] DOMID N, as xl and the guest together would answer it:
 * cpu/<i>/availability for every vCPU, then data/smpalt/online and mode;
 * for a truthful guest, Xen then sees as much of its demand as N vCPUs
 * run.  It logs "DOMID N" (with "-i " in front when given) to FAKE_XL_LOG.
 * FAKE_XL_FAIL in the environment makes it fail, FAKE_XL_HANG hang.
 */
static int fake_xl(int argc, char **argv)
{
	char path[PATH_LEN], num[VALUE_LEN];
	struct xs_handle *h;
	unsigned int domid, n, i;
	bool ignore_host;
	FILE *logf;

	ignore_host = argc == 5 && !strcmp(argv[2], "-i");
	if (argc != 4 + ignore_host)
		return EXIT_USAGE;
	domid = (unsigned int)atoi(argv[2 + ignore_host]);
	n = (unsigned int)atoi(argv[3 + ignore_host]);
	logf = getenv("FAKE_XL_LOG") ? fopen(getenv("FAKE_XL_LOG"), "a") : NULL;
	if (logf) {
		fprintf(logf, "%s%u %u\n", ignore_host ? "-i " : "", domid, n);
		fclose(logf);
	}
	if (getenv("FAKE_XL_DELAY_MS"))
		sleep_ms(atol(getenv("FAKE_XL_DELAY_MS")));
	if (getenv("FAKE_XL_FAIL"))
		return EXIT_RUNTIME;
	while (getenv("FAKE_XL_HANG"))
		pause(); /* until killed */
	h = xs_open(0);
	if (!h)
		return EXIT_XENSTORE;
	for (i = 0; i < GUEST_MAXVCPUS; i++) {
		const char *v = i < n ? "online" : "offline";

		snprintf(path, sizeof(path),
			 "/local/domain/%u/cpu/%u/availability", domid, i);
		xs_write(h, XBT_NULL, path, v, strlen(v));
	}
	snprintf(path, sizeof(path), "/local/domain/%u/data/smpalt/online",
		 domid);
	snprintf(num, sizeof(num), "%u", n);
	xs_write(h, XBT_NULL, path, num, strlen(num));
	snprintf(path, sizeof(path), "/local/domain/%u/data/smpalt/mode",
		 domid);
	xs_write(h, XBT_NULL, path, n > 1 ? "smp" : "up",
		 strlen(n > 1 ? "smp" : "up"));
	xs_close(h);
	if (getenv(ENV_XEN_DIR)) {
		long demand = read_demand(getenv(ENV_XEN_DIR), domid);

		if (demand >= 0)
			write_xen_figure(getenv(ENV_XEN_DIR), domid,
					 (unsigned int)demand < n * 100
						 ? (unsigned int)demand
						 : n * 100);
	}
	return 0;
}

/* ------------------------------------------------------------ helpers */

static char out_path[DIR_LEN + 16], csv_path[DIR_LEN + 16],
	xl_log[DIR_LEN + 16], xen_dir[DIR_LEN + 16], conf_path[DIR_LEN + 16],
	prom_path[DIR_LEN + 16];

/* What Xen sees a domain use, in percent of one vCPU. */
static void set_xen(unsigned int domid, unsigned int pct)
{
	write_xen_figure(xen_dir, domid, pct);
}

/* The host: its CPU count, and how much of one CPU no domain ran. */
static void set_host(unsigned int cpus, unsigned int idle_pct)
{
	char path[PATH_LEN];
	FILE *f;

	snprintf(path, sizeof(path), "%s/host-cpus", xen_dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%u\n", cpus);
	fclose(f);
	snprintf(path, sizeof(path), "%s/host-idle", xen_dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%u\n", idle_pct);
	fclose(f);
}

/* The guest's own claim in data/smpalt/load, whatever it is. */
static void set_claim(unsigned int domid, const char *claim)
{
	store_setf(claim, "/local/domain/%u/data/smpalt/load", domid);
}

/* A truthful guest with this much work on `online` vCPUs: it claims the
 * demand, Xen sees as much of it as the vCPUs run. */
static void set_demand(unsigned int domid, unsigned int demand,
		       unsigned int online)
{
	char path[PATH_LEN], num[VALUE_LEN];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%u.demand", xen_dir, domid);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%u\n", demand);
	fclose(f);
	snprintf(num, sizeof(num), "%u", demand);
	set_claim(domid, num);
	set_xen(domid, demand < online * 100 ? demand : online * 100);
}

/* A guest of maxvcpus vCPUs, `online` of them up, as xl and the guest
 * leave it in xenstore (its /vm UUID ends in its domid). */
static void add_guest_sized(unsigned int domid, const char *name,
			    unsigned int maxvcpus, unsigned int online)
{
	char num[VALUE_LEN];
	unsigned int i;

	store_setf(name, "/local/domain/%u/name", domid);
	snprintf(num, sizeof(num), "/vm/00000000-0000-4000-8000-%012u", domid);
	store_setf(num, "/local/domain/%u/vm", domid);
	for (i = 0; i < maxvcpus; i++)
		store_setf(i < online ? "online" : "offline",
			   "/local/domain/%u/cpu/%u/availability", domid, i);
	snprintf(num, sizeof(num), "%u", online);
	store_setf(num, "/local/domain/%u/data/smpalt/online", domid);
	store_setf(online > 1 ? "smp" : "up",
		   "/local/domain/%u/data/smpalt/mode", domid);
	store_setf("100", "/local/domain/%u/data/smpalt/throughput", domid);
}

/* An smpalt guest at 1 vCPU; load: its demand (truthful), or NULL: it
 * publishes none and Xen has no figure for it. */
static void add_guest(unsigned int domid, const char *name, const char *load)
{
	add_guest_sized(domid, name, GUEST_MAXVCPUS, 1);
	if (load)
		set_demand(domid, (unsigned int)atoi(load), 1);
}

/* A guest created while the autoscaler runs: xl introduces it. */
static void create_guest(unsigned int domid, const char *name, const char *load)
{
	add_guest(domid, name, load);
	fire_watch("@introduceDomain");
}

/* A guest destroyed: its home goes, then the domain is released. */
static void destroy_guest(unsigned int domid)
{
	char path[PATH_LEN];

	snprintf(path, sizeof(path), "/local/domain/%u", domid);
	store_rm(path);
	fire_watch("@releaseDomain");
}

/* An empty directory of Xen figures. */
static void clear_xen_dir(void)
{
	char path[PATH_LEN];
	unsigned int id;

	mkdir(xen_dir, 0700);
	snprintf(path, sizeof(path), "%s/host-cpus", xen_dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/host-idle", xen_dir);
	unlink(path);
	for (id = 0; id < FIRST_MANY_DOMID + MANY_DOMAINS; id++) {
		snprintf(path, sizeof(path), "%s/%u", xen_dir, id);
		unlink(path);
		snprintf(path, sizeof(path), "%s/%u.demand", xen_dir, id);
		unlink(path);
	}
}

/* The last program started, while it may still run. */
static pid_t last_started;

static int setup(void **state)
{
	(void)state;
	/* One a failed test left running would change this test's guests. */
	if (last_started > 0 && waitpid(last_started, NULL, WNOHANG) == 0) {
		kill(last_started, SIGKILL);
		waitpid(last_started, NULL, 0);
	}
	last_started = 0;
	pthread_mutex_lock(&store_lock);
	memset(store, 0, sizeof(store));
	pthread_mutex_unlock(&store_lock);
	store_set("/local/domain/0/name", "Domain-0");
	snprintf(out_path, sizeof(out_path), "%s/out.log", tmpdir);
	snprintf(csv_path, sizeof(csv_path), "%s/as.csv", tmpdir);
	snprintf(xl_log, sizeof(xl_log), "%s/xl.log", tmpdir);
	snprintf(xen_dir, sizeof(xen_dir), "%s/xen", tmpdir);
	snprintf(conf_path, sizeof(conf_path), "%s/as.conf", tmpdir);
	unlink(out_path);
	unlink(csv_path);
	unlink(xl_log);
	clear_xen_dir();
	setenv("FAKE_XL_LOG", xl_log, 1);
	setenv(ENV_XEN_DIR, xen_dir, 1);
	unsetenv("FAKE_XL_FAIL");
	unsetenv("FAKE_XL_DELAY_MS");
	unsetenv("FAKE_XL_HANG");
	store_stalled = false;
	store_hangs_up = false;
	return 0;
}

/*
 * Start the program with the arguments first, then those of ap up to a
 * NULL, after "--xl <this test>" when fake_xl; its output to out_path.
 */
static pid_t spawn_autoscaler(bool fake_xl, const char *first, va_list ap)
{
	const char *argv[ARGS_MAX];
	unsigned int n = 0;
	pid_t pid;

	argv[n++] = AUTOSCALER_BIN;
	if (fake_xl) {
		argv[n++] = "--xl";
		argv[n++] = self_exe;
	}
	for (argv[n] = first; argv[n] && n < ARGS_MAX - 1;
	     argv[++n] = va_arg(ap, const char *))
		;
	argv[n] = NULL;

	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		char me[NUM_LEN];

		/* systemd names the process its watchdog is for. */
		snprintf(me, sizeof(me), "%d", (int)getpid());
		if (getenv("WATCHDOG_USEC"))
			setenv("WATCHDOG_PID", me, 1);
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		execv(AUTOSCALER_BIN, (char *const *)argv);
		_exit(127);
	}
	return pid;
}

/* Start the autoscaler with args (NULL-terminated), output to out_path. */
static pid_t start_autoscaler(const char *first, ...)
{
	va_list ap;
	pid_t pid;

	va_start(ap, first);
	pid = spawn_autoscaler(true, first, ap);
	va_end(ap);
	last_started = pid;
	return pid;
}

static int wait_exit(pid_t pid)
{
	int status;

	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

static void slurp(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n = 0;

	if (f) {
		n = fread(buf, 1, len - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
}

static void expect_in_file(const char *path, const char *text)
{
	static char buf[TEXT_MAX];

	slurp(path, buf, sizeof(buf));
	if (!strstr(buf, text))
		fail_msg("'%s' not in %s:\n%s", text, path, buf);
}

/* The program exited with status want; else its output is in the report. */
static void expect_exit(pid_t pid, int want)
{
	static char buf[TEXT_MAX];
	int rc = wait_exit(pid);

	if (rc != want) {
		slurp(out_path, buf, sizeof(buf));
		fail_msg("exit status %d, wanted %d; its output:\n%s", rc, want,
			 buf);
	}
}

static void expect_not_in_file(const char *path, const char *text)
{
	static char buf[TEXT_MAX];

	slurp(path, buf, sizeof(buf));
	if (strstr(buf, text))
		fail_msg("'%s' in %s:\n%s", text, path, buf);
}

/* Does the file come to contain text within ms? */
static bool wait_for_text_within(const char *path, const char *text, int ms)
{
	static char buf[TEXT_MAX];
	int waited;

	for (waited = 0; waited < ms; waited += POLL_MS) {
		slurp(path, buf, sizeof(buf));
		if (strstr(buf, text))
			return true;
		sleep_ms(POLL_MS);
	}
	return false;
}

/* Wait until the file contains text; false after WAIT_MS. */
static bool wait_for_text(const char *path, const char *text)
{
	static char buf[TEXT_MAX];
	int waited;

	for (waited = 0; waited < WAIT_MS; waited += POLL_MS) {
		slurp(path, buf, sizeof(buf));
		if (strstr(buf, text))
			return true;
		sleep_ms(POLL_MS);
	}
	/* What was there instead, for the failure's report. */
	fprintf(stderr, "--- %s, waiting for \"%s\":\n%s---\n", path, text,
		buf);
	return false;
}

static unsigned int count_lines(const char *path)
{
	static char buf[TEXT_MAX];
	unsigned int n = 0;
	char *p;

	slurp(path, buf, sizeof(buf));
	for (p = buf; (p = strchr(p, '\n')); p++)
		n++;
	return n;
}

/* How many times text occurs in the file at path. */
static unsigned int count_text(const char *path, const char *text)
{
	static char buf[TEXT_MAX];
	unsigned int n = 0;
	char *p;

	slurp(path, buf, sizeof(buf));
	for (p = buf; (p = strstr(p, text)); p += strlen(text))
		n++;
	return n;
}

/* -------------------------------------------------------------- tests */

static void unreachable_xenstore_exits_3_with_a_message(void **state)
{
	char nowhere[DIR_LEN + 16];
	pid_t pid;

	(void)state;
	snprintf(nowhere, sizeof(nowhere), "%s/no-socket", tmpdir);
	setenv("XENSTORED_PATH", nowhere, 1);
	pid = start_autoscaler("--once", "guest", NULL);
	setenv("XENSTORED_PATH", sock_path, 1);
	assert_int_equal(wait_exit(pid), EXIT_XENSTORE);
	expect_in_file(out_path, "cannot connect to xenstore");
}

static void bad_option_exits_2_naming_it(void **state)
{
	(void)state;
	assert_int_equal(
		wait_exit(start_autoscaler("--low", "90", "guest", NULL)),
		EXIT_USAGE);
	expect_in_file(out_path, "low threshold 90% must be below");
	assert_int_equal(
		wait_exit(start_autoscaler("--period", "x", "guest", NULL)),
		EXIT_USAGE);
	expect_in_file(out_path, "--period: 'x'");
	assert_int_equal(wait_exit(start_autoscaler(NULL)), EXIT_USAGE);
	expect_in_file(out_path, "no DOMAIN given");
}

static void missing_domain_exits_4_naming_it(void **state)
{
	(void)state;
	add_guest(GUEST_DOMID, "guest", "0");
	assert_int_equal(wait_exit(start_autoscaler("--once", "nosuch", NULL)),
			 EXIT_NO_DOMAIN);
	expect_in_file(out_path, "no domain 'nosuch'");
	assert_int_equal(wait_exit(start_autoscaler("--once", "77", NULL)),
			 EXIT_NO_DOMAIN);
	expect_in_file(out_path, "no domain '77'");
}

static void load_drives_vcpus_up_then_down_and_fills_the_csv(void **state)
{
	pid_t pid;

	(void)state;
	add_guest(GUEST_DOMID, "guest", "0");
	pid = start_autoscaler(FAST_ARGS, "--csv", csv_path, "guest", NULL);
	sleep_ms(POLL_MS * 20);
	assert_int_equal(count_lines(xl_log), 0); /* idle: no change */

	set_demand(GUEST_DOMID, 250, 1);
	assert_true(wait_for_text(xl_log, "3 4\n")); /* ceil(250/80) */
	assert_true(wait_for_text(csv_path, ",guest,250,4,smp,100,"));
	sleep_ms(POLL_MS * 10); /* in the band now: no further change */
	set_demand(GUEST_DOMID, 0, 4);
	assert_true(wait_for_text(xl_log, "3 1\n"));
	sleep_ms(POLL_MS * 10);

	kill(pid, SIGTERM);
	assert_int_equal(wait_exit(pid), 0);
	assert_int_equal(count_lines(xl_log), 2); /* no flapping */
	expect_in_file(out_path, "guest (domain 3): load 250%, vcpus 1 -> 4: "
				 "over-high: load 250% > 80%");
	expect_in_file(out_path, "vcpus 4 -> 1: under-low: load 0% < 160%");
	expect_in_file(out_path, "stopped by SIGTERM");
	expect_in_file(out_path, "guest (domain 3): xl: vcpus 4 done in");
	expect_in_file(csv_path, "time_s,domain,load,vcpus,mode,throughput,"
				 "unix_time,domid,signal,guest_load,xen_load,"
				 "guest_online\n");
	/* The guest's figure, with Xen's beside it (100% of 1 vCPU, then
	 * 250% of 4). */
	expect_in_file(csv_path, ",guest,250,4,smp,100,");
	expect_in_file(csv_path, ",3,guest,250,100,1\n");
	expect_in_file(csv_path, ",3,guest,250,250,4\n");
	expect_in_file(csv_path, ",guest,0,1,up,100,");
	assert_true(count_lines(csv_path) > 10);
}

static void domid_works_like_a_name_and_max_is_capped(void **state)
{
	(void)state;
	add_guest(GUEST_DOMID, "guest", "1000");
	assert_int_equal(
		wait_exit(start_autoscaler("--once", "--max", "8", "3", NULL)),
		0);
	expect_in_file(out_path, "--max 8 above its maxvcpus 4: using 4");
	expect_in_file(xl_log, "3 4\n");
}

static void once_dry_run_decides_without_running_xl(void **state)
{
	char v[VALUE_LEN];

	(void)state;
	add_guest(GUEST_DOMID, "guest", "250");
	assert_int_equal(wait_exit(start_autoscaler("--once", "--dry-run",
						    "guest", NULL)),
			 0);
	expect_in_file(out_path, "vcpus 1 -> 4: over-high");
	expect_in_file(out_path, "(dry run)");
	assert_int_equal(count_lines(xl_log), 0);
	assert_true(
		store_get("/local/domain/3/cpu/1/availability", v, sizeof(v)));
	assert_string_equal(v, "offline");
}

static void failing_xl_is_reported(void **state)
{
	(void)state;
	add_guest(GUEST_DOMID, "guest", "250");
	setenv("FAKE_XL_FAIL", "1", 1);
	assert_int_equal(wait_exit(start_autoscaler("--once", "guest", NULL)),
			 EXIT_RUNTIME);
	expect_in_file(out_path, "xl: vcpus 4 failed (exit status 1)");
	expect_in_file(out_path, "1 failed change");
}

/* Sampling goes on while xl runs; SIGTERM then waits for xl to end. */
static void slow_xl_does_not_stop_sampling_nor_get_orphaned(void **state)
{
	unsigned int rows_before;
	pid_t pid;

	(void)state;
	add_guest(GUEST_DOMID, "guest", "250");
	setenv("FAKE_XL_DELAY_MS", SLOW_XL_MS, 1);
	pid = start_autoscaler(FAST_ARGS, "--csv", csv_path, "guest", NULL);
	assert_true(wait_for_text(xl_log, "3 4\n"));
	rows_before = count_lines(csv_path);
	sleep_ms(POLL_MS * 15);
	assert_true(count_lines(csv_path) >= rows_before + 2);
	assert_int_equal(count_lines(xl_log), 1); /* no second decision */
	kill(pid, SIGTERM);
	assert_int_equal(wait_exit(pid), 0);
	expect_in_file(out_path, "xl: vcpus 4 done in");
	expect_in_file(out_path, "stopped by SIGTERM");
}

static void vanished_domain_is_dropped_and_the_daemon_stays_up(void **state)
{
	pid_t pid;

	(void)state;
	add_guest(GUEST_DOMID, "guest", "0");
	add_guest(OTHER_DOMID, "other", "0");
	pid = start_autoscaler(FAST_ARGS, "guest", "other", NULL);
	assert_true(wait_for_text(out_path, "watching other"));
	destroy_guest(GUEST_DOMID);
	assert_true(wait_for_text(out_path,
				  "guest (domain 3): disappeared: dropped"));
	destroy_guest(OTHER_DOMID);
	assert_true(wait_for_text(out_path,
				  "other (domain 4): disappeared: dropped"));
	sleep_ms(POLL_MS * 10);
	assert_int_equal(waitpid(pid, NULL, WNOHANG), 0); /* still running */
	kill(pid, SIGTERM);
	assert_int_equal(wait_exit(pid), 0);
}

static void absent_load_is_logged_once_and_recorded_empty(void **state)
{
	pid_t pid;

	(void)state;
	add_guest(GUEST_DOMID, "guest", NULL);
	pid = start_autoscaler(FAST_ARGS, "--duration", "0.3", "--csv",
			       csv_path, "guest", NULL);
	assert_int_equal(wait_exit(pid), 0);
	expect_in_file(out_path, "guest (domain 3): no CPU time from Xen for "
				 "it: not deciding until there is");
	expect_in_file(csv_path, ",guest,,1,up,100,");
	assert_int_equal(count_lines(xl_log), 0);
	pid = start_autoscaler(FAST_ARGS, "--duration", "0.3", "--signal",
			       "guest", "guest", NULL);
	assert_int_equal(wait_exit(pid), 0);
	expect_in_file(out_path, "data/smpalt/load absent");
}

static void csv_quotes_a_name_with_a_comma(void **state)
{
	(void)state;
	add_guest(GUEST_DOMID, "web,\"1\"", "0");
	assert_int_equal(wait_exit(start_autoscaler("--once", "--csv", csv_path,
						    "web,\"1\"", NULL)),
			 0);
	expect_in_file(csv_path, ",\"web,\"\"1\"\"\",0,1,up,100,");
}

static void version_names_the_program(void **state)
{
	(void)state;
	assert_int_equal(wait_exit(start_autoscaler("--version", NULL)), 0);
	expect_in_file(out_path, "smpalt-autoscaler ");
}

/* Started before any guest: a glob adopts the guest created later. */
static void started_first_it_adopts_a_guest_by_glob(void **state)
{
	pid_t pid;

	(void)state;
	pid = start_autoscaler(FAST_ARGS, "gu*", NULL);
	assert_true(wait_for_text(out_path, "no domain selected yet"));
	sleep_ms(POLL_MS * 10);
	assert_int_equal(waitpid(pid, NULL, WNOHANG), 0); /* waiting */
	create_guest(OTHER_DOMID, "other", "250");	  /* not matched */
	create_guest(GUEST_DOMID, "guest", "250");
	assert_true(wait_for_text(out_path, "watching guest (domain 3)"));
	assert_true(wait_for_text(xl_log, "3 4\n"));
	kill(pid, SIGTERM);
	assert_int_equal(wait_exit(pid), 0);
	expect_not_in_file(out_path, "watching other");
	expect_not_in_file(xl_log, "4 ");
}

/* xl reboot: the domain goes, comes back with the same name, a new id. */
static void rebooted_guest_is_followed_under_its_new_domid(void **state)
{
	pid_t pid;

	(void)state;
	add_guest(GUEST_DOMID, "guest", "0");
	pid = start_autoscaler(FAST_ARGS, "--all", NULL);
	assert_true(wait_for_text(out_path, "watching guest (domain 3)"));
	destroy_guest(GUEST_DOMID);
	assert_true(wait_for_text(out_path,
				  "guest (domain 3): disappeared: dropped"));
	create_guest(REBOOTED_DOMID, "guest", "250");
	assert_true(wait_for_text(out_path, "watching guest (domain 5)"));
	assert_true(wait_for_text(xl_log, "5 4\n"));
	kill(pid, SIGTERM);
	assert_int_equal(wait_exit(pid), 0);
	expect_not_in_file(xl_log, "3 ");
}

/* --all takes every guest, never dom0 (even with cpu/ keys). */
static void all_takes_every_guest_but_dom0(void **state)
{
	(void)state;
	store_set("/local/domain/0/cpu/0/availability", "online");
	store_set("/local/domain/0/data/smpalt/load", "1000");
	add_guest(GUEST_DOMID, "guest", "250");
	add_guest(OTHER_DOMID, "other", "0");
	assert_int_equal(wait_exit(start_autoscaler("--once", "--all", NULL)),
			 0);
	expect_in_file(out_path, "watching guest (domain 3)");
	expect_in_file(out_path, "watching other (domain 4)");
	expect_not_in_file(out_path, "Domain-0");
	expect_in_file(xl_log, "3 4\n");
	assert_int_equal(count_lines(xl_log), 1);
}

static void once_with_a_glob_matching_nothing_exits_4(void **state)
{
	(void)state;
	add_guest(GUEST_DOMID, "guest", "0");
	assert_int_equal(wait_exit(start_autoscaler("--once", "web-*", NULL)),
			 EXIT_NO_DOMAIN);
	expect_in_file(out_path, "no domain 'web-*'");
}

/* xl vcpu-set -i only with --ignore-host: it overcommits the host. */
static void xl_runs_without_i_unless_ignore_host(void **state)
{
	(void)state;
	add_guest(GUEST_DOMID, "guest", "250");
	assert_int_equal(wait_exit(start_autoscaler("--once", "guest", NULL)),
			 0);
	expect_in_file(xl_log, "3 4\n");
	expect_not_in_file(xl_log, "-i");
	add_guest(GUEST_DOMID, "guest", "250");
	assert_int_equal(wait_exit(start_autoscaler("--once", "--ignore-host",
						    "guest", NULL)),
			 0);
	expect_in_file(xl_log, "-i 3 4\n");
}

/* Log rotation: the CSV is moved away, SIGHUP makes a new one. */
static void sighup_reopens_the_csv(void **state)
{
	char rotated[DIR_LEN + 16];
	pid_t pid;

	(void)state;
	snprintf(rotated, sizeof(rotated), "%s/as.csv.1", tmpdir);
	add_guest(GUEST_DOMID, "guest", "0");
	pid = start_autoscaler(FAST_ARGS, "--csv", csv_path, "guest", NULL);
	assert_true(wait_for_text(csv_path, ",guest,0,1,up,100,"));
	assert_int_equal(rename(csv_path, rotated), 0);
	kill(pid, SIGHUP);
	assert_true(wait_for_text(out_path, "SIGHUP: reopened the CSV"));
	assert_true(wait_for_text(csv_path, ",guest,0,1,up,100,"));
	kill(pid, SIGTERM);
	assert_int_equal(wait_exit(pid), 0);
	expect_in_file(csv_path, "time_s,domain,load,vcpus,mode,throughput,");
	expect_in_file(rotated, ",guest,0,1,up,100,");
	unlink(rotated);
}

/* Output not a terminal: "<N>" priorities, then elapsed and UTC time. */
static void log_lines_carry_priority_and_wall_time(void **state)
{
	(void)state;
	add_guest(GUEST_DOMID, "guest", "250");
	assert_int_equal(wait_exit(start_autoscaler("--once", "guest", NULL)),
			 0);
	expect_in_file(out_path, "<6>[");
	expect_in_file(out_path, "Z watching guest (domain 3)");
	add_guest(GUEST_DOMID, "guest", "250");
	assert_int_equal(wait_exit(start_autoscaler("--once", "--log-priority",
						    "never", "nosuch", NULL)),
			 EXIT_NO_DOMAIN);
	expect_not_in_file(out_path, "<3>");
	expect_in_file(out_path, "Z smpalt-autoscaler: error: no domain");
	assert_int_equal(wait_exit(start_autoscaler("--once", "nosuch", NULL)),
			 EXIT_NO_DOMAIN);
	expect_in_file(out_path, "<3>[");
}

/* A claim beyond 100% x maxvcpus is cut to it, and says so. */
static void guest_claim_is_capped_at_its_maxvcpus(void **state)
{
	(void)state;
	add_guest(GUEST_DOMID, "guest", "100000");
	assert_int_equal(wait_exit(start_autoscaler("--once", "--csv", csv_path,
						    "guest", NULL)),
			 0);
	expect_in_file(out_path, "data/smpalt/load 100000% capped");
	expect_in_file(csv_path, ",guest,400,1,up,100,");
	expect_in_file(csv_path, ",3,guest-capped,100000,100,1\n");
}

/* Without Xen (no privcmd) --signal xen cannot work: it says so. */
static void signal_xen_without_xen_exits_6(void **state)
{
	(void)state;
	if (!access("/dev/xen/privcmd", F_OK))
		skip(); /* a dom0: Xen's accounting is there */
	add_guest(GUEST_DOMID, "guest", "250");
	unsetenv(ENV_XEN_DIR);
	assert_int_equal(wait_exit(start_autoscaler("--once", "--signal", "xen",
						    "guest", NULL)),
			 EXIT_XENSTAT);
	expect_in_file(out_path, "needed by --signal xen");
	/* auto neither: it never falls back to the guest's claim alone. */
	assert_int_equal(wait_exit(start_autoscaler("--once", "guest", NULL)),
			 EXIT_XENSTAT);
	expect_in_file(out_path, "needed by --signal auto, which bounds the "
				 "guests' claims by it");
	assert_int_equal(count_lines(xl_log), 0);
	/* --signal guest is the explicit choice to trust the claim. */
	assert_int_equal(wait_exit(start_autoscaler("--once", "--signal",
						    "guest", "guest", NULL)),
			 0);
	expect_in_file(xl_log, "3 4\n");
	assert_int_equal(
		wait_exit(start_autoscaler("--signal", "cpu", "guest", NULL)),
		EXIT_USAGE);
	expect_in_file(out_path, "--signal: 'cpu'");
}

/* The exit status of pid, which must end within EXIT_WAIT_MS (else it is
 * killed and the test fails: a hang is a failure, not a stuck test). */
static int wait_exit_bounded(pid_t pid)
{
	int waited, status;

	for (waited = 0; waited < EXIT_WAIT_MS; waited += POLL_MS) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		assert_true(r >= 0);
		if (r == pid) {
			assert_true(WIFEXITED(status));
			return WEXITSTATUS(status);
		}
		sleep_ms(POLL_MS);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	fail_msg("still running after %d ms", EXIT_WAIT_MS);
	return -1;
}

/* The exit status of pid if it ends within ms; else -1 (killed). */
static int wait_exit_within(pid_t pid, int ms)
{
	int waited, status;

	for (waited = 0; waited < ms; waited += POLL_MS) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		assert_true(r >= 0);
		if (r == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
		sleep_ms(POLL_MS);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return -1;
}

static void stop_autoscaler(pid_t pid)
{
	assert_int_equal(waitpid(pid, NULL, WNOHANG), 0); /* still up */
	kill(pid, SIGTERM);
	assert_int_equal(wait_exit_bounded(pid), 0);
}

/* ------------------------------------------------ hostile guests */

/* Xen sees 45% of its 1 vCPU; it claims 400%: it does not grow. */
static void inflated_claim_does_not_grow_an_idle_guest(void **state)
{
	pid_t pid;

	(void)state;
	add_guest(GUEST_DOMID, "guest", NULL);
	set_claim(GUEST_DOMID, "400");
	set_xen(GUEST_DOMID, 45);
	pid = start_autoscaler(FAST_ARGS, "--duration", "1", "--csv", csv_path,
			       "guest", NULL);
	assert_int_equal(wait_exit_bounded(pid), 0);
	assert_int_equal(count_lines(xl_log), 0);
	expect_in_file(out_path, "data/smpalt/load 400% capped (maxvcpus 4, "
				 "Xen measures 45% on 1 vCPU)");
	/* The count's worth of high was the load: 80% of 1 vCPU. */
	expect_in_file(csv_path, ",guest,80,1,up,100,");
	expect_in_file(csv_path, ",3,guest-capped,400,45,1\n");
}

/*
 * A guest that flips its claim between one the clamp cuts (400%) and one
 * it lets stand (50%, Xen seeing 45% of its 1 vCPU) every period changes
 * where its load comes from each time: of the lines that says, each kind
 * is logged AS_RATELIMIT_BURST (5) times a minute per domain, however
 * often the guest flips.
 */
static void flipping_claim_logs_a_burst_a_minute(void **state)
{
	unsigned int i;
	pid_t pid;

	(void)state;
	add_guest(GUEST_DOMID, "guest", NULL);
	set_claim(GUEST_DOMID, "50");
	set_xen(GUEST_DOMID, 45);
	pid = start_autoscaler(FAST_ARGS, "guest", NULL);
	assert_true(wait_for_text(out_path, "load from the guest's"));
	/* 30 flips each way, each held longer than the 50 ms period. */
	for (i = 0; i < 30; i++) {
		set_claim(GUEST_DOMID, "400");
		sleep_ms(POLL_MS * 8);
		set_claim(GUEST_DOMID, "50");
		sleep_ms(POLL_MS * 8);
	}
	stop_autoscaler(pid);
	assert_int_equal(count_lines(xl_log), 0);
	assert_int_equal(count_text(out_path, "data/smpalt/load 400% capped"),
			 5);
	assert_int_equal(count_text(out_path, "load from the guest's"), 5);
}

/*
 * A guest that says it has 64 vCPUs online while dom0 has set 1: the
 * CSV's vcpus is the count dom0 set, what the guest says stands apart in
 * guest_online.
 */
static void csv_vcpus_is_dom0s_count_not_the_guests(void **state)
{
	char path[PATH_LEN];
	pid_t pid;

	(void)state;
	add_guest(GUEST_DOMID, "guest", NULL);
	set_claim(GUEST_DOMID, "50");
	set_xen(GUEST_DOMID, 45);
	snprintf(path, sizeof(path), "/local/domain/%u/data/smpalt/online",
		 GUEST_DOMID);
	store_set(path, "64");
	pid = start_autoscaler(FAST_ARGS, "--duration", "1", "--csv", csv_path,
			       "guest", NULL);
	assert_int_equal(wait_exit_bounded(pid), 0);
	assert_int_equal(count_lines(xl_log), 0);
	expect_in_file(csv_path, ",guest,50,1,up,100,");
	expect_in_file(csv_path, ",3,guest,50,45,64\n");
	expect_not_in_file(csv_path, ",guest,50,64,");
}

/* At 4 vCPUs, Xen sees 45%, it claims 400%: it is scaled down. */
static void inflated_claim_does_not_keep_an_idle_guest_up(void **state)
{
	pid_t pid;

	(void)state;
	add_guest_sized(GUEST_DOMID, "guest", GUEST_MAXVCPUS, GUEST_MAXVCPUS);
	set_claim(GUEST_DOMID, "400");
	set_xen(GUEST_DOMID, 45);
	pid = start_autoscaler(FAST_ARGS, "guest", NULL);
	assert_true(wait_for_text(xl_log, "3 1\n")); /* ceil(45/80) */
	assert_true(wait_for_text(out_path, "xl: vcpus 1 done"));
	sleep_ms(POLL_MS * 20);
	stop_autoscaler(pid);
	/* At 1 vCPU 45% is in the band: the claim holds it there. */
	assert_int_equal(count_lines(xl_log), 1);
	expect_in_file(out_path, "load 45%, vcpus 4 -> 1: under-low");
}

/*
 * A 4-CPU host with 200% idle: the guest uses 45% of its 1 vCPU and
 * claims 400%.  Other domains may have kept it waiting, but that wait
 * never raises a count: it stays at 1 vCPU.
 */
static void
busy_host_does_not_grow_a_guest_claiming_more_than_it_uses(void **state)
{
	pid_t pid;

	(void)state;
	set_host(4, 200);
	add_guest(GUEST_DOMID, "guest", NULL);
	set_claim(GUEST_DOMID, "400");
	set_xen(GUEST_DOMID, 45);
	pid = start_autoscaler(FAST_ARGS, "--duration", "1", "--csv", csv_path,
			       "guest", NULL);
	assert_int_equal(wait_exit_bounded(pid), 0);
	assert_int_equal(count_lines(xl_log), 0);
	expect_in_file(out_path, "data/smpalt/load 400% capped (maxvcpus 4, "
				 "Xen measures 45% on 1 vCPU, host idle "
				 "200%)");
	expect_in_file(csv_path, ",guest,80,1,up,100,");
	expect_in_file(csv_path, ",3,guest-capped,400,45,1\n");
}

/*
 * The same guest at 4 vCPUs using 150% of them (under 4 x 40%): beside
 * other domains using 155% (95% idle) it may have waited for them, so it
 * keeps 4; beside dom0's 5% (245% idle) the host is busy by the guest's
 * own use, which is no wait, so it goes down to ceil(150 / 80) = 2.
 */
static void guest_own_use_does_not_keep_its_vcpus(void **state)
{
	pid_t pid;

	(void)state;
	set_host(4, 95);
	add_guest_sized(GUEST_DOMID, "guest", GUEST_MAXVCPUS, GUEST_MAXVCPUS);
	set_claim(GUEST_DOMID, "400");
	set_xen(GUEST_DOMID, 150);
	pid = start_autoscaler(FAST_ARGS, "guest", NULL);
	assert_true(wait_for_text(out_path, "watching guest (domain 3)"));
	sleep_ms(POLL_MS * 20);
	assert_int_equal(count_lines(xl_log), 0); /* held at 4 */
	set_host(4, 245);
	assert_true(wait_for_text(xl_log, "3 2\n"));
	assert_true(wait_for_text(out_path, "xl: vcpus 2 done"));
	sleep_ms(POLL_MS * 20);
	stop_autoscaler(pid);
	/* At 2 vCPUs 150% is in the band: it stays there. */
	assert_int_equal(count_lines(xl_log), 1);
	expect_in_file(out_path, "load 150%, vcpus 4 -> 2: under-low");
}

/*
 * Claims that flap, are not numbers, carry terminal escapes, are huge,
 * among hundreds of other keys the guest writes: Xen sees 45% of 1 vCPU,
 * and nothing changes, nothing of it reaches the log.
 */
static void flapping_and_garbage_claims_change_nothing(void **state)
{
	static const char *const claims[] = {
		"400",
		"0",
		"4294967295",
		"99999999999999999999999999",
		"\x1b]0;owned\x07\x1b[2J250",
		"-5",
		"2.5e2",
		" 250",
		"250\n",
		"0x190",
		"",
	};
	char huge[VALUE_LEN];
	unsigned int i, round;
	pid_t pid;

	(void)state;
	add_guest(GUEST_DOMID, "guest", NULL);
	set_xen(GUEST_DOMID, 45);
	for (i = 0; i < MANY_KEYS; i++) {
		char path[PATH_LEN];

		snprintf(path, sizeof(path),
			 "/local/domain/%u/data/smpalt/junk%u", GUEST_DOMID, i);
		store_set(path, "\x1b[31m999");
	}
	memset(huge, '9', sizeof(huge) - 1);
	huge[sizeof(huge) - 1] = '\0';
	pid = start_autoscaler(FAST_ARGS, "--csv", csv_path, "guest", NULL);
	assert_true(wait_for_text(out_path, "watching guest (domain 3)"));
	/* Each claim stands longer than the hold (0.1 s), some flap
	 * between rounds of it. */
	for (round = 0; round < 2; round++) {
		for (i = 0; i < sizeof(claims) / sizeof(claims[0]); i++) {
			set_claim(GUEST_DOMID, claims[i]);
			sleep_ms(POLL_MS * (round ? 3 : 15));
		}
		set_claim(GUEST_DOMID, huge);
		sleep_ms(POLL_MS * 15);
	}
	stop_autoscaler(pid);
	assert_int_equal(count_lines(xl_log), 0);
	expect_not_in_file(out_path, "\x1b");
	expect_not_in_file(out_path, "->");
}

/* ------------------------------------------------ calm under churn */

/* Demand up, down, up again: the third change waits for the window. */
static void rate_limit_holds_changes_back(void **state)
{
	pid_t pid;

	(void)state;
	add_guest(GUEST_DOMID, "guest", "250");
	pid = start_autoscaler(FAST_ARGS, "--rate-max", "2", "--rate-window",
			       "600", "guest", NULL);
	assert_true(wait_for_text(xl_log, "3 4\n"));
	set_demand(GUEST_DOMID, 0, 4);
	assert_true(wait_for_text(xl_log, "3 1\n"));
	set_demand(GUEST_DOMID, 250, 1);
	assert_true(wait_for_text(out_path, "guest (domain 3): load 250%, "
					    "vcpus 1 -> 4 held back: "
					    "rate-limit for "));
	stop_autoscaler(pid);
	assert_int_equal(count_lines(xl_log), 2);
}

/* After a change, none for the cooldown, whatever the load says. */
static void cooldown_holds_the_next_change_back(void **state)
{
	pid_t pid;

	(void)state;
	add_guest(GUEST_DOMID, "guest", "250");
	pid = start_autoscaler(FAST_ARGS, "--cooldown", "600", "guest", NULL);
	assert_true(wait_for_text(xl_log, "3 4\n"));
	set_demand(GUEST_DOMID, 0, 4);
	assert_true(wait_for_text(out_path, "vcpus 4 -> 1 held back: "
					    "cooldown for "));
	stop_autoscaler(pid);
	assert_int_equal(count_lines(xl_log), 1);
	expect_in_file(out_path, "1 held back");
}

/* A failing xl: each failure doubles the wait before the next try. */
static void failures_back_off(void **state)
{
	pid_t pid;

	(void)state;
	add_guest(GUEST_DOMID, "guest", "250");
	setenv("FAKE_XL_FAIL", "1", 1);
	pid = start_autoscaler("--period", "0.05", "--hold", "0", "--cooldown",
			       "0.5", "--backoff-max", "600", "guest", NULL);
	/* The cooldown (0.5 s) doubled per failure in a row. */
	assert_true(wait_for_text(out_path,
				  "xl: vcpus 4 failed (exit status 1) after"));
	assert_true(wait_for_text(out_path, "(no change for 1.0 s: 1 failure "
					    "in a row)"));
	assert_true(wait_for_text(out_path, "held back: backoff for "));
	assert_true(wait_for_text(out_path, "(no change for 2.0 s: 2 failures "
					    "in a row)"));
	stop_autoscaler(pid);
	expect_not_in_file(out_path, "held back: cooldown");
}

/* An xl that hangs is killed at --change-timeout; the daemon goes on. */
static void hung_xl_is_killed_and_counted(void **state)
{
	pid_t pid;

	(void)state;
	add_guest(GUEST_DOMID, "guest", "250");
	add_guest(OTHER_DOMID, "other", "0");
	setenv("FAKE_XL_HANG", "1", 1);
	pid = start_autoscaler(FAST_ARGS, "--change-timeout", "0.3", "guest",
			       "other", NULL);
	assert_true(wait_for_text(out_path, "guest (domain 3): xl: vcpus 4 "
					    "failed (timed out after 300 ms: "
					    "killed)"));
	stop_autoscaler(pid);
	expect_in_file(out_path, "timed out)");
	expect_not_in_file(out_path, "0 timed out");
}

/* The elapsed seconds of the first log line holding text, or -1. */
static double elapsed_of(const char *text)
{
	static char buf[TEXT_MAX];
	const char *at, *line;
	double t;

	slurp(out_path, buf, sizeof(buf));
	at = strstr(buf, text);
	if (!at)
		return -1;
	for (line = at; line > buf && line[-1] != '\n'; line--)
		;
	line = strchr(line, '[');
	return line && sscanf(line + 1, "%lf", &t) == 1 ? t : -1;
}

/* With a period of 1 s, an xl that hangs past its 0.2 s timeout is
 * killed well before the next round. */
static void hung_xl_is_killed_between_rounds(void **state)
{
	double started, killed;
	pid_t pid;

	(void)state;
	add_guest(GUEST_DOMID, "guest", "250");
	setenv("FAKE_XL_HANG", "1", 1);
	pid = start_autoscaler("--period", "1", "--hold", "0",
			       "--change-timeout", "0.2", "guest", NULL);
	assert_true(wait_for_text(out_path, "failed (timed out after 200 ms: "
					    "killed)"));
	stop_autoscaler(pid);
	started = elapsed_of("guest (domain 3): load 250%, vcpus 1 -> ");
	killed = elapsed_of("failed (timed out after 200 ms");
	assert_true(started >= 0 && killed >= started);
	if (killed - started > 0.6)
		fail_msg("killed %.3f s after its start, wanted under 0.6 s",
			 killed - started);
}

/* --duration ends on time even while an xl hangs: it is killed. */
static void hung_xl_does_not_block_the_exit(void **state)
{
	pid_t pid;

	(void)state;
	add_guest(GUEST_DOMID, "guest", "250");
	setenv("FAKE_XL_HANG", "1", 1);
	pid = start_autoscaler(FAST_ARGS, "--change-timeout", "3600",
			       "--duration", "0.5", "guest", NULL);
	assert_int_equal(wait_exit_bounded(pid), 0);
	expect_in_file(xl_log, "3 4\n");
	expect_in_file(out_path, "xl: vcpus 4 failed (still running: killed)");
	expect_in_file(out_path, "stopped after");
}

/*
 * Two guests under demand 250, the guest's load key failing with err
 * (an errno name) whose text is why: that guest skipped and said so, the
 * other scaled.  Into *load_key the failing key; returns the daemon.
 */
static pid_t start_with_a_guest_key_failing(const char *err, const char *why,
					    char *load_key, size_t len)
{
	char skipped[PATH_LEN];
	pid_t pid;

	add_guest(GUEST_DOMID, "guest", "250");
	add_guest(OTHER_DOMID, "other", "250");
	snprintf(load_key, len, "/local/domain/%u/data/smpalt/load",
		 GUEST_DOMID);
	store_fail(load_key, err);
	pid = start_autoscaler(FAST_ARGS, "guest", "other", NULL);
	snprintf(skipped, sizeof(skipped),
		 "guest (domain 3): cannot read its keys: %s: skipped", why);
	assert_true(wait_for_text(out_path, skipped));
	assert_true(wait_for_text(xl_log, "4 4\n"));
	expect_not_in_file(xl_log, "3 ");
	return pid;
}

/* A read error on one domain skips it for the round; it is retried, the
 * others are scaled, the daemon stays up. */
static void unreadable_domain_is_skipped_and_retried(void **state)
{
	char load_key[PATH_LEN];
	pid_t pid;

	(void)state;
	pid = start_with_a_guest_key_failing("EACCES", "Permission denied",
					     load_key, sizeof(load_key));
	store_fail(load_key, "");
	assert_true(wait_for_text(out_path, "guest (domain 3): its keys can be "
					    "read again"));
	assert_true(wait_for_text(xl_log, "3 4\n"));
	stop_autoscaler(pid);
}

/*
 * xenstored's EIO about one guest's key is no lost connection: the
 * daemon stays up, skips that guest and scales the other.
 */
static void eio_on_a_guests_key_is_not_a_lost_connection(void **state)
{
	char load_key[PATH_LEN];
	pid_t pid;

	(void)state;
	pid = start_with_a_guest_key_failing("EIO", "Input/output error",
					     load_key, sizeof(load_key));
	expect_not_in_file(out_path, "connection lost");
	assert_int_equal(kill(pid, 0), 0);
	stop_autoscaler(pid);
}

/* ------------------------------------------------------ identity */

/* A name is whole: 63 'A's select no domain named with 64. */
static void a_name_is_never_cut(void **state)
{
	char name64[65], name63[64];

	(void)state;
	memset(name64, 'A', 64);
	name64[64] = '\0';
	memset(name63, 'A', 63);
	name63[63] = '\0';
	add_guest(GUEST_DOMID, name64, "250");
	assert_int_equal(wait_exit(start_autoscaler("--once", name63, NULL)),
			 EXIT_NO_DOMAIN);
	assert_int_equal(count_lines(xl_log), 0);
	assert_int_equal(wait_exit(start_autoscaler("--once", name64, NULL)),
			 0);
	expect_in_file(out_path, name64);
	expect_in_file(xl_log, "3 4\n");
}

/* The domid goes to another domain (another /vm UUID): not followed. */
static void reused_domid_is_another_domain(void **state)
{
	pid_t pid;

	(void)state;
	add_guest(GUEST_DOMID, "guest", "0");
	pid = start_autoscaler(FAST_ARGS, "guest", NULL);
	assert_true(wait_for_text(out_path, "watching guest (domain 3)"));
	expect_in_file(out_path, "uuid 00000000-0000-4000-8000-000000000003");
	store_setf("/vm/11111111-2222-4333-8444-555555555555",
		   "/local/domain/%u/vm", GUEST_DOMID);
	store_setf("stranger", "/local/domain/%u/name", GUEST_DOMID);
	assert_true(wait_for_text(out_path, "guest (domain 3): its domid went "
					    "to another domain: dropped"));
	set_demand(GUEST_DOMID, 250, 1);
	sleep_ms(POLL_MS * 20);
	stop_autoscaler(pid);
	assert_int_equal(count_lines(xl_log), 0);
	expect_not_in_file(out_path, "watching stranger");
}

/*
 * With --libvirt test:///default (libvirt's in-library test driver, in the
 * daemon's own process: a running domain "test", id 1, 2 vCPUs): the
 * domain whose /vm UUID and domid are libvirt's goes through libvirt
 * whatever its name; xenstore's domain 3 named "test" is not libvirt's
 * "test" and goes through xl.
 */
static void libvirt_domains_are_found_by_uuid_and_domid(void **state)
{
	int rc;

	(void)state;
	add_guest_sized(LIBVIRT_DOMID, "lv-guest", LIBVIRT_MAXVCPUS,
			LIBVIRT_MAXVCPUS);
	store_setf("/vm/" LIBVIRT_UUID, "/local/domain/%u/vm", LIBVIRT_DOMID);
	set_claim(LIBVIRT_DOMID, "10");
	set_xen(LIBVIRT_DOMID, 10);
	add_guest(GUEST_DOMID, "test", "250");
	rc = wait_exit(start_autoscaler("--once", "--libvirt",
					"test:///default", "lv-guest", "test",
					NULL));
	if (rc == EXIT_USAGE)
		skip(); /* built without the libvirt backend */
	assert_int_equal(rc, 0);
	expect_in_file(out_path, "watching lv-guest (domain 1): ");
	expect_in_file(out_path, "via libvirt, uuid " LIBVIRT_UUID);
	expect_in_file(out_path, "lv-guest (domain 1): libvirt: vcpus 1 done");
	expect_in_file(out_path, "watching test (domain 3): ");
	expect_in_file(out_path, "test (domain 3): xl: vcpus 4 done");
	expect_in_file(xl_log, "3 4\n");
	assert_int_equal(count_lines(xl_log), 1);
}

/* ------------------------------------------------ no small caps */

static void seventy_domains_are_all_followed(void **state)
{
	char name[VALUE_LEN], text[VALUE_LEN];
	unsigned int i;

	(void)state;
	for (i = 0; i < MANY_DOMAINS; i++) {
		snprintf(name, sizeof(name), "many-%u", i);
		add_guest(FIRST_MANY_DOMID + i, name, "250");
	}
	expect_exit(start_autoscaler("--once", "many-*", NULL), 0);
	assert_int_equal(count_lines(xl_log), MANY_DOMAINS);
	snprintf(text, sizeof(text), "watching many-%u (domain %u)",
		 MANY_DOMAINS - 1, FIRST_MANY_DOMID + MANY_DOMAINS - 1);
	expect_in_file(out_path, text);
	snprintf(text, sizeof(text), "%u 4\n",
		 FIRST_MANY_DOMID + MANY_DOMAINS - 1);
	expect_in_file(xl_log, text);
}

/* maxvcpus 64, 48 online: seen as 48, and --max 48 is taken. */
static void guest_of_64_vcpus_is_seen_whole(void **state)
{
	(void)state;
	add_guest_sized(GUEST_DOMID, "big", BIG_MAXVCPUS, BIG_ONLINE);
	set_claim(GUEST_DOMID, "4320");
	set_xen(GUEST_DOMID, BIG_ONLINE * 90); /* 90% of each */
	assert_int_equal(wait_exit(start_autoscaler("--once", "-v", "--max",
						    "48", "big", NULL)),
			 0);
	expect_in_file(out_path, "watching big (domain 3): vcpus 1..48");
	expect_in_file(out_path,
		       "big (domain 3): load 4320%, vcpus 48 -> 48: at-max");
	assert_int_equal(count_lines(xl_log), 0);
	set_xen(GUEST_DOMID, BIG_ONLINE * 10); /* 10% of each */
	assert_int_equal(
		wait_exit(start_autoscaler("--once", "--dry-run", "big", NULL)),
		0);
	expect_in_file(out_path, "load 480%, vcpus 48 -> 6: under-low");
}

/* ---------------------------------- configuration file, metrics, CSV */

static void write_file(const char *path, const char *text)
{
	char tmp[DIR_LEN + 32];
	FILE *f;

	/* Whole or not at all, as an editor saves it. */
	snprintf(tmp, sizeof(tmp), "%s.new", path);
	f = fopen(tmp, "w");
	assert_non_null(f);
	assert_true(fputs(text, f) >= 0);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(rename(tmp, path), 0);
}

/* Run the program with args to its end; its output in out_path. */
static int run_autoscaler(const char *first, ...)
{
	va_list ap;
	pid_t pid;

	va_start(ap, first);
	pid = spawn_autoscaler(false, first, ap);
	va_end(ap);
	return wait_exit_bounded(pid);
}

/* The whole of out_path must be text. */
static void expect_output(const char *text)
{
	static char buf[TEXT_MAX];

	slurp(out_path, buf, sizeof(buf));
	if (strcmp(buf, text))
		fail_msg("output:\n%s\nexpected:\n%s", buf, text);
}

/* --check-config: 0 and "FILE: OK" for a good file; 1 and each error as
 * FILE:LINE (a bad glob, an unknown key) for a bad one. */
static void check_config_names_each_error(void **state)
{
	char expected[4 * (DIR_LEN + 16) + 256];

	(void)state;
	write_file(conf_path, "[defaults]\nhigh = 70\nexclude = test-*\n"
			      "[domain \"web*\"]\nmax = 2\n");
	assert_int_equal(run_autoscaler("--check-config", conf_path, NULL), 0);
	snprintf(expected, sizeof(expected), "%s: OK\n", conf_path);
	expect_output(expected);

	write_file(conf_path, "[defaults]\nhigh = 70\nbogus = 1\n"
			      "[domain \"web[\"]\nmax = 2\n");
	assert_int_equal(run_autoscaler("--check-config", conf_path, NULL), 1);
	snprintf(expected, sizeof(expected),
		 "%s:3: [defaults] bogus: unknown key\n"
		 "%s:4: [domain \"web[\"]: bad pattern: '[' at column 4 has "
		 "no closing ']'\n"
		 "%s: 2 errors\n",
		 conf_path, conf_path, conf_path);
	expect_output(expected);
	/* --check-config=FILE, the same. */
	assert_int_equal(run_autoscaler("--config", "/nonexistent",
					"--check-config", conf_path, NULL),
			 1);
	expect_output(expected);
}

/* A file given with --config must exist; a bad one is refused at start. */
static void config_given_must_exist_and_be_valid(void **state)
{
	(void)state;
	add_guest(GUEST_DOMID, "guest", "0");
	assert_int_equal(run_autoscaler("--config", "/nonexistent/as.conf",
					"guest", NULL),
			 EXIT_USAGE);
	expect_in_file(out_path, "configuration /nonexistent/as.conf: No such "
				 "file or directory");
	write_file(conf_path, "[defaults]\nhigh = 200\n");
	assert_int_equal(run_autoscaler("--config", conf_path, "guest", NULL),
			 EXIT_USAGE);
	expect_in_file(out_path, ":2: [defaults] high = \"200\": expected a "
				 "whole percent, 1..100");
	expect_in_file(out_path, "refused");
}

/* A malformed glob among the DOMAINs is a usage error naming it. */
static void malformed_domain_glob_exits_2_naming_it(void **state)
{
	(void)state;
	add_guest(GUEST_DOMID, "guest", "0");
	assert_int_equal(run_autoscaler("--once", "gue[st", NULL), EXIT_USAGE);
	expect_output("smpalt-autoscaler: DOMAIN 'gue[st': '[' at column 4 "
		      "has no closing ']' (see --help)\n");
}

/* [domain "guest"] max = 2 holds it at 2 while another gets 4. */
static void per_domain_override_limits_scaling(void **state)
{
	pid_t pid;

	(void)state;
	write_file(conf_path, "[defaults]\nmax = 4\n"
			      "[domain \"guest\"]\nmax = 2\n");
	add_guest(GUEST_DOMID, "guest", "400");
	add_guest(OTHER_DOMID, "other", "400");
	pid = start_autoscaler(FAST_ARGS, "-v", "--config", conf_path, "guest",
			       "other", NULL);
	assert_true(wait_for_text(xl_log, "4 4\n"));
	assert_true(wait_for_text(xl_log, "3 2\n"));
	/* At its max, said with the reason: no further change comes. */
	assert_true(wait_for_text(out_path, "guest (domain 3): load 400%, "
					    "vcpus 2 -> 2: at-max"));
	stop_autoscaler(pid);
	expect_in_file(out_path, "watching guest (domain 3): vcpus 1..2,");
	expect_in_file(out_path, "watching other (domain 4): vcpus 1..4,");
	expect_not_in_file(xl_log, "3 3\n");
	expect_not_in_file(xl_log, "3 4\n");
}

/* An excluded domain is never scaled, whatever its load; said once. */
static void excluded_domain_is_never_scaled(void **state)
{
	static char buf[TEXT_MAX];
	const char *said = "guest (domain 3): excluded by 'gue*' (";
	pid_t pid;

	(void)state;
	write_file(conf_path, "[defaults]\nexclude = gue*\n"
			      "[domain \"guest\"]\nmax = 2\n");
	add_guest(GUEST_DOMID, "guest", "400");
	add_guest(OTHER_DOMID, "other", "400");
	pid = start_autoscaler(FAST_ARGS, "--config", conf_path, "--all", NULL);
	assert_true(wait_for_text(xl_log, "4 4\n"));
	assert_true(wait_for_text(out_path, said));
	stop_autoscaler(pid);
	expect_not_in_file(xl_log, "3 ");
	slurp(out_path, buf, sizeof(buf));
	assert_null(strstr(strstr(buf, said) + 1, said));
}

/*
 * The default configuration file excludes a guest; it is deleted and
 * SIGHUP sent (as logrotate does weekly): the guest stays excluded,
 * never scaled, and the CSV is reopened all the same.
 */
static void deleted_config_keeps_a_domain_excluded(void **state)
{
	char rotated[DIR_LEN + 32];
	pid_t pid;

	(void)state;
	snprintf(rotated, sizeof(rotated), "%s.1", csv_path);
	unlink(rotated);
	write_file(conf_path, "[defaults]\nexclude = guest\n");
	setenv(ENV_TEST_CONF, conf_path, 1);
	add_guest(GUEST_DOMID, "guest", "400");
	add_guest(OTHER_DOMID, "other", "400");
	pid = start_autoscaler(FAST_ARGS, "--csv", csv_path, "--all", NULL);
	unsetenv(ENV_TEST_CONF);
	assert_true(wait_for_text(out_path, "guest (domain 3): excluded by"));
	assert_true(wait_for_text(xl_log, "4 4\n"));
	assert_int_equal(unlink(conf_path), 0);
	assert_int_equal(rename(csv_path, rotated), 0);
	kill(pid, SIGHUP);
	assert_true(wait_for_text(out_path, "missing: keeping the settings "
					    "in force"));
	assert_true(wait_for_text(out_path, "SIGHUP: reopened the CSV"));
	/* Rounds after the reload, time enough to scale the guest up. */
	sleep_ms(POLL_MS * 30);
	stop_autoscaler(pid);
	expect_not_in_file(xl_log, "3 ");
	expect_not_in_file(out_path, "options alone");
	assert_int_equal(access(csv_path, F_OK), 0);
	unlink(rotated);
}

/* SIGHUP: a changed max applies; a bad file keeps the settings in force
 * (its errors logged as FILE:LINE). */
static void sighup_reloads_the_config_and_keeps_it_on_error(void **state)
{
	static char buf[TEXT_MAX];
	char expected[DIR_LEN + 64];
	size_t before;
	pid_t pid;

	(void)state;
	snprintf(prom_path, sizeof(prom_path), "%s/as.prom", tmpdir);
	unlink(prom_path);
	write_file(conf_path, "[domain \"guest\"]\nmax = 2\n");
	add_guest(GUEST_DOMID, "guest", "400");
	pid = start_autoscaler(FAST_ARGS, "-v", "--config", conf_path,
			       "--metrics-file", prom_path, "guest", NULL);
	assert_true(wait_for_text(xl_log, "3 2\n"));

	/* A bad file (an unknown key) that would allow 4: refused. */
	write_file(conf_path, "[domain \"guest\"]\nmax = 4\nbogus = 1\n");
	kill(pid, SIGHUP);
	snprintf(expected, sizeof(expected),
		 "%s:3: [domain \"guest\"] bogus: "
		 "unknown key",
		 conf_path);
	assert_true(wait_for_text(out_path, expected));
	assert_true(wait_for_text(out_path, "keeping the settings in force"));
	/* Decisions after the refusal are still at max 2. */
	slurp(out_path, buf, sizeof(buf));
	before = strlen(buf);
	for (int waited = 0;; waited += POLL_MS) {
		slurp(out_path, buf, sizeof(buf));
		if (strlen(buf) > before &&
		    strstr(buf + before, "guest (domain 3): load 400%, vcpus "
					 "2 -> 2: at-max"))
			break;
		if (waited >= WAIT_MS)
			fail_msg("no decision after the refusal:\n%s", buf);
		sleep_ms(POLL_MS);
	}
	expect_not_in_file(xl_log, "3 4\n");

	/* A good one with max 4 and a lower threshold: applied. */
	write_file(conf_path, "[domain \"guest\"]\nmax = 4\nhigh = 60\n");
	kill(pid, SIGHUP);
	assert_true(wait_for_text(out_path, "SIGHUP: reloaded the "
					    "configuration"));
	assert_true(wait_for_text(out_path, "settings of guest (domain 3): "
					    "vcpus 1..4, high 60%"));
	assert_true(wait_for_text(xl_log, "3 4\n"));
	/* Both reloads counted, the refused one too; the last was good. */
	assert_true(wait_for_text(prom_path, "smpalt_autoscaler_config_"
					     "reloads_total 2\n"));
	expect_in_file(prom_path, "smpalt_autoscaler_config_reload_failures_"
				  "total 1\n");
	expect_in_file(prom_path, "smpalt_autoscaler_config_last_reload_"
				  "successful 1\n");
	stop_autoscaler(pid);
	unlink(prom_path);
}

/*
 * A reload that turns --signal guest into xen opens Xen's accounting: the
 * guest claims 45% (in the band at 1 vCPU), Xen sees it busy; under guest
 * nothing changes, under xen it grows.
 */
static void sighup_to_signal_xen_reads_xen(void **state)
{
	pid_t pid;

	(void)state;
	write_file(conf_path, "[defaults]\nsignal = guest\n");
	add_guest(GUEST_DOMID, "guest", "45");
	set_xen(GUEST_DOMID, 100);
	pid = start_autoscaler(FAST_ARGS, "-v", "--config", conf_path, "guest",
			       NULL);
	assert_true(wait_for_text(out_path, "guest (domain 3): load 45%"));
	sleep_ms(POLL_MS * 5);
	assert_int_equal(count_lines(xl_log), 0);

	write_file(conf_path, "[defaults]\nsignal = xen\n");
	kill(pid, SIGHUP);
	assert_true(wait_for_text(out_path, "SIGHUP: reloaded the "
					    "configuration"));
	assert_true(wait_for_text(xl_log, "3 2\n"));
	stop_autoscaler(pid);
	expect_not_in_file(out_path, "no decision until libxenstat");
}

/* The series of a domain named n (domid id) with a value. */
static bool wait_for_series(const char *text)
{
	return wait_for_text(prom_path, text);
}

/* --metrics-file: rewritten each round, the domain's series in it, and
 * promtool finds nothing wrong with it. */
static void metrics_file_has_the_domain_and_passes_promtool(void **state)
{
	char cmd[2 * PATH_MAX];
	pid_t pid;

	(void)state;
	snprintf(prom_path, sizeof(prom_path), "%s/as.prom", tmpdir);
	unlink(prom_path);
	add_guest(GUEST_DOMID, "guest", "250");
	pid = start_autoscaler(FAST_ARGS, "--metrics-file", prom_path, "guest",
			       NULL);
	assert_true(wait_for_text(xl_log, "3 4\n"));
	assert_true(wait_for_series("smpalt_autoscaler_domain_vcpus_online{"
				    "domain=\"guest\",domid=\"3\"} 4\n"));
	assert_true(wait_for_series("smpalt_autoscaler_domain_scale_decisions_"
				    "total{domain=\"guest\",domid=\"3\","
				    "direction=\"up\"} 1\n"));
	expect_in_file(prom_path, "smpalt_autoscaler_up 1\n");
	stop_autoscaler(pid);
	expect_in_file(prom_path, "smpalt_autoscaler_domain_vcpus_max{"
				  "domain=\"guest\",domid=\"3\"} 4\n");
	expect_in_file(prom_path, "smpalt_autoscaler_domain_load_vcpus{"
				  "domain=\"guest\",domid=\"3\",source=");
	/* Stopped: the file stays, saying so. */
	expect_in_file(prom_path, "smpalt_autoscaler_up 0\n");
	snprintf(cmd, sizeof(cmd), "'%s' check metrics < '%s'", PROMTOOL_BIN,
		 prom_path);
	assert_int_equal(system(cmd), 0);
	unlink(prom_path);
}

/*
 * xenstored goes away (the connection closed under the daemon): the
 * daemon ends with exit 3 and an error line that says so, within a few
 * periods, and its metrics say it is down.
 */
static void lost_xenstore_connection_exits_3(void **state)
{
	pid_t pid;
	int rc;

	(void)state;
	snprintf(prom_path, sizeof(prom_path), "%s/as.prom", tmpdir);
	unlink(prom_path);
	add_guest(GUEST_DOMID, "guest", "250");
	pid = start_autoscaler(FAST_ARGS, "--metrics-file", prom_path, "guest",
			       NULL);
	assert_true(wait_for_text(prom_path, "smpalt_autoscaler_up 1\n"));
	drop_clients();
	rc = wait_exit_within(pid, WAIT_MS);
	if (rc != EXIT_XENSTORE) {
		static char buf[TEXT_MAX];

		slurp(out_path, buf, sizeof(buf));
		fail_msg("exit status %d (-1: still running after %d ms), "
			 "wanted %d; its output:\n%s",
			 rc, WAIT_MS, EXIT_XENSTORE, buf);
	}
	expect_in_file(out_path, "xenstore: connection lost");
	expect_in_file(prom_path, "smpalt_autoscaler_up 0\n");
	unlink(prom_path);
}

/*
 * With no domain to read, the rounds still notice the store gone: exit
 * 3, where the watch descriptor alone would say nothing.
 */
static void lost_xenstore_connection_exits_3_with_no_domain(void **state)
{
	pid_t pid;
	int rc;

	(void)state;
	pid = start_autoscaler(FAST_ARGS, "nosuch*", NULL);
	assert_true(wait_for_text(out_path, "no domain selected yet"));
	drop_clients();
	rc = wait_exit_within(pid, WAIT_MS);
	assert_int_equal(rc, EXIT_XENSTORE);
	expect_in_file(out_path, "xenstore: connection lost");
}

/*
 * xenstored closes the connection on a request it never answers: with a
 * watch set, libxenstore then fails the request with EINVAL, not an I/O
 * error.  Still a lost connection: exit 3, saying so.
 */
static void unanswered_request_is_a_lost_connection(void **state)
{
	pid_t pid;

	(void)state;
	pid = start_autoscaler(FAST_ARGS, "nosuch*", NULL);
	assert_true(wait_for_text(out_path, "no domain selected yet"));
	store_hangs_up = true;
	assert_int_equal(wait_exit_within(pid, WAIT_MS), EXIT_XENSTORE);
	expect_in_file(out_path, "xenstore: connection lost");
}

/*
 * A reload that excludes a domain while its xl runs (longer than the 2 s
 * an exit grants): the reload is not held up by it, the change finishes
 * (not killed), and no change follows.
 */
static void reload_excluding_a_domain_lets_its_change_finish(void **state)
{
	pid_t pid;

	(void)state;
	write_file(conf_path, "[defaults]\nhigh = 80\n");
	add_guest(GUEST_DOMID, "guest", "250");
	setenv("FAKE_XL_DELAY_MS", "2500", 1);
	pid = start_autoscaler(FAST_ARGS, "--config", conf_path, "guest", NULL);
	assert_true(wait_for_text(out_path, "guest (domain 3): load 250%, "
					    "vcpus 1 -> "));
	write_file(conf_path, "[defaults]\nexclude = guest\n");
	kill(pid, SIGHUP);
	/* Within a second: the reload did not wait for xl. */
	assert_true(wait_for_text_within(out_path,
					 "SIGHUP: reloaded the "
					 "configuration",
					 1000));
	assert_true(wait_for_text(out_path, "guest (domain 3): xl: vcpus 4 "
					    "done"));
	sleep_ms(POLL_MS * 10);
	stop_autoscaler(pid);
	expect_not_in_file(out_path, "killed");
	assert_int_equal(count_lines(xl_log), 1);
}

/* systemd's side of sd_notify: a datagram socket the daemon writes to. */
static int open_notify(char *path, size_t len)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	snprintf(path, len, "%s/notify", tmpdir);
	unlink(path);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	return fd;
}

/* The next notification within ms into buf; false if none came. */
static bool notify_next(int fd, char *buf, size_t len, int ms)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	ssize_t n;

	if (poll(&p, 1, ms) <= 0)
		return false;
	n = recv(fd, buf, len - 1, 0);
	assert_true(n >= 0);
	buf[n] = '\0';
	return true;
}

/* Read notifications until one holds text, within ms. */
static bool notify_wait(int fd, const char *text, int ms)
{
	char buf[MSG_MAX];
	int waited;

	for (waited = 0; waited < ms; waited += POLL_MS)
		if (notify_next(fd, buf, sizeof(buf), POLL_MS) &&
		    strstr(buf, text))
			return true;
	return false;
}

/*
 * Under systemd (NOTIFY_SOCKET, WATCHDOG_USEC for its pid): READY=1
 * first, WATCHDOG=1 after rounds, RELOADING=1 then READY=1 around a
 * SIGHUP, none while a hung xenstored keeps
 * rounds from completing, again once they do, STOPPING=1 at the end.
 */
static void systemd_watchdog_is_fed_by_completed_rounds_only(void **state)
{
	char path[DIR_LEN + 16], buf[MSG_MAX];
	pid_t pid;
	int fd;

	(void)state;
	fd = open_notify(path, sizeof(path));
	add_guest(GUEST_DOMID, "guest", "250");
	setenv("NOTIFY_SOCKET", path, 1);
	setenv("WATCHDOG_USEC", "2000000", 1);
	pid = start_autoscaler(FAST_ARGS, "--dry-run", "guest", NULL);
	unsetenv("NOTIFY_SOCKET");
	unsetenv("WATCHDOG_USEC");
	assert_true(notify_next(fd, buf, sizeof(buf), WAIT_MS));
	assert_non_null(strstr(buf, "READY=1"));
	assert_true(notify_wait(fd, "WATCHDOG=1", WAIT_MS));
	/* A reload: RELOADING=1 with the time it began, then READY=1. */
	kill(pid, SIGHUP);
	assert_true(notify_wait(fd, "RELOADING=1\nMONOTONIC_USEC=", WAIT_MS));
	assert_true(notify_wait(fd, "READY=1", WAIT_MS));

	store_stalled = true;
	sleep_ms(POLL_MS * 20); /* a round that had read all may end */
	while (notify_next(fd, buf, sizeof(buf), 0))
		;
	assert_false(notify_wait(fd, "WATCHDOG=1", POLL_MS * 50));
	store_stalled = false;
	assert_true(notify_wait(fd, "WATCHDOG=1", WAIT_MS));
	stop_autoscaler(pid);
	assert_true(notify_wait(fd, "STOPPING=1", WAIT_MS));
	close(fd);
	unlink(path);
}

/* A period over half the watchdog interval: refused at start, exit 2. */
static void period_longer_than_half_the_watchdog_is_refused(void **state)
{
	(void)state;
	add_guest(GUEST_DOMID, "guest", "250");
	setenv("WATCHDOG_USEC", "1000000", 1);
	expect_exit(start_autoscaler("--period", "0.6", "guest", NULL),
		    EXIT_USAGE);
	unsetenv("WATCHDOG_USEC");
	expect_in_file(out_path, "period 600 ms is longer than half the "
				 "systemd watchdog interval");
	setenv("WATCHDOG_USEC", "1000000", 1);
	expect_exit(start_autoscaler("--period", "0.5", "--once", "--dry-run",
				     "guest", NULL),
		    0);
	unsetenv("WATCHDOG_USEC");
}

/* --metrics-listen is gone from the daemon: a usage error that names
 * what to use instead, before any xenstore access. */
static void metrics_listen_is_refused_naming_the_textfile(void **state)
{
	(void)state;
	add_guest(GUEST_DOMID, "guest", "250");
	assert_int_equal(run_autoscaler("--metrics-listen", "127.0.0.1:0",
					"guest", NULL),
			 EXIT_USAGE);
	expect_in_file(out_path, "--metrics-listen: removed");
	expect_in_file(out_path, "--metrics-file");
	expect_in_file(out_path, "textfile collector");
}

/* A guest's mode with a formula and a terminal escape: escaped. */
static void guest_mode_is_escaped_in_the_csv(void **state)
{
	pid_t pid;

	(void)state;
	add_guest(GUEST_DOMID, "guest", "0");
	store_setf("=HYPERLINK(\"x\")\x1b[31m",
		   "/local/domain/%u/data/smpalt/mode", GUEST_DOMID);
	pid = start_autoscaler(FAST_ARGS, "--csv", csv_path, "guest", NULL);
	assert_true(wait_for_text(csv_path,
				  ",guest,0,1,\"'=HYPERLINK(\"\"x\"\")"
				  "\\x1b[31m\",100,"));
	stop_autoscaler(pid);
	expect_not_in_file(csv_path, "\x1b");
	expect_not_in_file(csv_path, ",=HYPERLINK");
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(
			unreachable_xenstore_exits_3_with_a_message, setup),
		cmocka_unit_test_setup(bad_option_exits_2_naming_it, setup),
		cmocka_unit_test_setup(missing_domain_exits_4_naming_it, setup),
		cmocka_unit_test_setup(
			load_drives_vcpus_up_then_down_and_fills_the_csv,
			setup),
		cmocka_unit_test_setup(
			domid_works_like_a_name_and_max_is_capped, setup),
		cmocka_unit_test_setup(once_dry_run_decides_without_running_xl,
				       setup),
		cmocka_unit_test_setup(failing_xl_is_reported, setup),
		cmocka_unit_test_setup(
			slow_xl_does_not_stop_sampling_nor_get_orphaned, setup),
		cmocka_unit_test_setup(
			vanished_domain_is_dropped_and_the_daemon_stays_up,
			setup),
		cmocka_unit_test_setup(csv_quotes_a_name_with_a_comma, setup),
		cmocka_unit_test_setup(
			absent_load_is_logged_once_and_recorded_empty, setup),
		cmocka_unit_test_setup(version_names_the_program, setup),
		cmocka_unit_test_setup(started_first_it_adopts_a_guest_by_glob,
				       setup),
		cmocka_unit_test_setup(
			rebooted_guest_is_followed_under_its_new_domid, setup),
		cmocka_unit_test_setup(all_takes_every_guest_but_dom0, setup),
		cmocka_unit_test_setup(
			once_with_a_glob_matching_nothing_exits_4, setup),
		cmocka_unit_test_setup(xl_runs_without_i_unless_ignore_host,
				       setup),
		cmocka_unit_test_setup(sighup_reopens_the_csv, setup),
		cmocka_unit_test_setup(log_lines_carry_priority_and_wall_time,
				       setup),
		cmocka_unit_test_setup(guest_claim_is_capped_at_its_maxvcpus,
				       setup),
		cmocka_unit_test_setup(signal_xen_without_xen_exits_6, setup),
		cmocka_unit_test_setup(
			busy_host_does_not_grow_a_guest_claiming_more_than_it_uses,
			setup),
		cmocka_unit_test_setup(guest_own_use_does_not_keep_its_vcpus,
				       setup),
		cmocka_unit_test_setup(
			inflated_claim_does_not_grow_an_idle_guest, setup),
		cmocka_unit_test_setup(
			inflated_claim_does_not_keep_an_idle_guest_up, setup),
		cmocka_unit_test_setup(flipping_claim_logs_a_burst_a_minute,
				       setup),
		cmocka_unit_test_setup(csv_vcpus_is_dom0s_count_not_the_guests,
				       setup),
		cmocka_unit_test_setup(
			eio_on_a_guests_key_is_not_a_lost_connection, setup),
		cmocka_unit_test_setup(
			flapping_and_garbage_claims_change_nothing, setup),
		cmocka_unit_test_setup(rate_limit_holds_changes_back, setup),
		cmocka_unit_test_setup(cooldown_holds_the_next_change_back,
				       setup),
		cmocka_unit_test_setup(failures_back_off, setup),
		cmocka_unit_test_setup(hung_xl_is_killed_and_counted, setup),
		cmocka_unit_test_setup(hung_xl_does_not_block_the_exit, setup),
		cmocka_unit_test_setup(hung_xl_is_killed_between_rounds, setup),
		cmocka_unit_test_setup(unreadable_domain_is_skipped_and_retried,
				       setup),
		cmocka_unit_test_setup(a_name_is_never_cut, setup),
		cmocka_unit_test_setup(reused_domid_is_another_domain, setup),
		cmocka_unit_test_setup(
			libvirt_domains_are_found_by_uuid_and_domid, setup),
		cmocka_unit_test_setup(seventy_domains_are_all_followed, setup),
		cmocka_unit_test_setup(guest_of_64_vcpus_is_seen_whole, setup),
		cmocka_unit_test_setup(check_config_names_each_error, setup),
		cmocka_unit_test_setup(config_given_must_exist_and_be_valid,
				       setup),
		cmocka_unit_test_setup(malformed_domain_glob_exits_2_naming_it,
				       setup),
		cmocka_unit_test_setup(per_domain_override_limits_scaling,
				       setup),
		cmocka_unit_test_setup(excluded_domain_is_never_scaled, setup),
		cmocka_unit_test_setup(
			sighup_reloads_the_config_and_keeps_it_on_error, setup),
		cmocka_unit_test_setup(sighup_to_signal_xen_reads_xen, setup),
		cmocka_unit_test_setup(
			metrics_file_has_the_domain_and_passes_promtool, setup),
		cmocka_unit_test_setup(
			metrics_listen_is_refused_naming_the_textfile, setup),
		cmocka_unit_test_setup(lost_xenstore_connection_exits_3, setup),
		cmocka_unit_test_setup(
			lost_xenstore_connection_exits_3_with_no_domain, setup),
		cmocka_unit_test_setup(unanswered_request_is_a_lost_connection,
				       setup),
		cmocka_unit_test_setup(deleted_config_keeps_a_domain_excluded,
				       setup),
		cmocka_unit_test_setup(
			reload_excluding_a_domain_lets_its_change_finish,
			setup),
		cmocka_unit_test_setup(
			systemd_watchdog_is_fed_by_completed_rounds_only,
			setup),
		cmocka_unit_test_setup(
			period_longer_than_half_the_watchdog_is_refused, setup),
		cmocka_unit_test_setup(guest_mode_is_escaped_in_the_csv, setup),
	};
	ssize_t n;
	int rc;

	if (argc > 1 && !strcmp(argv[1], "vcpu-set"))
		return fake_xl(argc, argv);

	n = readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1);
	if (n <= 0) {
		perror("readlink /proc/self/exe");
		return 1;
	}
	self_exe[n] = '\0';
	/* The autoscaler's children (this program as xl) keep no SIGPIPE. */
	signal(SIGPIPE, SIG_IGN);
	start_server();
	rc = cmocka_run_group_tests_name("autoscale_tool", tests, NULL, NULL);
	close(listen_fd);
	unlink(sock_path);
	unlink(out_path);
	unlink(csv_path);
	unlink(xl_log);
	unlink(conf_path);
	unlink(prom_path);
	rmdir(tmpdir);
	return rc;
}

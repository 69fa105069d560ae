// SPDX-License-Identifier: MIT
/*
 * autoscale_metrics.c - Prometheus metrics: the counts, their text, the
 * textfile collector's file and a minimal HTTP endpoint.
 * See autoscale_metrics.h.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "autoscale_metrics.h"
#include "autoscale_text.h"

#define PREFIX "smpalt_autoscaler_"
#define REPLACEMENT "\xef\xbf\xbd" /* U+FFFD */
#define LISTEN_BACKLOG 8
#define PORT_MAX 65535
#define MS_PER_SEC 1000
#define NS_PER_MS 1000000
#define CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

void as_metrics_init(struct as_metrics *m, uint64_t start_unix_s)
{
	*m = (struct as_metrics){
		.start_unix_s = start_unix_s,
		.last_reload_ok = true,
		.last_reload_ok_unix_s = start_unix_s,
	};
}

void as_metrics_free(struct as_metrics *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->dom[i].name);
	free(m->dom);
	*m = (struct as_metrics){0};
}

/* The index of domid, or where it would go. */
static size_t domain_index(const struct as_metrics *m, unsigned int domid)
{
	size_t lo = 0, hi = m->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->dom[mid].domid < domid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct as_metrics_domain *
as_metrics_domain(struct as_metrics *m, unsigned int domid, const char *name)
{
	size_t i = domain_index(m, domid);
	struct as_metrics_domain *d;
	char *copy;

	if (i < m->n && m->dom[i].domid == domid) {
		d = &m->dom[i];
		if (strcmp(d->name, name) != 0) {
			copy = strdup(name);
			if (!copy)
				return NULL;
			free(d->name);
			d->name = copy;
		}
		return d;
	}
	if (m->n == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 16;
		struct as_metrics_domain *p;

		p = reallocarray(m->dom, cap, sizeof(*p));
		if (!p)
			return NULL;
		m->dom = p;
		m->cap = cap;
	}
	copy = strdup(name);
	if (!copy)
		return NULL;
	memmove(&m->dom[i + 1], &m->dom[i], (m->n - i) * sizeof(m->dom[0]));
	m->n++;
	d = &m->dom[i];
	*d = (struct as_metrics_domain){.domid = domid, .name = copy};
	return d;
}

void as_metrics_forget(struct as_metrics *m, unsigned int domid)
{
	size_t i = domain_index(m, domid);

	if (i == m->n || m->dom[i].domid != domid)
		return;
	free(m->dom[i].name);
	memmove(&m->dom[i], &m->dom[i + 1], (m->n - i - 1) * sizeof(m->dom[0]));
	m->n--;
}

void as_metrics_config_reload(struct as_metrics *m, bool ok, uint64_t unix_s)
{
	m->reloads++;
	m->last_reload_ok = ok;
	if (ok)
		m->last_reload_ok_unix_s = unix_s;
	else
		m->reload_failures++;
}

void as_metrics_label_value(struct as_text *t, const char *value)
{
	const unsigned char *s = (const unsigned char *)value;
	size_t n = strlen(value), i = 0, len;
	unsigned int cp;

	while (i < n) {
		len = as_utf8_len(s + i, n - i, &cp);
		if (len == 0) {
			as_text_puts(t, REPLACEMENT);
			len = 1;
		} else if (cp == '\\') {
			as_text_puts(t, "\\\\");
		} else if (cp == '"') {
			as_text_puts(t, "\\\"");
		} else if (cp == '\n') {
			as_text_puts(t, "\\n");
		} else if (as_is_control(cp)) {
			as_text_puts(t, REPLACEMENT);
		} else {
			as_text_add(t, (const char *)s + i, len);
		}
		i += len;
	}
}

static void family(struct as_text *t, const char *name, const char *type,
		   const char *help)
{
	as_text_printf(t, "# HELP " PREFIX "%s %s\n# TYPE " PREFIX "%s %s\n",
		       name, help, name, type);
}

/* PREFIX "name{domain=\"...\",domid=\"N\"" with the closing brace open. */
static void domain_series(struct as_text *t, const char *name,
			  const struct as_metrics_domain *d)
{
	as_text_printf(t, PREFIX "%s{domain=\"", name);
	as_metrics_label_value(t, d->name);
	as_text_printf(t, "\",domid=\"%u\"", d->domid);
}

/* A per-domain counter or gauge of a uint64_t field. */
static void domain_family(struct as_text *t, const struct as_metrics *m,
			  const char *name, const char *type, const char *help,
			  size_t offset)
{
	if (m->n)
		family(t, name, type, help);
	for (size_t i = 0; i < m->n; i++) {
		const struct as_metrics_domain *d = &m->dom[i];
		uint64_t v;

		memcpy(&v, (const char *)d + offset, sizeof(v));
		domain_series(t, name, d);
		as_text_printf(t, "} %" PRIu64 "\n", v);
	}
}

static void render_daemon(struct as_text *t, const struct as_metrics *m)
{
	family(t, "up", "gauge", "1 while the autoscaler runs.");
	as_text_puts(t, PREFIX "up 1\n");
	family(t, "start_time_seconds", "gauge",
	       "Start time of the autoscaler, Unix time.");
	as_text_printf(t, PREFIX "start_time_seconds %" PRIu64 "\n",
		       m->start_unix_s);
	family(t, "domains", "gauge", "Domains the autoscaler tracks.");
	as_text_printf(t, PREFIX "domains %zu\n", m->n);
	family(t, "config_reloads_total", "counter",
	       "Reloads of the configuration file (SIGHUP).");
	as_text_printf(t, PREFIX "config_reloads_total %" PRIu64 "\n",
		       m->reloads);
	family(t, "config_reload_failures_total", "counter",
	       "Reloads refused for an invalid file (the old one stays).");
	as_text_printf(t, PREFIX "config_reload_failures_total %" PRIu64 "\n",
		       m->reload_failures);
	family(t, "config_last_reload_successful", "gauge",
	       "Whether the last reload of the configuration succeeded.");
	as_text_printf(t, PREFIX "config_last_reload_successful %d\n",
		       m->last_reload_ok ? 1 : 0);
	family(t, "config_last_reload_success_timestamp_seconds", "gauge",
	       "Time of the last successful configuration load, Unix time.");
	as_text_printf(t,
		       PREFIX "config_last_reload_success_timestamp_seconds "
			      "%" PRIu64 "\n",
		       m->last_reload_ok_unix_s);
}

/* Whether any domain has vCPU counts (has_load: a load). */
static bool any_domain(const struct as_metrics *m, bool load)
{
	for (size_t i = 0; i < m->n; i++)
		if (load ? m->dom[i].has_load : m->dom[i].has_vcpus)
			return true;
	return false;
}

/*
 * Per-domain families; one without a sample is left out whole (no HELP
 * and TYPE on their own).
 */
static void render_domains(struct as_text *t, const struct as_metrics *m)
{
	const struct as_metrics_domain *d;
	size_t i;

	if (any_domain(m, false))
		family(t, "domain_vcpus_online", "gauge", "vCPUs online.");
	for (i = 0; i < m->n; i++) {
		d = &m->dom[i];
		if (!d->has_vcpus)
			continue;
		domain_series(t, "domain_vcpus_online", d);
		as_text_printf(t, "} %u\n", d->vcpus_online);
	}
	if (any_domain(m, false))
		family(t, "domain_vcpus_max", "gauge",
		       "Most vCPUs the domain may have (its maxvcpus).");
	for (i = 0; i < m->n; i++) {
		d = &m->dom[i];
		if (!d->has_vcpus)
			continue;
		domain_series(t, "domain_vcpus_max", d);
		as_text_printf(t, "} %u\n", d->vcpus_max);
	}
	if (any_domain(m, true))
		family(t, "domain_load_vcpus", "gauge",
		       "Load decided on, in vCPUs of work, by its source.");
	for (i = 0; i < m->n; i++) {
		d = &m->dom[i];
		if (!d->has_load)
			continue;
		domain_series(t, "domain_load_vcpus", d);
		as_text_puts(t, ",source=\"");
		as_metrics_label_value(t, d->source ? d->source : "");
		as_text_printf(t, "\"} %u.%02u\n", d->load / 100,
			       d->load % 100);
	}
	if (m->n)
		family(t, "domain_scale_decisions_total", "counter",
		       "vCPU changes decided, by direction.");
	for (i = 0; i < m->n; i++) {
		d = &m->dom[i];
		domain_series(t, "domain_scale_decisions_total", d);
		as_text_printf(t, ",direction=\"up\"} %" PRIu64 "\n",
			       d->decisions_up);
		domain_series(t, "domain_scale_decisions_total", d);
		as_text_printf(t, ",direction=\"down\"} %" PRIu64 "\n",
			       d->decisions_down);
	}
	domain_family(t, m, "domain_scale_failures_total", "counter",
		      "vCPU changes the backend failed to make.",
		      offsetof(struct as_metrics_domain, failures));
	domain_family(t, m, "domain_rate_limited_total", "counter",
		      "vCPU changes held back by the cooldown or rate limit.",
		      offsetof(struct as_metrics_domain, rate_limited));
	domain_family(t, m, "domain_backend_timeouts_total", "counter",
		      "Backend calls (xl, libvirt) killed after their timeout.",
		      offsetof(struct as_metrics_domain, timeouts));
}

char *as_metrics_render(const struct as_metrics *m, size_t *len)
{
	struct as_text t = AS_TEXT_INIT;

	render_daemon(&t, m);
	render_domains(&t, m);
	return as_text_take(&t, len);
}

/* fsync the directory holding path, so that the rename is durable. */
static int sync_dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir;
	int fd, err = 0;

	if (!slash)
		dir = strdup(".");
	else if (slash == path)
		dir = strdup("/");
	else
		dir = strndup(path, (size_t)(slash - path));
	if (!dir)
		return -ENOMEM;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	if (fd < 0)
		return -errno;
	if (fsync(fd) < 0)
		err = -errno;
	close(fd);
	return err;
}

int as_metrics_write_file(const char *path, const char *text, size_t len)
{
	const char *slash = strrchr(path, '/');
	size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
	char *tmp;
	int fd, err;

	/* "DIR/.NAME.XXXXXX": a dot file, and no ".prom" at the end. */
	if (asprintf(&tmp, "%.*s.%s.XXXXXX", (int)dirlen, path, path + dirlen) <
	    0)
		return -ENOMEM;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		free(tmp);
		return err;
	}
	err = as_write_all(fd, text, len);
	if (!err && fchmod(fd, AS_METRICS_FILE_MODE) < 0)
		err = -errno;
	if (!err && fsync(fd) < 0)
		err = -errno;
	if (close(fd) < 0 && !err)
		err = -errno;
	if (!err && rename(tmp, path) < 0)
		err = -errno;
	if (err)
		unlink(tmp);
	else
		err = sync_dir_of(path);
	free(tmp);
	return err;
}

/* "N" as a port, 0..65535. */
static bool parse_port(const char *s, unsigned int *port)
{
	unsigned long v = 0;

	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		v = v * 10 + (unsigned long)(*s - '0');
		if (v > PORT_MAX)
			return false;
	}
	*port = (unsigned int)v;
	return true;
}

/* "IPV4:PORT" or "[IPV6]:PORT" into sa. */
static int parse_listen_addr(const char *addr, struct sockaddr_storage *sa,
			     socklen_t *salen)
{
	char host[INET6_ADDRSTRLEN + 1];
	const char *colon, *hs = addr, *he;
	unsigned int port;

	if (addr[0] == '[') {
		hs = addr + 1;
		he = strchr(hs, ']');
		if (!he || he[1] != ':')
			return -EINVAL;
		colon = he + 1;
	} else {
		colon = strrchr(addr, ':');
		if (!colon)
			return -EINVAL;
		he = colon;
	}
	if ((size_t)(he - hs) >= sizeof(host) || !parse_port(colon + 1, &port))
		return -EINVAL;
	memcpy(host, hs, (size_t)(he - hs));
	host[he - hs] = '\0';
	memset(sa, 0, sizeof(*sa));
	if (addr[0] != '[') {
		struct sockaddr_in *in = (struct sockaddr_in *)sa;

		in->sin_family = AF_INET;
		in->sin_port = htons((uint16_t)port);
		if (inet_pton(AF_INET, host, &in->sin_addr) != 1)
			return -EINVAL;
		*salen = sizeof(*in);
	} else {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)sa;

		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)port);
		if (inet_pton(AF_INET6, host, &in6->sin6_addr) != 1)
			return -EINVAL;
		*salen = sizeof(*in6);
	}
	return 0;
}

int as_metrics_listen(const char *addr)
{
	struct sockaddr_storage sa;
	socklen_t salen;
	int fd, err, one = 1;

	err = parse_listen_addr(addr, &sa, &salen);
	if (err)
		return err;
	fd = socket(sa.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    0);
	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(fd, (struct sockaddr *)&sa, salen) < 0 ||
	    listen(fd, LISTEN_BACKLOG) < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

/* The length of a token of request-line characters before a space. */
static size_t token(const char *s, const char *end)
{
	const char *p = s;

	while (p<end && * p> ' ' && *p < 0x7f)
		p++;
	return (size_t)(p - s);
}

int as_metrics_http_status(const char *req, size_t len, bool *head)
{
	const char *end = memchr(req, '\n', len), *p = req, *target;
	size_t mlen, tlen, vlen, plen;

	*head = false;
	if (!end)
		return 400;
	if (end > req && end[-1] == '\r')
		end--;
	/* METHOD SP TARGET SP VERSION, nothing else. */
	mlen = token(p, end);
	if (!mlen || p + mlen == end || p[mlen] != ' ')
		return 400;
	target = p + mlen + 1;
	tlen = token(target, end);
	if (!tlen || target + tlen == end || target[tlen] != ' ')
		return 400;
	p = target + tlen + 1;
	vlen = token(p, end);
	if (p + vlen != end || !((vlen == 8 && memcmp(p, "HTTP/1.0", 8) == 0) ||
				 (vlen == 8 && memcmp(p, "HTTP/1.1", 8) == 0)))
		return 400;
	if (target[0] != '/')
		return 400;
	plen = strcspn(target, "? ");
	plen = plen < tlen ? plen : tlen;
	*head = mlen == 4 && memcmp(req, "HEAD", 4) == 0;
	if (!*head && !(mlen == 3 && memcmp(req, "GET", 3) == 0))
		return 405;
	if (plen != strlen("/metrics") || memcmp(target, "/metrics", plen) != 0)
		return 404;
	return 200;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * MS_PER_SEC + ts.tv_nsec / NS_PER_MS;
}

/* Wait for events on fd until deadline: 0, -ETIMEDOUT or -errno. */
static int wait_fd(int fd, short events, int64_t deadline)
{
	struct pollfd p = {.fd = fd, .events = events};
	int64_t left;
	int n;

	for (;;) {
		left = deadline - now_ms();
		if (left <= 0)
			return -ETIMEDOUT;
		n = poll(&p, 1, left > INT_MAX ? INT_MAX : (int)left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n > 0)
			return 0;
	}
}

/* Read up to the blank line that ends a request's headers. */
static int read_request(int fd, char *buf, size_t cap, size_t *len,
			int64_t deadline)
{
	ssize_t n;
	int err;

	*len = 0;
	for (;;) {
		buf[*len] = '\0';
		if (strstr(buf, "\r\n\r\n") || strstr(buf, "\n\n"))
			return 0;
		if (*len == cap - 1)
			return -EMSGSIZE;
		n = recv(fd, buf + *len, cap - 1 - *len, 0);
		if (n == 0)
			return -ECONNRESET;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			err = wait_fd(fd, POLLIN, deadline);
			if (err)
				return err;
			continue;
		}
		if (n < 0)
			return -errno;
		if (memchr(buf + *len, '\0', (size_t)n))
			return -EBADMSG;
		*len += (size_t)n;
	}
}

static int send_all(int fd, const char *buf, size_t len, int64_t deadline)
{
	ssize_t n;
	int err;

	while (len) {
		/* MSG_NOSIGNAL: a client gone away is no SIGPIPE. */
		n = send(fd, buf, len, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			err = wait_fd(fd, POLLOUT, deadline);
			if (err)
				return err;
			continue;
		}
		if (n < 0)
			return -errno;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

static const char *reason_phrase(int status)
{
	switch (status) {
	case 200:
		return "OK";
	case 404:
		return "Not Found";
	case 405:
		return "Method Not Allowed";
	case 431:
		return "Request Header Fields Too Large";
	default:
		return "Bad Request";
	}
}

static int respond(int fd, int status, bool head, const struct as_metrics *m,
		   int64_t deadline)
{
	struct as_text t = AS_TEXT_INIT;
	char *body = NULL, *resp;
	size_t blen, rlen;
	int err;

	if (status == 200)
		body = as_metrics_render(m, &blen);
	else if (asprintf(&body, "%s\n", reason_phrase(status)) >= 0)
		blen = strlen(body);
	else
		body = NULL;
	if (!body)
		return -ENOMEM;
	as_text_printf(&t, "HTTP/1.1 %d %s\r\n", status, reason_phrase(status));
	as_text_printf(&t, "Content-Type: %s\r\n",
		       status == 200 ? CONTENT_TYPE : "text/plain");
	if (status == 405)
		as_text_puts(&t, "Allow: GET, HEAD\r\n");
	as_text_printf(&t, "Content-Length: %zu\r\nConnection: close\r\n\r\n",
		       blen);
	if (!head)
		as_text_add(&t, body, blen);
	free(body);
	resp = as_text_take(&t, &rlen);
	if (!resp)
		return -ENOMEM;
	err = send_all(fd, resp, rlen, deadline);
	free(resp);
	return err;
}

/*
 * Read away what the client sent beyond the request, without waiting:
 * closing a socket with unread data sends a reset, which may destroy the
 * response before the client has read it.
 */
static void drain(int fd)
{
	char buf[AS_METRICS_HTTP_REQUEST_MAX];

	shutdown(fd, SHUT_WR);
	while (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		;
}

int as_metrics_serve(int listen_fd, const struct as_metrics *m, int timeout_ms)
{
	int64_t deadline = now_ms() + timeout_ms;
	char req[AS_METRICS_HTTP_REQUEST_MAX + 1];
	size_t len;
	bool head = false;
	int fd, err, status;

	fd = accept4(listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	err = read_request(fd, req, sizeof(req), &len, deadline);
	if (err == -EMSGSIZE)
		status = 431;
	else if (err == -EBADMSG)
		status = 400;
	else if (err)
		goto out;
	else
		status = as_metrics_http_status(req, len, &head);
	err = respond(fd, status, head, m, deadline);
	if (!err && status == 431)
		err = -EMSGSIZE;
	drain(fd);
out:
	close(fd);
	return err;
}

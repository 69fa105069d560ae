// SPDX-License-Identifier: MIT
/*
 * Host tests of the xenstore client (drivers/xenstore.c) against a fake
 * xenstored that lives in this file.
 *
 * The fake serves the shared ring from inside the platform hooks: when the
 * client notifies, it takes every request byte out of the request ring,
 * answers each complete request from an in-memory key tree and writes the
 * replies (and watch events) into the response ring as far as they fit.
 * When the client waits, it writes more of what is still pending, as an
 * asynchronous daemon would. Knobs make it split replies into tiny chunks,
 * put watch events in front of replies, refuse commits with EAGAIN, and so
 * on; counters let the tests check what went over the ring.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <smpalt/xenstore.h>

#define FAKE_PORT 7
#define FAKE_PATH_MAX 512
#define FAKE_TOKEN_MAX 64
#define FAKE_MAX_KEYS 64
#define FAKE_MAX_WATCHES 8
#define FAKE_OUT_MAX (256 * 1024)
#define FAKE_IN_MAX (sizeof(struct xsd_sockmsg) + XENSTORE_PAYLOAD_MAX)
/* Waits in a row with nothing to deliver: the client would hang. */
#define FAKE_IDLE_WAIT_LIMIT 64
#define FAKE_FIRST_TX_ID 40
#define FAKE_LOG_MAX 4096

#define HDR_SIZE sizeof(struct xsd_sockmsg)

struct fake_key {
	bool used;
	char path[FAKE_PATH_MAX];
	char value[XENSTORE_PAYLOAD_MAX + 1];
};

struct fake_watch {
	bool used;
	char path[FAKE_PATH_MAX];
	char token[FAKE_TOKEN_MAX];
};

static struct {
	struct xenstore_domain_interface ring;
	char in[FAKE_IN_MAX];
	size_t in_len;
	char out[FAKE_OUT_MAX];
	size_t out_len;
	struct fake_key keys[FAKE_MAX_KEYS];
	struct fake_watch watches[FAKE_MAX_WATCHES];
	uint32_t next_tx;

	/* knobs */
	size_t max_chunk;	      /* bytes per flush, 0: as many as fit */
	bool flush_only_on_notify;    /* wait() writes nothing more */
	unsigned tx_end_eagain;	      /* commits still to refuse */
	unsigned events_before_reply; /* storm events ahead of each reply */
	bool stale_reply_first;	      /* a reply with a wrong req_id first */
	const char *force_error;      /* answer every request with this error */
	bool corrupt_rsp_prod;	      /* push rsp_prod a ring and more ahead */
	bool oversize_reply;	      /* answer with a payload over the limit */

	/* observations */
	unsigned notifies, waits, idle_waits, requests;
	size_t req_bytes;
	struct xsd_sockmsg last_hdr;
	char last_body[XENSTORE_PAYLOAD_MAX + 1];
	unsigned storm_seq;
	unsigned log_lines;
	char log[FAKE_LOG_MAX];
} fake;

/* ---- platform hooks -------------------------------------------------- */

/* Errors and warnings alike: one line each in fake.log. */
static void fake_vlog(const char *fmt, va_list ap)
{
	size_t used = strlen(fake.log);

	if (used < sizeof(fake.log) - 1) {
		vsnprintf(fake.log + used, sizeof(fake.log) - used, fmt, ap);
		used = strlen(fake.log);
		if (used < sizeof(fake.log) - 1)
			strcat(fake.log, "\n");
	}
	fake.log_lines++;
}

void xenstore_platform_log(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fake_vlog(fmt, ap);
	va_end(ap);
}

void xenstore_platform_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fake_vlog(fmt, ap);
	va_end(ap);
}

static void fake_process_requests(void);
static bool fake_flush(void);

void xenstore_platform_notify(evtchn_port_t port)
{
	assert_int_equal(port, FAKE_PORT);
	fake.notifies++;
	fake_process_requests();
	fake_flush();
	if (fake.corrupt_rsp_prod)
		fake.ring.rsp_prod += 2 * XENSTORE_RING_SIZE;
}

void xenstore_platform_wait(evtchn_port_t port)
{
	assert_int_equal(port, FAKE_PORT);
	fake.waits++;
	if (!fake.flush_only_on_notify && fake_flush()) {
		fake.idle_waits = 0;
		return;
	}
	if (++fake.idle_waits > FAKE_IDLE_WAIT_LIMIT)
		fail_msg("client waits with nothing coming (%u waits)",
			 fake.idle_waits);
}

/* ---- the fake daemon ------------------------------------------------- */

static void fake_emit(uint32_t type, uint32_t req_id, uint32_t tx_id,
		      const void *body, size_t len)
{
	struct xsd_sockmsg h = {type, req_id, tx_id, (uint32_t)len};

	assert_true(fake.out_len + HDR_SIZE + len <= sizeof(fake.out));
	memcpy(fake.out + fake.out_len, &h, HDR_SIZE);
	memcpy(fake.out + fake.out_len + HDR_SIZE, body, len);
	fake.out_len += HDR_SIZE + len;
}

/* Queue a watch event "path NUL token NUL". */
static void fake_emit_event(const char *path, const char *token)
{
	char body[2 * FAKE_PATH_MAX];
	size_t pl = strlen(path) + 1, tl = strlen(token) + 1;

	assert_true(pl + tl <= sizeof(body));
	memcpy(body, path, pl);
	memcpy(body + pl, token, tl);
	fake_emit(XS_WATCH_EVENT, 0, 0, body, pl + tl);
}

static void fake_emit_error(const struct xsd_sockmsg *h, const char *err)
{
	fake_emit(XS_ERROR, h->req_id, h->tx_id, err, strlen(err) + 1);
}

static void fake_emit_ok(const struct xsd_sockmsg *h)
{
	fake_emit(h->type, h->req_id, h->tx_id, "OK", sizeof("OK"));
}

/* Write pending output into the response ring. True if any was written. */
static bool fake_flush(void)
{
	struct xenstore_domain_interface *r = &fake.ring;
	size_t space = XENSTORE_RING_SIZE - (r->rsp_prod - r->rsp_cons);
	size_t n = fake.out_len < space ? fake.out_len : space;
	size_t i;

	if (fake.max_chunk && n > fake.max_chunk)
		n = fake.max_chunk;
	for (i = 0; i < n; i++)
		r->rsp[MASK_XENSTORE_IDX(r->rsp_prod + i)] = fake.out[i];
	memmove(fake.out, fake.out + n, fake.out_len - n);
	fake.out_len -= n;
	r->rsp_prod += (XENSTORE_RING_IDX)n;
	return n > 0;
}

/* Copy a string that must fit (a test bug otherwise). */
static void fake_copy(char *dst, size_t size, const char *src)
{
	size_t n = strlen(src);

	assert_true(n < size);
	memcpy(dst, src, n + 1);
}

static struct fake_key *fake_find(const char *path)
{
	int i;

	for (i = 0; i < FAKE_MAX_KEYS; i++)
		if (fake.keys[i].used && !strcmp(fake.keys[i].path, path))
			return &fake.keys[i];
	return NULL;
}

/* Is @path @dir itself or below it? */
static bool fake_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return !strncmp(path, dir, n) && (path[n] == '\0' || path[n] == '/');
}

static bool fake_exists(const char *path)
{
	int i;

	for (i = 0; i < FAKE_MAX_KEYS; i++)
		if (fake.keys[i].used && fake_under(fake.keys[i].path, path))
			return true;
	return false;
}

static void fake_fire(const char *path)
{
	int i;

	for (i = 0; i < FAKE_MAX_WATCHES; i++)
		if (fake.watches[i].used &&
		    fake_under(path, fake.watches[i].path))
			fake_emit_event(path, fake.watches[i].token);
}

/* Test helper too: set a key directly, no event. */
static void fake_set(const char *path, const char *value, size_t len)
{
	struct fake_key *k = fake_find(path);
	int i;

	for (i = 0; !k && i < FAKE_MAX_KEYS; i++)
		if (!fake.keys[i].used)
			k = &fake.keys[i];
	assert_non_null(k);
	k->used = true;
	fake_copy(k->path, sizeof(k->path), path);
	memcpy(k->value, value, len);
	k->value[len] = '\0';
}

static void fake_read(const struct xsd_sockmsg *h, const char *path)
{
	struct fake_key *k = fake_find(path);

	if (k)
		fake_emit(XS_READ, h->req_id, h->tx_id, k->value,
			  strlen(k->value));
	else if (fake_exists(path))
		fake_emit(XS_READ, h->req_id, h->tx_id, "", 0);
	else
		fake_emit_error(h, "ENOENT");
}

static void fake_rm(const struct xsd_sockmsg *h, const char *path)
{
	int i;

	if (!fake_exists(path)) {
		fake_emit_error(h, "ENOENT");
		return;
	}
	for (i = 0; i < FAKE_MAX_KEYS; i++)
		if (fake.keys[i].used && fake_under(fake.keys[i].path, path))
			fake.keys[i].used = false;
	fake_fire(path);
	fake_emit_ok(h);
}

static void fake_directory(const struct xsd_sockmsg *h, const char *path)
{
	char list[XENSTORE_PAYLOAD_MAX];
	size_t len = 0, plen = strlen(path);
	int i;

	if (!fake_exists(path)) {
		fake_emit_error(h, "ENOENT");
		return;
	}
	for (i = 0; i < FAKE_MAX_KEYS; i++) {
		const char *p = fake.keys[i].path, *name, *end;
		size_t n, at;
		bool seen = false;

		if (!fake.keys[i].used || !fake_under(p, path) || !p[plen])
			continue;
		name = p + plen + 1;
		end = strchr(name, '/');
		n = end ? (size_t)(end - name) : strlen(name);
		for (at = 0; at < len; at += strlen(list + at) + 1)
			if (strlen(list + at) == n &&
			    !strncmp(list + at, name, n))
				seen = true;
		if (seen)
			continue;
		memcpy(list + len, name, n);
		list[len + n] = '\0';
		len += n + 1;
	}
	fake_emit(XS_DIRECTORY, h->req_id, h->tx_id, list, len);
}

static void fake_watch(const struct xsd_sockmsg *h, const char *path,
		       const char *token)
{
	int i;

	for (i = 0; i < FAKE_MAX_WATCHES; i++) {
		if (fake.watches[i].used)
			continue;
		fake.watches[i].used = true;
		fake_copy(fake.watches[i].path, FAKE_PATH_MAX, path);
		fake_copy(fake.watches[i].token, FAKE_TOKEN_MAX, token);
		fake_emit_ok(h);
		/* Like xenstored: one event at once, after the reply. */
		fake_emit_event(path, token);
		return;
	}
	fake_emit_error(h, "ENOSPC");
}

static void fake_unwatch(const struct xsd_sockmsg *h, const char *path,
			 const char *token)
{
	int i;

	for (i = 0; i < FAKE_MAX_WATCHES; i++) {
		struct fake_watch *w = &fake.watches[i];

		if (w->used && !strcmp(w->path, path) &&
		    !strcmp(w->token, token)) {
			w->used = false;
			fake_emit_ok(h);
			return;
		}
	}
	fake_emit_error(h, "ENOENT");
}

static void fake_handle(const struct xsd_sockmsg *h, char *body)
{
	char *second = body + strnlen(body, h->len) + 1;
	unsigned i;

	fake.requests++;
	fake.last_hdr = *h;
	memcpy(fake.last_body, body, h->len + 1);

	for (i = 0; i < fake.events_before_reply; i++) {
		char path[FAKE_PATH_MAX];

		snprintf(path, sizeof(path), "storm/%u", fake.storm_seq++);
		fake_emit_event(path, "storm");
	}
	if (fake.stale_reply_first)
		fake_emit(h->type, h->req_id + 1000, h->tx_id, "stale",
			  sizeof("stale"));
	if (fake.oversize_reply) {
		static char huge[XENSTORE_PAYLOAD_MAX + 100];

		memset(huge, 'h', sizeof(huge));
		fake_emit(h->type, h->req_id, h->tx_id, huge, sizeof(huge));
		return;
	}
	if (fake.force_error) {
		fake_emit_error(h, fake.force_error);
		return;
	}

	switch (h->type) {
	case XS_READ:
		fake_read(h, body);
		break;
	case XS_WRITE: {
		size_t vlen = h->len - (size_t)(second - body);

		fake_set(body, second, vlen);
		/* Like xenstored: events before the reply. */
		fake_fire(body);
		fake_emit_ok(h);
		break;
	}
	case XS_RM:
		fake_rm(h, body);
		break;
	case XS_DIRECTORY:
		fake_directory(h, body);
		break;
	case XS_WATCH:
		fake_watch(h, body, second);
		break;
	case XS_UNWATCH:
		fake_unwatch(h, body, second);
		break;
	case XS_TRANSACTION_START: {
		char id[16];

		snprintf(id, sizeof(id), "%u", fake.next_tx++);
		fake_emit(h->type, h->req_id, 0, id, strlen(id) + 1);
		break;
	}
	case XS_TRANSACTION_END:
		if (!strcmp(body, "T") && fake.tx_end_eagain) {
			fake.tx_end_eagain--;
			fake_emit_error(h, "EAGAIN");
		} else {
			fake_emit_ok(h);
		}
		break;
	default:
		fake_emit_error(h, "EINVAL");
	}
}

static void fake_process_requests(void)
{
	struct xenstore_domain_interface *r = &fake.ring;
	struct xsd_sockmsg h;

	while (r->req_cons != r->req_prod) {
		assert_true(r->req_prod - r->req_cons <= XENSTORE_RING_SIZE);
		assert_true(fake.in_len < sizeof(fake.in));
		fake.in[fake.in_len++] = r->req[MASK_XENSTORE_IDX(r->req_cons)];
		r->req_cons++;
		fake.req_bytes++;
	}
	for (;;) {
		char body[XENSTORE_PAYLOAD_MAX + 1];

		if (fake.in_len < HDR_SIZE)
			return;
		memcpy(&h, fake.in, HDR_SIZE);
		assert_true(h.len <= XENSTORE_PAYLOAD_MAX);
		if (fake.in_len < HDR_SIZE + h.len)
			return;
		memcpy(body, fake.in + HDR_SIZE, h.len);
		body[h.len] = '\0';
		fake.in_len -= HDR_SIZE + h.len;
		memmove(fake.in, fake.in + HDR_SIZE + h.len, fake.in_len);
		fake_handle(&h, body);
	}
}

/* Put both rings' indices at @idx, as if that much traffic had gone by. */
static void fake_set_indices(XENSTORE_RING_IDX idx)
{
	fake.ring.req_cons = fake.ring.req_prod = idx;
	fake.ring.rsp_cons = fake.ring.rsp_prod = idx;
}

static int setup(void **state)
{
	(void)state;
	memset(&fake, 0, sizeof(fake));
	fake.next_tx = FAKE_FIRST_TX_ID;
	assert_int_equal(xenstore_init(&fake.ring, FAKE_PORT), 0);
	return 0;
}

/* Re-attach after changing the ring indices. */
static void reinit_at(XENSTORE_RING_IDX idx)
{
	fake_set_indices(idx);
	assert_int_equal(xenstore_init(&fake.ring, FAKE_PORT), 0);
}

static void expect_event(const char *path, const char *token)
{
	char p[FAKE_PATH_MAX], t[FAKE_TOKEN_MAX];

	assert_int_equal(xenstore_next_watch(p, sizeof(p), t, sizeof(t)), 1);
	assert_string_equal(p, path);
	assert_string_equal(t, token);
}

static void expect_no_event(void)
{
	char p[FAKE_PATH_MAX], t[FAKE_TOKEN_MAX];

	assert_int_equal(xenstore_next_watch(p, sizeof(p), t, sizeof(t)), 0);
}

/* ---- round trips ----------------------------------------------------- */

static void read_returns_the_value_write_stored(void **state)
{
	char buf[64];

	(void)state;
	assert_int_equal(xenstore_write(0, "data/smpalt/mode", "up"), 0);
	assert_int_equal(xenstore_read(0, "data/smpalt/mode", buf, sizeof(buf)), 2);
	assert_string_equal(buf, "up");
	assert_int_equal(fake.last_hdr.type, XS_READ);
	assert_int_equal(fake.log_lines, 0);
}

static void write_sends_path_nul_value_without_trailing_nul(void **state)
{
	(void)state;
	assert_int_equal(xenstore_write(0, "a/b", "xyz"), 0);
	assert_int_equal(fake.last_hdr.type, XS_WRITE);
	assert_int_equal(fake.last_hdr.len, sizeof("a/b") + strlen("xyz"));
	assert_memory_equal(fake.last_body, "a/b\0xyz", fake.last_hdr.len);
}

static void read_of_a_missing_key_returns_enoent_without_logging(void **state)
{
	char buf[16] = "untouched";

	(void)state;
	assert_int_equal(xenstore_read(0, "cpu/9/availability", buf, sizeof(buf)),
			 -ENOENT);
	assert_string_equal(buf, "untouched");
	assert_int_equal(fake.log_lines, 0);
}

static void read_of_an_empty_value_returns_zero_and_empty_string(void **state)
{
	char buf[8] = "junk";

	(void)state;
	assert_int_equal(xenstore_write(0, "empty", ""), 0);
	assert_int_equal(xenstore_read(0, "empty", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
}

static void
read_into_a_too_small_buffer_returns_erange_and_logs_the_key(void **state)
{
	char buf[4];

	(void)state;
	assert_int_equal(xenstore_write(0, "control/smpalt/phase", "busy"), 0);
	assert_int_equal(xenstore_read(0, "control/smpalt/phase", buf, sizeof(buf)),
			 -ERANGE);
	assert_int_equal(fake.log_lines, 1);
	assert_non_null(strstr(fake.log, "control/smpalt/phase"));
}

static void rm_removes_the_key_and_everything_below(void **state)
{
	char buf[16];

	(void)state;
	assert_int_equal(xenstore_write(0, "cpu/1/availability", "online"), 0);
	assert_int_equal(xenstore_write(0, "cpu/1/other", "x"), 0);
	assert_int_equal(xenstore_rm(0, "cpu/1"), 0);
	assert_int_equal(xenstore_read(0, "cpu/1/availability", buf, sizeof(buf)),
			 -ENOENT);
	assert_int_equal(xenstore_read(0, "cpu/1/other", buf, sizeof(buf)),
			 -ENOENT);
}

static void rm_of_a_missing_key_returns_enoent(void **state)
{
	(void)state;
	assert_int_equal(xenstore_rm(0, "nothing/here"), -ENOENT);
	assert_int_equal(fake.log_lines, 0);
}

static void directory_lists_children_nul_separated_with_count(void **state)
{
	char buf[64];
	unsigned count = 99;

	(void)state;
	assert_int_equal(xenstore_write(0, "cpu/0/availability", "online"), 0);
	assert_int_equal(xenstore_write(0, "cpu/1/availability", "offline"), 0);
	assert_int_equal(xenstore_write(0, "cpu/12/availability", "online"), 0);
	assert_int_equal(xenstore_directory(0, "cpu", buf, sizeof(buf), &count),
			 (int)sizeof("0\0"
				     "1\0"
				     "12"));
	assert_int_equal(count, 3);
	assert_memory_equal(buf,
			    "0\0"
			    "1\0"
			    "12",
			    sizeof("0\0"
				   "1\0"
				   "12"));
}

static void directory_of_a_leaf_is_empty_with_count_zero(void **state)
{
	char buf[8];
	unsigned count = 99;

	(void)state;
	assert_int_equal(xenstore_write(0, "leaf", "v"), 0);
	assert_int_equal(xenstore_directory(0, "leaf", buf, sizeof(buf), &count), 0);
	assert_int_equal(count, 0);
}

static void directory_of_a_missing_path_returns_enoent(void **state)
{
	char buf[8];
	unsigned count = 99;

	(void)state;
	assert_int_equal(xenstore_directory(0, "cpu", buf, sizeof(buf), &count),
			 -ENOENT);
	assert_int_equal(count, 0);
}

static void directory_too_big_for_the_buffer_returns_erange(void **state)
{
	char buf[4];
	unsigned count;

	(void)state;
	assert_int_equal(xenstore_write(0, "cpu/10/availability", "online"), 0);
	assert_int_equal(xenstore_write(0, "cpu/11/availability", "online"), 0);
	assert_int_equal(xenstore_directory(0, "cpu", buf, sizeof(buf), &count),
			 -ERANGE);
	assert_non_null(strstr(fake.log, "cpu"));
}

/* ---- errors ---------------------------------------------------------- */

static void xenstored_error_strings_map_to_negative_errno(void **state)
{
	static const struct {
		const char *name;
		int err;
	} map[] = {
		{"EACCES", EACCES}, {"EINVAL", EINVAL},
		{"EAGAIN", EAGAIN}, {"E2BIG", E2BIG},
		{"EEXIST", EEXIST}, {"ENOSPC", ENOSPC},
		{"EPERM", EPERM},	{"EQUOTA-ISH", EIO},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		fake.force_error = map[i].name;
		assert_int_equal(xenstore_write(0, "k", "v"), -map[i].err);
	}
}

static void a_failed_write_is_logged_once_naming_the_key(void **state)
{
	(void)state;
	fake.force_error = "EACCES";
	assert_int_equal(xenstore_write(0, "data/smpalt/online", "2"), -EACCES);
	assert_int_equal(fake.log_lines, 1);
	assert_non_null(strstr(fake.log, "data/smpalt/online"));
	assert_non_null(strstr(fake.log, "EACCES"));
}

static void oversize_write_is_rejected_with_e2big_and_nothing_sent(void **state)
{
	static char big[XENSTORE_PAYLOAD_MAX + 1];

	(void)state;
	memset(big, 'v', XENSTORE_PAYLOAD_MAX);
	/* "k" NUL value: 2 + 4096 bytes, over the limit. */
	assert_int_equal(xenstore_write(0, "k", big), -E2BIG);
	assert_int_equal(fake.req_bytes, 0);
	assert_int_equal(fake.notifies, 0);
	assert_int_equal(fake.ring.req_prod, 0);
	assert_non_null(strstr(fake.log, "k:"));
}

static void oversize_path_is_rejected_with_e2big_and_nothing_sent(void **state)
{
	static char path[XENSTORE_PAYLOAD_MAX + 8];
	char buf[8];

	(void)state;
	memset(path, 'p', sizeof(path) - 1);
	assert_int_equal(xenstore_read(0, path, buf, sizeof(buf)), -E2BIG);
	assert_int_equal(fake.req_bytes, 0);
}

static void payload_of_exactly_the_limit_is_accepted(void **state)
{
	static char value[XENSTORE_PAYLOAD_MAX];
	static char back[XENSTORE_PAYLOAD_MAX + 1];
	size_t vlen = XENSTORE_PAYLOAD_MAX - sizeof("k");

	(void)state;
	memset(value, 'x', vlen);
	assert_int_equal(xenstore_write(0, "k", value), 0);
	assert_int_equal(fake.last_hdr.len, XENSTORE_PAYLOAD_MAX);
	assert_int_equal(xenstore_read(0, "k", back, sizeof(back)), (int)vlen);
	assert_string_equal(back, value);
}

/* ---- ring mechanics -------------------------------------------------- */

static void messages_wrap_around_the_ring_end(void **state)
{
	char buf[64];

	(void)state;
	/* 5 bytes before the end: every header straddles the wrap. */
	reinit_at(XENSTORE_RING_SIZE - 5);
	assert_int_equal(xenstore_write(0, "data/smpalt/load", "250"), 0);
	assert_int_equal(xenstore_read(0, "data/smpalt/load", buf, sizeof(buf)), 3);
	assert_string_equal(buf, "250");
	assert_true(fake.ring.req_prod > XENSTORE_RING_SIZE);
	assert_true(fake.ring.rsp_cons > XENSTORE_RING_SIZE);
}

static void indices_wrap_around_two_to_the_32(void **state)
{
	char buf[64];

	(void)state;
	reinit_at(UINT32_MAX - 9);
	assert_int_equal(xenstore_write(0, "data/smpalt/mode", "smp"), 0);
	assert_int_equal(xenstore_read(0, "data/smpalt/mode", buf, sizeof(buf)), 3);
	assert_string_equal(buf, "smp");
	assert_true(fake.ring.req_prod < XENSTORE_RING_SIZE);
}

static void value_larger_than_the_ring_goes_through_in_chunks(void **state)
{
	static char value[3 * XENSTORE_RING_SIZE];
	static char back[sizeof(value)];

	(void)state;
	reinit_at(XENSTORE_RING_SIZE / 2 + 3);
	memset(value, 'z', sizeof(value) - 1);
	value[0] = 'A';
	value[sizeof(value) - 2] = 'Z';
	assert_int_equal(xenstore_write(0, "big", value), 0);
	assert_true(fake.notifies > 1); /* had to wait for space */
	assert_int_equal(xenstore_read(0, "big", back, sizeof(back)),
			 (int)sizeof(value) - 1);
	assert_string_equal(back, value);
}

static void replies_split_into_tiny_chunks_are_reassembled(void **state)
{
	char buf[64];
	unsigned count;

	(void)state;
	assert_int_equal(xenstore_write(0, "cpu/0/availability", "online"), 0);
	assert_int_equal(xenstore_write(0, "cpu/1/availability", "offline"), 0);
	fake.max_chunk = 3;
	assert_int_equal(xenstore_read(0, "cpu/1/availability", buf, sizeof(buf)), 7);
	assert_string_equal(buf, "offline");
	assert_int_equal(xenstore_directory(0, "cpu", buf, sizeof(buf), &count), 4);
	assert_int_equal(count, 2);
	assert_true(fake.waits > 5);
}

static void client_notifies_xenstored_after_draining_a_full_ring(void **state)
{
	static char value[2 * XENSTORE_RING_SIZE];
	static char back[sizeof(value)];

	(void)state;
	memset(value, 'q', sizeof(value) - 1);
	assert_int_equal(xenstore_write(0, "big", value), 0);
	/*
	 * xenstored now writes only when notified: the reply fills the
	 * ring, and the rest comes only if the client says it made room.
	 */
	fake.flush_only_on_notify = true;
	assert_int_equal(xenstore_read(0, "big", back, sizeof(back)),
			 (int)sizeof(value) - 1);
	assert_string_equal(back, value);
}

static void reply_with_a_stale_req_id_is_skipped_and_logged(void **state)
{
	char buf[16];

	(void)state;
	assert_int_equal(xenstore_write(0, "k", "good"), 0);
	fake.stale_reply_first = true;
	assert_int_equal(xenstore_read(0, "k", buf, sizeof(buf)), 4);
	assert_string_equal(buf, "good");
	assert_non_null(strstr(fake.log, "unexpected reply"));
}

static void each_request_carries_a_new_req_id(void **state)
{
	char buf[8];
	uint32_t first;

	(void)state;
	assert_int_equal(xenstore_write(0, "k", "1"), 0);
	first = fake.last_hdr.req_id;
	assert_int_equal(xenstore_read(0, "k", buf, sizeof(buf)), 1);
	assert_int_not_equal(fake.last_hdr.req_id, first);
}

static void init_discards_stale_responses_and_rejects_no_ring(void **state)
{
	char buf[8];

	(void)state;
	fake.ring.rsp_prod += 11; /* half a message from a previous life */
	assert_int_equal(xenstore_init(&fake.ring, FAKE_PORT), 0);
	assert_int_equal(fake.ring.rsp_cons, fake.ring.rsp_prod);
	assert_int_equal(xenstore_write(0, "k", "v"), 0);
	assert_int_equal(xenstore_read(0, "k", buf, sizeof(buf)), 1);
	assert_int_equal(xenstore_init(NULL, FAKE_PORT), -EINVAL);
	assert_int_equal(xenstore_write(0, "k", "v"), -ENOTCONN);
}

static void
large_request_while_the_response_ring_is_full_completes(void **state)
{
	static char value[3 * XENSTORE_RING_SIZE];
	static char back[sizeof(value)];
	unsigned i;

	(void)state;
	assert_int_equal(xenstore_watch("w", "t"), 0);
	/* 100 events waiting: the response ring is full, xenstored blocked. */
	for (i = 0; i < 100; i++)
		fake_emit_event("w/x", "t");
	fake_flush();
	fake.flush_only_on_notify = true;
	memset(value, 'r', sizeof(value) - 1);
	assert_int_equal(xenstore_write(0, "big", value), 0);
	assert_int_equal(xenstore_read(0, "big", back, sizeof(back)),
			 (int)sizeof(value) - 1);
	assert_string_equal(back, value);
	assert_true(xenstore_watch_take_dropped());
}

static void
broken_response_indices_fail_requests_with_eio_logged_once(void **state)
{
	char buf[8];

	(void)state;
	assert_int_equal(xenstore_write(0, "k", "v"), 0);
	fake.corrupt_rsp_prod = true;
	assert_int_equal(xenstore_read(0, "k", buf, sizeof(buf)), -EIO);
	assert_non_null(strstr(fake.log, "exceed the ring size"));
	/* Later requests are not even sent. */
	fake.req_bytes = 0;
	assert_int_equal(xenstore_read(0, "k", buf, sizeof(buf)), -EIO);
	assert_int_equal(fake.req_bytes, 0);
	assert_int_equal(fake.log_lines, 3); /* 1 ring + 1 per request */
}

static void
oversize_reply_is_discarded_with_eio_and_the_stream_recovers(void **state)
{
	char buf[8];

	(void)state;
	assert_int_equal(xenstore_write(0, "k", "v"), 0);
	fake.oversize_reply = true;
	assert_int_equal(xenstore_read(0, "k", buf, sizeof(buf)), -EIO);
	assert_int_equal(fake.log_lines, 1);
	assert_non_null(strstr(fake.log, "limit"));
	fake.oversize_reply = false;
	assert_int_equal(xenstore_read(0, "k", buf, sizeof(buf)), 1);
	assert_string_equal(buf, "v");
}

/* ---- watches --------------------------------------------------------- */

static void watch_fires_once_at_once_and_once_per_change(void **state)
{
	(void)state;
	assert_int_equal(xenstore_watch("cpu", "hotplug"), 0);
	assert_int_equal(fake.last_hdr.type, XS_WATCH);
	assert_memory_equal(fake.last_body, "cpu\0hotplug",
			    sizeof("cpu\0hotplug"));
	expect_event("cpu", "hotplug");
	expect_no_event();
	assert_int_equal(xenstore_write(0, "cpu/2/availability", "online"), 0);
	assert_int_equal(xenstore_write(0, "control/x", "1"), 0);
	assert_int_equal(xenstore_rm(0, "cpu/2"), 0);
	expect_event("cpu/2/availability", "hotplug");
	expect_event("cpu/2", "hotplug");
	expect_no_event();
	assert_false(xenstore_watch_take_dropped());
}

static void unwatch_stops_events(void **state)
{
	(void)state;
	assert_int_equal(xenstore_watch("cpu", "hotplug"), 0);
	assert_int_equal(xenstore_unwatch("cpu", "hotplug"), 0);
	expect_event("cpu", "hotplug"); /* the initial one, already queued */
	assert_int_equal(xenstore_write(0, "cpu/1/availability", "online"), 0);
	expect_no_event();
}

static void
watch_events_interleaved_with_replies_are_queued_in_order(void **state)
{
	char buf[16];

	(void)state;
	assert_int_equal(xenstore_write(0, "k", "v"), 0);
	fake.events_before_reply = 3;
	fake.max_chunk = 5; /* and cut everything into pieces */
	assert_int_equal(xenstore_read(0, "k", buf, sizeof(buf)), 1);
	assert_int_equal(xenstore_read(0, "k", buf, sizeof(buf)), 1);
	fake.events_before_reply = 0;
	expect_event("storm/0", "storm");
	expect_event("storm/1", "storm");
	expect_event("storm/2", "storm");
	expect_event("storm/3", "storm");
	expect_event("storm/4", "storm");
	expect_event("storm/5", "storm");
	expect_no_event();
	assert_false(xenstore_watch_take_dropped());
	assert_int_equal(xenstore_watch_dropped_total(), 0);
}

static void
queue_overflow_drops_the_oldest_and_sets_the_dropped_flag(void **state)
{
	char buf[16];
	char path[32];
	unsigned i;

	(void)state;
	assert_int_equal(xenstore_write(0, "k", "v"), 0);
	fake.events_before_reply = XS_WATCH_QUEUE_LEN + 5;
	assert_int_equal(xenstore_read(0, "k", buf, sizeof(buf)), 1);
	fake.events_before_reply = 0;

	assert_int_equal(xenstore_watch_dropped_total(), 5);
	assert_true(xenstore_watch_take_dropped());
	assert_false(xenstore_watch_take_dropped()); /* cleared by taking it */
	for (i = 5; i < XS_WATCH_QUEUE_LEN + 5; i++) {
		snprintf(path, sizeof(path), "storm/%u", i);
		expect_event(path, "storm");
	}
	expect_no_event();
	/* One log line for the whole storm. */
	assert_int_equal(fake.log_lines, 1);
	/* And the client still works. */
	assert_int_equal(xenstore_write(0, "k", "w"), 0);
	assert_int_equal(xenstore_read(0, "k", buf, sizeof(buf)), 1);
	assert_string_equal(buf, "w");
}

static void storm_larger_than_the_ring_does_not_break_requests(void **state)
{
	char buf[16];

	(void)state;
	assert_int_equal(xenstore_write(0, "k", "v"), 0);
	fake.events_before_reply = 200; /* ~6 KiB of events, ring is 1 KiB */
	assert_int_equal(xenstore_read(0, "k", buf, sizeof(buf)), 1);
	assert_string_equal(buf, "v");
	fake.events_before_reply = 0;
	assert_true(xenstore_watch_take_dropped());
	assert_int_equal(xenstore_watch_dropped_total(), 200 - XS_WATCH_QUEUE_LEN);
}

static void poll_takes_in_events_that_arrive_while_idle(void **state)
{
	char p[32], t[32];

	(void)state;
	fake_emit_event("cpu/3/availability", "hotplug");
	fake_flush();
	xenstore_poll();
	/* The event left the ring for the queue. */
	assert_int_equal(fake.ring.rsp_cons, fake.ring.rsp_prod);
	assert_int_equal(xenstore_next_watch(p, sizeof(p), t, sizeof(t)), 1);
	assert_string_equal(p, "cpu/3/availability");
	assert_string_equal(t, "hotplug");
	assert_int_equal(fake.notifies, 0); /* poll never sends */
}

static void
next_watch_with_a_small_buffer_returns_erange_and_flags_drop(void **state)
{
	char p[4], t[32];

	(void)state;
	fake_emit_event("cpu/3/availability", "hotplug");
	fake_flush();
	assert_int_equal(xenstore_next_watch(p, sizeof(p), t, sizeof(t)),
			 -ERANGE);
	assert_true(xenstore_watch_take_dropped());
	expect_no_event();
}

static void overlong_watch_event_is_dropped_and_flagged(void **state)
{
	char path[XS_WATCH_EVENT_MAX + 1];

	(void)state;
	memset(path, 'x', sizeof(path) - 1);
	path[sizeof(path) - 1] = '\0';
	fake_emit_event(path, "t");
	fake_emit_event("after", "t");
	fake_flush();
	xenstore_poll();
	assert_true(xenstore_watch_take_dropped());
	expect_event("after", "t");
	expect_no_event();
}

static void malformed_watch_event_without_token_is_dropped(void **state)
{
	(void)state;
	fake_emit(XS_WATCH_EVENT, 0, 0, "justpath", strlen("justpath"));
	fake_flush();
	xenstore_poll();
	assert_true(xenstore_watch_take_dropped());
	expect_no_event();
}

/* ---- transactions ---------------------------------------------------- */

struct tx_job {
	unsigned calls;
	xenstore_transaction_t seen;
	int fail_with;
};

static int tx_write_two(xenstore_transaction_t t, void *arg)
{
	struct tx_job *job = arg;
	int ret;

	job->calls++;
	job->seen = t;
	if (job->fail_with)
		return job->fail_with;
	ret = xenstore_write(t, "cpu/1/availability", "online");
	if (!ret)
		ret = xenstore_write(t, "cpu/2/availability", "online");
	return ret;
}

static void transaction_ids_go_in_the_request_header(void **state)
{
	xenstore_transaction_t t = 0;

	(void)state;
	assert_int_equal(xenstore_transaction_start(&t), 0);
	assert_int_equal(t, FAKE_FIRST_TX_ID);
	assert_int_equal(xenstore_write(t, "k", "v"), 0);
	assert_int_equal(fake.last_hdr.tx_id, FAKE_FIRST_TX_ID);
	assert_int_equal(xenstore_transaction_end(t, false), 0);
	assert_int_equal(fake.last_hdr.type, XS_TRANSACTION_END);
	assert_string_equal(fake.last_body, "T");
}

static void
transaction_end_returns_eagain_on_conflict_without_logging(void **state)
{
	xenstore_transaction_t t;

	(void)state;
	fake.tx_end_eagain = 1;
	assert_int_equal(xenstore_transaction_start(&t), 0);
	assert_int_equal(xenstore_transaction_end(t, false), -EAGAIN);
	assert_int_equal(fake.log_lines, 0);
}

static void
transaction_run_retries_on_eagain_until_the_commit_succeeds(void **state)
{
	struct tx_job job = {0};
	char buf[16];

	(void)state;
	fake.tx_end_eagain = 2;
	assert_int_equal(xenstore_transaction_run("vcpu-set", tx_write_two, &job), 0);
	assert_int_equal(job.calls, 3);
	assert_int_equal(job.seen, FAKE_FIRST_TX_ID + 2);
	assert_int_equal(fake.log_lines, 2); /* one per retry */
	assert_non_null(strstr(fake.log, "vcpu-set"));
	assert_int_equal(xenstore_read(0, "cpu/2/availability", buf, sizeof(buf)), 6);
}

static void
transaction_run_gives_up_after_a_bounded_number_of_attempts(void **state)
{
	struct tx_job job = {0};

	(void)state;
	fake.tx_end_eagain = 1000;
	assert_int_equal(xenstore_transaction_run("storm", tx_write_two, &job),
			 -EAGAIN);
	assert_int_equal(job.calls, XS_TRANSACTION_ATTEMPTS);
	assert_non_null(strstr(fake.log, "gave up"));
}

static void transaction_run_abandons_when_the_function_fails(void **state)
{
	struct tx_job job = {.fail_with = -EINVAL};

	(void)state;
	assert_int_equal(xenstore_transaction_run("bad", tx_write_two, &job),
			 -EINVAL);
	assert_int_equal(job.calls, 1);
	assert_int_equal(fake.last_hdr.type, XS_TRANSACTION_END);
	assert_string_equal(fake.last_body, "F");
}

#define T(fn) cmocka_unit_test_setup(fn, setup)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(read_returns_the_value_write_stored),
		T(write_sends_path_nul_value_without_trailing_nul),
		T(read_of_a_missing_key_returns_enoent_without_logging),
		T(read_of_an_empty_value_returns_zero_and_empty_string),
		T(read_into_a_too_small_buffer_returns_erange_and_logs_the_key),
		T(rm_removes_the_key_and_everything_below),
		T(rm_of_a_missing_key_returns_enoent),
		T(directory_lists_children_nul_separated_with_count),
		T(directory_of_a_leaf_is_empty_with_count_zero),
		T(directory_of_a_missing_path_returns_enoent),
		T(directory_too_big_for_the_buffer_returns_erange),
		T(xenstored_error_strings_map_to_negative_errno),
		T(a_failed_write_is_logged_once_naming_the_key),
		T(oversize_write_is_rejected_with_e2big_and_nothing_sent),
		T(oversize_path_is_rejected_with_e2big_and_nothing_sent),
		T(payload_of_exactly_the_limit_is_accepted),
		T(messages_wrap_around_the_ring_end),
		T(indices_wrap_around_two_to_the_32),
		T(value_larger_than_the_ring_goes_through_in_chunks),
		T(replies_split_into_tiny_chunks_are_reassembled),
		T(client_notifies_xenstored_after_draining_a_full_ring),
		T(reply_with_a_stale_req_id_is_skipped_and_logged),
		T(each_request_carries_a_new_req_id),
		T(init_discards_stale_responses_and_rejects_no_ring),
		T(large_request_while_the_response_ring_is_full_completes),
		T(oversize_reply_is_discarded_with_eio_and_the_stream_recovers),
		T(broken_response_indices_fail_requests_with_eio_logged_once),
		T(watch_fires_once_at_once_and_once_per_change),
		T(unwatch_stops_events),
		T(watch_events_interleaved_with_replies_are_queued_in_order),
		T(queue_overflow_drops_the_oldest_and_sets_the_dropped_flag),
		T(storm_larger_than_the_ring_does_not_break_requests),
		T(poll_takes_in_events_that_arrive_while_idle),
		T(next_watch_with_a_small_buffer_returns_erange_and_flags_drop),
		T(overlong_watch_event_is_dropped_and_flagged),
		T(malformed_watch_event_without_token_is_dropped),
		T(transaction_ids_go_in_the_request_header),
		T(transaction_end_returns_eagain_on_conflict_without_logging),
		T(transaction_run_retries_on_eagain_until_the_commit_succeeds),
		T(transaction_run_gives_up_after_a_bounded_number_of_attempts),
		T(transaction_run_abandons_when_the_function_fails),
	};

	return cmocka_run_group_tests_name("xenstore client", tests, NULL,
					   NULL);
}

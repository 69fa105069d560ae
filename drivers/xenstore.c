// SPDX-License-Identifier: MIT
/*
 * Xenstore client over the shared ring page (see include/smpalt/xenstore.h).
 *
 * Two byte rings share the page: requests (we produce, xenstored consumes)
 * and responses (xenstored produces replies and watch events, we consume).
 * The indices are free-running 32-bit counters; MASK_XENSTORE_IDX() turns
 * one into an offset, and prod - cons (mod 2^32) is the fill level.
 *
 * Barriers. The guest is x86-64, whose memory model (TSO) keeps loads in
 * order with older loads, stores in order with older stores, and stores
 * after older loads. So the three orderings a ring needs on our side are
 * compiler barriers only (virt_rmb(), virt_wmb() and virt_barrier() of
 * <smpalt/barrier.h>):
 *   - read the producer index, then the data it covers;
 *   - write the data, then the producer index that publishes it;
 *   - read the data (or the consumer index), then write the index that
 *     lets the other side overwrite it.
 * The one ordering TSO does not keep is a store followed by a load: that
 * is needed after we release response space, when we re-read rsp_prod to
 * decide whether xenstored may be waiting for space (see xenstore_rx_pump()).
 * That one is virt_mb(), an mfence.
 *
 * Single-threaded by contract (vCPU 0, thread context): no lock.
 */
#include <smpalt/xenstore.h>
#include <smpalt/barrier.h>
#include <smpalt/errno.h>
#include <smpalt/kernel.h>
#include <smpalt/string.h>

#define XS_HDR_SIZE sizeof(struct xsd_sockmsg)

/* Volatile accessors for the indices shared with xenstored. */
#define XS_READ_ONCE(x) (*(const volatile __typeof__(x) *)&(x))
#define XS_WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))

/* Payload of XS_TRANSACTION_END: "T" commits, "F" abandons. */
#define XS_TX_COMMIT "T"
#define XS_TX_ABORT "F"

#define XS_DECIMAL_BASE 10

/* One piece of a request's payload. */
struct xenstore_iov {
	const void *base;
	size_t len;
};

/* A message being received from the response ring. */
struct xenstore_rx {
	struct xsd_sockmsg hdr;
	size_t got;    /* bytes of header + body taken so far */
	bool oversize; /* hdr.len > XENSTORE_PAYLOAD_MAX: body discarded */
	bool held;     /* complete reply waiting for the requester */
	char body[XENSTORE_PAYLOAD_MAX + 1]; /* + NUL we add */
};

struct xenstore_watch_event {
	uint32_t len;
	char data[XS_WATCH_EVENT_MAX]; /* path NUL token NUL (NUL) */
};

struct xenstore_state {
	struct xenstore_domain_interface *ring;
	evtchn_port_t port;
	uint32_t next_req_id;
	bool waiting;	  /* a request is in flight */
	uint32_t want_id; /* its req_id */
	bool ring_broken; /* indices made no sense: logged once */
	struct xenstore_rx rx;
	struct xenstore_watch_event events[XS_WATCH_QUEUE_LEN];
	unsigned ev_head; /* oldest queued event */
	unsigned ev_count;
	bool dropped; /* events lost since the caller last asked */
	unsigned long dropped_total;
};

static struct xenstore_state xs;

static const struct {
	const char *name;
	int err;
} xenstore_errors[] = {
	{"EINVAL", EINVAL}, {"EACCES", EACCES},	  {"EEXIST", EEXIST},
	{"EISDIR", EISDIR}, {"ENOENT", ENOENT},	  {"ENOMEM", ENOMEM},
	{"ENOSPC", ENOSPC}, {"EIO", EIO},	  {"ENOTEMPTY", ENOTEMPTY},
	{"ENOSYS", ENOSYS}, {"EROFS", EROFS},	  {"EBUSY", EBUSY},
	{"EAGAIN", EAGAIN}, {"EISCONN", EISCONN}, {"E2BIG", E2BIG},
	{"EPERM", EPERM},
};

/* Map xenstored's error string (e.g. "ENOENT") to -errno; unknown: -EIO. */
static int xenstore_error_from_string(const char *s)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(xenstore_errors); i++)
		if (!strcmp(s, xenstore_errors[i].name))
			return -xenstore_errors[i].err;
	return -EIO; /* an error we have no name for; caller logs it */
}

/* Indices that claim more than a ring's worth: xenstored broke the ring. */
static bool xenstore_ring_sane(XENSTORE_RING_IDX prod, XENSTORE_RING_IDX cons,
			       const char *which)
{
	if (prod - cons <= XENSTORE_RING_SIZE)
		return true;
	if (!xs.ring_broken)
		xenstore_platform_log(
			"xenstore: %s ring indices prod %u cons %u exceed the ring size %u",
			which, prod, cons, XENSTORE_RING_SIZE);
	xs.ring_broken = true;
	return false;
}

static void xenstore_drop_event(const char *why, uint32_t len)
{
	/* Log the first loss of a burst only: a storm must not flood. */
	if (!xs.dropped)
		xenstore_platform_warn(
			"xenstore: watch event dropped (%s, %u bytes)", why,
			len);
	xs.dropped = true;
	xs.dropped_total++;
}

/*
 * Queue a complete XS_WATCH_EVENT body (path NUL token NUL). xenstore_rx_pump()
 * stored a NUL at body[len], so the token is terminated even if xenstored
 * left its NUL out.
 */
static void xenstore_queue_event(const char *body, uint32_t len)
{
	struct xenstore_watch_event *ev;

	if (strnlen(body, len) == len) {
		xenstore_drop_event("malformed, no token", len);
		return;
	}
	if (len + 1 > XS_WATCH_EVENT_MAX) {
		xenstore_drop_event("too long", len);
		return;
	}
	if (xs.ev_count == XS_WATCH_QUEUE_LEN) {
		/* Full: the oldest goes; the caller re-reads everything. */
		xenstore_drop_event("queue full", len);
		xs.ev_head = (xs.ev_head + 1) % XS_WATCH_QUEUE_LEN;
		xs.ev_count--;
	}
	ev = &xs.events[(xs.ev_head + xs.ev_count) % XS_WATCH_QUEUE_LEN];
	memcpy(ev->data, body, len + 1);
	ev->len = len;
	xs.ev_count++;
}

/* A whole message has arrived in xs.rx: route it. */
static void xenstore_rx_complete(void)
{
	struct xenstore_rx *rx = &xs.rx;

	if (rx->hdr.type == XS_WATCH_EVENT) {
		if (rx->oversize)
			xenstore_drop_event("oversize", rx->hdr.len);
		else
			xenstore_queue_event(rx->body, rx->hdr.len);
		rx->got = 0;
		return;
	}
	if (xs.waiting && rx->hdr.req_id == xs.want_id) {
		rx->held = true; /* xenstore_talk() takes it and resets rx */
		return;
	}
	xenstore_platform_log(
		"xenstore: unexpected reply type %u req_id %u dropped",
		rx->hdr.type, rx->hdr.req_id);
	rx->got = 0;
}

/*
 * Take bytes from the response ring into xs.rx, completing and routing
 * messages, until the ring is empty or a reply is held for the requester.
 * Never blocks. Returns true if anything was consumed.
 */
static bool xenstore_rx_pump(void)
{
	struct xenstore_domain_interface *r = xs.ring;
	struct xenstore_rx *rx = &xs.rx;
	XENSTORE_RING_IDX cons, prod, start;

	if (!r)
		return false;
	start = cons = XS_READ_ONCE(r->rsp_cons);
	prod = XS_READ_ONCE(r->rsp_prod);
	if (!xenstore_ring_sane(prod, cons, "response"))
		return false;
	/* Read the data only after the producer index that covers it. */
	virt_rmb();

	while (cons != prod && !rx->held) {
		size_t off = MASK_XENSTORE_IDX(cons);
		size_t n = MIN(prod - cons, XENSTORE_RING_SIZE - off);
		size_t want;

		if (rx->got < XS_HDR_SIZE) {
			want = XS_HDR_SIZE - rx->got;
			n = MIN(n, want);
			memcpy((char *)&rx->hdr + rx->got, &r->rsp[off], n);
		} else {
			size_t body = rx->got - XS_HDR_SIZE;

			want = rx->hdr.len - body;
			n = MIN(n, want);
			if (!rx->oversize)
				memcpy(rx->body + body, &r->rsp[off], n);
		}
		cons += n;
		rx->got += n;
		if (rx->got == XS_HDR_SIZE) {
			rx->oversize = rx->hdr.len > XENSTORE_PAYLOAD_MAX;
			if (rx->oversize)
				xenstore_platform_log(
					"xenstore: message type %u req_id %u has %u bytes, over the %u limit: discarded",
					rx->hdr.type, rx->hdr.req_id,
					rx->hdr.len, XENSTORE_PAYLOAD_MAX);
		}
		if (rx->got >= XS_HDR_SIZE &&
		    rx->got - XS_HDR_SIZE == rx->hdr.len) {
			if (!rx->oversize)
				rx->body[rx->hdr.len] = '\0';
			xenstore_rx_complete();
		}
	}

	if (cons == start)
		return false;
	/* Finish copying the data out before xenstored may overwrite it. */
	virt_barrier();
	XS_WRITE_ONCE(r->rsp_cons, cons);
	/*
	 * Store rsp_cons, then load rsp_prod: the one store->load ordering
	 * of the protocol, so a full fence. If the ring was full at our old
	 * consumer index, xenstored may have stopped writing for lack of
	 * space and needs an event to learn there is room now.
	 */
	virt_mb();
	if (XS_READ_ONCE(r->rsp_prod) - start >= XENSTORE_RING_SIZE)
		xenstore_platform_notify(xs.port);
	return true;
}

/* Copy @len bytes into the request ring, waiting for space as needed. */
static int xenstore_ring_write(const void *data, size_t len)
{
	struct xenstore_domain_interface *r = xs.ring;
	const char *p = data;

	while (len) {
		XENSTORE_RING_IDX cons = XS_READ_ONCE(r->req_cons);
		XENSTORE_RING_IDX prod = XS_READ_ONCE(r->req_prod);
		size_t off, n;

		if (!xenstore_ring_sane(prod, cons, "request"))
			return -EIO;
		/* Read req_cons before overwriting the bytes it frees. */
		virt_barrier();
		if (prod - cons == XENSTORE_RING_SIZE) {
			/*
			 * Full: let xenstored consume, and keep taking in
			 * responses meanwhile so that it never blocks on us.
			 */
			xenstore_platform_notify(xs.port);
			xenstore_platform_wait(xs.port);
			xenstore_rx_pump();
			continue;
		}
		off = MASK_XENSTORE_IDX(prod);
		n = MIN(len, XENSTORE_RING_SIZE - (prod - cons));
		n = MIN(n, XENSTORE_RING_SIZE - off);
		memcpy(&r->req[off], p, n);
		/* The data must be visible before the index publishing it. */
		virt_wmb();
		XS_WRITE_ONCE(r->req_prod, prod + n);
		p += n;
		len -= n;
	}
	return 0;
}

/*
 * Send one request and wait for its reply. On success the reply is held in
 * xs.rx (body NUL-terminated, length xs.rx.hdr.len) until xenstore_release().
 * @key names the request in logs. @quiet is an error the caller expects
 * and logs itself if it wants (0 for none).
 */
static int xenstore_talk(uint32_t type, xenstore_transaction_t t,
			 const char *key, const struct xenstore_iov *iov,
			 unsigned niov, int quiet)
{
	struct xsd_sockmsg hdr;
	size_t total = 0;
	unsigned i;
	int ret;

	if (!xs.ring) {
		xenstore_platform_log("xenstore: %s: client not initialised",
				      key);
		return -ENOTCONN;
	}
	if (xs.ring_broken) {
		xenstore_platform_log("xenstore: %s: ring broken, not sent",
				      key);
		return -EIO;
	}
	for (i = 0; i < niov; i++)
		total += iov[i].len;
	if (total > XENSTORE_PAYLOAD_MAX) {
		xenstore_platform_log(
			"xenstore: %s: request of %u bytes exceeds the %u byte payload limit",
			key, (unsigned)total, XENSTORE_PAYLOAD_MAX);
		return -E2BIG;
	}

	hdr.type = type;
	hdr.req_id = xs.next_req_id++;
	hdr.tx_id = t;
	hdr.len = (uint32_t)total;
	xs.want_id = hdr.req_id;
	xs.waiting = true;

	ret = xenstore_ring_write(&hdr, sizeof(hdr));
	for (i = 0; i < niov && !ret; i++)
		ret = xenstore_ring_write(iov[i].base, iov[i].len);
	if (ret) {
		xs.waiting = false;
		xenstore_platform_log("xenstore: %s: request ring failed", key);
		return ret;
	}
	xenstore_platform_notify(xs.port);

	for (;;) {
		xenstore_rx_pump();
		if (xs.rx.held)
			break;
		if (xs.ring_broken) {
			xs.waiting = false;
			xenstore_platform_log(
				"xenstore: %s: no reply, ring broken", key);
			return -EIO;
		}
		xenstore_platform_wait(xs.port);
	}
	xs.waiting = false;

	if (xs.rx.oversize)
		return -EIO; /* logged by xenstore_rx_pump() */
	if (xs.rx.hdr.type == XS_ERROR) {
		ret = xenstore_error_from_string(xs.rx.body);
		if (ret != quiet)
			xenstore_platform_log("xenstore: %s: %s", key,
					      xs.rx.body);
	} else if (xs.rx.hdr.type != type) {
		ret = -EIO;
		xenstore_platform_log(
			"xenstore: %s: reply type %u to request type %u", key,
			xs.rx.hdr.type, type);
	}
	return ret;
}

/* Give the held reply buffer back and take in whatever queued behind it. */
static void xenstore_release(void)
{
	xs.rx.held = false;
	xs.rx.got = 0;
	xenstore_rx_pump();
}

/* A string argument including its NUL. */
static struct xenstore_iov xenstore_str(const char *s)
{
	struct xenstore_iov v = {s, strnlen(s, XENSTORE_PAYLOAD_MAX + 1) + 1};

	return v;
}

int xenstore_init(struct xenstore_domain_interface *ring, evtchn_port_t port)
{
	XENSTORE_RING_IDX prod, cons;

	memset(&xs, 0, sizeof(xs));
	if (!ring) {
		xenstore_platform_log("xenstore: no ring page");
		return -EINVAL;
	}
	xs.port = port;
	xs.next_req_id = 1;

	prod = XS_READ_ONCE(ring->rsp_prod);
	cons = XS_READ_ONCE(ring->rsp_cons);
	if (prod != cons) {
		/*
		 * Replies to somebody else's requests (a previous kernel):
		 * they can't be parsed from the middle, so skip them.
		 */
		xenstore_platform_log(
			"xenstore: discarding %u stale response bytes",
			prod - cons);
		/* Done reading the indices before releasing the space. */
		virt_barrier();
		XS_WRITE_ONCE(ring->rsp_cons, prod);
	}
	xs.ring = ring;
	return 0;
}

int xenstore_read(xenstore_transaction_t t, const char *path, char *buf,
		  size_t len)
{
	struct xenstore_iov iov[] = {xenstore_str(path)};
	int ret;

	ret = xenstore_talk(XS_READ, t, path, iov, 1, -ENOENT);
	if (ret)
		goto out;
	if ((size_t)xs.rx.hdr.len + 1 > len) {
		xenstore_platform_log(
			"xenstore: %s: value of %u bytes does not fit a %u byte buffer",
			path, xs.rx.hdr.len, (unsigned)len);
		ret = -ERANGE;
		goto out;
	}
	memcpy(buf, xs.rx.body, xs.rx.hdr.len + 1);
	ret = (int)xs.rx.hdr.len;
out:
	xenstore_release();
	return ret;
}

int xenstore_write(xenstore_transaction_t t, const char *path,
		   const char *value)
{
	struct xenstore_iov iov[] = {
		xenstore_str(path),
		{value, strnlen(value, XENSTORE_PAYLOAD_MAX + 1)},
	};
	int ret;

	ret = xenstore_talk(XS_WRITE, t, path, iov, 2, 0);
	xenstore_release();
	return ret;
}

int xenstore_rm(xenstore_transaction_t t, const char *path)
{
	struct xenstore_iov iov[] = {xenstore_str(path)};
	int ret;

	ret = xenstore_talk(XS_RM, t, path, iov, 1, -ENOENT);
	xenstore_release();
	return ret;
}

int xenstore_directory(xenstore_transaction_t t, const char *path, char *buf,
		       size_t len, unsigned *count)
{
	struct xenstore_iov iov[] = {xenstore_str(path)};
	uint32_t n, i;
	int ret;

	*count = 0;
	ret = xenstore_talk(XS_DIRECTORY, t, path, iov, 1, -ENOENT);
	if (ret)
		goto out;
	n = xs.rx.hdr.len;
	/* Every name ends in NUL; tolerate a missing final one. */
	if (n && xs.rx.body[n - 1] != '\0')
		n++; /* the NUL xenstore_rx_pump() stored after the body */
	if (n > len) {
		xenstore_platform_log(
			"xenstore: %s: listing of %u bytes does not fit a %u byte buffer",
			path, n, (unsigned)len);
		ret = -ERANGE;
		goto out;
	}
	for (i = 0; i < n; i++)
		if (xs.rx.body[i] == '\0')
			(*count)++;
	memcpy(buf, xs.rx.body, n);
	ret = (int)n;
out:
	xenstore_release();
	return ret;
}

int xenstore_watch(const char *path, const char *token)
{
	struct xenstore_iov iov[] = {xenstore_str(path), xenstore_str(token)};
	int ret;

	ret = xenstore_talk(XS_WATCH, XS_TRANSACTION_NONE, path, iov, 2, 0);
	xenstore_release();
	return ret;
}

int xenstore_unwatch(const char *path, const char *token)
{
	struct xenstore_iov iov[] = {xenstore_str(path), xenstore_str(token)};
	int ret;

	ret = xenstore_talk(XS_UNWATCH, XS_TRANSACTION_NONE, path, iov, 2, 0);
	xenstore_release();
	return ret;
}

int xenstore_transaction_start(xenstore_transaction_t *t)
{
	struct xenstore_iov iov[] = {xenstore_str("")};
	uint32_t id = 0;
	const char *p;
	int ret;

	ret = xenstore_talk(XS_TRANSACTION_START, XS_TRANSACTION_NONE,
			    "transaction start", iov, 1, 0);
	if (ret)
		goto out;
	for (p = xs.rx.body; *p >= '0' && *p <= '9'; p++)
		id = id * XS_DECIMAL_BASE + (uint32_t)(*p - '0');
	if (*p || p == xs.rx.body || id == XS_TRANSACTION_NONE) {
		xenstore_platform_log(
			"xenstore: transaction start: bad id \"%s\"",
			xs.rx.body);
		ret = -EIO;
		goto out;
	}
	*t = id;
out:
	xenstore_release();
	return ret;
}

int xenstore_transaction_end(xenstore_transaction_t t, bool abort)
{
	struct xenstore_iov iov[] = {
		xenstore_str(abort ? XS_TX_ABORT : XS_TX_COMMIT)};
	int ret;

	ret = xenstore_talk(XS_TRANSACTION_END, t, "transaction end", iov, 1,
			    -EAGAIN);
	xenstore_release();
	return ret;
}

int xenstore_transaction_run(const char *what, xenstore_transaction_fn fn,
			     void *arg)
{
	xenstore_transaction_t t;
	unsigned attempt;
	int ret;

	for (attempt = 1; attempt <= XS_TRANSACTION_ATTEMPTS; attempt++) {
		ret = xenstore_transaction_start(&t);
		if (ret)
			return ret;
		ret = fn(t, arg);
		if (ret) {
			/* fn logged its error; abandon, keep its code. */
			xenstore_transaction_end(t, true);
			return ret;
		}
		ret = xenstore_transaction_end(t, false);
		if (ret != -EAGAIN)
			return ret;
		xenstore_platform_warn(
			"xenstore: %s: transaction conflict, attempt %u of %u",
			what, attempt, XS_TRANSACTION_ATTEMPTS);
	}
	xenstore_platform_log(
		"xenstore: %s: gave up after %u conflicting attempts", what,
		XS_TRANSACTION_ATTEMPTS);
	return -EAGAIN;
}

/* Copy a NUL-terminated string into a caller buffer; false if it won't fit. */
static bool xenstore_copy_out(char *dst, size_t dlen, const char *src)
{
	size_t n = strnlen(src, XS_WATCH_EVENT_MAX);

	if (n + 1 > dlen)
		return false;
	memcpy(dst, src, n + 1);
	return true;
}

int xenstore_next_watch(char *path, size_t plen, char *token, size_t tlen)
{
	struct xenstore_watch_event *ev;
	const char *p, *tok;
	bool fits;

	xenstore_rx_pump();
	if (!xs.ev_count)
		return 0;
	ev = &xs.events[xs.ev_head];
	xs.ev_head = (xs.ev_head + 1) % XS_WATCH_QUEUE_LEN;
	xs.ev_count--;

	p = ev->data;
	/* Queued events hold a NUL inside len and one at data[len]. */
	tok = p + strnlen(p, ev->len) + 1;
	fits = xenstore_copy_out(path, plen, p) &&
	       xenstore_copy_out(token, tlen, tok);
	if (!fits) {
		xenstore_drop_event("caller buffer too small", ev->len);
		return -ERANGE;
	}
	return 1;
}

bool xenstore_watch_take_dropped(void)
{
	bool d = xs.dropped;

	xs.dropped = false;
	return d;
}

unsigned long xenstore_watch_dropped_total(void)
{
	return xs.dropped_total;
}

void xenstore_poll(void)
{
	while (xenstore_rx_pump())
		;
}

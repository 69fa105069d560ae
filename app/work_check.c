// SPDX-License-Identifier: MIT
/*
 * work_check.c - the workload's counters check: with no item in flight,
 * every shared total must agree exactly (see work.h).
 */
#define pr_fmt(fmt) "work: " fmt

#include <smpalt/work.h>
#include <smpalt/atomic.h>
#include <smpalt/kernel.h>
#include <smpalt/printk.h>
#include <smpalt/string.h>
#include <smpalt/work_item.h>
#include <smpalt/xenstore.h>

#define WORK_CHECK_KEY "control/smpalt/check"
#define WORK_CHECK_REPLY_KEY "data/smpalt/check"
#define WORK_TOKEN_MAX 64
#define WORK_REPLY_MAX 160

struct work_total {
	const char *which;
	uint64_t expected, got;
};

/*
 * With no item in flight anywhere, every shared total must agree exactly;
 * returns the first that does not, or NULL.  A lock prefix in UP form while
 * two vCPUs run, or a lost update anywhere, shows here.
 */
static const struct work_total *work_compare(const struct work_counts *c,
					     struct work_total *bad)
{
	uint64_t steps = c->done * WORK_ITEM_STEPS;
	struct work_item_totals item;
	unsigned int i;

	work_item_read_totals(&item);
	{
		const struct work_total totals[] = {
			{"items-by-vcpu", c->done, c->by_vcpu},
			{"locked", steps, item.locked},
			{"atomic", steps, item.atomic},
			{"refcount", WORK_REF_BASE, (uint64_t)item.refs},
			/* How far below zero, if it ever went there. */
			{"backlog-below-zero", 0,
			 c->backlog < 0 ? (uint64_t)-c->backlog : 0},
		};

		for (i = 0; i < ARRAY_SIZE(totals); i++) {
			if (totals[i].expected != totals[i].got) {
				*bad = totals[i];
				return bad;
			}
		}
	}
	return NULL;
}

void work_handle_check(void)
{
	static char last[WORK_TOKEN_MAX];
	char token[WORK_TOKEN_MAX], reply[WORK_REPLY_MAX];
	const struct work_total *bad;
	struct work_total total;
	struct work_counts counts;
	int rc;

	rc = xenstore_read(XS_TRANSACTION_NONE, WORK_CHECK_KEY, token,
			   sizeof(token));
	if (rc <= 0 || !strcmp(token, last))
		return; /* absent, empty, logged by the client, or answered */
	strlcpy(last, token, sizeof(last));

	rc = work_quiesce();
	if (rc) {
		work_read_counts(&counts);
		total = (struct work_total){"quiesce", 0,
					    (uint64_t)counts.inflight};
		bad = &total;
	} else {
		/* The workers' batches are over: their updates are visible. */
		smp_mb();
		work_read_counts(&counts);
		bad = work_compare(&counts, &total);
		work_resume();
	}
	if (bad) {
		snprintf(reply, sizeof(reply),
			 "%s FAIL %s expected=%llu got=%llu", token, bad->which,
			 (unsigned long long)bad->expected,
			 (unsigned long long)bad->got);
		pr_err("check %s\n", reply);
	} else {
		snprintf(reply, sizeof(reply), "%s ok items=%llu", token,
			 (unsigned long long)counts.done);
		pr_info("check %s\n", reply);
	}
	xenstore_write(XS_TRANSACTION_NONE, WORK_CHECK_REPLY_KEY, reply);
}

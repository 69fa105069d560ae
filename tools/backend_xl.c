// SPDX-License-Identifier: MIT
/*
 * backend_xl.c - the xl backend of the autoscaler: `xl vcpu-set DOMID N`
 * in the background, so that sampling goes on while it runs (taking vCPUs
 * down can take seconds).  One run per domain at a time; poll() reaps it.
 * A run that takes longer than the timeout is killed (with anything it
 * started: it leads its own process group) and reported as -ETIMEDOUT.
 *
 * Without ignore_host the count stays within the host's physical CPUs
 * (xl refuses more); with it, `-i` lets a domain have more vCPUs than the
 * host has CPUs, which overcommits them: for test rigs, not real hosts.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "scale_backend.h"

#define NUM_LEN 16
/* Exit status of a child that could not exec (as the shell reports it). */
#define EXEC_FAILED 127
/* How often a wait for a run looks at it again. */
#define WAIT_STEP_MS 10
#define MS_PER_SEC 1000
#define NS_PER_MS 1000000L

struct xl_run {
	struct xl_run *next;
	unsigned int domid;
	pid_t pid;
	uint64_t deadline_ms; /* killed at this time */
};

struct xl_priv {
	const char *xl;
	bool ignore_host;
	uint64_t timeout_ms;
	struct xl_run *runs; /* one per domain being changed: any number */
};

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * MS_PER_SEC +
	       (uint64_t)ts.tv_nsec / NS_PER_MS;
}

static void sleep_ms(uint64_t ms)
{
	struct timespec ts = {(time_t)(ms / MS_PER_SEC),
			      (long)(ms % MS_PER_SEC) * NS_PER_MS};

	nanosleep(&ts, NULL);
}

static struct xl_run **find_run(struct xl_priv *p, unsigned int domid)
{
	struct xl_run **r;

	for (r = &p->runs; *r; r = &(*r)->next)
		if ((*r)->domid == domid)
			return r;
	return NULL;
}

static int xl_set_vcpus(struct scale_backend *b, const struct scale_domain *d,
			unsigned int n, bool *done)
{
	struct xl_priv *p = b->priv;
	char id[NUM_LEN], count[NUM_LEN];
	struct xl_run *run;
	sigset_t none;
	pid_t pid;

	*done = false;
	if (find_run(p, d->domid))
		return -EBUSY;
	run = calloc(1, sizeof(*run));
	if (!run)
		return -ENOMEM;
	snprintf(id, sizeof(id), "%u", d->domid);
	snprintf(count, sizeof(count), "%u", n);
	pid = fork();
	if (pid < 0) {
		free(run);
		return -errno;
	}
	if (pid == 0) {
		/* Its own process group: a kill reaches what xl started.
		 * The daemon blocks its signals outside its wait: xl gets
		 * them all back.  Its output joins the log on stderr. */
		setpgid(0, 0);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		dup2(STDERR_FILENO, STDOUT_FILENO);
		if (p->ignore_host)
			execlp(p->xl, p->xl, "vcpu-set", "-i", id, count,
			       (char *)NULL);
		else
			execlp(p->xl, p->xl, "vcpu-set", id, count,
			       (char *)NULL);
		fprintf(stderr, "cannot run %s: %s\n", p->xl, strerror(errno));
		_exit(EXEC_FAILED);
	}
	setpgid(pid, pid); /* as the child does: whichever runs first */
	run->domid = d->domid;
	run->pid = pid;
	run->deadline_ms = mono_ms() + p->timeout_ms;
	run->next = p->runs;
	p->runs = run;
	return 0;
}

/* Has the run ended?  0 still running, else the waitpid() result. */
static pid_t reap(struct xl_run *run, int *status, bool block)
{
	pid_t r;

	/* A signal arriving meanwhile must not orphan the child. */
	do
		r = waitpid(run->pid, status, block ? 0 : WNOHANG);
	while (r < 0 && errno == EINTR);
	return r;
}

/* Kill the run and everything in its process group, and reap it. */
static void kill_run(struct xl_run *run)
{
	int status;

	kill(-run->pid, SIGKILL);
	kill(run->pid, SIGKILL); /* if it had no group of its own yet */
	reap(run, &status, true);
}

static int xl_poll(struct scale_backend *b, unsigned int domid,
		   uint64_t wait_ms, bool kill, char *msg, size_t msglen)
{
	struct xl_priv *p = b->priv;
	struct xl_run **slot = find_run(p, domid), *run;
	uint64_t now = mono_ms(), until = now + wait_ms;
	int status = 0, err, rc;
	pid_t r;

	if (!slot)
		return -ECHILD;
	run = *slot;
	for (;;) {
		r = reap(run, &status, false);
		if (r)
			break;
		now = mono_ms();
		if (now >= run->deadline_ms) {
			kill_run(run);
			if (msg)
				snprintf(msg, msglen,
					 "timed out after %llu ms: killed",
					 (unsigned long long)p->timeout_ms);
			rc = -ETIMEDOUT;
			goto ended;
		}
		if (now >= until) {
			if (!kill)
				return 1;
			kill_run(run);
			if (msg)
				snprintf(msg, msglen, "still running: killed");
			rc = -ECANCELED;
			goto ended;
		}
		sleep_ms(WAIT_STEP_MS);
	}
	err = errno;
	if (r < 0) {
		if (msg)
			snprintf(msg, msglen, "cannot wait for it: %s",
				 strerror(err));
		rc = -err;
	} else if (WIFEXITED(status) && !WEXITSTATUS(status)) {
		rc = 0;
	} else {
		if (msg && WIFEXITED(status))
			snprintf(msg, msglen, "exit status %d",
				 WEXITSTATUS(status));
		else if (msg)
			snprintf(msg, msglen, "killed by signal %d",
				 WTERMSIG(status));
		rc = -EIO;
	}
ended:
	*slot = run->next;
	free(run);
	return rc;
}

static void xl_close(struct scale_backend *b)
{
	struct xl_priv *p = b->priv;

	/* Never leave an xl behind: whatever still runs is ended now. */
	while (p->runs)
		xl_poll(b, p->runs->domid, 0, true, NULL, 0);
	free(p);
	free(b);
}

struct scale_backend *scale_backend_xl_open(const char *xl, bool ignore_host,
					    uint64_t timeout_ms)
{
	struct scale_backend *b = calloc(1, sizeof(*b));
	struct xl_priv *p = calloc(1, sizeof(*p));

	if (!b || !p) {
		free(b);
		free(p);
		return NULL;
	}
	p->xl = xl;
	p->ignore_host = ignore_host;
	p->timeout_ms = timeout_ms;
	b->name = "xl";
	b->manages = NULL;
	b->set_vcpus = xl_set_vcpus;
	b->poll = xl_poll;
	b->close = xl_close;
	b->priv = p;
	return b;
}

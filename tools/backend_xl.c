// SPDX-License-Identifier: MIT
/*
 * backend_xl.c - the xl backend of the autoscaler: `xl vcpu-set DOMID N`
 * in the background, so that sampling goes on while it runs (taking vCPUs
 * down can take seconds).  One run per domain at a time; poll() reaps it.
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
#include <unistd.h>

#include "scale_backend.h"

/* Runs at once: one per domain the autoscaler follows. */
#define XL_RUNS_MAX 64
#define NUM_LEN 16
/* Exit status of a child that could not exec (as the shell reports it). */
#define EXEC_FAILED 127

struct xl_run {
	unsigned int domid;
	pid_t pid; /* 0: slot free */
};

struct xl_priv {
	const char *xl;
	bool ignore_host;
	struct xl_run runs[XL_RUNS_MAX];
};

static struct xl_run *find_run(struct xl_priv *p, unsigned int domid)
{
	unsigned int i;

	for (i = 0; i < XL_RUNS_MAX; i++)
		if (p->runs[i].pid && p->runs[i].domid == domid)
			return &p->runs[i];
	return NULL;
}

static int xl_set_vcpus(struct scale_backend *b, const char *name,
			unsigned int domid, unsigned int n, bool *done)
{
	struct xl_priv *p = b->priv;
	char id[NUM_LEN], count[NUM_LEN];
	struct xl_run *run = NULL;
	sigset_t none;
	unsigned int i;
	pid_t pid;

	(void)name;
	*done = false;
	if (find_run(p, domid))
		return -EBUSY;
	for (i = 0; !run && i < XL_RUNS_MAX; i++)
		if (!p->runs[i].pid)
			run = &p->runs[i];
	if (!run)
		return -EAGAIN;
	snprintf(id, sizeof(id), "%u", domid);
	snprintf(count, sizeof(count), "%u", n);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		/* The daemon blocks its signals outside its wait: xl gets
		 * them all back.  Its output joins the log on stderr. */
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
	run->domid = domid;
	run->pid = pid;
	return 0;
}

static int xl_poll(struct scale_backend *b, unsigned int domid, bool block,
		   char *msg, size_t msglen)
{
	struct xl_run *run = find_run(b->priv, domid);
	int status, err;
	pid_t r;

	if (!run)
		return -ECHILD;
	/* A signal arriving meanwhile must not orphan the child. */
	do
		r = waitpid(run->pid, &status, block ? 0 : WNOHANG);
	while (r < 0 && errno == EINTR);
	if (!r)
		return 1;
	err = errno;
	run->pid = 0;
	if (r < 0) {
		if (msg)
			snprintf(msg, msglen, "cannot wait for it: %s",
				 strerror(err));
		return -err;
	}
	if (WIFEXITED(status) && !WEXITSTATUS(status))
		return 0;
	if (msg && WIFEXITED(status))
		snprintf(msg, msglen, "exit status %d", WEXITSTATUS(status));
	else if (msg)
		snprintf(msg, msglen, "killed by signal %d", WTERMSIG(status));
	return -EIO;
}

static void xl_close(struct scale_backend *b)
{
	struct xl_priv *p = b->priv;
	unsigned int i;

	/* Never leave an xl behind: it is changing a domain. */
	for (i = 0; i < XL_RUNS_MAX; i++)
		if (p->runs[i].pid)
			xl_poll(b, p->runs[i].domid, true, NULL, 0);
	free(p);
	free(b);
}

struct scale_backend *scale_backend_xl_open(const char *xl, bool ignore_host)
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
	b->name = "xl";
	b->manages = NULL;
	b->set_vcpus = xl_set_vcpus;
	b->poll = xl_poll;
	b->close = xl_close;
	b->priv = p;
	return b;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * smpalt_locks: a test module with lock sites of its own, for the debug
 * configuration's scenarios (tests/linux/linux-modules.sh,
 * tests/linux/linux-text-patchers.sh).
 *
 * Its atomics are inline, so their lock prefixes are in this module's
 * text and recorded in its .smp_locks: loaded while the kernel text is UP,
 * the module is patched to UP code and switched with the kernel; loaded
 * while it is SMP, it keeps its lock prefixes. Worker threads increment
 * four counters, each through a different kind of lock site, and a check
 * compares every counter with the increments the workers made: a lock
 * site left in UP form while two vCPUs run the workers loses updates.
 *
 * Files in /sys/kernel/debug/smpalt_locks/:
 *   run     write "THREADS ROUNDS": start THREADS unbound threads of
 *           ROUNDS increments each (-EBUSY while a run goes on)
 *   check   "idle", "running", "ok rounds=N keyed=K" or
 *           "FAIL <counter> expected=N got=M" for the last run
 *   form    the form of the marked lock site (the lock incl of the atomic
 *           counter): "smp" (lock prefix), "up" (ds prefix) or the byte
 *   kprobe  write anything: register a kprobe on the marked lock site and
 *           one on the entry of the function that holds it, then remove
 *           them; read: "site=<rc> entry=<rc>" (0 or -errno)
 *   key     a static key, read and written as 0 or 1: while it is on,
 *           the workers take a second path for the 64-bit counter and
 *           count it (keyed=)
 */
#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/jump_label.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#define SMPALT_LOCKS_MAX_THREADS	16
#define SMPALT_LOCKS_MAX_ROUNDS		10000000UL
/* Rounds between two chances for the scheduler. */
#define SMPALT_LOCKS_RESCHED		256

static DEFINE_STATIC_KEY_FALSE(smpalt_locks_key);

static atomic_t count_atomic;
static atomic64_t count_atomic64;
static u32 count_cmpxchg;
static u64 count_locked;
static DEFINE_SPINLOCK(count_lock);

/* One run: its threads and what they did. */
static DEFINE_MUTEX(run_mutex);
static struct task_struct *run_tasks[SMPALT_LOCKS_MAX_THREADS];
static unsigned int run_threads;
static unsigned long run_rounds[SMPALT_LOCKS_MAX_THREADS];
static unsigned long run_keyed[SMPALT_LOCKS_MAX_THREADS];
static atomic_t run_left;
static bool run_started;

/* The address of the marked lock site, set by its first execution. */
static u8 *marked_site;
static int kprobe_site_rc = 1, kprobe_entry_rc = 1;

/*
 * The atomic counter's increment: LOCK_PREFIX records the lock byte in
 * .smp_locks under the label 671, which the lea also takes, so that the
 * form of this very site can be read and a kprobe put on it.
 */
static noinline u8 *smpalt_locks_inc(atomic_t *v)
{
	u8 *site;

	asm volatile("lea 671f(%%rip), %1\n\t"
		     LOCK_PREFIX "incl %0"
		     : "+m" (v->counter), "=r" (site));
	return site;
}

static int smpalt_locks_worker(void *data)
{
	unsigned long i = (unsigned long)data;
	unsigned long rounds = run_rounds[i], done, keyed = 0;
	u32 old;

	for (done = 0; done < rounds && !kthread_should_stop(); done++) {
		WRITE_ONCE(marked_site, smpalt_locks_inc(&count_atomic));
		if (static_branch_unlikely(&smpalt_locks_key)) {
			atomic64_add(1, &count_atomic64);
			keyed++;
		} else {
			atomic64_inc(&count_atomic64);
		}
		old = READ_ONCE(count_cmpxchg);
		while (!try_cmpxchg(&count_cmpxchg, &old, old + 1))
			;
		spin_lock(&count_lock);
		count_locked++;
		spin_unlock(&count_lock);
		if (done % SMPALT_LOCKS_RESCHED == 0)
			cond_resched();
	}
	run_rounds[i] = done;
	run_keyed[i] = keyed;
	atomic_dec(&run_left);
	/* Stay until kthread_stop(), which the next run or the exit calls. */
	while (!kthread_should_stop()) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (!kthread_should_stop())
			schedule();
		__set_current_state(TASK_RUNNING);
	}
	return 0;
}

/* Stop the threads of the last run; under run_mutex. */
static void smpalt_locks_reap(void)
{
	unsigned int i;

	for (i = 0; i < run_threads; i++) {
		if (run_tasks[i])
			kthread_stop(run_tasks[i]);
		run_tasks[i] = NULL;
	}
}

static int smpalt_locks_start(unsigned int threads, unsigned long rounds)
{
	struct task_struct *t;
	unsigned int i;

	mutex_lock(&run_mutex);
	if (run_started && atomic_read(&run_left)) {
		mutex_unlock(&run_mutex);
		return -EBUSY;
	}
	smpalt_locks_reap();
	atomic_set(&count_atomic, 0);
	atomic64_set(&count_atomic64, 0);
	WRITE_ONCE(count_cmpxchg, 0);
	spin_lock(&count_lock);
	count_locked = 0;
	spin_unlock(&count_lock);
	run_threads = threads;
	atomic_set(&run_left, threads);
	for (i = 0; i < threads; i++) {
		run_rounds[i] = rounds;
		run_keyed[i] = 0;
	}
	run_started = true;
	for (i = 0; i < threads; i++) {
		t = kthread_create(smpalt_locks_worker, (void *)(unsigned long)i,
				   "smpalt_locks/%u", i);
		if (IS_ERR(t)) {
			/* This thread did nothing; the others run on. */
			run_rounds[i] = 0;
			atomic_dec(&run_left);
			pr_err("smpalt_locks: thread %u: %ld\n", i, PTR_ERR(t));
			continue;
		}
		run_tasks[i] = t;
		wake_up_process(t);
	}
	mutex_unlock(&run_mutex);
	return 0;
}

static ssize_t run_write(struct file *file, const char __user *ubuf,
			 size_t len, loff_t *ppos)
{
	unsigned int threads;
	unsigned long rounds;
	char buf[48];
	int ret;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	if (sscanf(buf, "%u %lu", &threads, &rounds) != 2 || !threads ||
	    threads > SMPALT_LOCKS_MAX_THREADS || !rounds ||
	    rounds > SMPALT_LOCKS_MAX_ROUNDS)
		return -EINVAL;
	ret = smpalt_locks_start(threads, rounds);
	return ret ? ret : len;
}

static const struct file_operations run_fops = {
	.owner = THIS_MODULE,
	.write = run_write,
	.llseek = noop_llseek,
};

static int check_show(struct seq_file *m, void *unused)
{
	unsigned long rounds = 0, keyed = 0;
	unsigned int i;
	u64 locked;

	mutex_lock(&run_mutex);
	if (!run_started) {
		seq_puts(m, "idle\n");
		goto out;
	}
	if (atomic_read(&run_left)) {
		seq_puts(m, "running\n");
		goto out;
	}
	for (i = 0; i < run_threads; i++) {
		rounds += run_rounds[i];
		keyed += run_keyed[i];
	}
	spin_lock(&count_lock);
	locked = count_locked;
	spin_unlock(&count_lock);
	if ((unsigned long)atomic_read(&count_atomic) != (u32)rounds)
		seq_printf(m, "FAIL atomic expected=%lu got=%u\n", rounds,
			   atomic_read(&count_atomic));
	else if (atomic64_read(&count_atomic64) != rounds)
		seq_printf(m, "FAIL atomic64 expected=%lu got=%lld\n", rounds,
			   (long long)atomic64_read(&count_atomic64));
	else if (READ_ONCE(count_cmpxchg) != (u32)rounds)
		seq_printf(m, "FAIL cmpxchg expected=%lu got=%u\n", rounds,
			   READ_ONCE(count_cmpxchg));
	else if (locked != rounds)
		seq_printf(m, "FAIL locked expected=%lu got=%llu\n", rounds,
			   (unsigned long long)locked);
	else
		seq_printf(m, "ok rounds=%lu keyed=%lu\n", rounds, keyed);
out:
	mutex_unlock(&run_mutex);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(check);

static int form_show(struct seq_file *m, void *unused)
{
	u8 *site = READ_ONCE(marked_site);
	u8 b;

	if (!site) {
		/* Not run yet: one increment finds the site. */
		site = smpalt_locks_inc(&count_atomic);
		atomic_dec(&count_atomic);
		WRITE_ONCE(marked_site, site);
	}
	b = READ_ONCE(*site);
	if (b == 0xf0)
		seq_puts(m, "smp\n");
	else if (b == 0x3e)
		seq_puts(m, "up\n");
	else
		seq_printf(m, "%#04x\n", b);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(form);

/* Register a kprobe at @addr and remove it again: 0 or -errno. */
static int smpalt_locks_try_kprobe(void *addr)
{
	struct kprobe *kp;
	int ret;

	kp = kzalloc(sizeof(*kp), GFP_KERNEL);
	if (!kp)
		return -ENOMEM;
	kp->addr = addr;
	ret = register_kprobe(kp);
	if (!ret)
		unregister_kprobe(kp);
	kfree(kp);
	return ret;
}

static ssize_t kprobe_write(struct file *file, const char __user *ubuf,
			    size_t len, loff_t *ppos)
{
	u8 *site = READ_ONCE(marked_site);

	if (!site) {
		site = smpalt_locks_inc(&count_atomic);
		atomic_dec(&count_atomic);
		WRITE_ONCE(marked_site, site);
	}
	mutex_lock(&run_mutex);
	kprobe_site_rc = smpalt_locks_try_kprobe(site);
	kprobe_entry_rc = smpalt_locks_try_kprobe(smpalt_locks_inc);
	pr_info("smpalt_locks: kprobe on the lock site %pS: %d, on %ps: %d\n",
		site, kprobe_site_rc, smpalt_locks_inc, kprobe_entry_rc);
	mutex_unlock(&run_mutex);
	return len;
}

static int kprobe_show(struct seq_file *m, void *unused)
{
	mutex_lock(&run_mutex);
	if (kprobe_site_rc > 0)
		seq_puts(m, "none\n");
	else
		seq_printf(m, "site=%d entry=%d\n", kprobe_site_rc,
			   kprobe_entry_rc);
	mutex_unlock(&run_mutex);
	return 0;
}

static int kprobe_open(struct inode *inode, struct file *file)
{
	return single_open(file, kprobe_show, NULL);
}

static const struct file_operations kprobe_fops = {
	.owner = THIS_MODULE,
	.open = kprobe_open,
	.read = seq_read,
	.write = kprobe_write,
	.llseek = seq_lseek,
	.release = single_release,
};

static ssize_t key_write(struct file *file, const char __user *ubuf,
			 size_t len, loff_t *ppos)
{
	bool on;
	int ret;

	ret = kstrtobool_from_user(ubuf, len, &on);
	if (ret)
		return ret;
	if (on)
		static_branch_enable(&smpalt_locks_key);
	else
		static_branch_disable(&smpalt_locks_key);
	return len;
}

static int key_show(struct seq_file *m, void *unused)
{
	seq_printf(m, "%d\n", static_key_enabled(&smpalt_locks_key) ? 1 : 0);
	return 0;
}

static int key_open(struct inode *inode, struct file *file)
{
	return single_open(file, key_show, NULL);
}

static const struct file_operations key_fops = {
	.owner = THIS_MODULE,
	.open = key_open,
	.read = seq_read,
	.write = key_write,
	.llseek = seq_lseek,
	.release = single_release,
};

static struct dentry *smpalt_locks_dir;

static int __init smpalt_locks_init(void)
{
	smpalt_locks_dir = debugfs_create_dir("smpalt_locks", NULL);
	debugfs_create_file("run", 0200, smpalt_locks_dir, NULL, &run_fops);
	debugfs_create_file("check", 0400, smpalt_locks_dir, NULL,
			    &check_fops);
	debugfs_create_file("form", 0400, smpalt_locks_dir, NULL, &form_fops);
	debugfs_create_file("kprobe", 0600, smpalt_locks_dir, NULL,
			    &kprobe_fops);
	debugfs_create_file("key", 0600, smpalt_locks_dir, NULL, &key_fops);
	return 0;
}

static void __exit smpalt_locks_exit(void)
{
	debugfs_remove_recursive(smpalt_locks_dir);
	mutex_lock(&run_mutex);
	smpalt_locks_reap();
	mutex_unlock(&run_mutex);
}

module_init(smpalt_locks_init);
module_exit(smpalt_locks_exit);
MODULE_DESCRIPTION("Lock sites, counters and text patchers for the smpalt tests");
MODULE_LICENSE("GPL");

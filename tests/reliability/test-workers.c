/* SPDX-License-Identifier: MIT */
/*
 * The library's own file table and its kept workers (base/workers.c), on
 * ext4 (root; skip otherwise):
 *
 *  table_holds_no_file     after calls of every kind (methods, async,
 *                          cancelled, failed, the probe, verify), the
 *                          library's table holds its socket and rings only
 *  lock_kept_high_fd       a POSIX lock on a file at the highest descriptor
 *                          number the hard limit allows survives 100 calls
 *  fork_child              a fork()ed child, and one forked without the
 *                          fork handlers (_Fork()), make their own workers
 *                          and never reach their parent's
 *  own_table_thread        a thread with a table of its own gets its own
 *                          file converted, not the process's at its number
 *  socket_closed           the application closes every descriptor and
 *                          opens a socket of its own where the library's
 *                          was: calls work, that socket receives nothing,
 *                          and the pool is renewed with a socket of its own
 *  socketpair_refused      a profile without AF_UNIX socket pairs: calls
 *                          still work (a thread of their own each)
 *  nested_and_many         calls nested in progress callbacks deeper than
 *                          the workers kept, and more threads at once
 *  cancelled_caller        a thread cancelled inside a call: the call ends
 *                          as it would have, then the cancel acts
 *  idle_end                unused workers end, and the next call starts anew
 *  marked_while_holding    the keeper bears the name other processes wait
 *                          for while a call holds its file, and not for
 *                          long after
 *  caller_credentials      a thread of a user's file-system ids and no
 *                          capability gets what that user could: no reopen
 *                          of a file closed to it, no blocks kept for root
 *
 * Nothing waits on time but idle_end, which waits (bounded) for the
 * workers it told to end after 1 ms, and marked_while_holding, which waits
 * (bounded) for the mark's second to end.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <linux/capability.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "prealloc.h"
#include "base/creds.h"
#include "base/workers.h"
#include "tassert.h"
#include "tcheck.h"
#include "tfs.h"
#include "tseccomp.h"

#define MiB (1ull << 20)

static struct tfs t;

static int new_file(const char *name, int flags)
{
	char path[256];

	return open(tfs_path(&t, name, path, sizeof(path)),
		    O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | flags, 0644);
}

static bool written(int fd, uint64_t len)
{
	struct prealloc_census cs = { .size = sizeof(cs) };

	return prealloc_verify(fd, 0, len, &cs) == 0 && cs.written_bytes == len;
}

/* Threads of this process named @name: their count, the first in *@tid. */
static int threads_named(const char *name, long *tid)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d))) {
		char path[64], comm[32] = "";
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%.20s/comm", e->d_name);
		f = fopen(path, "re");
		if (f && fgets(comm, sizeof(comm), f) && !strncmp(comm, name, strlen(name))) {
			if (!n++ && tid)
				*tid = atol(e->d_name);
		}
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
	return n;
}

/* The keeper, by either of its names. */
static int keepers(void)
{
	return threads_named(PA_KEPT_THREAD_NAME, NULL) + threads_named(PA_KEEPER_THREAD_NAME, NULL);
}

/* Descriptors of thread @tid's table that are neither sockets nor rings. */
static int table_files(long tid)
{
	char dir[64], link[320], target[256];
	struct dirent *e;
	DIR *d;
	int n = 0;

	snprintf(dir, sizeof(dir), "/proc/self/task/%ld/fd", tid);
	d = opendir(dir);
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		ssize_t len;

		if (e->d_name[0] == '.')
			continue;
		snprintf(link, sizeof(link), "%s/%.20s", dir, e->d_name);
		len = readlink(link, target, sizeof(target) - 1);
		target[len > 0 ? len : 0] = 0;
		if (strncmp(target, "socket:", 7) && strcmp(target, "anon_inode:[io_uring]")) {
			print_message("left in the library's table: %s -> %s\n", e->d_name, target);
			n++;
		}
	}
	closedir(d);
	return n;
}

static int cancel_at_once(uint64_t done, uint64_t total, void *data)
{
	(void)done;
	(void)total;
	(void)data;
	return 1;
}

static void table_holds_no_file(void **state)
{
	static const uint32_t methods[] = { PREALLOC_METHOD_AUTO, PREALLOC_METHOD_URING,
					    PREALLOC_METHOD_AIO, PREALLOC_METHOD_BUFFERED };
	struct prealloc_options o = { .size = sizeof(o) };
	struct prealloc_census cs = { .size = sizeof(cs) };
	struct prealloc_async *a;
	struct prealloc_probe *p;
	char path[256];
	long tid = 0;
	int fd, pfd;

	(void)state;
	if (PA_SHARED_TABLE)	/* ThreadSanitizer: no table of the library's */
		skip();
	fd = new_file("kinds", O_APPEND);
	assert_true(fd >= 0);
	for (size_t m = 0; m < sizeof(methods) / sizeof(methods[0]); m++) {
		o.method = methods[m];
		assert_int_equal(prealloc_file_ex(fd, m * 8 * MiB, 8 * MiB, &o, NULL), 0);
	}
	o = (struct prealloc_options){ .size = sizeof(o), .progress = cancel_at_once };
	assert_int_equal(prealloc_file_ex(fd, 64 * MiB, 8 * MiB, &o, NULL), -ECANCELED);
	assert_int_equal(prealloc_file(fd, 0, 1ull << 40, 0), -ENOSPC);
	assert_int_equal(prealloc_async_start(fd, 32 * MiB, 8 * MiB, NULL, &a), 0);
	assert_int_equal(prealloc_async_wait(a), 0);
	prealloc_async_free(a);
	/* The probe and verify on descriptors that cannot write. */
	pfd = open(tfs_path(&t, "kinds", path, sizeof(path)), O_PATH | O_CLOEXEC);
	assert_int_equal(prealloc_probe_new(pfd, 0, MiB, NULL, &p), 0);
	prealloc_probe_free(p);
	close(pfd);
	pfd = open(path, O_RDONLY | O_CLOEXEC);
	assert_int_equal(prealloc_verify(pfd, 0, 40 * MiB, &cs), 0);
	assert_int_equal(cs.written_bytes, 40 * MiB);
	close(pfd);
	close(fd);
	assert_true(threads_named("prealloc-work", &tid) >= 1);
	assert_int_equal(table_files(tid), 0);
}

static void lock_kept_high_fd(void **state)
{
	struct flock lk = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	struct rlimit rl;
	char path[256];
	int fd, high;

	(void)state;
	if (PA_SHARED_TABLE)	/* ThreadSanitizer: no table of the library's */
		skip();
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
	rl.rlim_cur = rl.rlim_max;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &rl), 0);
	high = (int)(rl.rlim_max > 1u << 20 ? 1u << 20 : rl.rlim_max) - 1;
	fd = new_file("locked", 0);
	assert_true(fd >= 0);
	assert_int_equal(dup3(fd, high, O_CLOEXEC), high);
	close(fd);
	assert_int_equal(fcntl(high, F_SETLK, &lk), 0);
	for (int i = 0; i < 100; i++)
		assert_int_equal(prealloc_file(high, (uint64_t)i * MiB, MiB, 0), 0);
	assert_int_equal(tc_lock_holder(tfs_path(&t, "locked", path, sizeof(path)), 0, 0),
			 getpid());
	assert_true(written(high, 100 * MiB));
	close(high);
}

/* In a child: a call of its own, on workers of its own. */
static int child_calls(void)
{
	int fd = new_file("child", 0);

	if (fd < 0 || prealloc_file(fd, 0, 4 * MiB, 0) || !written(fd, 4 * MiB))
		return 10;
	return keepers() == 1 ? 0 : 11;
}

static int exit_status(pid_t pid)
{
	int st;

	return waitpid(pid, &st, 0) == pid && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void fork_child(void **state)
{
	int fd = new_file("parent", 0);
	pid_t pid;

	(void)state;
	assert_int_equal(prealloc_file(fd, 0, MiB, 0), 0);	/* the parent's workers */
	pid = fork();
	if (pid == 0)
		_exit(child_calls());
	assert_int_equal(exit_status(pid), 0);
	pid = _Fork();		/* no fork handlers run in the child */
	if (pid == 0)
		_exit(child_calls());
	assert_int_equal(exit_status(pid), 0);
	assert_int_equal(prealloc_file(fd, MiB, MiB, 0), 0);
	assert_true(written(fd, 2 * MiB));
	close(fd);
}

struct own_table {
	int fd;			/* the process's file X at this number */
	int ret;
	struct stat st;
};

static void *on_own_table(void *arg)
{
	struct own_table *o = arg;
	int y;

	if (unshare(CLONE_FILES) < 0) {
		o->ret = -errno;
		return NULL;
	}
	/* File Y at X's number, in this thread's table alone. */
	y = new_file("own-y", 0);
	if (y < 0 || dup3(y, o->fd, O_CLOEXEC) != o->fd) {
		o->ret = -EBADF;
		return NULL;
	}
	close(y);
	o->ret = prealloc_file(o->fd, 0, 16 * MiB, 0);
	if (fstat(o->fd, &o->st) < 0)
		o->ret = -errno;
	return NULL;
}

static void own_table_thread(void **state)
{
	struct own_table o = { .fd = new_file("own-x", 0) };
	pthread_t th;
	struct stat st;

	(void)state;
	assert_true(o.fd >= 0);
	assert_int_equal(write(o.fd, "12345678", 8), 8);
	assert_int_equal(pthread_create(&th, NULL, on_own_table, &o), 0);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(o.ret, 0);
	assert_int_equal(o.st.st_size, 16 * MiB);	/* Y */
	assert_int_equal(fstat(o.fd, &st), 0);
	assert_int_equal(st.st_size, 8);		/* X untouched */
	close(o.fd);
}

static void socket_closed(void **state)
{
	int fd, sv[2];
	char buf[64];

	(void)state;
	fd = new_file("closed", 0);
	assert_int_equal(prealloc_file(fd, 0, MiB, 0), 0);
	close(fd);
	/* Everything but the standard streams, as a daemon does. */
	assert_int_equal(close_range(3, ~0U, 0), 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	fd = new_file("closed-2", 0);
	for (int i = 0; i < 4; i++)
		assert_int_equal(prealloc_file(fd, (uint64_t)i * MiB, MiB, 0), 0);
	assert_true(written(fd, 4 * MiB));
	/* Once the old workers have seen their socket end, a call renews
	 * the pool: workers again, not a thread per call (bounded). */
	for (int i = 4; i < 1000 && !threads_named("prealloc-work", NULL); i++)
		assert_int_equal(prealloc_file(fd, (uint64_t)i * MiB, MiB, PREALLOC_NO_SYNC), 0);
	assert_true(threads_named("prealloc-work", NULL) >= 1);
	assert_int_equal(recv(sv[1], buf, sizeof(buf), MSG_DONTWAIT), -1);
	assert_int_equal(errno, EAGAIN);
	assert_int_equal(recv(sv[0], buf, sizeof(buf), MSG_DONTWAIT), -1);
	assert_int_equal(errno, EAGAIN);
	close(fd);
	close(sv[0]);
	close(sv[1]);
}

static int refused_socketpair(void)
{
	const int nr[] = { __NR_socketpair };
	int fd;

	if (tsec_refuse_calls(nr, 1, EPERM))
		return 20;
	fd = new_file("nosock", 0);
	for (int i = 0; i < 4; i++)
		if (prealloc_file(fd, (uint64_t)i * MiB, MiB, 0))
			return 21;
	return written(fd, 4 * MiB) ? 0 : 22;
}

static void socketpair_refused(void **state)
{
	pid_t pid;

	(void)state;
	pid = fork();
	if (pid == 0)
		_exit(refused_socketpair());	/* no library thread yet in this child */
	assert_int_equal(exit_status(pid), 0);
}

/* Calls nested in each other's progress callbacks, each on a file of its
 * own: level 0 calls first, its callback makes level 1's call, ... */
struct nest {
	int depth, ret[24];		/* levels started; each one's result */
};

static int nest_call(struct nest *n, int level);

static int nest_progress(uint64_t done, uint64_t total, void *data)
{
	struct nest *n = data;

	(void)done;
	(void)total;
	if (n->depth < (int)(sizeof(n->ret) / sizeof(n->ret[0])) && !n->ret[n->depth]) {
		int level = n->depth++;

		n->ret[level] = nest_call(n, level) ? -EIO : 1;
	}
	return 0;
}

static int nest_call(struct nest *n, int level)
{
	struct prealloc_options o = { .size = sizeof(o), .progress = nest_progress,
				      .progress_data = n, .request_bytes = MiB };
	char name[32];
	int fd, ret;

	snprintf(name, sizeof(name), "nest-%d", level);
	fd = new_file(name, 0);
	ret = fd < 0 ? -errno : prealloc_file_ex(fd, 0, 2 * MiB, &o, NULL);
	if (!ret && !written(fd, 2 * MiB))
		ret = -ENODATA;
	close(fd);
	return ret;
}

static void *many(void *arg)
{
	char name[32];
	int fd, *ret = arg;

	snprintf(name, sizeof(name), "many-%p", arg);
	fd = new_file(name, 0);
	*ret = fd < 0 ? -errno : prealloc_file(fd, 0, 8 * MiB, 0);
	if (!*ret && !written(fd, 8 * MiB))
		*ret = -ENODATA;
	close(fd);
	return NULL;
}

static void nested_and_many(void **state)
{
	struct nest n = { 0 };
	pthread_t th[24];
	int ret[24];

	(void)state;
	n.depth = 1;
	assert_int_equal(nest_call(&n, 0), 0);
	assert_int_equal(n.depth, 24);
	for (int i = 1; i < 24; i++)
		assert_int_equal(n.ret[i], 1);
	for (int i = 0; i < 24; i++)
		assert_int_equal(pthread_create(&th[i], NULL, many, &ret[i]), 0);
	for (int i = 0; i < 24; i++) {
		assert_int_equal(pthread_join(th[i], NULL), 0);
		assert_int_equal(ret[i], 0);
	}
}

struct cancelled {
	int fd;
	pthread_mutex_t m;
	pthread_cond_t cv;
	bool inside;
	int ret;			/* the call's result, stored after it returned */
};

static int signal_inside(uint64_t done, uint64_t total, void *data)
{
	struct cancelled *c = data;

	(void)done;
	(void)total;
	pthread_mutex_lock(&c->m);
	c->inside = true;
	pthread_cond_broadcast(&c->cv);
	pthread_mutex_unlock(&c->m);
	return 0;
}

static void *cancelled_call(void *arg)
{
	struct cancelled *c = arg;
	struct prealloc_options o = { .size = sizeof(o), .progress = signal_inside,
				      .progress_data = c, .request_bytes = MiB };

	c->ret = prealloc_file_ex(c->fd, 0, 256 * MiB, &o, NULL);
	pthread_testcancel();
	c->ret = 1;		/* not reached: the cancel acts at the line above */
	return NULL;
}

static void cancelled_caller(void **state)
{
	struct cancelled c = { .fd = new_file("cancelled", 0), .ret = -1 };
	pthread_t th;
	void *res;

	(void)state;
	pthread_mutex_init(&c.m, NULL);
	pthread_cond_init(&c.cv, NULL);
	assert_int_equal(pthread_create(&th, NULL, cancelled_call, &c), 0);
	pthread_mutex_lock(&c.m);
	while (!c.inside)
		pthread_cond_wait(&c.cv, &c.m);
	pthread_mutex_unlock(&c.m);
	assert_int_equal(pthread_cancel(th), 0);
	assert_int_equal(pthread_join(th, &res), 0);
	assert_ptr_equal(res, PTHREAD_CANCELED);
	assert_int_equal(c.ret, 0);
	assert_true(written(c.fd, 256 * MiB));
	close(c.fd);
}

static void idle_end(void **state)
{
	int fd = new_file("idle", 0), rounds = 0;
	pid_t pid;

	(void)state;
	close(fd);
	pid = fork();		/* a process whose first table gets the short idle */
	if (pid == 0) {
		pa_workers_set_idle_ns(1000 * 1000);
		fd = new_file("idle", 0);
		if (prealloc_file(fd, 0, MiB, 0) || !keepers())
			_exit(30);
		/* Bounded: ended after 1 ms unused, gone well within 10 s. */
		while (threads_named("prealloc-", NULL) && rounds++ < 10000)
			usleep(1000);
		if (threads_named("prealloc-", NULL))
			_exit(31);
		if (prealloc_file(fd, MiB, MiB, 0) || !written(fd, 2 * MiB))
			_exit(32);
		_exit(0);
	}
	assert_int_equal(exit_status(pid), 0);
}

static int count_marked(uint64_t done, uint64_t total, void *data)
{
	int *during = data;

	(void)done;
	(void)total;
	*during = threads_named(PA_KEPT_THREAD_NAME, NULL);
	return 0;
}

static void marked_while_holding(void **state)
{
	int during = -1, rounds = 0, fd = new_file("marked", 0);
	struct prealloc_options o = { .size = sizeof(o), .progress = count_marked,
				      .progress_data = &during, .request_bytes = MiB };

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(prealloc_file_ex(fd, 0, 2 * MiB, &o, NULL), 0);
	assert_int_equal(during, 1);
	/* Held no more: an application's flock() is nobody's call once the
	 * mark's second is over (bounded: well within 10 s). */
	while (threads_named(PA_KEPT_THREAD_NAME, NULL) && rounds++ < 10000)
		usleep(1000);
	assert_int_equal(threads_named(PA_KEPT_THREAD_NAME, NULL), 0);
	assert_int_equal(threads_named(PA_KEEPER_THREAD_NAME, NULL), 1);
	close(fd);
}

/* A thread of its own credentials: file-system ids @id and no
 * capability but those it may keep (as a file server's thread serving a
 * user), or, @groups > 0, that many supplementary groups more than a
 * worker takes on. */
struct as_user {
	int fd;
	uid_t id;
	int groups;
	bool async;
	uint64_t len;
	int ret;
	struct prealloc_report rep;
};

static void *call_as(void *arg)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];
	struct as_user *u = arg;
	gid_t g[PA_CREDS_GROUPS + 8];

	for (int i = 0; i < u->groups && i < (int)(sizeof(g) / sizeof(g[0])); i++)
		g[i] = (gid_t)(1000 + i);
	if (u->groups && syscall(SYS_setgroups, u->groups, g) < 0) {
		u->ret = -errno;
		return NULL;
	}
	if (u->id) {
		/* This thread alone, as the kernel keeps them. */
		syscall(SYS_setfsgid, u->id);
		syscall(SYS_setfsuid, u->id);
		memset(d, 0, sizeof(d));
		if (syscall(SYS_capset, &h, d) < 0) {
			u->ret = -errno;
			return NULL;
		}
	}
	u->rep = (struct prealloc_report){ .size = sizeof(u->rep) };
	if (u->async) {
		struct prealloc_async *a;

		/* Its descriptor is the handle's before the start returns. */
		u->ret = prealloc_async_start(u->fd, 0, u->len, NULL, &a);
		if (u->ret)
			return NULL;
		u->ret = prealloc_async_wait(a);
		if (prealloc_async_report(a, &u->rep))
			u->ret = -EPROTO;
		prealloc_async_free(a);
		return NULL;
	}
	u->ret = prealloc_file_ex(u->fd, 0, u->len, NULL, &u->rep);
	return NULL;
}

static void run_as_user(struct as_user *u)
{
	pthread_t th;

	assert_int_equal(pthread_create(&th, NULL, call_as, u), 0);
	assert_int_equal(pthread_join(th, NULL), 0);
}

static void caller_credentials(void **state)
{
	struct as_user u = { .id = 65534, .len = 8 * MiB };
	struct tfs small;
	struct statvfs sv;
	char path[256];
	struct stat st;
	int fill;

	(void)state;
	/* The workers exist, with root's credentials, before the user's call. */
	u.fd = new_file("creds", 0);
	assert_int_equal(prealloc_file(u.fd, 0, MiB, 0), 0);
	/* A file the user holds open for writing but could not open again
	 * (0600 root): its reopen for direct writes is refused to it, as it
	 * would be to the user's own thread: the writes go buffered. */
	assert_int_equal(fchmod(u.fd, 0600), 0);
	run_as_user(&u);
	assert_int_equal(u.ret, 0);
	assert_int_equal(u.rep.method, PREALLOC_METHOD_BUFFERED);
	assert_true(written(u.fd, 8 * MiB));
	/* The same as root: direct writes. */
	u = (struct as_user){ .fd = u.fd, .len = 16 * MiB };
	run_as_user(&u);
	assert_int_equal(u.ret, 0);
	assert_true(u.rep.method != PREALLOC_METHOD_BUFFERED);
	/* More groups than a worker takes on: a thread of its own, the same
	 * answer. */
	u = (struct as_user){ .fd = u.fd, .id = 65534, .groups = PA_CREDS_GROUPS + 4,
			      .len = 24 * MiB };
	run_as_user(&u);
	assert_int_equal(u.ret, 0);
	assert_int_equal(u.rep.method, PREALLOC_METHOD_BUFFERED);
	u = (struct as_user){ .fd = u.fd, .id = 65534, .groups = PA_CREDS_GROUPS + 4,
			      .async = true, .len = 32 * MiB };
	run_as_user(&u);
	assert_int_equal(u.ret, 0);
	assert_int_equal(u.rep.method, PREALLOC_METHOD_BUFFERED);
	assert_true(written(u.fd, 32 * MiB));
	close(u.fd);

	/* ext4's blocks for root are not the user's: ENOSPC before anything
	 * changes, where root's call fits. */
	assert_int_equal(tfs_create(&small, "ext4", 64, NULL), 0);
	fill = open(tfs_path(&small, "fill", path, sizeof(path)),
		    O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	assert_true(fill >= 0);
	/* Everything but the blocks kept for root. */
	assert_int_equal(statvfs(small.dir, &sv), 0);
	assert_int_equal(fallocate(fill, 0, 0, (off_t)(sv.f_bavail * sv.f_frsize)), 0);
	assert_int_equal(statvfs(small.dir, &sv), 0);
	assert_true(sv.f_bavail * sv.f_frsize < MiB && sv.f_bfree * sv.f_frsize > 2 * MiB);
	u = (struct as_user){ .id = 65534, .len = MiB,
			      .fd = open(tfs_path(&small, "user", path, sizeof(path)),
					 O_RDWR | O_CREAT | O_CLOEXEC, 0666) };
	assert_true(u.fd >= 0);
	run_as_user(&u);
	assert_int_equal(u.ret, -ENOSPC);
	assert_int_equal(fstat(u.fd, &st), 0);
	assert_int_equal(st.st_size, 0);
	u.id = 0;
	run_as_user(&u);
	assert_int_equal(u.ret, 0);
	close(u.fd);
	close(fill);
	tfs_destroy(&small);
}

static int setup(void **state)
{
	*state = &t;
	return tfs_create(&t, "ext4", 1024, NULL) ? -1 : 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(table_holds_no_file),
		cmocka_unit_test(lock_kept_high_fd),
		cmocka_unit_test(fork_child),
		cmocka_unit_test(own_table_thread),
		cmocka_unit_test(socketpair_refused),
		cmocka_unit_test(nested_and_many),
		cmocka_unit_test(cancelled_caller),
		cmocka_unit_test(idle_end),
		cmocka_unit_test(marked_while_holding),
		cmocka_unit_test(caller_credentials),
		cmocka_unit_test(socket_closed),	/* last: it closes every descriptor */
	};

	tfs_enter_for("ext4");
	return cmocka_run_group_tests(tests, setup, tfs_group_teardown);
}

/* SPDX-License-Identifier: MIT */
/*
 * The library's file table and the threads that share it.
 *
 * Whatever the library opens it opens, and closes, in a file table of its
 * own (base/own_files.c says why).  That table and its threads are kept
 * from call to call, so that a call starts no thread and copies nothing
 * of the caller's table:
 *  - The keeper makes the table, starts workers into it, runs the jobs
 *    whose descriptions outlive a call (pa_workers_kept_run()), and ends
 *    it all once the library has been idle for IDLE_NS.
 *  - Workers run calls.  A call reaches them over a socket pair whose one
 *    end is in the process's table: the caller's thread sends its
 *    descriptor (SCM_RIGHTS: the same open file description, now in our
 *    table) with a pointer to the work, and whichever worker is free
 *    receives it.  A worker keeps what it sets up (its io_uring) for the
 *    next call.
 * The process's end is close-on-exec, and a fork()ed child has neither the
 * threads nor the table: it makes its own at its first call.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/internal.h"
#include "base/workers.h"

#define IDLE_NS (10ull * 1000 * 1000 * 1000)	/* a worker, then the keeper */
#define WORKERS_MAX 16		/* calls at once beyond it: threads of their own */
/* The keeper keeps its mark this long after the last file is let go: a
 * process between two calls still holds for calls (pa_workers_mark()). */
#define MARK_LINGER_NS (1000ull * 1000 * 1000)
#define WORKER_NAME "prealloc-work"

enum { DOWN, STARTING, UP };

/* A worker: what it keeps, and the list of all, from which what they
 * keep is reachable until they end. */
struct worker {
	struct pa_kept kept[PA_SLOT_COUNT];
	struct worker *next;
};

/* A job for the keeper, from a thread outside the table. */
struct kept_job {
	int (*fn)(void *arg);
	void *arg;
	int ret;
	bool done;
	struct kept_job *next;
};

static struct {
	pthread_mutex_t m;
	pthread_cond_t cv;		/* for callers: state, workers, kept jobs done */
	pthread_cond_t keeper_cv;	/* for the keeper: work, or idle */
	pid_t pid;			/* whose table it is */
	int state;			/* DOWN, STARTING, UP; the keeper's -errno */
	int sock;			/* the process's end, or -1 */
	dev_t sock_dev;
	ino_t sock_ino;
	int starting_lsock;		/* the table's end, while still in the process's */
	int lsock;			/* the table's end, a number of our table; or -1 */
	unsigned int workers;		/* running */
	unsigned int free;		/* of them, waiting for work nobody has claimed */
	unsigned int claimers;		/* callers waiting for one */
	unsigned int spawn;		/* asked of the keeper */
	unsigned int spawn_failures;
	unsigned int held;		/* pa_workers_hold() */
	struct kept_job *kept;		/* for the keeper */
	uint64_t idle_since;
	pthread_t keeper;		/* the running keeper */
	bool retire;			/* ... to end as soon as it is idle */
	bool marked;			/* ... named PA_KEPT_THREAD_NAME */
	bool holding;			/* ... for files held, or */
	uint64_t unmark_at;		/* ... until this after the last */
	uint64_t keeper_wakes;		/* ... by itself then (UINT64_MAX: never) */
	struct worker *all;		/* the workers running */
	struct worker *parents;		/* in a child: its parent's, never touched */
} pool = {
	.m = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER,
	.keeper_cv = PTHREAD_COND_INITIALIZER,
	.state = DOWN, .sock = -1, .starting_lsock = -1, .lsock = -1,
};

static uint64_t idle_ns = IDLE_NS;

#ifdef PA_TEST_HOOKS
void pa_workers_set_idle_ns(uint64_t ns)
{
	idle_ns = ns;
}
#endif

/* One kept job at a time, wherever it runs. */
static pthread_mutex_t kept_m = PTHREAD_MUTEX_INITIALIZER;
static __thread bool own_thread;
static __thread struct worker *me;
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* What a worker receives besides the descriptor (no padding: every byte
 * sent is set). */
struct msg {
	struct pa_work_item *w;
	uint64_t has_fd;
};

int pa_own_table(int keep)
{
	if (PA_SHARED_TABLE)
		return 0;
	/* A copy of [0, @keep] (nothing above is copied), then only @keep:
	 * closing the copies below flushes nothing the caller loses, and
	 * the owner whose locks a close removes is this table. */
	if (close_range((unsigned int)keep + 1, ~0U, CLOSE_RANGE_UNSHARE) < 0) {
		if (unshare(CLONE_FILES) < 0)
			return -errno;
		(void)close_range((unsigned int)keep + 1, ~0U, 0);
	}
	if (keep > 0)
		(void)close_range(0, (unsigned int)keep - 1, 0);
	return 0;
}

/* Is the process's end still ours, in this thread's table?  A thread with
 * a table of its own, or an application that closed every descriptor,
 * has something else (or nothing) there. */
static bool sock_ours(void)
{
	struct stat st;

	return pool.sock >= 0 && fstat(pool.sock, &st) == 0 && st.st_ino == pool.sock_ino &&
	       st.st_dev == pool.sock_dev;
}

/* The pool of an ended table, or in a child its parent's: none.  The
 * process's end is closed only while it is still ours.  What the
 * process's own threads hold and ask stays, but in a child, which has
 * none of them. */
static void forget_locked(bool child)
{
	if (sock_ours())
		close(pool.sock);
	if (pool.starting_lsock >= 0)
		close(pool.starting_lsock);
	pool.pid = getpid();
	pool.state = DOWN;
	pool.sock = pool.starting_lsock = pool.lsock = -1;
	pool.workers = pool.free = pool.spawn = pool.claimers = 0;
	if (child) {
		pool.held = 0;
		pool.kept = NULL;
		/* What they keep is the parent's (its rings' descriptors are in
		 * the parent's table): left alone. */
		pool.parents = pool.all;
		pool.all = NULL;
	}
}

/* A child has only the forking thread: the others, and the table, are
 * its parent's, and one of them may have held a mutex mid-fork. */
static void reset_in_child(void)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER, km = PTHREAD_MUTEX_INITIALIZER;
	pthread_cond_t cv = PTHREAD_COND_INITIALIZER, kcv = PTHREAD_COND_INITIALIZER;

	pool.m = m;
	pool.cv = cv;
	pool.keeper_cv = kcv;
	kept_m = km;
	forget_locked(true);
}

static void register_atfork(void)
{
	pthread_atfork(NULL, NULL, reset_in_child);
}

static int recv_item(int sock, struct pa_work_item **w, int *fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} c;
	struct msg m;
	struct iovec iov = { .iov_base = &m, .iov_len = sizeof(m) };
	struct msghdr h = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = c.buf,
			    .msg_controllen = sizeof(c.buf) };
	struct cmsghdr *cm;
	ssize_t n = recvmsg(sock, &h, MSG_CMSG_CLOEXEC);

	if (n < 0)
		return -errno;
	if (n != (ssize_t)sizeof(m))
		return -EPIPE;		/* 0: the process's end is closed */
	*w = m.w;
	/* MSG_CTRUNC: the descriptor did not fit in our table. */
	*fd = m.has_fd ? -EMFILE : -1;
	for (cm = CMSG_FIRSTHDR(&h); cm; cm = CMSG_NXTHDR(&h, cm))
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS)
			memcpy(fd, CMSG_DATA(cm), sizeof(*fd));
	return 0;
}

static int send_item(int sock, struct pa_work_item *w, int fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} c = { 0 };
	struct msg m = { .w = w, .has_fd = fd >= 0 };
	struct iovec iov = { .iov_base = &m, .iov_len = sizeof(m) };
	struct msghdr h = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (fd >= 0) {
		struct cmsghdr *cm;

		h.msg_control = c.buf;
		h.msg_controllen = sizeof(c.buf);
		cm = CMSG_FIRSTHDR(&h);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &fd, sizeof(fd));
	}
	return PA_RETRY_EINTR(sendmsg(sock, &h, MSG_NOSIGNAL)) < 0 ? -errno : 0;
}

/* On a worker: what it kept goes with it. */
static void worker_end_locked(struct worker *w)
{
	struct worker **p = &pool.all;

	while (*p && *p != w)
		p = &(*p)->next;
	if (*p)
		*p = w->next;
	for (int i = 0; i < PA_SLOT_COUNT; i++)
		if (w->kept[i].p)
			w->kept[i].free(w->kept[i].p);
	free(w);
}

static void *worker(void *arg)
{
	int lsock;

	me = arg;
	pthread_mutex_lock(&pool.m);
	lsock = pool.lsock;
	pthread_mutex_unlock(&pool.m);
	own_thread = true;
	prctl(PR_SET_NAME, WORKER_NAME);
	for (;;) {
		struct pa_work_item *w = NULL;
		int fd = -1, ret = recv_item(lsock, &w, &fd);

		if (ret == -EINTR)
			continue;
		if (!ret)
			w->run(w, fd);
		pthread_mutex_lock(&pool.m);
		if (!ret) {
			pool.free++;
			if (pool.claimers)
				pthread_cond_broadcast(&pool.cv);
		} else if ((ret == -EAGAIN && pool.free) || ret == -EPIPE || ret == -EBADF) {
			/* Unused for IDLE_NS (SO_RCVTIMEO) while no work sent is
			 * still to be taken, or nothing more can come: end.  A
			 * passing failure (ENOMEM, ENOBUFS) is tried again: a
			 * caller may have claimed this worker. */
			pool.free -= pool.free ? 1 : 0;
			if (!--pool.workers) {
				pool.idle_since = pa_now_ns();
				pthread_cond_signal(&pool.keeper_cv);
			}
			worker_end_locked(me);
			ret = 1;
		}
		pthread_mutex_unlock(&pool.m);
		if (ret == 1)
			return NULL;
	}
}

/* On the keeper, pool.m held: start a worker into our table. */
static void spawn_locked(void)
{
	struct worker *w = calloc(1, sizeof(*w));
	pthread_t t;
	int ret;

	pthread_mutex_unlock(&pool.m);
	/* No socket (a table started for kept jobs alone): no worker. */
	ret = !w ? -ENOMEM : pool.lsock < 0 ? -ENOTSOCK : pa_thread_start(&t, worker, w);
	if (!ret)
		pthread_detach(t);
	pthread_mutex_lock(&pool.m);
	if (!ret) {
		w->next = pool.all;
		pool.all = w;
	} else {
		free(w);
	}
	if (ret) {
		pool.spawn = 0;		/* those asking go elsewhere */
		pool.spawn_failures++;
	} else {
		pool.spawn--;
		pool.workers++;
		pool.free++;
	}
	pthread_cond_broadcast(&pool.cv);
}

static void run_kept_locked(void)
{
	struct kept_job *j = pool.kept;

	pool.kept = j->next;
	pthread_mutex_unlock(&pool.m);
	pthread_mutex_lock(&kept_m);
	j->ret = j->fn(j->arg);
	pthread_mutex_unlock(&kept_m);
	pthread_mutex_lock(&pool.m);
	j->done = true;
	pool.idle_since = pa_now_ns();
	pthread_cond_broadcast(&pool.cv);
}

static bool idle_locked(void)
{
	return !pool.workers && !pool.held && !pool.kept && !pool.spawn;
}

/* The keeper's mark outlives the files held, until pool.unmark_at. */
static bool lingering_locked(void)
{
	return pool.marked && !pool.holding;
}

static void serve_locked(void)
{
	for (;;) {
		uint64_t now = pa_now_ns(), until = UINT64_MAX;
		struct timespec ts;

		if (lingering_locked() && now >= pool.unmark_at) {
			pool.marked = false;
			prctl(PR_SET_NAME, PA_KEEPER_THREAD_NAME);
		}
		if (pool.kept) {
			run_kept_locked();
			continue;
		}
		if (pool.spawn) {
			spawn_locked();
			continue;
		}
		if (idle_locked()) {
			if (pool.retire || now - pool.idle_since >= idle_ns)
				return;
			until = pool.idle_since + idle_ns;
		}
		if (lingering_locked())
			until = PA_MIN(until, pool.unmark_at);
		pool.keeper_wakes = until;
		if (until == UINT64_MAX) {
			pthread_cond_wait(&pool.keeper_cv, &pool.m);
		} else {
			ts = pa_ns_ts(until);
			pthread_cond_clockwait(&pool.keeper_cv, &pool.m, CLOCK_MONOTONIC, &ts);
		}
	}
}

static void *keeper(void *arg)
{
	int lsock = (int)(intptr_t)arg, ret = pa_own_table(lsock);
	struct timeval idle = { .tv_sec = (time_t)(idle_ns / 1000000000ull),
				.tv_usec = (suseconds_t)(idle_ns % 1000000000ull / 1000) };

	own_thread = true;
	prctl(PR_SET_NAME, PA_KEEPER_THREAD_NAME);
	if (!ret && lsock >= 0 &&
	    setsockopt(lsock, SOL_SOCKET, SO_RCVTIMEO, &idle, sizeof(idle)) < 0)
		ret = -errno;
	pthread_mutex_lock(&pool.m);
	pool.state = ret ? ret : UP;
	pool.keeper = pthread_self();
	pool.retire = false;
	pool.marked = pool.holding = false;
	pool.keeper_wakes = UINT64_MAX;
	pool.lsock = lsock;
	pool.idle_since = pa_now_ns();
	pthread_cond_broadcast(&pool.cv);
	if (!ret) {
		serve_locked();
		/* Our table ends with the last of its threads: this one. */
		pool.state = DOWN;
		pool.lsock = -1;
		pthread_cond_broadcast(&pool.cv);
	}
	pthread_mutex_unlock(&pool.m);
	return NULL;
}

/* Start the keeper (and the socket pair, if @with_sock) and wait for its
 * table.  0 or -errno. */
static int start_locked(bool with_sock)
{
	int sv[2] = { -1, -1 }, ret;
	struct stat st;
	pthread_t t;

	forget_locked(false);
	if (with_sock && socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == 0 &&
	    fstat(sv[0], &st) == 0) {
		pool.sock = sv[0];
		pool.sock_dev = st.st_dev;
		pool.sock_ino = st.st_ino;
		pool.starting_lsock = sv[1];
	} else if (sv[0] >= 0) {
		close(sv[0]);
		close(sv[1]);
	}
	pool.state = STARTING;
	ret = pa_thread_start(&t, keeper, (void *)(intptr_t)pool.starting_lsock);
	if (!ret) {
		pthread_detach(t);
		while (pool.state == STARTING)
			pthread_cond_wait(&pool.cv, &pool.m);
	}
	/* Our table holds its copy now; the process's goes. */
	if (pool.starting_lsock >= 0 && !PA_SHARED_TABLE)
		close(pool.starting_lsock);
	pool.starting_lsock = -1;
	if (!ret && pool.state != UP)
		ret = pool.state;	/* no table of our own (seccomp?) */
	if (ret)
		forget_locked(false);
	return ret;
}

/* The pool, up: 0 or -errno.  @with_sock: this thread's table is where
 * callers will find the process's end. */
static int up_locked(bool with_sock)
{
	pthread_once(&once, register_atfork);
	if (pool.pid != getpid())	/* a child the fork handler missed */
		forget_locked(true);
	while (pool.state == STARTING)
		pthread_cond_wait(&pool.cv, &pool.m);
	return pool.state == UP ? 0 : start_locked(with_sock);
}

/* Set a worker aside for one piece of work, started if none is free. */
static int claim_locked(void)
{
	while (!pool.free) {
		unsigned int failures = pool.spawn_failures;

		if (pool.state != UP || pool.workers + pool.spawn >= WORKERS_MAX)
			return -EAGAIN;
		pool.spawn++;
		pthread_cond_signal(&pool.keeper_cv);
		pool.claimers++;
		while (!pool.free && pool.spawn && pool.state == UP)
			pthread_cond_wait(&pool.cv, &pool.m);
		pool.claimers--;
		if (!pool.free && pool.spawn_failures != failures)
			return -EAGAIN;
	}
	pool.free--;
	return 0;
}

/*
 * A pool up without the process's end of its socket (the application
 * closed it; or the table was made where no socket pair could be, from a
 * thread with a table of its own or at the descriptor limit): its keeper is
 * ended once idle, for a pool with one, when a socket pair can be made now.
 * Otherwise every call until it idles out would run on a thread of its own.
 */
static bool retired_locked(void)
{
	int sv[2];

	if (!idle_locked() || socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return false;
	close(sv[0]);
	close(sv[1]);
	pool.retire = true;
	pthread_cond_signal(&pool.keeper_cv);
	while (pool.state == UP)
		pthread_cond_wait(&pool.cv, &pool.m);
	return true;
}

int pa_workers_submit(struct pa_work_item *w, int fd)
{
	int sock, ret;

	pthread_mutex_lock(&pool.m);
	ret = up_locked(true);
	if (!ret && !sock_ours() && retired_locked())
		ret = up_locked(true);
	if (!ret)
		ret = sock_ours() ? claim_locked() : -ENOTSOCK;
	sock = pool.sock;
	pthread_mutex_unlock(&pool.m);
	if (ret)
		return ret;
	ret = send_item(sock, w, fd);
	if (ret) {
		pthread_mutex_lock(&pool.m);
		pool.free++;
		pthread_cond_broadcast(&pool.cv);
		pthread_mutex_unlock(&pool.m);
	}
	return ret;
}

struct pa_kept *pa_worker_kept(enum pa_worker_slot s)
{
	return me ? &me->kept[s] : NULL;
}

int pa_workers_kept_run(int (*fn)(void *arg), void *arg)
{
	struct kept_job j = { .fn = fn, .arg = arg };
	int ret;

	if (own_thread) {
		pthread_mutex_lock(&kept_m);
		ret = fn(arg);
		pthread_mutex_unlock(&kept_m);
		return ret;
	}
	pthread_mutex_lock(&pool.m);
	/* From a thread with a table of its own: no socket made here. */
	ret = up_locked(false);
	if (!ret) {
		j.next = pool.kept;
		pool.kept = &j;
		pthread_cond_signal(&pool.keeper_cv);
		while (!j.done)
			pthread_cond_wait(&pool.cv, &pool.m);
		ret = j.ret;
	}
	pthread_mutex_unlock(&pool.m);
	return ret;
}

void pa_workers_mark(bool holding)
{
	pthread_mutex_lock(&pool.m);
	pool.holding = holding;
	if (!holding) {
		/* The keeper's to do; woken only if it would not wake by
		 * then anyway (once a second under a stream of calls). */
		pool.unmark_at = pa_now_ns() + MARK_LINGER_NS;
		if (pool.keeper_wakes > pool.unmark_at)
			pthread_cond_signal(&pool.keeper_cv);
	} else if (!pool.marked) {
		/* From a worker, through /proc: best effort, as what reads
		 * it is. */
		pool.marked = !pthread_setname_np(pool.keeper, PA_KEPT_THREAD_NAME);
	}
	pthread_mutex_unlock(&pool.m);
}

void pa_workers_hold(int delta)
{
	pthread_mutex_lock(&pool.m);
	pool.held += (unsigned int)delta;
	if (!pool.held) {
		pool.idle_since = pa_now_ns();
		pthread_cond_signal(&pool.keeper_cv);
	}
	pthread_mutex_unlock(&pool.m);
}

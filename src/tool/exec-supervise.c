/* SPDX-License-Identifier: MIT */
/*
 * The supervisor of `prealloc exec`: seccomp user notification for programs
 * that make the fallocate() system call themselves (every Go program,
 * static binaries, syscall()), as LXD and crun intercept single calls of
 * unmodified programs.
 *
 * The filter (built by libseccomp, loaded with the listener flags) sends
 * only mode-0 calls of at least the minimum size here: every other call
 * never leaves the kernel.  A received call waits killably only
 * (SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, Linux 5.19): Go's runtime
 * signals every thread about every 10 ms, and an interrupted fallocate()
 * makes etcd give up preallocating.  Each call is served on a thread of
 * its own, on a copy of the program's descriptor (pidfd_getfd(), Linux
 * 5.6): the copy is this process's, so closing it drops none of the
 * program's record locks.  Whatever the library cannot do, the kernel does
 * as it would have (SECCOMP_USER_NOTIF_FLAG_CONTINUE).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "exec-supervise.h"

#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#endif

/* libseccomp 2.5 builds the program; loading it ourselves adds the flag
 * it cannot set. */
static int export_filter(uint64_t min, struct sock_fprog *prog)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	int mfd = memfd_create("prealloc-exec-filter", MFD_CLOEXEC), ret = -ENOMEM;
	struct stat st;

	/* Other architectures' calls (int $0x80, an i386 child) pass:
	 * libseccomp would kill them. */
	if (ctx && mfd >= 0)
		ret = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_ALLOW);
	if (!ret)
		ret = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(fallocate), 2,
				       SCMP_A1(SCMP_CMP_EQ, 0), SCMP_A3(SCMP_CMP_GE, min));
	if (!ret)
		ret = seccomp_export_bpf(ctx, mfd);
	if (!ret && fstat(mfd, &st) < 0)
		ret = -errno;
	if (!ret) {
		prog->len = (unsigned short)(st.st_size / (off_t)sizeof(struct sock_filter));
		prog->filter = malloc((size_t)st.st_size);
		if (!prog->filter || pread(mfd, prog->filter, (size_t)st.st_size, 0) != st.st_size)
			ret = -EIO;
	}
	if (mfd >= 0)
		close(mfd);
	seccomp_release(ctx);
	return ret;
}

int exec_filter_install(uint64_t min)
{
	unsigned long flags = SECCOMP_FILTER_FLAG_NEW_LISTENER |
			      SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV;
	struct sock_fprog prog;
	int fd, ret = export_filter(min, &prog);

	if (ret)
		return ret;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		free(prog.filter);
		return -errno;
	}
	fd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &prog);
	if (fd < 0 && errno == EINVAL)	/* before Linux 5.19 */
		fd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
				  SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
	ret = fd < 0 ? -errno : fd;
	free(prog.filter);
	return ret;
}

struct served {
	int listener;
	struct exec_cfg cfg;		/* this call's: its own waiting_data */
	struct seccomp_notif *req;
	struct seccomp_notif_resp *resp;
	pid_t tgid;			/* the calling thread's process */
	ino_t ino;
};

/* Does the program hold a flock() on the file?  Then the library would wait
 * for the program, which waits for us: give up, the kernel makes the call. */
static int program_holds(uint64_t done, uint64_t total, void *data)
{
	const struct served *s = data;
	FILE *f = done ? NULL : fopen("/proc/locks", "re");
	char *line = NULL, kind[16];
	unsigned long long ino;
	bool held = false;
	size_t n = 0;
	long pid;

	(void)total;
	if (done)
		return 0;
	if (!f)
		return 1;
	while (!held && getline(&line, &n, f) > 0)
		held = sscanf(line, "%*[^:]: %15s %*s %*s %ld %*x:%*x:%llu", kind, &pid, &ino) == 3 &&
		       !strcmp(kind, "FLOCK") && pid == (long)s->tgid && ino == s->ino;
	free(line);
	fclose(f);
	return held;
}

/* The process of thread @tid: pidfd_open() takes processes only (before
 * Linux 6.9), and a Go program calls from any of its threads. */
static pid_t tgid_of(pid_t tid)
{
	char path[40], *line = NULL;
	pid_t tgid = tid;
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	f = fopen(path, "re");
	while (f && getline(&line, &n, f) > 0)
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	free(line);
	if (f)
		fclose(f);
	return tgid;
}

/* The program's descriptor @fd of process @pid, as a descriptor of ours:
 * its own description (pidfd_getfd()), else, where a profile refuses that
 * call (container runtimes allow it only with CAP_SYS_PTRACE), the file
 * opened anew through /proc (the library reopens it anyway). */
static int program_fd(pid_t pid, int fd)
{
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0), own = -1;
	char path[64];

	if (pidfd >= 0) {
		own = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
		close(pidfd);
	}
	if (own >= 0)
		return own;
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)pid, fd);
	own = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
	return own < 0 ? -errno : own;
}

static void *serve(void *arg)
{
	struct served *s = arg;
	const struct seccomp_data *d = &s->req->data;
	enum exec_outcome out = EXEC_PASSED;
	int fd;
	struct stat st;

	s->tgid = tgid_of((pid_t)s->req->pid);
	fd = program_fd(s->tgid, (int)d->args[0]);
	/* The task may have died and its id been reused since. */
	if (fd >= 0 && seccomp_notify_id_valid(s->listener, s->req->id) == 0 &&
	    fstat(fd, &st) == 0) {
		s->ino = st.st_ino;
		s->cfg.waiting = program_holds;
		s->cfg.waiting_data = s;
		out = exec_convert(&s->cfg, fd, (int)d->args[1], d->args[2], d->args[3],
				   (int)s->tgid, (int)d->args[0]);
	} else if (s->cfg.tally) {
		__atomic_add_fetch(&s->cfg.tally->seen, 1, __ATOMIC_RELAXED);
		__atomic_add_fetch(&s->cfg.tally->passed, 1, __ATOMIC_RELAXED);
	}
	if (fd >= 0)
		close(fd);
	s->resp->id = s->req->id;
	s->resp->val = 0;
	s->resp->error = 0;
	s->resp->flags = out == EXEC_CONVERTED ? 0 : SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	/* ENOENT: the task is gone, nobody is waiting for the answer. */
	(void)seccomp_notify_respond(s->listener, s->resp);
	seccomp_notify_free(s->req, s->resp);
	free(s);
	return NULL;
}

/* Take one call off @listener and serve it on a thread.  False when the
 * listener is done with (every process of the program gone). */
static bool take(int listener, const struct exec_cfg *cfg)
{
	struct served *s = calloc(1, sizeof(*s));
	pthread_attr_t a;
	pthread_t t;
	int ret;

	if (!s || seccomp_notify_alloc(&s->req, &s->resp) < 0) {
		free(s);
		return true;	/* try again at the next readiness */
	}
	s->listener = listener;
	s->cfg = *cfg;
	ret = seccomp_notify_receive(listener, s->req);
	if (ret == 0) {
		pthread_attr_init(&a);
		pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
		if (pthread_create(&t, &a, serve, s) == 0)
			s = NULL;
		pthread_attr_destroy(&a);
		if (s)
			serve(s);	/* no thread: serve it here */
		return true;
	}
	seccomp_notify_free(s->req, s->resp);
	free(s);
	/* -ENOENT: the caller was interrupted before we took it; -ECANCELED:
	 * we were (libseccomp's EINTR). */
	return ret == -ENOENT || ret == -ECANCELED;
}

void exec_supervise(int listener, const struct exec_cfg *cfg, int poll_fd,
		    int (*on_ready)(void *data), void *data)
{
	struct pollfd p[2] = { { .fd = poll_fd, .events = POLLIN },
			       { .fd = listener, .events = POLLIN } };
	bool serving = listener >= 0, done = false;

	while (!done || serving) {
		if (poll(p, serving ? 2 : 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if ((p[0].revents & POLLIN) && on_ready(data))
			done = true;
		if (serving && (p[1].revents & POLLIN))
			serving = take(listener, cfg);
		else if (serving && (p[1].revents & (POLLHUP | POLLERR | POLLNVAL)))
			serving = false;
		/* Not serving any more: the program's next calls get ENOSYS
		 * rather than wait for nobody. */
		if (!serving && listener >= 0) {
			close(listener);
			listener = -1;
		}
	}
}

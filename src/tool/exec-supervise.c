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
 * makes etcd give up preallocating.  A call is taken with the calling
 * thread's own description where the kernel lends it (pidfd_getfd(), Linux
 * 5.6, on a pidfd of the thread, Linux 6.9): a copy in another process, so
 * closing it drops none of the program's record locks.  Whatever is not
 * converted, the kernel does as it would have
 * (SECCOMP_USER_NOTIF_FLAG_CONTINUE).
 */
#include <errno.h>
#include <fcntl.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <linux/filter.h>
#include <linux/kcmp.h>
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
#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL	/* Linux 6.9 */
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
	/* exec_wanted() (src/tool/exec-proto.h), in BPF. */
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

/* The process of thread @tid (a Go program calls from any of its threads). */
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

/*
 * The calling thread's descriptor, as a copy of its own description: from a
 * pidfd of the thread, else (before Linux 6.9) of its process, kept only
 * when kcmp() says it is the thread's too (a thread may have a descriptor
 * table of its own).  -1 where the kernel lends neither.
 */
static int thread_fd(const struct exec_call *c)
{
	int pidfd = (int)syscall(SYS_pidfd_open, c->tid, PIDFD_THREAD), fd = -1;
	bool the_thread = pidfd >= 0;

	if (pidfd < 0)
		pidfd = (int)syscall(SYS_pidfd_open, c->pid, 0);
	if (pidfd >= 0) {
		fd = (int)syscall(SYS_pidfd_getfd, pidfd, c->prog_fd, 0);
		close(pidfd);
	}
	if (fd >= 0 && !the_thread &&
	    syscall(SYS_kcmp, getpid(), c->tid, KCMP_FILE, fd, c->prog_fd) != 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

int exec_seccomp_take(int listener, struct exec_call *c)
{
	struct seccomp_notif *req;
	struct seccomp_notif_resp *resp;
	int ret;

	if (seccomp_notify_alloc(&req, &resp) < 0)
		return 0;	/* the call waits for the next readiness */
	ret = seccomp_notify_receive(listener, req);
	if (ret == 0) {
		const struct seccomp_data *d = &req->data;

		*c = (struct exec_call){ .front = EXEC_FRONT_SECCOMP, .tid = (pid_t)req->pid,
					 .pid = tgid_of((pid_t)req->pid), .prog_fd = (int)d->args[0],
					 .mode = (int)d->args[1], .off = d->args[2], .len = d->args[3],
					 .conn = -1, .listener = listener, .id = req->id };
		c->fd = thread_fd(c);
		/* Taken while the thread was still in the call: its table's. */
		if (c->fd >= 0 && !exec_seccomp_waiting(c)) {
			close(c->fd);
			c->fd = -1;
		}
		ret = 1;
	} else if (ret == -ENOENT || ret == -ECANCELED) {
		/* -ENOENT: the caller was interrupted before we took it;
		 * -ECANCELED: we were (libseccomp's EINTR). */
		ret = 0;
	}
	seccomp_notify_free(req, resp);
	return ret;
}

bool exec_seccomp_waiting(const struct exec_call *c)
{
	return seccomp_notify_id_valid(c->listener, c->id) == 0;
}

void exec_seccomp_answer(const struct exec_call *c, bool done)
{
	struct seccomp_notif *req;
	struct seccomp_notif_resp *resp;

	if (seccomp_notify_alloc(&req, &resp) < 0)
		return;
	resp->id = c->id;
	resp->flags = done ? 0 : SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	/* -ENOENT: the thread is gone, nobody waits for the answer. */
	(void)seccomp_notify_respond(c->listener, resp);
	seccomp_notify_free(req, resp);
}

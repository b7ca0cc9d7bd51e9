/* SPDX-License-Identifier: MIT */
/*
 * `prealloc exec`'s side of the interposer's socket (src/tool/exec-listen.h):
 * an abstract address, so a process of the program reaches it whatever
 * user it became and whatever descriptors it closed; a connection is
 * served only when the kernel says a descendant of `prealloc exec` made it.
 */
#include <errno.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "exec-fdpass.h"
#include "exec-listen.h"
#include "exec-proto.h"

int exec_listen_open(char *name, size_t len)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	socklen_t alen = sizeof(a);
	int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0), err;

	/* Bound to the family alone: the kernel picks a free abstract name. */
	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof(sa_family_t)) < 0 || listen(s, 64) < 0 ||
	    getsockname(s, (struct sockaddr *)&a, &alen) < 0)
		goto fail;
	alen -= (socklen_t)offsetof(struct sockaddr_un, sun_path);
	if (alen < 2 || alen >= len || a.sun_path[0]) {
		errno = EPROTO;
		goto fail;
	}
	snprintf(name, len, "@%.*s", (int)alen - 1, a.sun_path + 1);
	return s;
fail:
	err = errno;
	if (s >= 0)
		close(s);
	return -err;
}

/* The parent of process @pid, or -1. */
static pid_t parent_of(pid_t pid)
{
	char path[40], buf[512], *p;
	int ppid = -1;
	ssize_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	n = f ? (ssize_t)fread(buf, 1, sizeof(buf) - 1, f) : -1;
	if (f)
		fclose(f);
	buf[n > 0 ? n : 0] = '\0';
	/* "PID (COMM) STATE PPID ...": COMM may hold anything, ')' too. */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %d", &ppid) != 1)
		return -1;
	return (pid_t)ppid;
}

static bool descendant(pid_t pid)
{
	for (pid_t p = parent_of(pid); p > 1; p = parent_of(p))
		if (p == getpid())
			return true;
	return false;
}

int exec_listen_accept(int sock)
{
	int conn = accept4(sock, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK), one = 1;
	struct ucred cr;
	socklen_t len = sizeof(cr);

	/* Each call then names the process that sent it (SCM_CREDENTIALS):
	 * the connection may have passed to another since. */
	if (conn >= 0 && (getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0 ||
			  !descendant(cr.pid) ||
			  setsockopt(conn, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) < 0)) {
		close(conn);
		conn = -1;
	}
	return conn;
}

/* The thread @tid the interposer names, if it is one of @pid's. */
static pid_t thread_of(pid_t pid, int tid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/task/%d", (int)pid, tid);
	return tid > 0 && access(path, F_OK) == 0 ? (pid_t)tid : pid;
}

static void reply(int conn, uint32_t type, uint64_t min, uint32_t verdict)
{
	struct exec_message m = { .size = sizeof(m), .type = type, .min = min,
				  .verdict = verdict };

	(void)!send(conn, &m, sizeof(m), MSG_NOSIGNAL | MSG_DONTWAIT);
}

enum exec_heard exec_listen_read(int conn, uint64_t min, struct exec_call *c)
{
	struct exec_message m;
	struct ucred cr;
	int fd;
	ssize_t n = exec_recv_fds(conn, &m, sizeof(m), &fd, 1, &cr, MSG_DONTWAIT);

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return EXEC_HEARD_NOTHING;
	if (n == (ssize_t)sizeof(m) && m.size == sizeof(m) && m.type == EXEC_MSG_HELLO && fd < 0) {
		reply(conn, EXEC_MSG_CONFIG, min, 0);
		return EXEC_HEARD_HELLO;
	}
	if (n != (ssize_t)sizeof(m) || m.size != sizeof(m) || m.type != EXEC_MSG_CALL || fd < 0 ||
	    cr.pid <= 0 || !descendant(cr.pid)) {
		if (fd >= 0)
			close(fd);
		return EXEC_HEARD_BAD;
	}
	*c = (struct exec_call){ .front = EXEC_FRONT_PRELOAD, .pid = cr.pid,
				 .tid = thread_of(cr.pid, m.tid), .prog_fd = m.fd, .mode = m.mode,
				 .off = m.offset, .len = m.len, .fd = fd, .conn = conn,
				 .listener = -1 };
	return EXEC_HEARD_CALL;
}

bool exec_listen_waiting(const struct exec_call *c)
{
	struct pollfd p = { .fd = c->conn, .events = POLLRDHUP };

	return poll(&p, 1, 0) >= 0 && !(p.revents & (POLLRDHUP | POLLHUP | POLLERR));
}

void exec_listen_answer(const struct exec_call *c, bool done)
{
	reply(c->conn, EXEC_MSG_VERDICT, 0, done ? EXEC_VERDICT_DONE : EXEC_VERDICT_PASS);
}

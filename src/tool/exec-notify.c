/* SPDX-License-Identifier: MIT */
/* Readiness notification relayed (src/tool/exec-notify.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exec-notify.h"

#define NOTIFY_MAX 4096			/* systemd's own limit for a message */
#define NOTIFY_FDS 253			/* SCM_MAX_FD */

int exec_notify_open(struct exec_notify *n)
{
	const char *v = getenv("NOTIFY_SOCKET");
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	socklen_t alen = sizeof(a);
	size_t len = v ? strlen(v) : 0;
	int one = 1;

	*n = (struct exec_notify){ .sock = -1, .to_sock = -1, .to = { .sun_family = AF_UNIX } };
	if (len < 2 || len > sizeof(n->to.sun_path) || (v[0] != '/' && v[0] != '@'))
		return 0;
	memcpy(n->to.sun_path, v, len);
	if (v[0] == '@')
		n->to.sun_path[0] = '\0';
	n->to_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len);
	n->sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	n->to_sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	/* An abstract name of the kernel's choosing; the sender's pid on each
	 * message (SO_PASSCRED). */
	if (n->sock < 0 || n->to_sock < 0 ||
	    setsockopt(n->sock, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) < 0 ||
	    bind(n->sock, (struct sockaddr *)&a, sizeof(sa_family_t)) < 0 ||
	    getsockname(n->sock, (struct sockaddr *)&a, &alen) < 0) {
		int err = errno;

		if (n->sock >= 0)
			close(n->sock);
		if (n->to_sock >= 0)
			close(n->to_sock);
		n->sock = n->to_sock = -1;
		return -err;
	}
	alen -= (socklen_t)offsetof(struct sockaddr_un, sun_path);
	snprintf(n->name, sizeof(n->name), "@%.*s", (int)alen - 1, a.sun_path + 1);
	return 0;
}

/* What the manager believes of the unit's main process alone, which is
 * ours, with our rights: which process it supervises, who may notify.
 * Never the program's to say. */
static const char *const withheld[] = { "MAINPID", "NOTIFYACCESS=" };

/* @msg without its withheld lines: its new length. */
static size_t withhold(char *msg, size_t len)
{
	size_t in = 0, out = 0;

	while (in < len) {
		const char *nl = memchr(msg + in, '\n', len - in);
		size_t l = nl ? (size_t)(nl - msg) + 1 - in : len - in;
		bool keep = true;

		for (size_t i = 0; i < sizeof(withheld) / sizeof(withheld[0]); i++)
			keep &= l < strlen(withheld[i]) ||
				strncmp(msg + in, withheld[i], strlen(withheld[i]));
		if (keep) {
			memmove(msg + out, msg + in, l);
			out += l;
		}
		in += l;
	}
	return out;
}

void exec_notify_relay(const struct exec_notify *n, pid_t from)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(struct ucred)) + CMSG_SPACE(NOTIFY_FDS * sizeof(int))];
	} in;
	char msg[NOTIFY_MAX], out[CMSG_SPACE(NOTIFY_FDS * sizeof(int))];
	struct iovec iov = { .iov_base = msg, .iov_len = sizeof(msg) };
	struct msghdr h = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = in.buf,
			    .msg_controllen = sizeof(in.buf) };
	struct cmsghdr *fds = NULL, *c;
	pid_t sender = 0;
	ssize_t len = recvmsg(n->sock, &h, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
	bool whole = !(h.msg_flags & (MSG_TRUNC | MSG_CTRUNC));

	if (len < 0)
		return;
	for (c = CMSG_FIRSTHDR(&h); c; c = CMSG_NXTHDR(&h, c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS)
			sender = ((struct ucred *)(void *)CMSG_DATA(c))->pid;
		else if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
			fds = c;
	}
	iov.iov_len = withhold(msg, (size_t)len);
	h = (struct msghdr){ .msg_name = (void *)&n->to, .msg_namelen = n->to_len,
			     .msg_iov = &iov, .msg_iovlen = 1 };
	if (fds) {
		memcpy(out, fds, fds->cmsg_len);
		h.msg_control = out;
		h.msg_controllen = CMSG_SPACE(fds->cmsg_len - CMSG_LEN(0));
	}
	if (sender == from && whole && (iov.iov_len || fds))
		(void)!sendmsg(n->to_sock, &h, MSG_NOSIGNAL);
	/* Ours closed: the manager holds its own (a barrier's pipe ends when
	 * both are). */
	for (size_t i = 0; fds && i < (fds->cmsg_len - CMSG_LEN(0)) / sizeof(int); i++) {
		int fd;

		memcpy(&fd, CMSG_DATA(fds) + i * sizeof(int), sizeof(int));
		close(fd);
	}
}

/* SPDX-License-Identifier: MIT */
/* Messages with descriptors attached (src/tool/exec-fdpass.h). */
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "exec-fdpass.h"

union fd_space {
	struct cmsghdr align;
	char buf[CMSG_SPACE(EXEC_FDS_MAX * sizeof(int)) + CMSG_SPACE(sizeof(struct ucred))];
};

ssize_t exec_send_fds(int sock, const void *buf, size_t len, const int *fds, size_t n)
{
	union fd_space c = { 0 };
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr h = { .msg_iov = &iov, .msg_iovlen = 1 };
	int send[EXEC_FDS_MAX];
	size_t k = 0;

	for (size_t i = 0; i < n && i < EXEC_FDS_MAX; i++)
		if (fds[i] >= 0)
			send[k++] = fds[i];
	if (k) {
		h.msg_control = c.buf;
		h.msg_controllen = CMSG_SPACE(k * sizeof(int));
		CMSG_FIRSTHDR(&h)->cmsg_level = SOL_SOCKET;
		CMSG_FIRSTHDR(&h)->cmsg_type = SCM_RIGHTS;
		CMSG_FIRSTHDR(&h)->cmsg_len = CMSG_LEN(k * sizeof(int));
		memcpy(CMSG_DATA(CMSG_FIRSTHDR(&h)), send, k * sizeof(int));
	}
	return sendmsg(sock, &h, MSG_NOSIGNAL);
}

ssize_t exec_recv_fds(int sock, void *buf, size_t len, int *fds, size_t n, struct ucred *cred,
		      int flags)
{
	union fd_space c;
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr h = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = c.buf,
			    .msg_controllen = CMSG_SPACE(n * sizeof(int)) +
					      (cred ? CMSG_SPACE(sizeof(*cred)) : 0) };
	ssize_t got = recvmsg(sock, &h, flags | MSG_CMSG_CLOEXEC);
	struct cmsghdr *m;

	for (size_t i = 0; i < n; i++)
		fds[i] = -1;
	if (cred)
		*cred = (struct ucred){ .pid = 0 };
	for (m = got >= 0 && h.msg_controllen ? CMSG_FIRSTHDR(&h) : NULL; m; m = CMSG_NXTHDR(&h, m)) {
		size_t k = (m->cmsg_len - CMSG_LEN(0)) / sizeof(int);

		if (m->cmsg_level != SOL_SOCKET)
			continue;
		if (m->cmsg_type == SCM_RIGHTS)
			memcpy(fds, CMSG_DATA(m), (k < n ? k : n) * sizeof(int));
		else if (m->cmsg_type == SCM_CREDENTIALS && cred)
			memcpy(cred, CMSG_DATA(m), sizeof(*cred));
	}
	if (got >= 0 && (h.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
		for (size_t i = 0; i < n; i++)
			if (fds[i] >= 0)
				close(fds[i]);
		for (size_t i = 0; i < n; i++)
			fds[i] = -1;
		got = 0;
	}
	return got;
}

/* SPDX-License-Identifier: MIT */
/* One call, whichever front end took it (src/tool/exec-call.h). */
#include <stdio.h>
#include <unistd.h>

#include "exec-call.h"
#include "exec-listen.h"
#include "exec-supervise.h"

void exec_call_link(const struct exec_call *c, char *buf, size_t len)
{
	snprintf(buf, len, "/proc/%d/task/%d/fd/%d", (int)c->pid, (int)c->tid, c->prog_fd);
}

void exec_call_path(const struct exec_call *c, char *buf, size_t len)
{
	char link[64];
	ssize_t n;

	if (c->fd >= 0)
		snprintf(link, sizeof(link), "/proc/self/fd/%d", c->fd);
	else
		exec_call_link(c, link, sizeof(link));
	n = readlink(link, buf, len - 1);
	buf[n > 0 ? n : 0] = '\0';
}

bool exec_call_waiting(const struct exec_call *c)
{
	return c->front == EXEC_FRONT_SECCOMP ? exec_seccomp_waiting(c) : exec_listen_waiting(c);
}

void exec_call_answer(const struct exec_call *c, bool done)
{
	if (c->front == EXEC_FRONT_SECCOMP)
		exec_seccomp_answer(c, done);
	else
		exec_listen_answer(c, done);
}

/* SPDX-License-Identifier: MIT */
/*
 * The processes that convert calls (src/tool/exec-worker.h), forked from
 * `prealloc exec`'s one thread.  A worker holds what answers a call (the
 * listener, the call's connection) and answers after the call's last
 * write, reporting first: should `prealloc exec` be killed, the call still
 * ends before its answer, and the worker ends once its socket does.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "exec-fdpass.h"
#include "exec-worker.h"

/* After a call's result, the word that says it is answered. */
#define ANSWERED 0x414e5357u

static int by_number(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* Close every descriptor of this process but stdio and @keep's. */
static void keep_only(int *keep, size_t n)
{
	unsigned int from = 3;

	qsort(keep, n, sizeof(*keep), by_number);
	for (size_t i = 0; i < n; i++) {
		if (keep[i] < (int)from)
			continue;
		if (keep[i] > (int)from)
			close_range(from, (unsigned int)keep[i] - 1, 0);
		from = (unsigned int)keep[i] + 1;
	}
	close_range(from, ~0u, 0);
}

/* Each call: its description and connection come with it; reported,
 * answered, said answered.  A worker that could not take on its rights
 * passes its calls. */
__attribute__((noreturn)) static void work(int sock, const struct exec_cfg *cfg, bool rights,
					   int listener)
{
	const uint32_t answered = ANSWERED;
	struct exec_call c;
	struct exec_result r;
	int fds[2], watch = -1;

	while (exec_recv_fds(sock, &c, sizeof(c), fds, 2, NULL, 0) == (ssize_t)sizeof(c)) {
		int k = 0;

		/* Those the call has came, in this order. */
		c.fd = c.fd >= 0 ? fds[k++] : -1;
		c.conn = c.conn >= 0 ? fds[k++] : -1;
		c.listener = listener;
		if (rights)
			exec_convert_call(cfg, &c, &r, &watch);
		else
			r = (struct exec_result){ .size = sizeof(r), .outcome = EXEC_PASSED,
						  .why = EXEC_WHY_RIGHTS };
		(void)!exec_send_fds(sock, &r, sizeof(r), &watch, 1);
		if (watch >= 0)
			close(watch);
		watch = -1;
		exec_call_answer(&c, r.outcome == EXEC_CONVERTED);
		if (c.fd >= 0)
			close(c.fd);
		if (c.conn >= 0)
			close(c.conn);
		(void)!send(sock, &answered, sizeof(answered), MSG_NOSIGNAL);
	}
	_exit(0);
}

int exec_worker_start(struct exec_worker *w, const struct exec_cfg *cfg,
		      const struct exec_creds *cr, int listener)
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	*w = (struct exec_worker){ .sock = sv[0], .creds = *cr, .call = { .fd = -1, .conn = -1 } };
	w->pid = fork();
	if (w->pid == 0) {
		int keep[] = { sv[1], listener };
		sigset_t all;

		sigfillset(&all);
		sigprocmask(SIG_SETMASK, &all, NULL);
		keep_only(keep, 2);
		work(sv[1], cfg, exec_creds_take(cr) == 0, listener);
	}
	close(sv[1]);
	if (w->pid < 0) {
		int err = errno;

		close(sv[0]);
		return -err;
	}
	return 0;
}

int exec_worker_give(struct exec_worker *w, const struct exec_call *c)
{
	int fds[2] = { c->fd, c->conn };

	if (exec_send_fds(w->sock, c, sizeof(*c), fds, 2) != (ssize_t)sizeof(*c))
		return -errno;
	w->call = *c;
	w->busy = true;
	w->reported = w->converted = false;
	return 0;
}

enum exec_heard_worker exec_worker_read(struct exec_worker *w, struct exec_result *r,
				       int *watch)
{
	ssize_t n = exec_recv_fds(w->sock, r, sizeof(*r), watch, 1, NULL, MSG_DONTWAIT);

	if (w->busy && n == (ssize_t)sizeof(*r) && r->size == sizeof(*r) && !w->reported) {
		w->reported = true;
		w->converted = r->outcome == EXEC_CONVERTED;
		return EXEC_WORKER_RESULT;
	}
	if (*watch >= 0)
		close(*watch);
	*watch = -1;
	if (!w->busy)
		return EXEC_WORKER_NOTHING;
	if (n == sizeof(uint32_t) && *(const uint32_t *)(const void *)r == ANSWERED &&
	    w->reported) {
		w->busy = false;
		return EXEC_WORKER_ANSWERED;
	}
	return EXEC_WORKER_NOTHING;
}

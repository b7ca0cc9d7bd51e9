/* SPDX-License-Identifier: MIT */
/*
 * The processes that convert calls (src/tool/exec-worker.c): each has taken
 * on one set of rights, a caller's, and converts the calls made with
 * exactly those, one at a time, its library warm from one to the next.
 */
#ifndef PREALLOC_EXEC_WORKER_H
#define PREALLOC_EXEC_WORKER_H

#include <stdbool.h>
#include <sys/types.h>

#include "exec-convert.h"

struct exec_worker {
	pid_t pid;
	int sock;			/* calls to it, what became of them from it */
	struct exec_creds creds;	/* the rights it took on */
	bool busy;			/* a call in hand, .call, not answered yet */
	bool reported, converted;	/* ... what it said of the call */
	bool ending;			/* its socket closed: it ends */
	struct exec_call call;		/* the connection kept: answered here if the worker dies */
};

enum exec_heard_worker {
	EXEC_WORKER_NOTHING,		/* nothing (more) to read */
	EXEC_WORKER_RESULT,		/* what became of its call: *@r */
	EXEC_WORKER_ANSWERED,		/* its call is answered: it is idle */
};

/*
 * Fork a worker with the rights @cr, for calls under @cfg answered on
 * @listener (the supervisor's, or -1).  It keeps nothing of this process's
 * but stdio, @listener and its socket, blocks every signal but SIGKILL,
 * and ends when its socket does.  0, or -errno (no process).
 */
int exec_worker_start(struct exec_worker *w, const struct exec_cfg *cfg,
		      const struct exec_creds *cr, int listener);

/* Hand @c to idle @w, its descriptors with it.  0, or -errno (the worker is
 * gone): @c stays the caller's to answer. */
int exec_worker_give(struct exec_worker *w, const struct exec_call *c);

/* What @w said of its call: first its result (into @r, with the
 * descriptor of the file to watch in *@watch, else -1), then, once the
 * caller has its answer, that it is idle again. */
enum exec_heard_worker exec_worker_read(struct exec_worker *w, struct exec_result *r,
				       int *watch);

#endif

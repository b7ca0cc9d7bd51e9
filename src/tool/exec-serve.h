/* SPDX-License-Identifier: MIT */
/*
 * `prealloc exec` while the program runs (src/tool/exec-serve.c): one
 * thread that takes calls from both front ends, admits each and hands it
 * to a worker with the caller's rights (src/tool/exec-worker.c), keeps the
 * tally and the log, relays readiness, passes signals on and reaps.
 */
#ifndef PREALLOC_EXEC_SERVE_H
#define PREALLOC_EXEC_SERVE_H

#include <stdbool.h>
#include <sys/types.h>

#include "exec-convert.h"
#include "exec-notify.h"
#include "exec-tally.h"
#include "exec-watch.h"
#include "exec-worker.h"

struct exec_server {
	const struct exec_cfg *cfg;
	int listener;			/* the supervisor's, or -1 */
	int sock;			/* the interposer's, or -1 */
	int sfd;			/* signalfd (non-blocking): SIGCHLD, those passed on */
	int log_fd;			/* --log, or -1 */
	const struct exec_notify *notify;
	pid_t program;
	/* What serving found. */
	int status;			/* the program's wait status */
	struct exec_tally tally;
	struct exec_watch watch;	/* the ranges converted, watched */
	/* The workers, connections not read yet. */
	struct exec_worker *workers;
	size_t nworkers;
	int *conns;
	size_t nconns;
};

/*
 * Serve until the program has ended, its processes no longer use the
 * supervisor, and every call taken has ended and been counted; then end
 * the workers and reap them, and take a last look at the files converted.
 * A worker killed before it reported its call has the call answered here
 * (made as the program made it).  A call whose file is of a pattern
 * learnt speculative passes (not in a dry run, which measures them all).
 */
void exec_serve(struct exec_server *s);

#endif

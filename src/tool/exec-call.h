/* SPDX-License-Identifier: MIT */
/*
 * One fallocate() of the program as `prealloc exec` holds it, whichever
 * front end took it (src/tool/exec-call.c): the interposer's connection
 * (src/tool/exec-listen.c) or the supervisor's notification
 * (src/tool/exec-supervise.c).  Who made it is what the kernel says
 * (SO_PEERCRED, the notification's thread), never what the caller says.
 */
#ifndef PREALLOC_EXEC_CALL_H
#define PREALLOC_EXEC_CALL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum exec_front {
	EXEC_FRONT_PRELOAD,	/* the interposer */
	EXEC_FRONT_SECCOMP,	/* the supervisor */
};

struct exec_call {
	enum exec_front front;
	pid_t pid, tid;		/* the calling process and thread */
	int prog_fd;		/* the program's number for the descriptor */
	int mode;
	uint64_t off, len;
	int fd;			/* the calling thread's own description, or -1 */
	int conn;		/* the interposer's connection, or -1 */
	int listener;		/* the supervisor's listener, or -1 */
	uint64_t id;		/* the supervisor's notification */
};

/* /proc/PID/task/TID/fd/N: the calling thread's descriptor of @c, in @buf. */
void exec_call_link(const struct exec_call *c, char *buf, size_t len);

/* The path of @c's file (its description's, else what the thread's
 * descriptor names), or "", in @buf. */
void exec_call_path(const struct exec_call *c, char *buf, size_t len);

/* Is the thread that made @c still waiting for its answer? */
bool exec_call_waiting(const struct exec_call *c);

/* Answer @c: @done, the range is written (the call returns 0); else the
 * call is made as the program made it. */
void exec_call_answer(const struct exec_call *c, bool done);

#endif

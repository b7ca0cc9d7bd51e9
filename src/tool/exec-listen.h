/* SPDX-License-Identifier: MIT */
/*
 * `prealloc exec`'s side of the interposer's socket (src/tool/exec-listen.c,
 * the protocol: src/tool/exec-proto.h).
 */
#ifndef PREALLOC_EXEC_LISTEN_H
#define PREALLOC_EXEC_LISTEN_H

#include <stddef.h>

#include "exec-call.h"

/* A listening socket at an abstract address the kernel chooses; its name,
 * as EXEC_ENV_SOCKET gives it, in @name.  The descriptor, or -errno. */
int exec_listen_open(char *name, size_t len);

/* The connection waiting on @sock, if a process of the program's (a
 * descendant of this one) made it: non-blocking, close-on-exec; else -1. */
int exec_listen_accept(int sock);

enum exec_heard {
	EXEC_HEARD_NOTHING,	/* nothing yet: ask again when readable */
	EXEC_HEARD_HELLO,	/* a process loaded the interposer: answered */
	EXEC_HEARD_CALL,	/* a call, in *@c: the connection is its */
	EXEC_HEARD_BAD,		/* closed, or not a message: close it */
};

/* What came on @conn: a HELLO is answered with @min, a CALL filled into
 * @c (its descriptor attached, and the caller's pid from the kernel). */
enum exec_heard exec_listen_read(int conn, uint64_t min, struct exec_call *c);

/* exec_call_waiting() and exec_call_answer() for the interposer's calls. */
bool exec_listen_waiting(const struct exec_call *c);
void exec_listen_answer(const struct exec_call *c, bool done);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * `prealloc exec`: what the interposer (src/tool/exec-preload.c, in the
 * program's processes) and `prealloc exec` (src/tool/exec-listen.c) say to
 * each other, over SOCK_SEQPACKET connections to the abstract address
 * EXEC_ENV_SOCKET names.  It is the only thing of `prealloc exec` in a
 * program's environment, and only where the interposer is loaded.
 *
 * One connection per question.  A process that has loaded the interposer
 * says HELLO and is told what to ask about (CONFIG).  A call is a
 * connection of its own, opened by the calling thread: CALL, with the
 * descriptor itself attached (SCM_RIGHTS), answered by a VERDICT once the
 * call is done.  The connection is the call's, so a conversation of more
 * messages about one call needs no other channel, and the interposer
 * closing it (its process died) tells `prealloc exec` nobody waits any
 * more.  Which process asks, `prealloc exec` learns from the kernel (the
 * credentials it attaches to each message, SO_PASSCRED), never from the
 * message, whose thread id counts only as one of that process's threads: a
 * program can at most ask about its own files, with its own rights.
 */
#ifndef PREALLOC_EXEC_PROTO_H
#define PREALLOC_EXEC_PROTO_H

#include <stdbool.h>
#include <stdint.h>

#define EXEC_ENV_SOCKET "PREALLOC_EXEC_SOCKET"	/* "@NAME": the abstract address */

enum exec_msg {
	EXEC_MSG_HELLO = 1,	/* interposer: loaded in this process */
	EXEC_MSG_CONFIG,	/* prealloc exec: .min */
	EXEC_MSG_CALL,		/* interposer: one call, its descriptor attached */
	EXEC_MSG_VERDICT,	/* prealloc exec: .verdict */
};

enum exec_verdict {
	EXEC_VERDICT_DONE = 1,	/* the range is written: return 0 */
	EXEC_VERDICT_PASS,	/* make the call as the program made it */
};

/* Every message; one of another size is refused. */
struct exec_message {
	uint32_t size;		/* sizeof(struct exec_message) */
	uint32_t type;		/* enum exec_msg */
	int32_t tid;		/* CALL: the calling thread */
	int32_t fd;		/* CALL: the program's number for the descriptor */
	int32_t mode;		/* CALL: fallocate()'s mode */
	uint32_t verdict;	/* VERDICT: enum exec_verdict */
	uint64_t offset, len;	/* CALL */
	uint64_t min;		/* CONFIG: smaller calls are not asked about */
};

/* The calls `prealloc exec` converts, as both front ends screen them
 * before asking (the seccomp filter encodes the same test): mode 0, at
 * least @min bytes.  A bad range is asked about too: the answer is the
 * kernel's own error. */
static inline bool exec_wanted(int mode, uint64_t len, uint64_t min)
{
	return mode == 0 && len >= min;
}

#endif

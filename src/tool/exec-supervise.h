/* SPDX-License-Identifier: MIT */
/* The supervisor of `prealloc exec` (src/tool/exec-supervise.c). */
#ifndef PREALLOC_EXEC_SUPERVISE_H
#define PREALLOC_EXEC_SUPERVISE_H

#include "exec-convert.h"

/*
 * In the program's process, before exec: from now on every fallocate() of
 * mode 0 and at least @min bytes, by this process and all it starts, waits
 * for the supervisor.  Sets no_new_privs (an unprivileged filter needs it:
 * a set-user-ID program then runs with the caller's rights).  The
 * listener's descriptor, or -errno.
 */
int exec_filter_install(uint64_t min);

/*
 * Serve the listener @listener for as long as any process of the program
 * uses it: each call in a thread of its own, on the program's descriptor
 * (pidfd_getfd()), then answered: 0 when converted, else the kernel makes
 * the real call.  @poll_fd (or -1) is polled too: @on_ready() is called
 * when it is readable, and serving stops when it returns non-zero.
 */
void exec_supervise(int listener, const struct exec_cfg *cfg, int poll_fd,
		    int (*on_ready)(void *data), void *data);

#endif

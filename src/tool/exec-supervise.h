/* SPDX-License-Identifier: MIT */
/* The supervisor of `prealloc exec`: seccomp user notification (src/tool/exec-supervise.c). */
#ifndef PREALLOC_EXEC_SUPERVISE_H
#define PREALLOC_EXEC_SUPERVISE_H

#include <stdint.h>

#include "exec-call.h"

/*
 * In the program's process, before exec: from now on every fallocate() of
 * mode 0 and at least @min bytes, by this process and all it starts, waits
 * for the supervisor.  Sets no_new_privs (an unprivileged filter needs it:
 * a set-user-ID program then runs with the caller's rights).  The
 * listener's descriptor, or -errno.
 */
int exec_filter_install(uint64_t min);

/*
 * The call waiting on @listener, in *@c, with the calling thread's own
 * description where the kernel lends it (else c->fd is -1: the converting
 * process opens the file through /proc with the caller's rights).  1 for a
 * call, 0 for none (its caller was interrupted), -errno when the listener
 * is done with.
 */
int exec_seccomp_take(int listener, struct exec_call *c);

/* exec_call_waiting() and exec_call_answer() for the supervisor's calls. */
bool exec_seccomp_waiting(const struct exec_call *c);
void exec_seccomp_answer(const struct exec_call *c, bool done);

#endif

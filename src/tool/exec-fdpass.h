/* SPDX-License-Identifier: MIT */
/*
 * One message with descriptors attached (SCM_RIGHTS), over a unix socket
 * (src/tool/exec-fdpass.c): how a call's descriptor reaches `prealloc exec`
 * from the interposer, a call reaches the process that converts it, and
 * the supervisor's listener leaves the program's process.  Built into the
 * tool and the interposer.
 */
#ifndef PREALLOC_EXEC_FDPASS_H
#define PREALLOC_EXEC_FDPASS_H

#include <stddef.h>
#include <sys/socket.h>
#include <sys/types.h>

#define EXEC_FDS_MAX 2

/* @len bytes of @buf on @sock, with the descriptors of @fds that are not
 * -1 attached (@n at most EXEC_FDS_MAX).  The bytes sent, or -1 with
 * errno. */
ssize_t exec_send_fds(int sock, const void *buf, size_t len, const int *fds, size_t n);

/* One message of at most @len bytes into @buf, and the descriptors it
 * carries (close-on-exec) in @fds, in the order sent, the rest of the @n
 * set to -1; with @cred, its sender's credentials as the kernel attached
 * them (SO_PASSCRED: the process that sent it, when it sent it; pid 0
 * without).  A message cut short, or one that carried more than @n
 * descriptors (the kernel closed the rest), reads as 0 bytes, and what it
 * carried is closed.  The bytes read, or -1 with errno. */
ssize_t exec_recv_fds(int sock, void *buf, size_t len, int *fds, size_t n, struct ucred *cred,
		      int flags);

#endif

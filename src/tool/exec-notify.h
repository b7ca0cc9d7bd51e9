/* SPDX-License-Identifier: MIT */
/*
 * Readiness notification through `prealloc exec` (src/tool/exec-notify.c):
 * the service manager takes sd_notify() messages from its main process
 * only (systemd's NotifyAccess=main), and that is `prealloc exec`, so the
 * program's messages are relayed, sent again from here.
 */
#ifndef PREALLOC_EXEC_NOTIFY_H
#define PREALLOC_EXEC_NOTIFY_H

#include <stddef.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>

struct exec_notify {
	int sock;			/* ours, or -1: nothing to relay */
	int to_sock;			/* sends to the manager's */
	struct sockaddr_un to;		/* the manager's, from NOTIFY_SOCKET */
	socklen_t to_len;
	char name[64];			/* ours, as NOTIFY_SOCKET gives it */
};

/* A socket of ours in front of the one NOTIFY_SOCKET names, when it names
 * a path or an abstract address.  0, or -errno (n->sock is then -1). */
int exec_notify_open(struct exec_notify *n);

/* Relay the message waiting on n->sock, with the descriptors it carries,
 * when process @from sent it (the program's first process, as systemd
 * takes only the main one's), without what only the unit's main process
 * may say (MAINPID*, NOTIFYACCESS=): the manager would take it from us. */
void exec_notify_relay(const struct exec_notify *n, pid_t from);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The rights a call of the program is made with (src/tool/exec-creds.c):
 * its thread's user and group ids, supplementary groups and capabilities,
 * and its process's file size limit.  The process that converts a call
 * takes them on, so the kernel judges every step of the conversion as it
 * would have judged the call: which files open for writing, quotas, ext4's
 * reserved blocks (CAP_SYS_RESOURCE), RLIMIT_FSIZE.
 */
#ifndef PREALLOC_EXEC_CREDS_H
#define PREALLOC_EXEC_CREDS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#define EXEC_GROUPS_MAX 1024

struct exec_creds {
	uid_t uid[4];			/* real, effective, saved, filesystem */
	gid_t gid[4];
	gid_t groups[EXEC_GROUPS_MAX];
	int ngroups;
	uint64_t cap_eff, cap_prm;
	struct rlimit fsize;		/* RLIMIT_FSIZE of its process */
};

/* Those of thread @tid of process @pid, its capabilities none when it is
 * in another user namespace.  0 or -errno. */
int exec_creds_read(pid_t pid, pid_t tid, struct exec_creds *c);

/* Are @a and @b the same rights? */
bool exec_creds_equal(const struct exec_creds *a, const struct exec_creds *b);

/* Become @c, in a process of one thread: from then on this process can do
 * what the thread could, no more.  0, or -errno when some of it cannot be
 * had (an unprivileged `prealloc exec` and a program of other rights). */
int exec_creds_take(const struct exec_creds *c);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * A memory cgroup of its own for a test's child process, as a container
 * runs in: cgroup v2 (/sys/fs/cgroup with the memory controller given to
 * its children), else the v1 memory hierarchy (/sys/fs/cgroup/memory,
 * below this process's own group).
 */
#ifndef PREALLOC_TCGROUP_H
#define PREALLOC_TCGROUP_H

#include <stdint.h>
#include <sys/types.h>

struct tcg {
	char path[256];		/* the group's directory, "" when none */
};

/* A new group limited to @max bytes of memory, named after this process
 * and @tag.  0, -ENOENT (no memory controller to be had: the test skips),
 * or -errno. */
int tcg_create(struct tcg *g, const char *tag, uint64_t max);

/* Move process @pid into the group.  0 or -errno. */
int tcg_enter(const struct tcg *g, pid_t pid);

/* Remove the group once its processes have exited.  Safe on a zeroed
 * struct.  0 or -errno. */
int tcg_destroy(struct tcg *g);

#endif

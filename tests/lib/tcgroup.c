/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tcgroup.h"

#define V2 "/sys/fs/cgroup"
#define V1 "/sys/fs/cgroup/memory"

static int put(const char *dir, const char *file, const char *val)
{
	char p[320];
	int fd, ret = 0;

	snprintf(p, sizeof(p), "%s/%s", dir, file);
	fd = open(p, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) != (ssize_t)strlen(val))
		ret = -errno;
	close(fd);
	return ret;
}

static int has_word(const char *path, const char *word)
{
	char buf[512] = "";
	FILE *f = fopen(path, "re");

	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	for (char *s = strtok(buf, " \n"); s; s = strtok(NULL, " \n"))
		if (!strcmp(s, word))
			return 1;
	return 0;
}

/* The v2 root, with memory given to its children (enabled if need be). */
static int v2_parent(char *dir, size_t len)
{
	if (!has_word(V2 "/cgroup.controllers", "memory"))
		return -ENOENT;
	if (!has_word(V2 "/cgroup.subtree_control", "memory") &&
	    put(V2, "cgroup.subtree_control", "+memory"))
		return -ENOENT;
	snprintf(dir, len, "%s", V2);
	return 0;
}

/* This process's own v1 memory group. */
static int v1_parent(char *dir, size_t len)
{
	char line[512];
	FILE *f = fopen("/proc/self/cgroup", "re");
	int ret = -ENOENT;

	if (!f)
		return -ENOENT;
	while (ret && fgets(line, sizeof(line), f)) {
		char *c = strchr(line, ':'), *p = c ? strchr(c + 1, ':') : NULL;

		if (!p || strncmp(c + 1, "memory:", 7))
			continue;
		p[strcspn(p, "\n")] = 0;
		snprintf(dir, len, "%s%s", V1, strcmp(p + 1, "/") ? p + 1 : "");
		ret = access(dir, W_OK) == 0 ? 0 : -ENOENT;
	}
	fclose(f);
	return ret;
}

int tcg_create(struct tcg *g, const char *tag, uint64_t max)
{
	char parent[200], val[32];
	bool v2 = v2_parent(parent, sizeof(parent)) == 0;
	int ret;

	g->path[0] = 0;
	if (!v2 && v1_parent(parent, sizeof(parent)))
		return -ENOENT;
	snprintf(g->path, sizeof(g->path), "%s/prealloc-%s-%d", parent, tag, (int)getpid());
	if (mkdir(g->path, 0755) < 0) {
		int err = errno;

		g->path[0] = 0;
		/* A read-only cgroupfs (a container's) has none to give. */
		return err == EROFS || err == EACCES || err == EPERM ? -ENOENT : -err;
	}
	snprintf(val, sizeof(val), "%llu", (unsigned long long)max);
	ret = put(g->path, v2 ? "memory.max" : "memory.limit_in_bytes", val);
	if (!ret && v2)	/* no swap either: the limit is the page cache's */
		put(g->path, "memory.swap.max", "0");
	if (ret)
		tcg_destroy(g);
	return ret;
}

int tcg_enter(const struct tcg *g, pid_t pid)
{
	char val[16];

	snprintf(val, sizeof(val), "%d", (int)pid);
	return put(g->path, "cgroup.procs", val);
}

int tcg_destroy(struct tcg *g)
{
	int ret = 0;

	if (g->path[0] && rmdir(g->path) < 0)
		ret = -errno;
	g->path[0] = 0;
	return ret;
}

/* SPDX-License-Identifier: MIT */
/* The rights a call is made with (src/tool/exec-creds.h). */
#include <errno.h>
#include <grp.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/fsuid.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "exec-creds.h"

/* One line of /proc/PID/task/TID/status into @c; false when it says
 * more than @c can hold. */
static bool status_line(char *line, struct exec_creds *c, unsigned int *seen)
{
	char *p, *end;

	if (sscanf(line, "Uid: %u %u %u %u", &c->uid[0], &c->uid[1], &c->uid[2], &c->uid[3]) == 4)
		*seen |= 1;
	else if (sscanf(line, "Gid: %u %u %u %u", &c->gid[0], &c->gid[1], &c->gid[2],
			&c->gid[3]) == 4)
		*seen |= 2;
	else if (sscanf(line, "CapEff: %" SCNx64, &c->cap_eff) == 1)
		*seen |= 4;
	else if (sscanf(line, "CapPrm: %" SCNx64, &c->cap_prm) == 1)
		*seen |= 8;
	else if (!strncmp(line, "Groups:", 7)) {
		*seen |= 16;
		for (p = line + 7;; p = end) {
			unsigned long g = strtoul(p, &end, 10);

			if (end == p)
				break;
			if (c->ngroups == EXEC_GROUPS_MAX)
				return false;
			c->groups[c->ngroups++] = (gid_t)g;
		}
	}
	return true;
}

/* One limit of /proc/PID/limits: a number, or "unlimited". */
static bool limit_value(const char *s, rlim_t *v)
{
	char *end;

	if (!strncmp(s, "unlimited", 9)) {
		*v = RLIM_INFINITY;
		return true;
	}
	*v = (rlim_t)strtoull(s, &end, 10);
	return end != s;
}

/* RLIMIT_FSIZE of process @pid, from the file anyone may read (prlimit()
 * needs CAP_SYS_RESOURCE or the same user). */
static int read_fsize(pid_t pid, struct rlimit *r)
{
	char path[40], line[256], hard[32];
	int ret = -EPROTO;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/limits", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (ret && fgets(line, sizeof(line), f)) {
		char soft[32];

		if (!strncmp(line, "Max file size ", 14) &&
		    sscanf(line + 14, "%31s %31s", soft, hard) == 2 &&
		    limit_value(soft, &r->rlim_cur) && limit_value(hard, &r->rlim_max))
			ret = 0;
	}
	fclose(f);
	return ret;
}

/* Is thread @tid of @pid in this process's user namespace?  False when it
 * cannot be told. */
static bool same_user_ns(pid_t pid, pid_t tid)
{
	struct stat here, there;
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/task/%d/ns/user", (int)pid, (int)tid);
	return stat("/proc/self/ns/user", &here) == 0 && stat(path, &there) == 0 &&
	       here.st_dev == there.st_dev && here.st_ino == there.st_ino;
}

int exec_creds_read(pid_t pid, pid_t tid, struct exec_creds *c)
{
	char path[64], *line = NULL;
	unsigned int seen = 0;
	bool fits = true;
	size_t n = 0;
	FILE *f;

	*c = (struct exec_creds){ 0 };
	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int)pid, (int)tid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fits && getline(&line, &n, f) > 0)
		fits = status_line(line, c, &seen);
	free(line);
	fclose(f);
	if (!fits)
		return -E2BIG;
	if (seen != 31)
		return -EPROTO;
	/* Capabilities count in their own user namespace only: those of a
	 * thread in another (root there) are nothing here.  Its ids are
	 * shown as they are here. */
	if (!same_user_ns(pid, tid))
		c->cap_eff = c->cap_prm = 0;
	return read_fsize(pid, &c->fsize);
}

bool exec_creds_equal(const struct exec_creds *a, const struct exec_creds *b)
{
	return !memcmp(a->uid, b->uid, sizeof(a->uid)) && !memcmp(a->gid, b->gid, sizeof(a->gid)) &&
	       a->ngroups == b->ngroups &&
	       !memcmp(a->groups, b->groups, (size_t)a->ngroups * sizeof(a->groups[0])) &&
	       a->cap_eff == b->cap_eff && a->cap_prm == b->cap_prm &&
	       a->fsize.rlim_cur == b->fsize.rlim_cur && a->fsize.rlim_max == b->fsize.rlim_max;
}

static int set_caps(uint64_t eff, uint64_t prm)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2] = {
		{ .effective = (uint32_t)eff, .permitted = (uint32_t)prm },
		{ .effective = (uint32_t)(eff >> 32), .permitted = (uint32_t)(prm >> 32) },
	};

	return syscall(SYS_capset, &h, d) < 0 ? -errno : 0;
}

static uint64_t own_permitted(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2] = { 0 };

	if (syscall(SYS_capget, &h, d) < 0)
		return 0;
	return d[0].permitted | (uint64_t)d[1].permitted << 32;
}

static bool same_groups(const struct exec_creds *c)
{
	gid_t g[EXEC_GROUPS_MAX];
	int n = getgroups(EXEC_GROUPS_MAX, g);

	return n == c->ngroups && !memcmp(g, c->groups, (size_t)n * sizeof(g[0]));
}

/* The soft limit is what the kernel applies; a hard one below it cannot be. */
static int set_fsize(const struct rlimit *want)
{
	struct rlimit r;

	if (getrlimit(RLIMIT_FSIZE, &r) < 0)
		return -errno;
	r.rlim_cur = want->rlim_cur;
	if (r.rlim_max < r.rlim_cur)
		r.rlim_max = r.rlim_cur;
	return setrlimit(RLIMIT_FSIZE, &r) < 0 ? -errno : 0;
}

/*
 * The ids first, keeping the permitted capabilities across the change of
 * user (PR_SET_KEEPCAPS); with them effective again, the filesystem ids
 * (setresuid() set them to the effective ones) and the limit; last the
 * thread's own capabilities, which may be none.
 */
int exec_creds_take(const struct exec_creds *c)
{
	int ret;

	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0 ||
	    (!same_groups(c) && setgroups((size_t)c->ngroups, c->groups) < 0) ||
	    setresgid(c->gid[0], c->gid[1], c->gid[2]) < 0 ||
	    setresuid(c->uid[0], c->uid[1], c->uid[2]) < 0)
		return -errno;
	ret = set_caps(own_permitted(), own_permitted());
	if (ret)
		return ret;
	setfsgid(c->gid[3]);
	setfsuid(c->uid[3]);
	/* Each answers the id it had: asked twice, it says whether it moved. */
	if ((gid_t)setfsgid(c->gid[3]) != c->gid[3] || (uid_t)setfsuid(c->uid[3]) != c->uid[3])
		return -EPERM;
	ret = set_fsize(&c->fsize);
	return ret ? ret : set_caps(c->cap_eff, c->cap_prm);
}

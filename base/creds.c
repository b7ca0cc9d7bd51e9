/* SPDX-License-Identifier: MIT */
/*
 * Credentials, per thread.  The kernel keeps them per thread, and a
 * program may change one thread's alone (a file server's setfsuid(), a
 * capset() of one thread); the C library's setuid() family changes every
 * thread's.  Only the system calls themselves act on one thread: glibc's
 * setgroups() would change every thread's, so it is called raw.
 */
#include <errno.h>
#include <linux/capability.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/creds.h"

static int caps(struct __user_cap_data_struct d[2])
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };

	/* The kernel fills both words; valgrind believes it fills one. */
	memset(d, 0, 2 * sizeof(*d));

	return syscall(SYS_capget, &h, d) < 0 ? -errno : 0;
}

static uint64_t word(uint32_t lo, uint32_t hi)
{
	return lo | (uint64_t)hi << 32;
}

int pa_creds_read(struct pa_creds *c)
{
	struct __user_cap_data_struct d[2];
	int ret = caps(d);

	if (ret)
		return ret;
	/* An invalid id changes nothing and returns the current one. */
	c->fsuid = (uint32_t)setfsuid((uid_t)-1);
	c->fsgid = (uint32_t)setfsgid((gid_t)-1);
	c->cap_eff = word(d[0].effective, d[1].effective);
	c->cap_prm = word(d[0].permitted, d[1].permitted);
	c->cap_inh = word(d[0].inheritable, d[1].inheritable);
	c->ngroups = getgroups(PA_CREDS_GROUPS, c->groups);
	if (c->ngroups < 0 && errno != EINVAL)
		return -errno;
	return 0;
}

/* What permission checks look at: the same? */
static bool same(const struct pa_creds *a, const struct pa_creds *b)
{
	return a->fsuid == b->fsuid && a->fsgid == b->fsgid && a->cap_eff == b->cap_eff &&
	       a->ngroups == b->ngroups && a->ngroups >= 0 &&
	       !memcmp(a->groups, b->groups, (size_t)a->ngroups * sizeof(a->groups[0]));
}

static int set_caps(uint64_t eff, uint64_t prm, uint64_t inh)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2] = {
		{ (uint32_t)eff, (uint32_t)prm, (uint32_t)inh },
		{ (uint32_t)(eff >> 32), (uint32_t)(prm >> 32), (uint32_t)(inh >> 32) },
	};

	return syscall(SYS_capset, &h, d) < 0 ? -errno : 0;
}

void pa_creds_restore(const struct pa_creds *saved)
{
	/* Capabilities first: the ids need them back. */
	(void)set_caps(saved->cap_eff, saved->cap_prm, saved->cap_inh);
	setfsuid(saved->fsuid);
	setfsgid(saved->fsgid);
	if (saved->ngroups >= 0)
		(void)syscall(SYS_setgroups, saved->ngroups, saved->groups);
}

int pa_creds_take(const struct pa_creds *want, struct pa_creds *saved)
{
	struct pa_creds now;

	if (pa_creds_read(saved))
		return -EPERM;
	if (same(want, saved))
		return 0;
	if (want->ngroups < 0)
		return -EPERM;
	/* Groups and ids while the capabilities still allow them, then the
	 * capabilities, within what this thread may have. */
	if (syscall(SYS_setgroups, want->ngroups, want->groups) == 0) {
		setfsgid(want->fsgid);
		setfsuid(want->fsuid);
		(void)set_caps(want->cap_eff, saved->cap_prm, saved->cap_inh);
	}
	if (pa_creds_read(&now) == 0 && same(&now, want))
		return 1;
	pa_creds_restore(saved);
	return -EPERM;
}

bool pa_creds_may_use_reserved(void)
{
	struct __user_cap_data_struct d[2];

	return setfsuid((uid_t)-1) == 0 ||
	       (caps(d) == 0 && (word(d[0].effective, d[1].effective) &
				 (1ull << CAP_SYS_RESOURCE)));
}

/* SPDX-License-Identifier: MIT */
/*
 * The capabilities record and its cache.  One immutable, refcounted record
 * per (sysfs root, device number).  The cache is dropped when the sysfs root
 * changes or the mount table changes (a remount or a new loop device behind a
 * mount point may change what lies under a device number).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "caps.h"
#include "chain.h"

struct entry {
	struct pa_caps caps;		/* first: what callers see */
	unsigned int refs;
	struct entry *next;
	struct pa_device devs[];
};

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct entry *cache;
static char *cache_root;		/* the root the cached records came from */
static int mountinfo_fd = -1;

static struct entry *entry_of(const struct pa_caps *c)
{
	return (struct entry *)((const char *)c - offsetof(struct entry, caps));
}

/* A queue limit that the kernel keeps in 32 bits; 0 when absent. */
static uint32_t q32(uint64_t v)
{
	return v == PA_Q_ABSENT || v > UINT32_MAX ? 0 : (uint32_t)v;
}

static void fill_summary(struct pa_caps *c, const struct pa_device *top)
{
	const uint64_t *q = top->queue;

	c->logical_block_size = q[PA_Q_LOGICAL_BLOCK_SIZE] != PA_Q_ABSENT ?
		(uint32_t)q[PA_Q_LOGICAL_BLOCK_SIZE] : 512;
	c->physical_block_size = q[PA_Q_PHYSICAL_BLOCK_SIZE] != PA_Q_ABSENT ?
		(uint32_t)q[PA_Q_PHYSICAL_BLOCK_SIZE] : c->logical_block_size;
	c->write_zeroes_max_bytes = q[PA_Q_WRITE_ZEROES_MAX_BYTES] != PA_Q_ABSENT ?
		q[PA_Q_WRITE_ZEROES_MAX_BYTES] : 0;
	c->size_bytes = top->size_sectors * 512;
	c->rotational = q[PA_Q_ROTATIONAL] == 1;
	c->atomic_write_unit_min = q32(q[PA_Q_ATOMIC_WRITE_UNIT_MIN_BYTES]);
	c->atomic_write_unit_max = q32(q[PA_Q_ATOMIC_WRITE_UNIT_MAX_BYTES]);
	c->atomic_write_max_bytes = q32(q[PA_Q_ATOMIC_WRITE_MAX_BYTES]);
	c->atomic_write_boundary = q32(q[PA_Q_ATOMIC_WRITE_BOUNDARY_BYTES]);
}

/* Probe @dev under @root into a new record with one reference. */
static int build(const char *root, dev_t dev, struct entry **ret)
{
	struct pa_device devs[PA_CHAIN_MAX];
	struct entry *e;
	int n;

	n = pa_chain_walk(root, dev, devs, PA_CHAIN_MAX);
	if (n < 0)
		return n;
	pa_chain_probe_transports(root, !strcmp(root, "/sys"), devs, (size_t)n);
	e = calloc(1, sizeof(*e) + (size_t)n * sizeof(devs[0]));
	if (!e)
		return -ENOMEM;
	memcpy(e->devs, devs, (size_t)n * sizeof(devs[0]));
	e->refs = 1;
	e->caps.dev = dev;
	e->caps.ndevices = (size_t)n;
	e->caps.devices = e->devs;
	e->caps.write_zeroes_unmap = pa_chain_verdict(devs, (size_t)n, &e->caps.kernel_write_zeroes,
						      e->caps.evidence, sizeof(e->caps.evidence));
	fill_summary(&e->caps, &devs[0]);
	*ret = e;
	return 0;
}

static void entry_get(struct entry *e)
{
	__atomic_add_fetch(&e->refs, 1, __ATOMIC_RELAXED);
}

void pa_caps_put(const struct pa_caps *caps)
{
	struct entry *e;

	if (!caps)
		return;
	e = entry_of(caps);
	if (__atomic_sub_fetch(&e->refs, 1, __ATOMIC_ACQ_REL) == 0)
		free(e);
}

/* Drop cached records for @dev (all when 0).  Caller holds cache_lock. */
static void drop_locked(dev_t dev)
{
	struct entry **pp = &cache;

	while (*pp) {
		struct entry *e = *pp;

		if (dev == 0 || e->caps.dev == dev) {
			*pp = e->next;
			pa_caps_put(&e->caps);
		} else {
			pp = &e->next;
		}
	}
}

/*
 * Has the mount table changed since the last look?  /proc/self/mountinfo
 * reports POLLPRI|POLLERR once per change (fs/proc_namespace.c mounts_poll).
 * Without the file we cannot tell, so assume it did.  Caller holds cache_lock.
 */
static bool mounts_changed_locked(void)
{
	struct pollfd p = { .events = POLLPRI };

	if (mountinfo_fd < 0) {
		mountinfo_fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
		return true;
	}
	p.fd = mountinfo_fd;
	if (poll(&p, 1, 0) < 0)
		return true;
	return p.revents & (POLLPRI | POLLERR);
}

/* Make the cache match @root and the current mounts.  Caller holds cache_lock. */
static void revalidate_locked(const char *root)
{
	bool stale = mounts_changed_locked();

	if (!cache_root || strcmp(cache_root, root)) {
		free(cache_root);
		cache_root = strdup(root);
		stale = true;
	}
	if (stale)
		drop_locked(0);
}

static struct entry *lookup_locked(dev_t dev)
{
	for (struct entry *e = cache; e; e = e->next) {
		if (e->caps.dev == dev) {
			entry_get(e);
			return e;
		}
	}
	return NULL;
}

int pa_caps_get(dev_t dev, const struct pa_caps **ret)
{
	const char *root = pa_sysfs_root();
	struct entry *e, *found;
	int r;

	if (!ret)
		return -EINVAL;
	pthread_mutex_lock(&cache_lock);
	revalidate_locked(root);
	e = lookup_locked(dev);
	pthread_mutex_unlock(&cache_lock);
	if (e) {
		*ret = &e->caps;
		return 0;
	}

	/* Probe unlocked: device commands may take a while. */
	r = build(root, dev, &e);
	if (r < 0)
		return r;

	pthread_mutex_lock(&cache_lock);
	found = lookup_locked(dev);
	if (!found && cache_root && !strcmp(cache_root, root)) {
		entry_get(e);		/* the cache's reference */
		e->next = cache;
		cache = e;
	}
	pthread_mutex_unlock(&cache_lock);
	if (found) {
		pa_caps_put(&e->caps);
		e = found;
	}
	*ret = &e->caps;
	return 0;
}

void pa_caps_invalidate(dev_t dev)
{
	pthread_mutex_lock(&cache_lock);
	drop_locked(dev);
	pthread_mutex_unlock(&cache_lock);
}

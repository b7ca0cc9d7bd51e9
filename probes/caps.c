/* SPDX-License-Identifier: MIT */
/*
 * The capabilities record and its cache.  One immutable, refcounted record
 * per (sysfs root, device number).  The cache is dropped when the sysfs root
 * changes or the mount table changes (a remount or a new loop device behind a
 * mount point may change what lies under a device number).  Each context
 * (src/call/context.c) owns one cache.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "probes/caps.h"
#include "base/own_files.h"
#include "probes/chain.h"

struct pa_caps_entry {
	struct pa_caps caps;		/* first: what callers see */
	unsigned int refs;
	struct pa_caps_entry *next;
	struct pa_device devs[];
};

static struct pa_caps_entry *entry_of(const struct pa_caps *c)
{
	return (struct pa_caps_entry *)((const char *)c - offsetof(struct pa_caps_entry, caps));
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
}

/* Probe @dev under @root into a new record with one reference. */
static int build(const char *root, dev_t dev, struct pa_caps_entry **ret)
{
	struct pa_device devs[PA_CHAIN_MAX];
	struct pa_caps_entry *e;
	int n;

	n = pa_chain_walk(root, dev, devs, PA_CHAIN_MAX);
	if (n < 0)
		return n;
	pa_chain_probe_transports(root, pa_sysfs_root_is_machine(root), devs, (size_t)n);
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

static void entry_get(struct pa_caps_entry *e)
{
	__atomic_add_fetch(&e->refs, 1, __ATOMIC_RELAXED);
}

void pa_caps_put(const struct pa_caps *caps)
{
	struct pa_caps_entry *e;

	if (!caps)
		return;
	e = entry_of(caps);
	if (__atomic_sub_fetch(&e->refs, 1, __ATOMIC_ACQ_REL) == 0)
		free(e);
}

/* Drop cached records for @dev (all when 0).  Caller holds the lock. */
static void drop_locked(struct pa_caps_cache *cc, dev_t dev)
{
	struct pa_caps_entry **pp = &cc->head;

	while (*pp) {
		struct pa_caps_entry *e = *pp;

		if (dev == 0 || e->caps.dev == dev) {
			*pp = e->next;
			pa_caps_put(&e->caps);
		} else {
			pp = &e->next;
		}
	}
}

/*
 * Is cc->mountinfo_fd still the descriptor we opened, in this process?  A
 * process may close every descriptor (closefrom() after fork) and open
 * something else on the same number: then it is not ours and must be neither
 * polled (polling a mountinfo file consumes its change event) nor closed.
 * After fork an intact inherited descriptor still watches the parent's
 * /proc/PID/mountinfo: close it and open our own.
 */
static void check_watch_locked(struct pa_caps_cache *cc)
{
	struct stat st;

	if (cc->mountinfo_fd < 0)
		return;
	if (fstat(cc->mountinfo_fd, &st) < 0 || st.st_dev != cc->mi_dev ||
	    st.st_ino != cc->mi_ino) {
		cc->mountinfo_fd = -1;		/* not ours any more: forget the number */
		return;
	}
	if (cc->mi_pid != getpid()) {
		close(cc->mountinfo_fd);
		cc->mountinfo_fd = -1;
	}
}

static void open_watch_locked(struct pa_caps_cache *cc)
{
	struct stat st;
	int fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return;
	}
	cc->mountinfo_fd = fd;
	cc->mi_dev = st.st_dev;
	cc->mi_ino = st.st_ino;
	cc->mi_pid = getpid();
}

struct watch {
	struct pa_caps_cache *cc;
	bool changed;
};

static void look_at_watch(void *arg)
{
	struct watch *w = arg;
	struct pollfd p = { .events = POLLPRI };

	check_watch_locked(w->cc);
	if (w->cc->mountinfo_fd < 0) {
		open_watch_locked(w->cc);
		w->changed = true;
		return;
	}
	p.fd = w->cc->mountinfo_fd;
	w->changed = poll(&p, 1, 0) < 0 || (p.revents & (POLLPRI | POLLERR));
}

/*
 * Has the mount table changed since the last look?  /proc/self/mountinfo
 * reports POLLPRI|POLLERR once per change (fs/proc_namespace.c mounts_poll).
 * Without the file (no /proc) we cannot tell, so assume it did: nothing is
 * cached then, nothing fails.  The watch outlives calls: it lives in the
 * application's file table, looked at from its thread (where a call looks,
 * before its work goes to the library's table; a callout from there).
 * Caller holds the lock.
 */
static bool mounts_changed_locked(struct pa_caps_cache *cc)
{
	struct watch w = { .cc = cc };

	pa_callout(look_at_watch, &w);
	return w.changed;
}

/* Make the cache match @root and the current mounts.  Caller holds the lock. */
static void revalidate_locked(struct pa_caps_cache *cc, const char *root)
{
	bool stale = mounts_changed_locked(cc);

	if (!cc->cached_root || strcmp(cc->cached_root, root)) {
		free(cc->cached_root);
		cc->cached_root = strdup(root);
		stale = true;
	}
	if (stale)
		drop_locked(cc, 0);
}

static struct pa_caps_entry *lookup_locked(struct pa_caps_cache *cc, dev_t dev)
{
	for (struct pa_caps_entry *e = cc->head; e; e = e->next) {
		if (e->caps.dev == dev) {
			entry_get(e);
			return e;
		}
	}
	return NULL;
}

void pa_caps_cache_revalidate(struct pa_caps_cache *cc)
{
	const char *root = pa_caps_cache_root(cc);

	pthread_mutex_lock(&cc->lock);
	revalidate_locked(cc, root);
	pthread_mutex_unlock(&cc->lock);
}

const char *pa_caps_cache_root(const struct pa_caps_cache *cc)
{
	return pa_sysfs_root_path(cc->root);
}

int pa_caps_cache_get(struct pa_caps_cache *cc, dev_t dev, const struct pa_caps **ret)
{
	const char *root;
	struct pa_caps_entry *e, *found;
	int r;

	if (!cc || !ret)
		return -EINVAL;
	root = pa_caps_cache_root(cc);
	pthread_mutex_lock(&cc->lock);
	e = lookup_locked(cc, dev);
	pthread_mutex_unlock(&cc->lock);
	if (e) {
		*ret = &e->caps;
		return 0;
	}

	/* Probe unlocked: device commands may take a while. */
	r = build(root, dev, &e);
	if (r < 0)
		return r;

	pthread_mutex_lock(&cc->lock);
	found = lookup_locked(cc, dev);
	if (!found && cc->cached_root && !strcmp(cc->cached_root, root)) {
		entry_get(e);		/* the cache's reference */
		e->next = cc->head;
		cc->head = e;
	}
	pthread_mutex_unlock(&cc->lock);
	if (found) {
		pa_caps_put(&e->caps);
		e = found;
	}
	*ret = &e->caps;
	return 0;
}

void pa_caps_cache_invalidate(struct pa_caps_cache *cc, dev_t dev)
{
	pthread_mutex_lock(&cc->lock);
	drop_locked(cc, dev);
	pthread_mutex_unlock(&cc->lock);
}

void pa_caps_cache_init(struct pa_caps_cache *cc, const struct pa_sysfs_root *root)
{
	*cc = (struct pa_caps_cache)PA_CAPS_CACHE_INIT(root);
}

void pa_caps_cache_flush(struct pa_caps_cache *cc)
{
	pthread_mutex_lock(&cc->lock);
	drop_locked(cc, 0);
	check_watch_locked(cc);
	if (cc->mountinfo_fd >= 0)
		close(cc->mountinfo_fd);
	cc->mountinfo_fd = -1;
	free(cc->cached_root);
	cc->cached_root = NULL;
	pthread_mutex_unlock(&cc->lock);
}

void pa_caps_cache_fini(struct pa_caps_cache *cc)
{
	pa_caps_cache_flush(cc);
	pthread_mutex_destroy(&cc->lock);
}

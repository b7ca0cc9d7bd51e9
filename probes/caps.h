/* SPDX-License-Identifier: MIT */
/*
 * The capabilities record: everything the planner may know about the storage
 * under a device number, built once by the probes and cached.  Records are
 * immutable once published; holders keep a reference.
 */
#ifndef PREALLOC_CAPS_H
#define PREALLOC_CAPS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "prealloc.h"
#include "base/sysfs_root.h"

struct pa_device;	/* one device of the chain; see probes/chain.h */

struct pa_caps {
	dev_t dev;			/* st_dev of a file, st_rdev of a block device */
	/* Can every device of the chain zero by unmapping (FALLOC_FL_WRITE_ZEROES)? */
	int write_zeroes_unmap;		/* enum prealloc_answer */
	char evidence[192];		/* which attribute or field decided it */
	bool kernel_write_zeroes;	/* queue/write_zeroes_unmap_max_hw_bytes exists (6.17+) */
	uint32_t logical_block_size;	/* of the top device; 512 if unknown */
	uint32_t physical_block_size;
	uint64_t write_zeroes_max_bytes;	/* of the top device; 0 = no Write Zeroes */
	uint64_t size_bytes;		/* of the top device (partition size for a partition) */
	bool rotational;
	size_t ndevices;		/* chain, top device first */
	const struct pa_device *devices;
};

struct pa_caps_entry;

/*
 * A cache of records, owned by a context (src/call/context.c).  It is dropped when
 * the sysfs root or the mount table changes; the mount table is watched
 * through a /proc/self/mountinfo descriptor whose identity is checked before
 * every use, so a descriptor number closed and reused behind our back (e.g.
 * closefrom() after fork) is never polled or closed.
 */
struct pa_caps_cache {
	pthread_mutex_t lock;
	struct pa_caps_entry *head;
	char *cached_root;		/* the root the cached records came from */
	const struct pa_sysfs_root *root;	/* the context's */
	int mountinfo_fd;		/* -1 when not open */
	dev_t mi_dev;			/* identity of mountinfo_fd */
	ino_t mi_ino;
	pid_t mi_pid;			/* process that opened it */
};

#define PA_CAPS_CACHE_INIT(r) { .lock = PTHREAD_MUTEX_INITIALIZER, .mountinfo_fd = -1, .root = (r) }

/* @root: the sysfs root this cache reads (the context's; outlives the cache). */
void pa_caps_cache_init(struct pa_caps_cache *cache, const struct pa_sysfs_root *root);
/* Drop every record and close the watch; the cache may be used again. */
void pa_caps_cache_flush(struct pa_caps_cache *cache);
/* Flush, then release the cache. */
void pa_caps_cache_fini(struct pa_caps_cache *cache);
/* The sysfs root this cache reads. */
const char *pa_caps_cache_root(const struct pa_caps_cache *cache);

/*
 * Drop the records of a changed mount table or sysfs root.  On the
 * application's thread: the mount table's watch is a descriptor of its
 * table.  Each call looks once, before anything is looked up.
 */
void pa_caps_cache_revalidate(struct pa_caps_cache *cache);

/*
 * Return the record for @dev (cached, as of the last
 * pa_caps_cache_revalidate()), taking a reference.  Never fails for
 * lack of privilege: what cannot be read is PREALLOC_UNKNOWN.  -ENOENT when @dev is
 * not a block device known to sysfs (tmpfs, NFS, ...): the caller plans
 * without device facts.
 */
int pa_caps_cache_get(struct pa_caps_cache *cache, dev_t dev, const struct pa_caps **ret);
void pa_caps_put(const struct pa_caps *caps);

/* Drop cached records (all when dev == 0), e.g. after a remount. */
void pa_caps_cache_invalidate(struct pa_caps_cache *cache, dev_t dev);

#endif

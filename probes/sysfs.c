/* SPDX-License-Identifier: MIT */
/*
 * The device chain from sysfs: /sys/dev/block/MAJ:MIN, partition -> disk,
 * dm/md slaves/ recursively, loop backing file down to its device; queue
 * limits per device, read through a table (like libblkid's topology/sysfs.c).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "probes/chain.h"
#include "probes/registry.h"
#include "base/sysfs_read.h"

const char *const pa_queue_attr_names[PA_Q_NR] = {
	[PA_Q_LOGICAL_BLOCK_SIZE] = "logical_block_size",
	[PA_Q_PHYSICAL_BLOCK_SIZE] = "physical_block_size",
	[PA_Q_MINIMUM_IO_SIZE] = "minimum_io_size",
	[PA_Q_OPTIMAL_IO_SIZE] = "optimal_io_size",
	[PA_Q_WRITE_ZEROES_MAX_BYTES] = "write_zeroes_max_bytes",
	[PA_Q_WRITE_ZEROES_UNMAP_MAX_HW_BYTES] = "write_zeroes_unmap_max_hw_bytes",
	[PA_Q_WRITE_ZEROES_UNMAP_MAX_BYTES] = "write_zeroes_unmap_max_bytes",
	[PA_Q_DISCARD_GRANULARITY] = "discard_granularity",
	[PA_Q_DISCARD_MAX_BYTES] = "discard_max_bytes",
	[PA_Q_DISCARD_MAX_HW_BYTES] = "discard_max_hw_bytes",
	[PA_Q_ROTATIONAL] = "rotational",
	[PA_Q_ZONED] = "zoned",
	[PA_Q_DAX] = "dax",
	[PA_Q_ATOMIC_WRITE_UNIT_MIN_BYTES] = "atomic_write_unit_min_bytes",
	[PA_Q_ATOMIC_WRITE_UNIT_MAX_BYTES] = "atomic_write_unit_max_bytes",
	[PA_Q_ATOMIC_WRITE_MAX_BYTES] = "atomic_write_max_bytes",
	[PA_Q_ATOMIC_WRITE_BOUNDARY_BYTES] = "atomic_write_boundary_bytes",
};

static const char *const zoned_names[] = { "none", "host-aware", "host-managed" };

const char *pa_zoned_name(uint64_t v)
{
	return v < 3 ? zoned_names[v] : NULL;
}

const char *pa_role_name(int role)
{
	static const char *const names[] = {
		[PA_ROLE_DISK] = "disk",
		[PA_ROLE_PARTITION] = "partition",
		[PA_ROLE_LOOP] = "loop",
		[PA_ROLE_DM] = "dm",
		[PA_ROLE_MD] = "md",
	};

	if (role < 0 || role > PA_ROLE_MD)
		return NULL;
	return names[role];
}

static void copy_name(char *dst, size_t len, const char *src)
{
	size_t n = strnlen(src, len - 1);

	memcpy(dst, src, n);
	dst[n] = 0;
}

static int parse_zoned(const char *s, uint64_t *ret)
{
	for (uint64_t i = 0; i < 3; i++) {
		if (!strcmp(s, zoned_names[i])) {
			*ret = i;
			return 0;
		}
	}
	return -EINVAL;
}

static void read_queue(const char *qdir, uint64_t *q)
{
	char buf[64];

	for (int i = 0; i < PA_Q_NR; i++) {
		q[i] = PA_Q_ABSENT;
		if (pa_sysfs_read_str(qdir, pa_queue_attr_names[i], buf, sizeof(buf)) < 0)
			continue;
		if (i == PA_Q_ZONED ? parse_zoned(buf, &q[i]) : pa_sysfs_parse_u64(buf, &q[i]))
			q[i] = PA_Q_ABSENT;
	}
}

struct walk {
	const char *root;
	struct pa_device *devs;
	size_t max, n;
};

static int walk_dev(struct walk *w, dev_t dev, int parent, unsigned int depth);

static void detect_kind(const char *dir, struct pa_device *d)
{
	if (pa_sysfs_exists(dir, "loop")) {
		d->role = PA_ROLE_LOOP;
		pa_sysfs_read_str(dir, "loop/backing_file", d->backing_file, sizeof(d->backing_file));
		uint64_t v;
		d->loop_dio = pa_sysfs_read_u64(dir, "loop/dio", &v) < 0 ? -1 : (int)(v != 0);
	} else if (pa_sysfs_exists(dir, "dm")) {
		d->role = PA_ROLE_DM;
		pa_sysfs_read_str(dir, "dm/name", d->dm_name, sizeof(d->dm_name));
	} else if (pa_sysfs_exists(dir, "md")) {
		d->role = PA_ROLE_MD;
		pa_sysfs_read_str(dir, "md/level", d->md_level, sizeof(d->md_level));
	} else {
		d->role = PA_ROLE_DISK;
		d->transport = (uint8_t)pa_transport_detect(dir, d->name);
	}
}

/* Recurse into every device listed in @dir/slaves/. */
static int walk_slaves(struct walk *w, const char *dir, int self, unsigned int depth)
{
	char sdir[PATH_MAX];
	struct dirent *e;
	DIR *dp;
	int r = 0;

	if (pa_path_join(sdir, sizeof(sdir), dir, "slaves") < 0)
		return -ENAMETOOLONG;
	dp = opendir(sdir);
	if (!dp)
		return 0;
	while (r >= 0 && (e = readdir(dp))) {
		char sub[PATH_MAX];
		dev_t ldev;

		if (e->d_name[0] == '.')
			continue;
		if (pa_path_join(sub, sizeof(sub), sdir, e->d_name) < 0 ||
		    pa_sysfs_read_devnum(sub, "dev", &ldev) < 0)
			continue;
		r = walk_dev(w, ldev, self, depth + 1);
	}
	closedir(dp);
	return r < 0 ? r : 0;
}

/*
 * A loop device stores its data in a file: follow the file down to the
 * device holding it (st_rdev when the "file" is a block device), so the
 * chain shows what lies beneath.  The path is looked up in the caller's mount
 * namespace, also for a captured sysfs tree.  A file that cannot be reached
 * (deleted, another mount namespace) or that lives on a filesystem without a
 * block device (tmpfs, btrfs's anonymous device numbers) ends the chain at
 * the loop device, as before.
 */
static int walk_loop_backing(struct walk *w, int self, unsigned int depth)
{
	const char *file = w->devs[self].backing_file;
	size_t n = w->n;
	struct stat st;
	int r;

	if (file[0] != '/' || stat(file, &st) < 0)
		return 0;
	r = walk_dev(w, S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev, self, depth + 1);
	if (r == -ENOENT) {
		w->n = n;
		return 0;
	}
	return r;
}

static int walk_dev(struct walk *w, dev_t dev, int parent, unsigned int depth)
{
	char dir[PATH_MAX], up[PATH_MAX];
	struct pa_device *d;
	const char *base;
	int self, r;
	dev_t pdev;

	r = pa_sysfs_dev_dir(w->root, dev, dir);
	if (r < 0)
		return r;
	if (w->n >= w->max || depth >= PA_CHAIN_MAX)
		return -E2BIG;
	self = (int)w->n++;
	d = &w->devs[self];
	memset(d, 0, sizeof(*d));
	d->dev = dev;
	d->parent = parent;
	d->depth = (uint8_t)depth;
	d->loop_dio = -1;
	base = strrchr(dir, '/');
	copy_name(d->name, sizeof(d->name), base ? base + 1 : dir);
	pa_sysfs_read_u64(dir, "size", &d->size_sectors);

	if (pa_sysfs_exists(dir, "partition")) {
		/* Partitions share the queue of the disk they live on. */
		d->role = PA_ROLE_PARTITION;
		pa_sysfs_read_u64(dir, "start", &d->part_start);
		r = pa_path_join(up, sizeof(up), dir, "..");
		if (r == 0)
			r = pa_sysfs_read_devnum(up, "dev", &pdev);
		if (r < 0)
			return r;
		r = walk_dev(w, pdev, self, depth + 1);
		if (r < 0)
			return r;
		memcpy(d->queue, w->devs[self + 1].queue, sizeof(d->queue));
		return 0;
	}
	detect_kind(dir, d);
	if (pa_path_join(up, sizeof(up), dir, "queue") == 0)
		read_queue(up, d->queue);
	if (d->role == PA_ROLE_LOOP)
		return walk_loop_backing(w, self, depth);
	return walk_slaves(w, dir, self, depth);
}

int pa_chain_walk(const char *root, dev_t dev, struct pa_device *devs, size_t max)
{
	struct walk w = { .root = root, .devs = devs, .max = max };
	int r;

	if (!root || !devs)
		return -EINVAL;
	r = walk_dev(&w, dev, -1, 0);
	if (r < 0)
		return r;
	return (int)w.n;
}

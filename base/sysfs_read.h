/* SPDX-License-Identifier: MIT */
/*
 * Reading sysfs attributes: the one reader every probe uses (probes/
 * sysfs_read.c).  @dir is a directory, @attr a name relative to it (may hold
 * slashes: "queue/logical_block_size", "device/vpd_pgb0").
 */
#ifndef PREALLOC_SYSFS_READ_H
#define PREALLOC_SYSFS_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* "@a/@b" into @buf; -ENAMETOOLONG when it does not fit. */
int pa_path_join(char *buf, size_t len, const char *a, const char *b);

/* Raw bytes of @dir/@attr (binary attributes: VPD pages).  Returns the byte
 * count (at most @len), or -errno. */
int pa_sysfs_read(const char *dir, const char *attr, void *buf, size_t len);

/* @dir/@attr as a string without trailing newline or blanks; truncated to
 * @len - 1 bytes.  0 or -errno. */
int pa_sysfs_read_str(const char *dir, const char *attr, char *buf, size_t len);

/* A decimal attribute.  0, -errno, or -EINVAL when it is not a number. */
int pa_sysfs_read_u64(const char *dir, const char *attr, uint64_t *ret);

/* A "MAJ:MIN" attribute (`dev`).  0, -ENOENT when absent, -EINVAL when malformed. */
int pa_sysfs_read_devnum(const char *dir, const char *attr, dev_t *ret);

/* Does @dir/@name exist? */
bool pa_sysfs_exists(const char *dir, const char *name);

/* Canonical sysfs directory of block device @dev under @root into @ret
 * (PATH_MAX bytes).  0, -ENOENT when sysfs does not know @dev, or -errno. */
int pa_sysfs_dev_dir(const char *root, dev_t dev, char *ret);

/* The value of KEY=value line @key of @dir/uevent into @buf.  0, -ENOENT
 * when there is no such line, -ENAMETOOLONG when it does not fit, -errno. */
int pa_sysfs_uevent(const char *dir, const char *key, char *buf, size_t len);

/* Parse a whole decimal sysfs value.  0 or -EINVAL. */
int pa_sysfs_parse_u64(const char *s, uint64_t *ret);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * What the library knows about a filesystem: one struct pa_fs a filesystem,
 * each in a file of its own (src/fs/NAME.c), found by the statfs f_type of
 * a file (src/fs/fs.c).  Facts only: the ioctls and sysfs reads that act
 * on them stay with their callers.
 */
#ifndef PREALLOC_FS_H
#define PREALLOC_FS_H

#include <stdbool.h>
#include <stdint.h>

#define PA_FS_MAGICS 2

/* Whether an overwrite goes in place. */
enum pa_fs_cow {
	PA_FS_COW_NEVER,
	PA_FS_COW_ALWAYS,
	PA_FS_COW_UNLESS_NOCOW,		/* unless the file has FS_NOCOW_FL */
};

struct pa_fs {
	const char *name;		/* as the probe names it; NULL: unknown */
	uint32_t magic[PA_FS_MAGICS];	/* its statfs f_type values; 0 ends */
	enum pa_fs_cow cow;
	bool overlay;			/* writes go to an upper layer's filesystem */
	bool mem_backed;		/* its pages are the storage: no device below */
	bool no_write;			/* no write(); fallocate() zeroes its pages */
	bool seek_data_written;		/* SEEK_DATA's data is written, never unwritten */
	bool ext_inode_flags;		/* FS_EXTENT_FL, FS_INLINE_DATA_FL: a file may
					 * have no extents, or its bytes in the inode */
	bool marks_prealloc;		/* fallocate() sets FS_XFLAG_PREALLOC; blocks
					 * beyond EOF of an unmarked file may be trimmed */
	bool realtime;			/* a file may be on the realtime device
					 * (FS_XFLAG_REALTIME): no write-zeroes */
	bool always_cow_knob;		/* a debug knob (/sys/fs/NAME/debug/always_cow)
					 * may copy every file on write */
	bool reserved_clusters;		/* statfs counts free what even root may not use
					 * (reserved_clusters); extent tree blocks */
	bool frees_late;		/* an unlinked file's blocks are freed in the
					 * background: statfs counts them used a while */
	bool statfs_at_commit;		/* statfs counts blocks allocated or freed only
					 * once their transaction commits */
	bool flock_record_lock;		/* flock() is a record lock on the server */
	bool subvol_dev;		/* stat()'s st_dev is a subvolume's or a layer's,
					 * not the filesystem's that /proc/locks names */
	bool commit_range;		/* may exchange a range of a file with a temporary
					 * file's only if the file did not change
					 * (XFS_IOC_COMMIT_RANGE, where formatted for it) */
};

extern const struct pa_fs pa_fs_unknown;
extern const struct pa_fs pa_fs_bcachefs, pa_fs_btrfs, pa_fs_cifs, pa_fs_ext4, pa_fs_f2fs,
	pa_fs_fuse, pa_fs_hugetlbfs, pa_fs_nfs, pa_fs_overlay, pa_fs_ramfs, pa_fs_smbfs,
	pa_fs_tmpfs, pa_fs_xfs, pa_fs_zfs;
/* Every known filesystem, NULL-terminated. */
extern const struct pa_fs *const pa_fs_table[];

/* The filesystem of statfs f_type @f_type (0 for a block device); the
 * unknown default when none has it. */
const struct pa_fs *pa_fs_of(uint64_t f_type);
/* The filesystem holding @fd; the unknown default when fstatfs() fails. */
const struct pa_fs *pa_fs_lookup(int fd);
/* "ext4", "xfs", "btrfs", "tmpfs", ... or NULL for an unknown f_type. */
const char *pa_fs_name(uint64_t f_type);

/* Commit the running transaction of @fd's filesystem, where blocks
 * allocated or freed count only once it commits (statfs_at_commit: btrfs
 * frees a block that was durable only then).  0 or -errno. */
int pa_fs_commit(int fd);

#endif

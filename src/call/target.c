/* SPDX-License-Identifier: MIT */
/* What the target is: file type, filesystem, device capabilities. */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "base/internal.h"
#include "src/call/context.h"
#include "src/call/overlay.h"
#include "src/call/target.h"
#include "src/exec/ops.h"
#include "src/file/exchange.h"
#include "src/fs/fs.h"

/* Copy-on-write: overwrites of this file never go in place. */
static bool is_cow(int fd, const struct pa_fs *fs)
{
	int attr = 0;

	if (fs->cow != PA_FS_COW_UNLESS_NOCOW)
		return fs->cow == PA_FS_COW_ALWAYS;
	/* Unknown attributes: assume copy-on-write, the filesystem's default. */
	return ioctl(fd, FS_IOC_GETFLAGS, &attr) < 0 || !(attr & FS_NOCOW_FL);
}

/* What the ext2/3/4 inode flags tell the planner: inline data (the inode
 * holds the bytes), or no extents (ext2/ext3 and indirect-block ext4
 * files have no fallocate(), so nothing can be held beyond EOF). */
static void ext_flags(int fd, const struct pa_fs *fs, struct pa_plan_input *in)
{
	int attr = 0;

	if (!fs->ext_inode_flags || ioctl(fd, FS_IOC_GETFLAGS, &attr) < 0)
		return;
	in->inline_data = attr & FS_INLINE_DATA_FL;
	in->no_fallocate = !(attr & (FS_INLINE_DATA_FL | FS_EXTENT_FL));
}

/* Has fallocate() marked this xfs file preallocated?  xfs then keeps its
 * blocks beyond EOF; in any other file they may be its speculative
 * preallocation, which it trims at the next close.  Nothing clears the mark
 * (FS_IOC_FSSETXATTR keeps it). */
static bool xfs_marked(int fd)
{
	struct fsxattr fa;

	return ioctl(fd, FS_IOC_FSGETXATTR, &fa) == 0 && (fa.fsx_xflags & FS_XFLAG_PREALLOC);
}

/* Mirror vfs_fallocate()'s errors for what it cannot work on. */
static int check_type(mode_t mode)
{
	if (S_ISREG(mode) || S_ISBLK(mode))
		return 0;
	if (S_ISDIR(mode))
		return -EISDIR;
	if (S_ISFIFO(mode))
		return -ESPIPE;
	return -ENODEV;
}

/* Open for reading and writing, not appending: what the kernel's range
 * exchange asks of the file's descriptor. */
static bool read_write(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl >= 0 && (fl & O_ACCMODE) == O_RDWR && !(fl & O_APPEND);
}

int pa_target_open(struct prealloc_ctx *ctx, int fd, uint64_t off, uint64_t len,
		   uint32_t flags, uint32_t method, struct pa_target *t)
{
	struct pa_plan_input *in = &t->in;
	const struct statfs *sfs = &t->sfs;
	const struct pa_fs *fs;
	int ret;

	memset(t, 0, sizeof(*t));
	t->ctx = ctx;
	if (fstat(fd, &t->st) < 0)
		return -errno;
	ret = check_type(t->st.st_mode);
	if (ret)
		return ret;
	in->flags = flags;
	in->forced = method;
	in->write_zeroes_unmap = PREALLOC_UNKNOWN;
	if (S_ISBLK(t->st.st_mode)) {
		in->target = PA_TARGET_BLOCKDEV;
		in->zeroout = true;
	} else {
		if (PA_RETRY_EINTR(fstatfs(fd, &t->sfs)) < 0)
			return -errno;
		t->fs_type = (uint64_t)sfs->f_type;
		fs = pa_fs_of(t->fs_type);
		t->fs_block = sfs->f_bsize > 0 ? (uint64_t)sfs->f_bsize : 4096;
		in->target = PA_TARGET_FILE;
		/* Overlayfs writes to its upper layer: judge that one.  When it
		 * cannot be reached (another mount namespace), write as usual
		 * but do not claim the result is written in place. */
		if (fs->overlay) {
			uint64_t upper = pa_overlay_upper_fs(fd);

			in->cow = upper && is_cow(fd, pa_fs_of(upper));
			in->cow_unknown = !upper;
		} else {
			in->cow = is_cow(fd, fs);
		}
		in->mem_backed = fs->mem_backed;
		in->no_write = fs->no_write;
		ext_flags(fd, fs, in);
		in->range_in_eof = off + len <= (uint64_t)t->st.st_size;
		if (fs->marks_prealloc)
			in->reserve_marks = !xfs_marked(fd);
		in->commit_range = fs->commit_range && pa_exchange_formatted(fd);
		in->unexchangeable_fd = in->commit_range && !read_write(fd);
		in->eof_blocks_kept = in->range_in_eof || !(flags & PREALLOC_KEEP_SIZE) ||
				      !in->reserve_marks;
	}
	t->dev = S_ISBLK(t->st.st_mode) ? t->st.st_rdev : t->st.st_dev;
	if (pa_caps_cache_get(&pa_ctx(ctx)->caps, t->dev, &t->caps) == 0) {
		in->device_facts = true;
		in->write_zeroes_unmap = t->caps->write_zeroes_unmap;
		in->kernel_write_zeroes = t->caps->kernel_write_zeroes;
		if (S_ISBLK(t->st.st_mode))
			t->fs_block = t->caps->logical_block_size;
	}
	if (!t->fs_block)
		t->fs_block = 512;
	ret = pa_wz_answer(ctx, t->dev, t->fs_type);
	in->write_zeroes_refused = ret == PREALLOC_NO;
	in->write_zeroes_works = ret == PREALLOC_YES;
	in->unusable = pa_methods_unusable(pa_ctx_log(ctx));
	return 0;
}

void pa_target_close(struct pa_target *t)
{
	if (t->caps)
		pa_caps_put(t->caps);
	t->caps = NULL;
}

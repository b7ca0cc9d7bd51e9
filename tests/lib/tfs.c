/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/loop.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>

#include "prealloc.h"
#include "tfs.h"

void tfs_enter(void)
{
	if (geteuid() != 0) {
		fprintf(stderr, "skip: needs root\n");
		exit(TFS_SKIP);
	}
	if (access("/dev/loop-control", W_OK) < 0) {
		fprintf(stderr, "skip: no /dev/loop-control\n");
		exit(TFS_SKIP);
	}
	if (unshare(CLONE_NEWNS) < 0 ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
		fprintf(stderr, "skip: no private mount namespace: %s\n", strerror(errno));
		exit(TFS_SKIP);
	}
}

void tfs_enter_for(const char *type)
{
	tfs_enter();
	if (!tfs_supported(type)) {
		fprintf(stderr, "skip: no %s here\n", type);
		exit(TFS_SKIP);
	}
}

static int run(const char *cmd)
{
	int st = system(cmd);

	if (st == -1)
		return -errno;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -EIO;
}

bool tfs_supported(const char *type)
{
	char cmd[128];

	if (strcmp(type, "tmpfs") == 0)
		return true;
	snprintf(cmd, sizeof(cmd), "command -v mkfs.%s >/dev/null 2>&1 && grep -qw %s /proc/filesystems",
		 type, type);
	return run(cmd) == 0;
}

int tfs_loop(struct tfs *t, uint64_t size_mb, bool direct)
{
	struct loop_config cfg = { 0 };
	char img[] = "/var/tmp/prealloc-img-XXXXXX";
	int ctl, nr, ifd, ret;

	memset(t, 0, sizeof(*t));
	t->loop_fd = -1;
	ifd = mkstemp(img);
	if (ifd < 0)
		return -errno;
	unlink(img);	/* the loop device keeps the file alive */
	if (ftruncate(ifd, (off_t)(size_mb << 20)) < 0)
		goto err_errno;
	ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	if (ctl < 0)
		goto err_errno;
	for (int tries = 0; tries < 64; tries++) {
		nr = ioctl(ctl, LOOP_CTL_GET_FREE);
		if (nr < 0)
			break;
		snprintf(t->dev, sizeof(t->dev), "/dev/loop%d", nr);
		t->loop_fd = open(t->dev, O_RDWR | O_CLOEXEC);
		if (t->loop_fd < 0)
			break;
		cfg.fd = (uint32_t)ifd;
		cfg.info.lo_flags = LO_FLAGS_AUTOCLEAR | (direct ? LO_FLAGS_DIRECT_IO : 0);
		if (ioctl(t->loop_fd, LOOP_CONFIGURE, &cfg) == 0) {
			close(ctl);
			close(ifd);
			return 0;
		}
		/* Another test took this device between GET_FREE and CONFIGURE. */
		close(t->loop_fd);
		t->loop_fd = -1;
		if (errno != EBUSY)
			break;
	}
	ret = errno ? -errno : -EBUSY;
	close(ctl);
	close(ifd);
	t->dev[0] = 0;
	return ret;
err_errno:
	ret = -errno;
	close(ifd);
	return ret;
}

static int mount_new(struct tfs *t, const char *type, uint64_t size_mb);

int tfs_create(struct tfs *t, const char *type, uint64_t size_mb, const char *mkfs_opts)
{
	char cmd[512];
	int ret;

	if (strcmp(type, "tmpfs") == 0) {
		memset(t, 0, sizeof(*t));
		t->loop_fd = -1;
	} else {
		ret = tfs_loop(t, size_mb, true);
		if (ret)
			return ret;
		snprintf(cmd, sizeof(cmd), "mkfs.%s %s %s %s >/dev/null 2>&1", type,
			 strncmp(type, "ext", 3) == 0 ? "-q -F" : "-q -f",
			 mkfs_opts ? mkfs_opts : "", t->dev);
		ret = run(cmd);
		if (ret)
			goto err;
	}
	ret = mount_new(t, type, size_mb);
	if (ret)
		goto err;
	return 0;
err:
	tfs_destroy(t);
	return ret;
}

int tfs_create_xfs_exchange(struct tfs *t, uint64_t size_mb)
{
	char cmd[512];
	int ret = tfs_loop(t, size_mb, true);

	if (ret)
		return ret;
	/* xfsprogs 6.10 formats for exchange-range; an older one formats
	 * without it and the superblock's incompat bit 0x40 is set by hand,
	 * which any kernel since 6.10 mounts. */
	snprintf(cmd, sizeof(cmd), "mkfs.xfs -q -f -i exchange=1 %s >/dev/null 2>&1 || "
		 "{ mkfs.xfs -q -f %s >/dev/null 2>&1 && "
		 "v=$(xfs_db -c 'sb 0' -c 'p features_incompat' %s | sed 's/.*= //') && "
		 "xfs_db -x -c 'sb 0' -c \"write -d features_incompat $((v | 0x40))\" %s "
		 ">/dev/null 2>&1; }", t->dev, t->dev, t->dev, t->dev);
	ret = run(cmd);
	if (!ret)
		ret = mount_new(t, "xfs", size_mb);
	if (ret)
		tfs_destroy(t);
	return ret;
}

/* Mount @t's new @type (a tmpfs of @size_mb MiB) on a fresh directory. */
static int mount_new(struct tfs *t, const char *type, uint64_t size_mb)
{
	char opts[64];
	int ret;

	snprintf(t->type, sizeof(t->type), "%s", type);
	strcpy(t->dir, "/tmp/prealloc-mnt-XXXXXX");
	if (!mkdtemp(t->dir)) {
		t->dir[0] = 0;
		return -errno;
	}
	if (strcmp(type, "tmpfs") == 0) {
		snprintf(opts, sizeof(opts), "size=%llum", (unsigned long long)size_mb);
		ret = mount("tmpfs", t->dir, "tmpfs", 0, opts);
	} else {
		ret = mount(t->dev, t->dir, type, 0, NULL);
	}
	return ret < 0 ? -errno : 0;
}

void tfs_destroy(struct tfs *t)
{
	if (t->dir[0]) {
		/* Detach even if a failed test still holds files open there. */
		umount2(t->dir, MNT_DETACH);
		rmdir(t->dir);
		t->dir[0] = 0;
	}
	if (t->dev[0]) {
		close(t->loop_fd);	/* autoclear detaches the device */
		t->dev[0] = 0;
	}
}

const char *tfs_path(const struct tfs *t, const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", t->dir, name);
	return buf;
}

static int rm_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	return remove(path) < 0 ? -errno : 0;
}

int tfs_group_teardown(void **state)
{
	tfs_destroy(*state);
	return 0;
}

int tfs_rmtree(const char *dir)
{
	int ret = nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);

	return ret > 0 ? -EIO : ret < 0 ? -errno : ret;
}

int tfs_sh(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (system(cmd) == 0)
		return 0;
	fprintf(stderr, "command failed: %s\n", cmd);
	return -1;
}

int tfs_count_fds(void)
{
	int n = 0;

	for (int i = 0; i < 4096; i++)
		n += fcntl(i, F_GETFD) >= 0;
	return n;
}

int tfs_nvme_tree(const struct tfs *t, const char *dir, char *sys, size_t len)
{
	const char *scripts = getenv("PROBE_SCRIPTS");
	struct stat st;

	if (!scripts || stat(t->dir, &st) < 0 ||
	    tfs_sh("sh '%s/make-tree.sh' %u:%u '%s' >/dev/null", scripts, major(st.st_dev),
		   minor(st.st_dev), dir))
		return -1;
	return snprintf(sys, len, "%s/sys", dir) < (int)len ? 0 : -1;
}

int tfs_create_nvme(struct tfs *t, uint64_t size_mb, char *tree, char *sys, size_t len)
{
	if (!mkdtemp(tree) || tfs_create(t, "ext4", size_mb, NULL))
		return -1;
	return tfs_nvme_tree(t, tree, sys, len);
}

int tfs_destroy_nvme(struct tfs *t, const char *tree)
{
	tfs_destroy(t);
	return tfs_rmtree(tree);
}

long long tfs_queue_attr(const struct tfs *t, const char *attr)
{
	char path[128];
	long long v = -1;
	FILE *f;

	if (strncmp(t->dev, "/dev/", 5))
		return -1;
	snprintf(path, sizeof(path), "/sys/block/%s/queue/%s", t->dev + 5, attr);
	f = fopen(path, "re");
	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

uint32_t tfs_wz_verdict(const struct tfs *t)
{
	long long unmap = tfs_queue_attr(t, "write_zeroes_unmap_max_bytes");

	if (unmap < 0)
		return PREALLOC_WZ_NO_KERNEL;
	return unmap ? PREALLOC_WZ_USED : PREALLOC_WZ_DEVICE_CANNOT;
}

/* SPDX-License-Identifier: MIT */
/*
 * What the device suites share (guest.h): the guest's devices and what its
 * kernel decided about them, the probes' chain, I/O and mkfs helpers, and
 * the two checks several suites make, on a raw device (check_raw_path())
 * and on a file of a filesystem on it (check_fs_path()).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "base/sysfs_root.h"
#include "guest.h"

/* ------------------------------------------------------------ guest facts */

const char *vm_dev(const char *name)
{
	char var[32];
	int i;

	snprintf(var, sizeof(var), "PA_VM_%s", name);
	for (i = 6; var[i]; i++)
		if (var[i] >= 'a' && var[i] <= 'z')
			var[i] -= 'a' - 'A';
	return getenv(var);
}

/* The device of a test, or skip the test. */
const char *need_dev(const char *name)
{
	const char *p = vm_dev(name);

	if (!p) {
		print_message("no %s in this guest\n", name);
		skip();
	}
	return p;
}

/* A scsi_debug parameter of this run, -1 when not given. */
int sdebug_param(const char *key)
{
	const char *s = getenv("PA_VM_SDEBUG_PARAMS");
	size_t n = strlen(key);

	while (s && *s) {
		if (!strncmp(s, key, n) && s[n] == '=')
			return atoi(s + n + 1);
		s = strchr(s, ' ');
		s = s ? s + 1 : NULL;
	}
	return -1;
}

/* /sys/class/block/<dev>/<attr> as a string; "" when absent. */
void sys_str(const char *devpath, const char *attr, char *buf, size_t len)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/block/%s/%s", strrchr(devpath, '/') + 1, attr);
	buf[0] = 0;
	f = fopen(path, "re");
	if (!f)
		return;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = 0;
	fclose(f);
}

/* A queue limit as the kernel applies it: a partition's are its disk's. */
uint64_t queue_attr(const char *devpath, const char *attr)
{
	char name[96], buf[64];

	sys_str(devpath, "partition", buf, sizeof(buf));
	snprintf(name, sizeof(name), "%squeue/%s", buf[0] ? "../" : "", attr);
	sys_str(devpath, name, buf, sizeof(buf));
	return buf[0] ? strtoull(buf, NULL, 10) : ABSENT;
}

/* Will FALLOC_FL_WRITE_ZEROES succeed on this device (the kernel's view)? */
bool kernel_unmap_zeroes(const char *devpath)
{
	uint64_t v = queue_attr(devpath, "write_zeroes_unmap_max_bytes");

	return v != ABSENT && v > 0;
}

bool kernel_has_flag(const char *devpath)
{
	return queue_attr(devpath, "write_zeroes_unmap_max_hw_bytes") != ABSENT;
}

/*
 * What the report's write_zeroes says of an automatic call that gives the
 * flag whole blocks on @devpath (@takes: the kernel took it there, on the
 * device or on a new file of its filesystem): used, or why not, by the
 * device's queue; a refusal remembered in the context says the same.
 */
uint32_t wz_verdict(const char *devpath, bool takes)
{
	if (takes)
		return PREALLOC_WZ_USED;
	if (!kernel_has_flag(devpath))
		return PREALLOC_WZ_NO_KERNEL;
	if (!kernel_unmap_zeroes(devpath))
		return PREALLOC_WZ_DEVICE_CANNOT;
	return PREALLOC_WZ_FS_REFUSED;
}

/* The report says @want of the flag (by name, so a failure reads). */
void expect_wz(const struct prealloc_report *r, uint32_t want)
{
	assert_string_equal(prealloc_write_zeroes_name(r->write_zeroes),
			    prealloc_write_zeroes_name(want));
}

/* ------------------------------------------------------------ probes */

void probe(const char *devpath, struct probed *p)
{
	struct stat st;

	assert_int_equal(stat(devpath, &st), 0);
	p->n = pa_chain_walk(PA_SYSFS_MACHINE, st.st_rdev, p->devs, PA_CHAIN_MAX);
	assert_true(p->n >= 1);
	pa_chain_probe_transports(PA_SYSFS_MACHINE, true, p->devs, (size_t)p->n);
}

/* The verdict of the probes must be the kernel's own. */
void check_verdict(const char *devpath, const struct probed *p)
{
	char ev[192];
	bool kwz;
	int v = pa_chain_verdict(p->devs, (size_t)p->n, &kwz, ev, sizeof(ev));

	print_message("%s: verdict %d (%s)\n", devpath, v, ev);
	assert_int_equal(kwz, kernel_has_flag(devpath));
	if (kwz)
		assert_int_equal(v, kernel_unmap_zeroes(devpath) ? PREALLOC_YES : PREALLOC_NO);
	else
		assert_int_equal(v, PREALLOC_UNKNOWN);
}

/* ------------------------------------------------------------ I/O helpers */

void *zbuf(size_t len)
{
	void *p = NULL;

	assert_int_equal(posix_memalign(&p, 4096, len), 0);
	memset(p, 0, len);
	return p;
}

void fill(int fd, uint64_t off, uint64_t len, uint8_t byte)
{
	uint8_t *b = zbuf(len);

	memset(b, byte, len);
	assert_int_equal(pwrite(fd, b, len, (off_t)off), (ssize_t)len);
	assert_int_equal(fsync(fd), 0);
	free(b);
}

/* Does [off, off+len) of @path read as @byte everywhere?  O_DIRECT on a
 * block device so the device, not a cache, answers. */
void expect_bytes(const char *path, uint64_t off, uint64_t len, uint8_t byte, bool direct)
{
	const size_t chunk = MiB;
	uint8_t *b = zbuf(chunk);
	int fd = open(path, O_RDONLY | O_CLOEXEC | (direct ? O_DIRECT : 0));

	assert_true(fd >= 0);
	while (len) {
		size_t n = len < chunk ? len : chunk;

		assert_int_equal(pread(fd, b, n, (off_t)off), (ssize_t)n);
		for (size_t i = 0; i < n; i++)
			if (b[i] != byte)
				fail_msg("%s: byte %llu is 0x%02x, want 0x%02x", path,
					 (unsigned long long)(off + i), b[i], byte);
		off += n;
		len -= n;
	}
	close(fd);
	free(b);
}

int prealloc_m(int fd, uint64_t off, uint64_t len, unsigned int flags, unsigned int method,
		      struct prealloc_report *r)
{
	struct prealloc_options o = { .size = sizeof(o), .flags = flags, .method = method };

	memset(r, 0, sizeof(*r));
	r->size = sizeof(*r);
	return prealloc_file_ex(fd, off, len, &o, r);
}

void print_report(const char *what, const struct prealloc_report *r)
{
	print_message("%s: method %s, write-zeroes %llu zeroout %llu uring %llu buffered %llu allocate %llu, zeroed %llu kept %llu, %.1f ms\n",
		      what, prealloc_method_name(r->method),
		      (unsigned long long)r->bytes_by_method[PREALLOC_METHOD_WRITE_ZEROES],
		      (unsigned long long)r->bytes_by_method[PREALLOC_METHOD_ZEROOUT],
		      (unsigned long long)r->bytes_by_method[PREALLOC_METHOD_URING],
		      (unsigned long long)r->bytes_by_method[PREALLOC_METHOD_BUFFERED],
		      (unsigned long long)r->bytes_by_method[PREALLOC_METHOD_ALLOCATE],
		      (unsigned long long)r->bytes_zeroed, (unsigned long long)r->bytes_kept,
		      (double)r->elapsed_ns / 1e6);
}

/* ------------------------------------------------------------ raw devices */

/*
 * Zero [1 MiB, 5 MiB) of a raw device holding 0xa5 in [0, 8 MiB): the flag
 * is used exactly when the kernel allows unmap zeroing, the range reads zero
 * and the bytes around it are untouched.
 */
void check_raw_path(const char *devpath)
{
	struct prealloc_report r;
	bool wz = kernel_unmap_zeroes(devpath);
	int fd = open(devpath, O_RDWR | O_CLOEXEC);

	assert_true(fd >= 0);
	fill(fd, 0, 8 * MiB, 0xa5);
	assert_int_equal(prealloc_m(fd, MiB, 4 * MiB, PREALLOC_ZERO_DATA | PREALLOC_FORCE, 0, &r), 0);
	print_report(devpath, &r);
	assert_int_equal(r.bytes_zeroed, 4 * MiB);
	assert_int_equal(r.bytes_by_method[PREALLOC_METHOD_WRITE_ZEROES], wz ? 4 * MiB : 0);
	expect_wz(&r, wz_verdict(devpath, wz));
	if (!wz)	/* the fallback must still be a zeroing method */
		assert_int_equal(r.bytes_by_method[PREALLOC_METHOD_ZEROOUT] +
				 r.bytes_by_method[PREALLOC_METHOD_URING] +
				 r.bytes_by_method[PREALLOC_METHOD_BUFFERED], 4 * MiB);
	/* A forced flag either works (kernel says so) or is refused. */
	assert_int_equal(prealloc_m(fd, 5 * MiB, MiB, PREALLOC_ZERO_DATA | PREALLOC_FORCE,
				    PREALLOC_METHOD_WRITE_ZEROES, &r), wz ? 0 : -EOPNOTSUPP);
	expect_wz(&r, wz_verdict(devpath, wz));	/* and says why */
	close(fd);
	expect_bytes(devpath, 0, MiB, 0xa5, true);
	expect_bytes(devpath, MiB, 4 * MiB, 0, true);
	expect_bytes(devpath, 5 * MiB, MiB, wz ? 0 : 0xa5, true);
	expect_bytes(devpath, 6 * MiB, 2 * MiB, 0xa5, true);
}

/* ------------------------------------------------------------ file systems */

/* Where mkfs_mount_opts() mounts @devpath: /mnt/<device name>. */
const char *mnt_of(const char *devpath, char *mnt, size_t len)
{
	snprintf(mnt, len, "/mnt/%s", strrchr(devpath, '/') + 1);
	return mnt;
}

/* Unmount what is mounted there, if anything (lazily when busy). */
void unmount_dev(const char *devpath)
{
	char mnt[80];

	if (umount(mnt_of(devpath, mnt, sizeof(mnt))) && errno == EBUSY)
		umount2(mnt, MNT_DETACH);
}

/* Run @argv (NULL-terminated, found through PATH), which must exit 0. */
void run_tool(const char *const *argv)
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/*
 * Make an ext4 of @size ("48M"; NULL: the whole device) on @devpath, with
 * bigalloc clusters of @cluster bytes unless 0, and mount it on
 * /mnt/<name>.  e2fsprogs' mke2fs is exec'd through PATH: busybox's shell
 * would prefer its own applet.
 */
const char *mkfs_mount_opts(const char *devpath, uint32_t cluster, const char *size,
				   char *mnt, size_t len)
{
	char csize[16];
	const char *argv[16] = { "mke2fs", "-q", "-F", "-t", "ext4", "-b", "4096", "-E",
				 "lazy_itable_init=0,lazy_journal_init=0" };
	int argc = 9;

	snprintf(csize, sizeof(csize), "%u", cluster);
	if (cluster) {
		argv[argc++] = "-O";
		argv[argc++] = "bigalloc";
		argv[argc++] = "-C";
		argv[argc++] = csize;
	}
	argv[argc++] = devpath;
	if (size)
		argv[argc++] = size;
	run_tool(argv);
	mkdir(mnt_of(devpath, mnt, len), 0755);
	assert_int_equal(mount(devpath, mnt, "ext4", 0, NULL), 0);
	return mnt;
}

/* An xfs over the whole of @devpath (mkfs.xfs wants more than 300 MB;
 * reflink is on by default), mounted on /mnt/<name>. */
const char *mkfs_xfs_mount(const char *devpath, char *mnt, size_t len)
{
	const char *argv[] = { "mkfs.xfs", "-f", "-q", devpath, NULL };

	run_tool(argv);
	mkdir(mnt_of(devpath, mnt, len), 0755);
	assert_int_equal(mount(devpath, mnt, "xfs", 0, NULL), 0);
	return mnt;
}

const char *mkfs_mount(const char *devpath, char *mnt, size_t len)
{
	return mkfs_mount_opts(devpath, 0, "48M", mnt, len);
}

void census_written(int fd, uint64_t off, uint64_t len)
{
	struct prealloc_census c = { .size = sizeof(c) };

	assert_int_equal(prealloc_verify(fd, off, len, &c), 0);
	assert_true(c.fiemap);
	assert_int_equal(c.unwritten_bytes, 0);
	assert_int_equal(c.hole_bytes, 0);
	assert_int_equal(c.written_bytes, len);
}

/* The kernel's own answer for the filesystem at @mnt: the flag on a new
 * file (EOPNOTSUPP: this kernel, this filesystem or its device says no). */
bool fs_takes_flag(const char *mnt)
{
	char path[96];
	int fd, r, err;

	snprintf(path, sizeof(path), "%s/.flag", mnt);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	r = fallocate(fd, FALLOC_FL_WRITE_ZEROES, 0, (off_t)MiB);
	err = errno;
	close(fd);
	assert_int_equal(unlink(path), 0);
	print_message("%s: FALLOC_FL_WRITE_ZEROES on a new file: %s\n", mnt,
		      r ? strerror(err) : "works");
	if (r)
		assert_int_equal(err, EOPNOTSUPP);
	return r == 0;
}

/*
 * A file with data at [0, 64K) and [1M, 1M+64K) and an unwritten extent at
 * [4M, 6M), preallocated to 8 MiB (and with @edges then extended by a range
 * unaligned at both ends) on ext4 or xfs (@fs): written everywhere, data
 * kept, zeros elsewhere, the flag used for every byte zeroed exactly when
 * the kernel takes it on a new file of the filesystem.
 */
void check_fs_path(const char *devpath, const char *fs, bool edges)
{
	bool xfs = !strcmp(fs, "xfs"), wz;
	char mnt[64], path[80];
	struct prealloc_report r;
	struct stat st;
	int fd;

	if (xfs)
		mkfs_xfs_mount(devpath, mnt, sizeof(mnt));
	else
		mkfs_mount(devpath, mnt, sizeof(mnt));
	wz = kernel_unmap_zeroes(devpath) && fs_takes_flag(mnt);
	snprintf(path, sizeof(path), "%s/f", mnt);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	fill(fd, 0, 64 * KiB, 0x5a);
	fill(fd, MiB, 64 * KiB, 0x5a);
	assert_int_equal(fallocate(fd, 0, 4 * MiB, 2 * MiB), 0);

	assert_int_equal(prealloc_m(fd, 0, 8 * MiB, 0, 0, &r), 0);
	print_report(path, &r);
	assert_true(r.written);
	assert_int_equal(r.bytes_kept, 128 * KiB);
	assert_int_equal(r.bytes_zeroed, 8 * MiB - 128 * KiB);
	assert_int_equal(r.bytes_by_method[PREALLOC_METHOD_WRITE_ZEROES], wz ? r.bytes_zeroed : 0);
	expect_wz(&r, wz_verdict(devpath, wz));

	census_written(fd, 0, 8 * MiB);

	if (edges) {	/* unaligned at both ends, beyond EOF */
		assert_int_equal(prealloc_m(fd, 8 * MiB + 1000, 3 * MiB + 123, 0, 0, &r), 0);
		print_report(path, &r);
		assert_true(r.written);
		expect_wz(&r, wz_verdict(devpath, wz));
	}
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_size, edges ? 11 * MiB + 1123 : 8 * MiB);
	census_written(fd, 0, (uint64_t)st.st_size);
	close(fd);

	expect_bytes(path, 0, 64 * KiB, 0x5a, false);
	expect_bytes(path, 64 * KiB, MiB - 64 * KiB, 0, false);
	expect_bytes(path, MiB, 64 * KiB, 0x5a, false);
	expect_bytes(path, MiB + 64 * KiB, (uint64_t)st.st_size - MiB - 64 * KiB, 0, false);
	/* Also after the page cache is gone: what the device holds. */
	assert_int_equal(umount(mnt), 0);
	assert_int_equal(mount(devpath, mnt, fs, 0, NULL), 0);
	expect_bytes(path, 0, 64 * KiB, 0x5a, false);
	expect_bytes(path, 64 * KiB, MiB - 64 * KiB, 0, false);
	expect_bytes(path, MiB + 64 * KiB, (uint64_t)st.st_size - MiB - 64 * KiB, 0, false);
	assert_int_equal(umount(mnt), 0);
}

void check_ext4_path(const char *devpath, bool edges)
{
	check_fs_path(devpath, "ext4", edges);
}

bool run_xfs, run_stacks;

void vm_args(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		run_xfs |= !strcmp(argv[i], "xfs");
		run_stacks |= !strcmp(argv[i], "stacks");
		if (!strncmp(argv[i], "only=", 5))	/* a glob of test names */
			cmocka_set_test_filter(argv[i] + 5);
	}
}

void need_xfs(void)
{
	if (!run_xfs)
		skip();
}

/* A new, empty file @name in @mnt, opened read-write. */
int open_new(const char *mnt, const char *name)
{
	char path[96];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", mnt, name);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	return fd;
}

/* Bytes the report says the flag zeroed. */
uint64_t wz_bytes(const struct prealloc_report *r)
{
	return r->bytes_by_method[PREALLOC_METHOD_WRITE_ZEROES];
}

/* Unmount what a failed test left mounted, so later tests can open the
 * devices exclusively. */
int unmount_all(void **state)
{
	static const char *const names[] = { "nvme512", "nvme4k", "intelid", "scsihd",
					     "sdebug", "nloop" };

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const char *p = vm_dev(names[i]);

		if (p)
			unmount_dev(p);
	}
	return 0;
}

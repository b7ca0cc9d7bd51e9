/* SPDX-License-Identifier: MIT */
/*
 * Device suite run inside the QEMU guests of tests/vm/vm.sh, against real
 * kernel drivers.  /init exports PA_VM_<NAME>=/dev/... for every device of
 * the run (nvme512, nvme4k, intelid, scsihd, sdebug, nloop) and the
 * scsi_debug parameters; a test whose device is absent is skipped.
 *
 * Ground truth is what the guest kernel itself decided (queue/ limits,
 * scsi_disk zeroing_mode), read straight from sysfs; the probes must agree
 * with it, and prealloc_file_ex() must keep its promises whichever method the
 * kernel allows.  Outside a guest (no PA_VM_DEVICES) every test skips.
 */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <grp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <syslog.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "probes/caps.h"
#include "probes/chain.h"
#include "base/sysfs_root.h"
#include "src/call/context.h"
#include "prealloc.h"
#include "prealloc-pool.h"
#include "stacks.h"

#define KiB (1ull << 10)
#define MiB (1ull << 20)
#define ABSENT UINT64_MAX

/* ------------------------------------------------------------ guest facts */

static const char *vm_dev(const char *name)
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
static const char *need_dev(const char *name)
{
	const char *p = vm_dev(name);

	if (!p) {
		print_message("no %s in this guest\n", name);
		skip();
	}
	return p;
}

/* A scsi_debug parameter of this run, -1 when not given. */
static int sdebug_param(const char *key)
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
static void sys_str(const char *devpath, const char *attr, char *buf, size_t len)
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
static uint64_t queue_attr(const char *devpath, const char *attr)
{
	char name[96], buf[64];

	sys_str(devpath, "partition", buf, sizeof(buf));
	snprintf(name, sizeof(name), "%squeue/%s", buf[0] ? "../" : "", attr);
	sys_str(devpath, name, buf, sizeof(buf));
	return buf[0] ? strtoull(buf, NULL, 10) : ABSENT;
}

/* Will FALLOC_FL_WRITE_ZEROES succeed on this device (the kernel's view)? */
static bool kernel_unmap_zeroes(const char *devpath)
{
	uint64_t v = queue_attr(devpath, "write_zeroes_unmap_max_bytes");

	return v != ABSENT && v > 0;
}

static bool kernel_has_flag(const char *devpath)
{
	return queue_attr(devpath, "write_zeroes_unmap_max_hw_bytes") != ABSENT;
}

/*
 * What the report's write_zeroes says of an automatic call that gives the
 * flag whole blocks on @devpath (@takes: the kernel took it there, on the
 * device or on a new file of its filesystem): used, or why not, by the
 * device's queue; a refusal remembered in the context says the same.
 */
static uint32_t wz_verdict(const char *devpath, bool takes)
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
static void expect_wz(const struct prealloc_report *r, uint32_t want)
{
	assert_string_equal(prealloc_write_zeroes_name(r->write_zeroes),
			    prealloc_write_zeroes_name(want));
}

/* device/scsi_disk/H:C:T:L/zeroing_mode of a SCSI disk. */
static void kernel_zeroing_mode(const char *devpath, char *buf, size_t len)
{
	char path[256], link[128];
	ssize_t n;

	snprintf(path, sizeof(path), "/sys/class/block/%s/device", strrchr(devpath, '/') + 1);
	n = readlink(path, link, sizeof(link) - 1);
	assert_true(n > 0);
	link[n] = 0;
	snprintf(path, sizeof(path), "device/scsi_disk/%s/zeroing_mode", strrchr(link, '/') + 1);
	sys_str(devpath, path, buf, len);
}

/* ------------------------------------------------------------ probes */

struct probed {
	struct pa_device devs[PA_CHAIN_MAX];
	int n;
};

static void probe(const char *devpath, struct probed *p)
{
	struct stat st;

	assert_int_equal(stat(devpath, &st), 0);
	p->n = pa_chain_walk(PA_SYSFS_MACHINE, st.st_rdev, p->devs, PA_CHAIN_MAX);
	assert_true(p->n >= 1);
	pa_chain_probe_transports(PA_SYSFS_MACHINE, true, p->devs, (size_t)p->n);
}

/* The verdict of the probes must be the kernel's own. */
static void check_verdict(const char *devpath, const struct probed *p)
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

static const struct pa_nvme_info *nvme_of(const struct probed *p)
{
	for (int i = 0; i < p->n; i++)
		if (p->devs[i].transport == PA_TRANSPORT_NVME)
			return &p->devs[i].nvme;
	fail_msg("no NVMe device in the chain");
	return NULL;
}

static const struct pa_scsi_info *scsi_of(const struct probed *p)
{
	for (int i = 0; i < p->n; i++)
		if (p->devs[i].transport == PA_TRANSPORT_SCSI)
			return &p->devs[i].scsi;
	fail_msg("no SCSI device in the chain");
	return NULL;
}

static const struct pa_nvme_info *check_nvme_common(const char *devpath, struct probed *p)
{
	const struct pa_nvme_info *n;

	probe(devpath, p);
	n = nvme_of(p);
	print_message("%s: have ns/ctrl/nvm %d/%d/%d DLFEAT 0x%x ONCS 0x%x MDTS %u WZSL %u vid 0x%04x lba %u (%s)\n",
		      devpath, n->have_ns, n->have_ctrl, n->have_nvm, n->ns.dlfeat,
		      n->ctrl.oncs, n->ctrl.mdts, n->nvm.wzsl, n->ctrl.vid, n->ns.lba_size, n->reason);
	assert_true(n->have_ns);
	assert_true(n->have_ctrl);
	assert_int_equal(n->ns.lba_size, queue_attr(devpath, "logical_block_size"));
	check_verdict(devpath, p);
	/* The driver's rule (DLFEAT reads zero + DEAC) is the kernel's answer. */
	if (kernel_has_flag(devpath))
		assert_int_equal(pa_nvme_unmap_zeroes(&n->ns),
				 queue_attr(devpath, "write_zeroes_unmap_max_hw_bytes") > 0);
	return n;
}

/* QEMU 7.2 nvme: DLFEAT 0x1 (reads zero, no DEAC), ONCS 0x15d, MDTS 7. */
static void check_qemu_nvme(const char *name, uint16_t vid)
{
	const char *devpath = need_dev(name);
	const struct pa_nvme_info *n;
	struct probed p;

	n = check_nvme_common(devpath, &p);
	assert_int_equal(n->ctrl.vid, vid);
	assert_int_equal(n->ns.dlfeat, 0x1);
	assert_int_equal(n->ns.read_back, 1);
	assert_false(n->ns.deac);
	assert_int_equal(n->ctrl.oncs, 0x15d);
	assert_true(n->ctrl.write_zeroes);
	assert_int_equal(n->ctrl.mdts, 7);
	assert_false(pa_nvme_unmap_zeroes(&n->ns));
	if (vid == 0x1b36)	/* Write Zeroes limit = MDTS (WZSL 0) */
		assert_int_equal(pa_nvme_write_zeroes_limit(&n->ctrl, &n->nvm, n->have_nvm),
				 queue_attr(devpath, "write_zeroes_max_bytes"));
	else			/* use-intel-id: the driver's quirk disables it */
		assert_int_equal(queue_attr(devpath, "write_zeroes_max_bytes"), 0);
}

static void test_nvme512(void **state) { (void)state; check_qemu_nvme("nvme512", 0x1b36); }
static void test_nvme4k(void **state) { (void)state; check_qemu_nvme("nvme4k", 0x1b36); }
static void test_intelid(void **state) { (void)state; check_qemu_nvme("intelid", 0x8086); }

/* nvmet over scsi_debug: DLFEAT 0x9 when the backing disk unmap-zeroes. */
static void test_nloop(void **state)
{
	const char *devpath = need_dev("nloop");
	const struct pa_nvme_info *n;
	struct probed p;

	(void)state;
	n = check_nvme_common(devpath, &p);
	assert_int_equal(n->ctrl.vid, 0);
	assert_true(n->ctrl.write_zeroes);
	if (kernel_unmap_zeroes(getenv("PA_VM_NLOOP_BACKING"))) {
		assert_int_equal(n->ns.dlfeat, 0x9);
		assert_true(pa_nvme_unmap_zeroes(&n->ns));
	}
}

static void check_scsi(const char *name, int lbpws, int lbpws10, int lbprz, uint64_t max_ws)
{
	const char *devpath = need_dev(name);
	const struct pa_scsi_info *s;
	char mode[32];
	struct probed p;

	probe(devpath, &p);
	s = scsi_of(&p);
	kernel_zeroing_mode(devpath, mode, sizeof(mode));
	print_message("%s: bl/lbp/rc16 %d/%d/%d LBPU %d LBPWS %d LBPWS10 %d LBPRZ %d MWSL 0x%llx WSNZ %d rc16 lbpme %d lbprz %d; predicted %s, kernel %s (%s, %s)\n",
		      devpath, s->have_bl, s->have_lbp, s->have_rc16, s->lbp.lbpu, s->lbp.lbpws,
		      s->lbp.lbpws10, s->lbp.lbprz, (unsigned long long)s->bl.max_write_same_len,
		      s->bl.wsnz, s->rc16.lbpme, s->rc16.lbprz,
		      pa_scsi_zeroing_name(s->zeroing_mode), mode, s->source, s->reason);
	assert_true(s->have_bl);
	assert_true(s->have_lbp);
	assert_true(s->have_rc16);
	assert_int_equal(s->lbp.lbpws, lbpws);
	assert_int_equal(s->lbp.lbpws10, lbpws10);
	assert_int_equal(s->lbp.lbprz, lbprz);
	assert_int_equal(s->rc16.lbprz, lbprz);
	assert_true(s->rc16.lbpme);
	assert_int_equal(s->bl.max_write_same_len, max_ws);
	assert_string_equal(pa_scsi_zeroing_name(s->zeroing_mode), mode);
	check_verdict(devpath, &p);
}

/* QEMU scsi-hd, discard=unmap: LBPWS=LBPWS10=1, LBPRZ=0 -> writesame. */
static void test_scsihd(void **state)
{
	(void)state;
	check_scsi("scsihd", 1, 1, 0, 0x3fffff);
}

static void test_sdebug(void **state)
{
	int lbpws = sdebug_param("lbpws"), lbprz = sdebug_param("lbprz");

	(void)state;
	check_scsi("sdebug", lbpws > 0, 0, lbprz > 0, 0xffff);
}

/* ------------------------------------------------------------ I/O helpers */

static void *zbuf(size_t len)
{
	void *p = NULL;

	assert_int_equal(posix_memalign(&p, 4096, len), 0);
	memset(p, 0, len);
	return p;
}

static void fill(int fd, uint64_t off, uint64_t len, uint8_t byte)
{
	uint8_t *b = zbuf(len);

	memset(b, byte, len);
	assert_int_equal(pwrite(fd, b, len, (off_t)off), (ssize_t)len);
	assert_int_equal(fsync(fd), 0);
	free(b);
}

/* Does [off, off+len) of @path read as @byte everywhere?  O_DIRECT on a
 * block device so the device, not a cache, answers. */
static void expect_bytes(const char *path, uint64_t off, uint64_t len, uint8_t byte, bool direct)
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

static int prealloc_m(int fd, uint64_t off, uint64_t len, unsigned int flags, unsigned int method,
		      struct prealloc_report *r)
{
	struct prealloc_options o = { .size = sizeof(o), .flags = flags, .method = method };

	memset(r, 0, sizeof(*r));
	r->size = sizeof(*r);
	return prealloc_file_ex(fd, off, len, &o, r);
}

static void print_report(const char *what, const struct prealloc_report *r)
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
static void check_raw_path(const char *devpath)
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

static void check_raw(const char *name)
{
	check_raw_path(need_dev(name));
}

static void test_raw_nvme512(void **s) { (void)s; check_raw("nvme512"); }
static void test_raw_nvme4k(void **s) { (void)s; check_raw("nvme4k"); }
static void test_raw_intelid(void **s) { (void)s; check_raw("intelid"); }
static void test_raw_scsihd(void **s) { (void)s; check_raw("scsihd"); }
static void test_raw_sdebug(void **s) { (void)s; check_raw("sdebug"); }
static void test_raw_nloop(void **s) { (void)s; check_raw("nloop"); }

/* ------------------------------------------------------------ ext4 files */

/* Where mkfs_mount_opts() mounts @devpath: /mnt/<device name>. */
static const char *mnt_of(const char *devpath, char *mnt, size_t len)
{
	snprintf(mnt, len, "/mnt/%s", strrchr(devpath, '/') + 1);
	return mnt;
}

/* Unmount what is mounted there, if anything (lazily when busy). */
static void unmount_dev(const char *devpath)
{
	char mnt[80];

	if (umount(mnt_of(devpath, mnt, sizeof(mnt))) && errno == EBUSY)
		umount2(mnt, MNT_DETACH);
}

/*
 * Make an ext4 of @size ("48M"; NULL: the whole device) on @devpath, with
 * bigalloc clusters of @cluster bytes unless 0, and mount it on
 * /mnt/<name>.  e2fsprogs' mke2fs is exec'd through PATH: busybox's shell
 * would prefer its own applet.
 */
/* Run @argv (NULL-terminated, found through PATH), which must exit 0. */
static void run_tool(const char *const *argv)
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

static const char *mkfs_mount_opts(const char *devpath, uint32_t cluster, const char *size,
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
static const char *mkfs_xfs_mount(const char *devpath, char *mnt, size_t len)
{
	const char *argv[] = { "mkfs.xfs", "-f", "-q", devpath, NULL };

	run_tool(argv);
	mkdir(mnt_of(devpath, mnt, len), 0755);
	assert_int_equal(mount(devpath, mnt, "xfs", 0, NULL), 0);
	return mnt;
}

static const char *mkfs_mount(const char *devpath, char *mnt, size_t len)
{
	return mkfs_mount_opts(devpath, 0, "48M", mnt, len);
}

static void census_written(int fd, uint64_t off, uint64_t len)
{
	struct prealloc_census c = { .size = sizeof(c) };

	assert_int_equal(prealloc_verify(fd, off, len, &c), 0);
	assert_true(c.fiemap);
	assert_int_equal(c.unwritten_bytes, 0);
	assert_int_equal(c.hole_bytes, 0);
	assert_int_equal(c.written_bytes, len);
}

#ifndef FALLOC_FL_WRITE_ZEROES
#define FALLOC_FL_WRITE_ZEROES 0x80	/* <linux/falloc.h> 6.17 */
#endif

/* The kernel's own answer for the filesystem at @mnt: the flag on a new
 * file (EOPNOTSUPP: this kernel, this filesystem or its device says no). */
static bool fs_takes_flag(const char *mnt)
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
static void check_fs_path(const char *devpath, const char *fs, bool edges)
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

static void check_ext4_path(const char *devpath, bool edges)
{
	check_fs_path(devpath, "ext4", edges);
}

static void check_ext4(const char *name, bool edges)
{
	check_ext4_path(need_dev(name), edges);
}

static void test_ext4_nvme512(void **s) { (void)s; check_ext4("nvme512", false); }
static void test_ext4_intelid(void **s) { (void)s; check_ext4("intelid", false); }
static void test_ext4_scsihd(void **s) { (void)s; check_ext4("scsihd", false); }
static void test_ext4_sdebug(void **s) { (void)s; check_ext4("sdebug", false); }
static void test_ext4_nloop(void **s) { (void)s; check_ext4("nloop", false); }
static void test_ext4_edges_nvme512(void **s) { (void)s; check_ext4("nvme512", true); }
static void test_ext4_edges_sdebug(void **s) { (void)s; check_ext4("sdebug", true); }
static void test_ext4_edges_nloop(void **s) { (void)s; check_ext4("nloop", true); }

/* ------------------------------------------------------------ xfs files */

/*
 * xfs takes FALLOC_FL_WRITE_ZEROES from Linux 7.3 on; the library asks the
 * kernel instead of knowing it.  These tests run when the binary is given
 * "xfs" (devices of more than 300 MB: scsi_debug dev_size_mb=512).  Where
 * the kernel takes the flag (fs_takes_flag()), the calls must use it for
 * every byte they zero; where not, fall back; either way keep every promise.
 */
static bool run_xfs;

static void need_xfs(void)
{
	if (!run_xfs)
		skip();
}

static void test_xfs_sdebug(void **s) { (void)s; need_xfs(); check_fs_path(need_dev("sdebug"), "xfs", true); }
static void test_xfs_nloop(void **s) { (void)s; need_xfs(); check_fs_path(need_dev("nloop"), "xfs", true); }

/* The last notice of a context's calls: why a method was refused. */
static char notice[512];

static void keep_notice(void *data, int priority, const char *file, int line, const char *fn,
			const char *format, va_list args)
{
	(void)data, (void)file, (void)line, (void)fn;
	if (priority == LOG_NOTICE)
		vsnprintf(notice, sizeof(notice), format, args);
}

static int open_new(const char *mnt, const char *name)
{
	char path[96];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", mnt, name);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	return fd;
}

static int call_ctx(struct prealloc_ctx *ctx, int fd, uint64_t off, uint64_t len,
		    unsigned int flags, prealloc_progress_fn progress, struct prealloc_report *r)
{
	struct prealloc_options o = { .size = sizeof(o), .flags = flags, .ctx = ctx,
				      .progress = progress };

	memset(r, 0, sizeof(*r));
	r->size = sizeof(*r);
	notice[0] = 0;
	return prealloc_file_ex(fd, off, len, &o, r);
}

static uint64_t wz_bytes(const struct prealloc_report *r)
{
	return r->bytes_by_method[PREALLOC_METHOD_WRITE_ZEROES];
}

static int cancel_at_once(uint64_t done, uint64_t total, void *data)
{
	(void)done, (void)total, (void)data;
	return 1;
}

/* What the context's probe of @fd says it learnt from the kernel. */
static void expect_asked(struct prealloc_ctx *ctx, int fd, const char *want)
{
	struct prealloc_options o = { .size = sizeof(o), .ctx = ctx };
	struct prealloc_probe *pr;
	const char *s = NULL, *why = NULL;
	int answer;

	assert_int_equal(prealloc_probe_new(fd, 0, 0, &o, &pr), 0);
	assert_int_equal(prealloc_probe_lookup(pr, "write_zeroes_asked", NULL, &s),
			 PREALLOC_FACT_STRING);
	answer = prealloc_probe_zeroing_offloaded(pr, &why);
	print_message("probe: write_zeroes_asked %s, zeroing_offloaded %d: %s\n", s, answer, why);
	assert_string_equal(s, want);
	prealloc_probe_free(pr);
}

/* Pool segments on xfs: made by the worker with the flag, written; the
 * context learnt the kernel's answer (@learnt) from the worker's call. */
static void xfs_pool(struct prealloc_ctx *ctx, const char *mnt, const char *learnt)
{
	struct prealloc_pool_config cfg = { .size = sizeof(cfg), .segment_size = 8 * MiB,
					    .target = 1, .ctx = ctx };
	struct prealloc_pool_stats st = { .size = sizeof(st) };
	struct prealloc_pool *pool;
	char dir[96], name[96];
	int fd;

	snprintf(dir, sizeof(dir), "%s/pool", mnt);
	snprintf(name, sizeof(name), "%s/wal1", mnt);
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(prealloc_pool_open(dir, &cfg, &pool), 0);
	assert_int_equal(prealloc_pool_wait_ready(pool, 1, -1), 0);
	fd = prealloc_pool_take(pool, AT_FDCWD, name, 0);
	assert_true(fd >= 0);
	assert_int_equal(prealloc_pool_get_stats(pool, &st), 0);
	print_message("pool: created %llu, bytes_zeroed %llu\n", (unsigned long long)st.created,
		      (unsigned long long)st.bytes_zeroed);
	census_written(fd, 0, 8 * MiB);
	expect_asked(ctx, fd, learnt);
	close(fd);
	prealloc_pool_close(pool);
}

/* Keep-size: beyond EOF a reservation only (the flag cannot keep the
 * size); inside EOF the flag, size unchanged.  @v: the flag's verdict. */
static void xfs_keep_size(struct prealloc_ctx *ctx, const char *mnt, uint32_t v)
{
	bool wz = v == PREALLOC_WZ_USED;
	struct prealloc_report r;
	struct stat st;
	int fd = open_new(mnt, "keep");

	assert_int_equal(call_ctx(ctx, fd, 0, 4 * MiB, PREALLOC_KEEP_SIZE, NULL, &r), 0);
	print_report("keep-size beyond EOF", &r);
	assert_int_equal(wz_bytes(&r), 0);
	expect_wz(&r, wz ? PREALLOC_WZ_KEEP_SIZE : v);
	assert_int_equal(r.bytes_reserved, 4 * MiB);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_size, 0);
	assert_int_equal(ftruncate(fd, 8 * MiB), 0);
	assert_int_equal(call_ctx(ctx, fd, 0, 8 * MiB, PREALLOC_KEEP_SIZE, NULL, &r), 0);
	print_report("keep-size inside EOF", &r);
	assert_int_equal(wz_bytes(&r), wz ? 8 * MiB : 0);
	expect_wz(&r, v);
	assert_true(r.written);
	census_written(fd, 0, 8 * MiB);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_size, 8 * MiB);
	close(fd);
}

/* Zero-data: the flag zeroes the data inside the range too, nothing
 * beside.  A refusal the context remembers is not asked again, and the
 * report says the same as when it was asked. */
static void xfs_zero_data(struct prealloc_ctx *ctx, const char *mnt, uint32_t v)
{
	bool wz = v == PREALLOC_WZ_USED;
	struct prealloc_report r;
	char path[96];
	int fd = open_new(mnt, "zd");

	fill(fd, 0, 4 * MiB, 0x5a);
	assert_int_equal(call_ctx(ctx, fd, MiB, 2 * MiB, PREALLOC_ZERO_DATA, NULL, &r), 0);
	print_report("zero-data", &r);
	assert_int_equal(r.bytes_zeroed, 2 * MiB);
	assert_int_equal(wz_bytes(&r), wz ? 2 * MiB : 0);
	expect_wz(&r, v);
	if (v == PREALLOC_WZ_FS_REFUSED)
		assert_false(r.refused & (1u << PREALLOC_METHOD_WRITE_ZEROES));
	census_written(fd, 0, 4 * MiB);
	close(fd);
	snprintf(path, sizeof(path), "%s/zd", mnt);
	expect_bytes(path, 0, MiB, 0x5a, false);
	expect_bytes(path, MiB, 2 * MiB, 0, false);
	expect_bytes(path, 3 * MiB, MiB, 0x5a, false);
}

/* A cancelled call is undone: size and blocks as before, space given back;
 * its report still says what it knew of the flag (@v: the verdict). */
static void xfs_cancel(struct prealloc_ctx *ctx, const char *mnt, uint32_t v)
{
	struct prealloc_report r;
	struct statfs a, b;
	struct stat st;
	int fd = open_new(mnt, "cancel");

	assert_int_equal(fsync(fd), 0);
	assert_int_equal(fstatfs(fd, &a), 0);
	assert_int_equal(call_ctx(ctx, fd, 0, 64 * MiB, 0, cancel_at_once, &r), -ECANCELED);
	print_report("cancelled", &r);
	if (v == PREALLOC_WZ_USED)	/* cancelled before or after its first chunk */
		assert_true(r.write_zeroes == PREALLOC_WZ_USED ||
			    r.write_zeroes == PREALLOC_WZ_WOULD_TRY);
	else
		expect_wz(&r, v);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_size, 0);
	assert_int_equal(st.st_blocks, 0);
	assert_int_equal(fstatfs(fd, &b), 0);
	print_message("cancelled: free blocks %llu before, %llu after\n",
		      (unsigned long long)a.f_bfree, (unsigned long long)b.f_bfree);
	assert_true(b.f_bfree + 16 >= a.f_bfree);	/* a few metadata blocks at most */
	close(fd);
}

/*
 * A file sharing its extents with another (FICLONE): xfs gives its shared
 * blocks copy-on-write writes, so the library never zeroes them in place,
 * but 7.3 takes the flag on the rest of such a file.  Whatever the kernel
 * answers, the call keeps its promises; a refusal is the file's, so the
 * next plain file still uses the flag.  What the kernel says to the flag
 * over the shared blocks themselves is printed.
 */
static void xfs_reflink(struct prealloc_ctx *ctx, const char *mnt, uint32_t v)
{
	bool wz = v == PREALLOC_WZ_USED;
	struct prealloc_report r;
	int src = open_new(mnt, "orig"), fd = open_new(mnt, "clone");
	char path[96];

	fill(src, 0, 64 * KiB, 0x5a);
	assert_int_equal(ioctl(fd, FICLONE, src), 0);
	close(src);
	assert_int_equal(call_ctx(ctx, fd, MiB, 8 * MiB, 0, NULL, &r), 0);
	print_report("reflinked file", &r);
	print_message("reflinked file: %s\n", notice[0] ? notice : "no notice");
	assert_true(r.written);
	census_written(fd, MiB, 8 * MiB);
	if (wz && (r.refused & (1u << PREALLOC_METHOD_WRITE_ZEROES))) {
		assert_non_null(strstr(notice, "shares extents with another (reflink)"));
		expect_wz(&r, PREALLOC_WZ_INODE);
	} else {
		assert_int_equal(wz_bytes(&r), wz ? 8 * MiB : 0);
		expect_wz(&r, v);
	}
	/* The kernel's own answer over shared blocks (printed); the other file
	 * must keep its data whatever it is. */
	print_message("reflinked file: FALLOC_FL_WRITE_ZEROES over its shared blocks: %s\n",
		      fallocate(fd, FALLOC_FL_WRITE_ZEROES, 0, 64 * KiB) ? strerror(errno) : "works");
	close(fd);
	snprintf(path, sizeof(path), "%s/orig", mnt);
	expect_bytes(path, 0, 64 * KiB, 0x5a, false);
	fd = open_new(mnt, "after-clone");
	assert_int_equal(call_ctx(ctx, fd, 0, 8 * MiB, 0, NULL, &r), 0);
	print_report("plain file after it", &r);
	assert_int_equal(wz_bytes(&r), wz ? 8 * MiB : 0);
	expect_wz(&r, v);
	close(fd);
}

/* xfs's always_cow debug knob (kernels with CONFIG_XFS_DEBUG only). */
static void xfs_always_cow(struct prealloc_ctx *ctx, const char *mnt, bool wz)
{
	const char *knob = "/sys/fs/xfs/debug/always_cow";
	struct prealloc_report r;
	FILE *f = fopen(knob, "we");
	int fd;

	if (!f) {
		print_message("%s: absent (no CONFIG_XFS_DEBUG): always-COW inodes not tested\n", knob);
		return;
	}
	fputs("1", f);
	fclose(f);
	fd = open_new(mnt, "always-cow");
	assert_int_equal(call_ctx(ctx, fd, 0, 8 * MiB, 0, NULL, &r), 0);
	print_report("always_cow", &r);
	f = fopen(knob, "we");
	assert_non_null(f);
	fputs("0", f);
	fclose(f);
	if (wz && (r.refused & (1u << PREALLOC_METHOD_WRITE_ZEROES))) {
		assert_non_null(strstr(notice, "always_cow"));
		expect_wz(&r, PREALLOC_WZ_INODE);
	}
	close(fd);
}

/* The header's promises on xfs, with the flag where the kernel takes it. */
static void check_xfs_calls(const char *devpath)
{
	struct prealloc_ctx *ctx;
	char mnt[64];
	uint32_t v;
	bool wz;
	int fd;

	mkfs_xfs_mount(devpath, mnt, sizeof(mnt));
	wz = kernel_unmap_zeroes(devpath) && fs_takes_flag(mnt);
	v = wz_verdict(devpath, wz);
	assert_int_equal(prealloc_ctx_new(NULL, 0, &ctx), 0);
	assert_int_equal(prealloc_ctx_set_log_fn(ctx, keep_notice, NULL), 0);
	assert_int_equal(prealloc_ctx_set_log_priority(ctx, LOG_NOTICE), 0);
	fd = open_new(mnt, "first");
	expect_asked(ctx, fd, "not asked");
	close(fd);
	/* A device that cannot unmap-zero is never asked. */
	xfs_pool(ctx, mnt, wz ? "works" : kernel_unmap_zeroes(devpath) ? "refused" : "not asked");
	xfs_keep_size(ctx, mnt, v);
	xfs_zero_data(ctx, mnt, v);
	xfs_cancel(ctx, mnt, v);
	xfs_reflink(ctx, mnt, v);
	xfs_always_cow(ctx, mnt, wz);
	prealloc_ctx_unref(ctx);
	assert_int_equal(umount(mnt), 0);
}

/*
 * A realtime file: xfs with its realtime section on the 4 KiB NVMe disk
 * (which cannot unmap-zero) in 64 KiB realtime extents, over the
 * unmap-zeroing scsi_debug disk.  The data device says yes, so the flag is
 * tried; the kernel refuses it for the realtime file, the call falls back
 * and says it was the file, and a plain file of the same filesystem still
 * gets the flag.
 */
static void test_xfs_realtime(void **state)
{
	const char *devpath = need_dev("sdebug"), *rt = need_dev("nvme4k");
	char rtopt[96], mnt[64], path[96];
	/* 4 KiB sectors: the realtime disk's logical blocks. */
	const char *argv[] = { "mkfs.xfs", "-f", "-q", "-s", "size=4096", "-r", rtopt, devpath,
			       NULL };
	struct prealloc_report r;
	struct prealloc_ctx *ctx;
	struct fsxattr fa;
	bool wz;
	int fd;

	(void)state;
	need_xfs();
	snprintf(rtopt, sizeof(rtopt), "rtdev=%s,extsize=65536", rt);
	run_tool(argv);
	snprintf(rtopt, sizeof(rtopt), "rtdev=%s", rt);
	mkdir(mnt_of(devpath, mnt, sizeof(mnt)), 0755);
	assert_int_equal(mount(devpath, mnt, "xfs", 0, rtopt), 0);
	wz = kernel_unmap_zeroes(devpath) && fs_takes_flag(mnt);
	assert_int_equal(prealloc_ctx_new(NULL, 0, &ctx), 0);
	assert_int_equal(prealloc_ctx_set_log_fn(ctx, keep_notice, NULL), 0);
	assert_int_equal(prealloc_ctx_set_log_priority(ctx, LOG_NOTICE), 0);
	fd = open_new(mnt, "rt");
	assert_int_equal(ioctl(fd, FS_IOC_FSGETXATTR, &fa), 0);
	fa.fsx_xflags |= FS_XFLAG_REALTIME;
	assert_int_equal(ioctl(fd, FS_IOC_FSSETXATTR, &fa), 0);
	assert_int_equal(call_ctx(ctx, fd, 0, 8 * MiB, 0, NULL, &r), 0);
	print_report("realtime file", &r);
	print_message("realtime file: %s\n", notice[0] ? notice : "no notice");
	assert_true(r.written);
	census_written(fd, 0, 8 * MiB);
	if (r.refused & (1u << PREALLOC_METHOD_WRITE_ZEROES)) {
		assert_non_null(strstr(notice, "on xfs's realtime device"));
		expect_wz(&r, PREALLOC_WZ_INODE);
	}
	if (wz)		/* 7.3: the flag is tried and refused for this file alone */
		expect_wz(&r, PREALLOC_WZ_INODE);
	close(fd);
	snprintf(path, sizeof(path), "%s/rt", mnt);
	expect_bytes(path, 0, 8 * MiB, 0, false);
	fd = open_new(mnt, "plain");
	assert_int_equal(call_ctx(ctx, fd, 0, 8 * MiB, 0, NULL, &r), 0);
	print_report("plain file beside it", &r);
	assert_int_equal(wz_bytes(&r), wz ? 8 * MiB : 0);
	expect_wz(&r, wz_verdict(devpath, wz));
	close(fd);
	prealloc_ctx_unref(ctx);
	assert_int_equal(umount(mnt), 0);
}

static void test_xfs_calls_sdebug(void **s) { (void)s; need_xfs(); check_xfs_calls(need_dev("sdebug")); }
static void test_xfs_calls_nloop(void **s) { (void)s; need_xfs(); check_xfs_calls(need_dev("nloop")); }

/* ------------------------------------------------------------ unprivileged */

/* Probe every device as nobody; returns the number of broken promises. */
static int probe_unprivileged(void)
{
	static const char *const names[] = { "nvme512", "nvme4k", "intelid", "scsihd",
					     "sdebug", "nloop" };
	int bad = 0;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const char *devpath = vm_dev(names[i]);
		const struct pa_caps *caps;
		struct probed p;
		struct stat st;

		if (!devpath || stat(devpath, &st))
			continue;
		p.n = pa_chain_walk(PA_SYSFS_MACHINE, st.st_rdev, p.devs, PA_CHAIN_MAX);
		if (p.n < 1) {
			printf("%s: chain walk %d as nobody\n", devpath, p.n);
			bad++;
			continue;
		}
		pa_chain_probe_transports(PA_SYSFS_MACHINE, true, p.devs, (size_t)p.n);
		for (int k = 0; k < p.n; k++) {
			const struct pa_device *d = &p.devs[k];

			if (d->transport == PA_TRANSPORT_NVME) {
				printf("%s: nobody: NVMe have ns %d ctrl %d (%s)\n", devpath,
				       d->nvme.have_ns, d->nvme.have_ctrl, d->nvme.reason);
				/* The node is root-only: Identify must be "unknown". */
				bad += d->nvme.have_ns || !d->nvme.reason[0];
			} else if (d->transport == PA_TRANSPORT_SCSI) {
				printf("%s: nobody: SCSI bl %d lbp %d rc16 %d via %s (%s)\n", devpath,
				       d->scsi.have_bl, d->scsi.have_lbp, d->scsi.have_rc16,
				       d->scsi.source, d->scsi.reason);
				/* VPD pages are world-readable in sysfs; RC16 needs the node. */
				bad += !d->scsi.have_lbp || d->scsi.have_rc16 || !d->scsi.reason[0];
			}
		}
		if (pa_caps_get(st.st_rdev, &caps)) {
			printf("%s: pa_caps_get failed as nobody\n", devpath);
			bad++;
			continue;
		}
		/* The verdict comes from world-readable sysfs: still the kernel's. */
		if (kernel_has_flag(devpath))
			bad += caps->write_zeroes_unmap != (kernel_unmap_zeroes(devpath) ? PREALLOC_YES : PREALLOC_NO);
		else
			bad += caps->write_zeroes_unmap != PREALLOC_UNKNOWN;
		pa_caps_put(caps);
	}
	return bad;
}

static void test_unprivileged(void **state)
{
	int status;
	pid_t pid;

	(void)state;
	if (!getenv("PA_VM_DEVICES"))
		skip();
	pa_caps_invalidate(0);
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
			_exit(100);
		pa_caps_invalidate(0);
		_exit(probe_unprivileged() ? 1 : 0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* ------------------------------------------------------------ speed */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void bench_one(const char *what, int fd, uint64_t off, uint64_t len,
		      unsigned int flags, unsigned int method)
{
	struct prealloc_report r;
	double t = now_s();

	assert_int_equal(prealloc_m(fd, off, len, flags, method, &r), 0);
	t = now_s() - t;
	print_message("BENCH %s %s: %llu MiB in %.3f s = %.1f MiB/s\n", what,
		      prealloc_method_name(method), (unsigned long long)(len / MiB), t,
		      (double)len / MiB / t);
	assert_int_equal(r.bytes_by_method[method], len);
}

/*
 * Zeroing speed of the kernel flag against the io_uring fallback on the
 * unmap-capable scsi_debug disk, raw and through ext4.  Printed, not
 * asserted: TCG makes absolute numbers meaningless, the ratio is the point.
 */
static void test_speed(void **state)
{
	const char *devpath = need_dev("sdebug");
	const uint64_t len = 32 * MiB;
	char mnt[64], path[80];
	int fd;

	(void)state;
	if (!kernel_unmap_zeroes(devpath))
		skip();
	fd = open(devpath, O_RDWR | O_CLOEXEC);
	assert_true(fd >= 0);
	for (int round = 0; round < 2; round++) {
		bench_one("raw", fd, 0, len, PREALLOC_ZERO_DATA | PREALLOC_FORCE,
			  PREALLOC_METHOD_WRITE_ZEROES);
		bench_one("raw", fd, 0, len, PREALLOC_ZERO_DATA | PREALLOC_FORCE,
			  PREALLOC_METHOD_URING);
	}
	close(fd);

	snprintf(path, sizeof(path), "%s/b", mkfs_mount(devpath, mnt, sizeof(mnt)));
	for (int round = 0; round < 2; round++) {
		static const unsigned int m[] = { PREALLOC_METHOD_WRITE_ZEROES, PREALLOC_METHOD_URING };

		for (int k = 0; k < 2; k++) {
			fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
			assert_true(fd >= 0);
			bench_one("ext4", fd, 0, 16 * MiB, 0, m[k]);
			close(fd);
			assert_int_equal(unlink(path), 0);
		}
	}
	assert_int_equal(umount(mnt), 0);
}

/* "bench=MIB,ROUNDS": the xfs speed comparison's call length and rounds. */
static unsigned int bench_mib = 16, bench_rounds = 1;

#define BENCH_MAX_ROUNDS 15

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median and quartiles of @n values (sorted in place). */
static void quartiles(double *v, unsigned int n, double q[3])
{
	qsort(v, n, sizeof(*v), cmp_double);
	q[0] = v[n / 4];
	q[1] = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	q[2] = v[(3 * n) / 4 < n ? (3 * n) / 4 : n - 1];
}

/*
 * The same call on a new xfs file, the library's choice against forced
 * io_uring, alternating, on the unmap-zeroing scsi_debug disk: times, their
 * ratio per round (median and quartiles) and the share of the bytes the
 * flag did.  Printed, not asserted.
 */
static void test_speed_xfs(void **state)
{
	const char *devpath = need_dev("sdebug");
	const uint64_t len = (uint64_t)bench_mib * MiB;
	double t[2][BENCH_MAX_ROUNDS], ratio[BENCH_MAX_ROUNDS], q[3], share = 1;
	static const unsigned int m[] = { PREALLOC_METHOD_AUTO, PREALLOC_METHOD_URING };
	struct prealloc_report r;
	char mnt[64], path[96];

	(void)state;
	need_xfs();
	mkfs_xfs_mount(devpath, mnt, sizeof(mnt));
	snprintf(path, sizeof(path), "%s/b", mnt);
	for (unsigned int i = 0; i < bench_rounds; i++) {
		for (unsigned int k = 0; k < 2; k++) {
			unsigned int kk = (k + i) % 2;	/* alternate which goes first */
			int fd = open_new(mnt, "b");
			double t0 = now_s();

			assert_int_equal(prealloc_m(fd, 0, len, 0, m[kk], &r), 0);
			t[kk][i] = now_s() - t0;
			close(fd);
			assert_int_equal(unlink(path), 0);
			sync();		/* xfs frees an unlinked file's blocks in the background */
			if (kk == 0 && (double)wz_bytes(&r) / (double)len < share)
				share = (double)wz_bytes(&r) / (double)len;
			print_message("BENCH xfs %s: %u MiB in %.3f s (%s %llu bytes)\n",
				      kk ? "forced uring" : "auto", bench_mib, t[kk][i],
				      prealloc_method_name(r.method),
				      (unsigned long long)r.bytes_by_method[r.method]);
		}
		ratio[i] = t[0][i] / t[1][i];
	}
	quartiles(t[0], bench_rounds, q);
	print_message("BENCH xfs %u MiB, %u rounds: auto median %.3f s (IQR %.3f-%.3f)", bench_mib,
		      bench_rounds, q[1], q[0], q[2]);
	quartiles(t[1], bench_rounds, q);
	print_message(", forced uring median %.3f s (IQR %.3f-%.3f)", q[1], q[0], q[2]);
	quartiles(ratio, bench_rounds, q);
	print_message(", time ratio auto/uring median %.4f (IQR %.4f-%.4f), write-zeroes share of "
		      "the auto calls' bytes at least %.4f\n", q[1], q[0], q[2], share);
	assert_int_equal(umount(mnt), 0);
}

/* Unmount what a failed test left mounted, so later tests can open the
 * devices exclusively. */
static int unmount_all(void **state)
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


/* ------------------------------------------------------------ atomic writes */

#ifndef RWF_ATOMIC
#define RWF_ATOMIC 0x00000040	/* <linux/fs.h> 6.11 */
#endif

/* Commits of the journal of ext4 on @devpath (/proc/fs/jbd2/<dev>-8/info). */
static unsigned long long jbd2_commits(const char *devpath)
{
	unsigned long long n = 0;
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/fs/jbd2/%s-8/info", strrchr(devpath, '/') + 1);
	f = fopen(path, "re");
	assert_non_null(f);
	assert_int_equal(fscanf(f, "%llu transactions", &n), 1);
	fclose(f);
	return n;
}

/*
 * RWF_ATOMIC writes of @unit bytes over [0, @len) of @path, each followed by
 * fdatasync as a database would: returns how many succeeded and sets
 * *@commits to the journal commits they cost.
 */
static unsigned int atomic_over(const char *devpath, const char *path, uint64_t len,
				uint32_t unit, unsigned long long *commits, int *err)
{
	uint8_t *buf = zbuf(unit);
	unsigned long long c0;
	unsigned int ok = 0;
	int fd = open(path, O_RDWR | O_DIRECT | O_CLOEXEC);

	assert_true(fd >= 0);
	memset(buf, 0x3c, unit);
	*err = 0;
	c0 = jbd2_commits(devpath);
	for (uint64_t off = 0; off < len; off += unit) {
		struct iovec iov = { buf, unit };
		ssize_t w = pwritev2(fd, &iov, 1, (off_t)off, RWF_ATOMIC);

		if (w != (ssize_t)unit) {
			*err = w < 0 ? errno : EIO;
			continue;
		}
		assert_int_equal(fdatasync(fd), 0);
		ok++;
	}
	*commits = jbd2_commits(devpath) - c0;
	close(fd);
	free(buf);
	return ok;
}

/* A number fact of a probe: of the target (@dev < 0) or of device @dev. */
static uint64_t fact(const struct prealloc_probe *pr, int dev, const char *name)
{
	uint64_t v = 0;
	int t = dev < 0 ? prealloc_probe_lookup(pr, name, &v, NULL) :
			  prealloc_probe_device_lookup(pr, (unsigned int)dev, name, &v, NULL);

	if (t != PREALLOC_FACT_BYTES && t != PREALLOC_FACT_NUMBER)
		fail_msg("fact %s of %d: type %d", name, dev, t);
	return v;
}

/*
 * scsi_debug with atomic_wr=1: the public probe reports the device's atomic
 * limits (its queue) and, for a file on ext4 with bigalloc clusters of the
 * atomic unit, the file's (statx); after prealloc_file() RWF_ATOMIC writes
 * of that unit succeed across the range.  The journal commits those writes
 * cost are printed next to the same writes into a fallocated (unwritten)
 * range.
 */
static void test_atomic(void **state)
{
	static const char *const q[] = { "atomic_write_unit_min_bytes", "atomic_write_unit_max_bytes",
					 "atomic_write_max_bytes", "atomic_write_boundary_bytes" };
	const uint64_t len = 2 * MiB;
	const char *devpath = need_dev("sdebug");
	struct prealloc_probe *pr;
	unsigned long long cp, cf;
	char mnt[64], a[96], b[96], name[64];
	unsigned int okp, okf, n = (unsigned int)(len / (64 * KiB));
	uint32_t unit;
	int fd, errp, errf;

	(void)state;
	if (sdebug_param("atomic_wr") != 1)
		skip();
	fd = open(devpath, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(prealloc_probe_new(fd, 0, 0, NULL, &pr), 0);
	close(fd);
	for (size_t i = 0; i < sizeof(q) / sizeof(q[0]); i++) {
		snprintf(name, sizeof(name), "queue.%s", q[i]);
		print_message("%s: %s %llu\n", devpath, name, (unsigned long long)fact(pr, 0, name));
		assert_int_equal(fact(pr, 0, name), queue_attr(devpath, q[i]));
	}
	assert_true(fact(pr, 0, "queue.atomic_write_unit_max_bytes") >= 64 * KiB);
	prealloc_probe_free(pr);

	unit = 64 * KiB;	/* the cluster: ext4 allows up to one cluster */
	mkfs_mount_opts(devpath, unit, "48M", mnt, sizeof(mnt));
	snprintf(a, sizeof(a), "%s/prealloc", mnt);
	snprintf(b, sizeof(b), "%s/fallocate", mnt);

	fd = open(a, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(prealloc_probe_new(fd, 0, 0, NULL, &pr), 0);
	print_message("%s: atomic_write.unit_min %llu unit_max %llu segments_max %llu\n", a,
		      (unsigned long long)fact(pr, -1, "atomic_write.unit_min"),
		      (unsigned long long)fact(pr, -1, "atomic_write.unit_max"),
		      (unsigned long long)fact(pr, -1, "atomic_write.segments_max"));
	assert_int_equal(fact(pr, -1, "atomic_write.unit_min"), 4096);
	assert_int_equal(fact(pr, -1, "atomic_write.unit_max"), unit);
	prealloc_probe_free(pr);
	assert_int_equal(prealloc_file(fd, 0, len, 0), 0);
	census_written(fd, 0, len);
	close(fd);
	fd = open(b, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(fallocate(fd, 0, 0, (off_t)len), 0);
	assert_int_equal(fsync(fd), 0);
	close(fd);
	sync();

	okp = atomic_over(devpath, a, len, unit, &cp, &errp);
	okf = atomic_over(devpath, b, len, unit, &cf, &errf);
	print_message("ATOMIC %u x %u KiB RWF_ATOMIC+fdatasync: preallocated %u ok (%s), %llu journal commits; "
		      "fallocated %u ok (%s), %llu journal commits\n", n, unit / 1024, okp,
		      errp ? strerror(errp) : "-", cp, okf, errf ? strerror(errf) : "-", cf);
	assert_int_equal(okp, n);
	expect_bytes(a, 0, len, 0x3c, false);
	assert_int_equal(umount(mnt), 0);
}

/* ------------------------------------------------------------ stacks */

/*
 * Stacks built in the guest over the devices above (tests/vm/stacks.c):
 * partition, dm-linear, dm-stripe, dm over a mixed pair, md raid0/raid1,
 * native NVMe multipath, a loop device over a file on a stack.  For each,
 * the probes' chain and verdict must be the kernel's view at the top device
 * and prealloc_file_ex() must keep its promises on the raw top device and on
 * an ext4 file on it, using the flag exactly when the kernel allows it.
 * They run only when the binary is given "stacks" (one guest does it).
 */

/* What the running stack test built; undone even when the test fails. */
static struct {
	char gpt_disk[64], part[64], dm[32], dmpath[64], md[64], loop[64];
} built;

static int stack_teardown(void **state)
{
	(void)state;
	if (built.loop[0]) {
		unmount_dev(built.loop);
		vm_loop_detach(built.loop);
	}
	if (built.md[0]) {
		unmount_dev(built.md);
		vm_md_stop(built.md);
	}
	if (built.dm[0]) {
		unmount_dev(built.dmpath);
		vm_dm_remove(built.dm);
	}
	if (built.gpt_disk[0]) {
		unmount_dev(built.part);
		vm_gpt_erase(built.gpt_disk);
	}
	memset(&built, 0, sizeof(built));
	return 0;
}

static uint64_t dev_sectors(const char *devpath)
{
	char buf[32];

	sys_str(devpath, "size", buf, sizeof(buf));
	assert_true(buf[0] != 0);
	return strtoull(buf, NULL, 10);
}

static void print_chain(const char *what, const struct probed *p)
{
	char line[512];
	size_t o = 0;

	for (int i = 0; i < p->n && o < sizeof(line); i++) {
		const struct pa_device *d = &p->devs[i];

		o += (size_t)snprintf(line + o, sizeof(line) - o, "%s%s:%s", i ? " " : "", d->name,
				      pa_role_name(d->role));
		if (d->parent >= 0 && o < sizeof(line))
			o += (size_t)snprintf(line + o, sizeof(line) - o, "<%s",
					      p->devs[d->parent].name);
	}
	print_message("%s: chain %s\n", what, line);
}

/* The chain and verdict of @top, then raw and ext4 preallocation on it. */
static void check_stack(const char *what, const char *top, struct probed *p, bool io)
{
	bool kwz;
	char ev[192];
	int v;

	probe(top, p);
	print_chain(what, p);
	check_verdict(top, p);
	v = pa_chain_verdict(p->devs, (size_t)p->n, &kwz, ev, sizeof(ev));
	if (io) {
		check_raw_path(top);
		check_ext4_path(top, true);
	}
	print_message("STACK %s | %s | verdict %s | kernel write_zeroes_unmap_max_bytes %llu | flag %s\n",
		      what, top, v == PREALLOC_YES ? "yes" : v == PREALLOC_NO ? "no" : "unknown",
		      (unsigned long long)queue_attr(top, "write_zeroes_unmap_max_bytes"),
		      !io ? "-" : kernel_unmap_zeroes(top) ? "used" : "not used (fallback)");
}

static void expect_child(const struct probed *p, int i, int parent, int role, const char *name)
{
	assert_true(i < p->n);
	assert_int_equal(p->devs[i].parent, parent);
	assert_int_equal(p->devs[i].role, role);
	if (name)
		assert_string_equal(p->devs[i].name, strrchr(name, '/') + 1);
}

/* A @role device over two disks. */
static void expect_pair(const struct probed *p, int role)
{
	assert_int_equal(p->n, 3);
	assert_int_equal(p->devs[0].role, role);
	expect_child(p, 1, 0, PA_ROLE_DISK, NULL);
	expect_child(p, 2, 0, PA_ROLE_DISK, NULL);
}

static bool run_stacks;		/* argv[1] == "stacks" */

static void need_stacks(void)
{
	if (!run_stacks)
		skip();
}

static void make_dm(const char *name, const struct vm_dm_target *t, size_t nt)
{
	snprintf(built.dm, sizeof(built.dm), "%s", name);
	assert_int_equal(vm_dm_create(name, t, nt, built.dmpath, sizeof(built.dmpath)), 0);
}

static void test_stack_gpt(void **state)
{
	const char *disk;
	struct probed p;

	(void)state;
	need_stacks();
	disk = need_dev("sdebug");
	snprintf(built.gpt_disk, sizeof(built.gpt_disk), "%s", disk);
	assert_int_equal(vm_gpt_partition(disk, MiB, dev_sectors(disk) * 512 - 2 * MiB,
					  built.part, sizeof(built.part)), 0);
	check_stack("gpt partition of sdebug", built.part, &p, true);
	assert_int_equal(p.n, 2);
	assert_int_equal(p.devs[0].role, PA_ROLE_PARTITION);
	assert_int_equal(p.devs[0].part_start, 2048);
	expect_child(&p, 1, 0, PA_ROLE_DISK, disk);
}

/* dm @name: all of @disk, linear. */
static void make_dm_linear(const char *name, const char *disk)
{
	char a[32];

	assert_int_equal(vm_devnum(disk, a, sizeof(a)), 0);
	const struct vm_dm_target t[] = { { 0, dev_sectors(disk), "linear", strcat(a, " 0") } };

	make_dm(name, t, 1);
}

static void test_stack_dm_linear(void **state)
{
	struct probed p;
	const char *disk;

	(void)state;
	need_stacks();
	disk = need_dev("sdebug");
	make_dm_linear("lin", disk);
	check_stack("dm-linear over sdebug", built.dmpath, &p, true);
	assert_int_equal(p.n, 2);
	assert_int_equal(p.devs[0].role, PA_ROLE_DM);
	assert_string_equal(p.devs[0].dm_name, "lin");
	expect_child(&p, 1, 0, PA_ROLE_DISK, disk);
}

/* dm-stripe, 64 KiB chunks, over @a and @b. */
static void check_dm_stripe(const char *what, const char *a, const char *b)
{
	char na[32], nb[32], params[96];
	uint64_t len = dev_sectors(a) < dev_sectors(b) ? dev_sectors(a) : dev_sectors(b);
	struct probed p;

	assert_int_equal(vm_devnum(a, na, sizeof(na)), 0);
	assert_int_equal(vm_devnum(b, nb, sizeof(nb)), 0);
	snprintf(params, sizeof(params), "2 128 %s 0 %s 0", na, nb);
	const struct vm_dm_target t[] = { { 0, 2 * (len - len % 128), "striped", params } };

	make_dm("stripe", t, 1);
	check_stack(what, built.dmpath, &p, true);
	expect_pair(&p, PA_ROLE_DM);
}

static void test_stack_dm_stripe(void **state)
{
	(void)state;
	need_stacks();
	check_dm_stripe("dm-stripe over sdebug+nloop", need_dev("sdebug"), need_dev("nloop"));
}

/* 32 MiB of an unmap-capable disk, then 32 MiB of one that cannot. */
static void test_stack_dm_mixed(void **state)
{
	char a[32], b[32];
	const char *yes, *no;
	struct probed p;

	(void)state;
	need_stacks();
	yes = need_dev("sdebug");
	no = need_dev("nvme512");
	assert_int_equal(vm_devnum(yes, a, sizeof(a)), 0);
	assert_int_equal(vm_devnum(no, b, sizeof(b)), 0);
	strcat(a, " 0");
	strcat(b, " 0");
	const struct vm_dm_target t[] = {
		{ 0, 65536, "linear", a },
		{ 65536, 65536, "linear", b },
	};

	make_dm("mixed", t, 2);
	check_stack("dm-linear over sdebug+nvme512", built.dmpath, &p, true);
	expect_pair(&p, PA_ROLE_DM);
}

static void check_md(const char *what, const char *name, int level, const char *a, const char *b)
{
	const char *devs[] = { a, b };
	char lvl[16];
	struct probed p;

	assert_int_equal(vm_md_create(name, level, devs, 2, 64, built.md, sizeof(built.md)), 0);
	check_stack(what, built.md, &p, true);
	expect_pair(&p, PA_ROLE_MD);
	snprintf(lvl, sizeof(lvl), "raid%d", level);
	assert_string_equal(p.devs[0].md_level, lvl);
}

static void test_stack_md_raid0(void **state)
{
	(void)state;
	need_stacks();
	check_md("md raid0 over sdebug+nloop", "md0", 0, need_dev("sdebug"), need_dev("nloop"));
}

static void test_stack_md_raid1(void **state)
{
	(void)state;
	need_stacks();
	check_md("md raid1 over sdebug+nloop", "md1", 1, need_dev("sdebug"), need_dev("nloop"));
}

static void test_stack_md_raid1_mixed(void **state)
{
	(void)state;
	need_stacks();
	check_md("md raid1 over sdebug+nvme512", "md2", 1, need_dev("sdebug"), need_dev("nvme512"));
}

/*
 * Native NVMe multipath: /init connects the nvme-loop subsystem twice, so
 * the namespace head has two paths.  The I/O tests of nloop ran on that
 * head already (test_raw_nloop, test_ext4_nloop); here the paths are
 * counted and the head's chain and verdict are checked.
 */
static void test_stack_multipath(void **state)
{
	char pattern[128], s[32];
	const char *head, *n;
	struct probed p;
	glob_t g;

	(void)state;
	need_stacks();
	head = need_dev("nloop");
	/* Head nvmeSnN, paths nvmeSc<controller>nN. */
	n = strrchr(head, 'n');
	snprintf(s, sizeof(s), "%.*s", (int)(n - strrchr(head, '/') - 1), strrchr(head, '/') + 1);
	snprintf(pattern, sizeof(pattern), "/sys/class/block/%sc*%s", s, n);
	assert_int_equal(glob(pattern, 0, NULL, &g), 0);
	print_message("%s: %zu paths (%s)\n", head, g.gl_pathc, pattern);
	assert_int_equal(g.gl_pathc, atoi(getenv("PA_VM_NLOOP_PATHS") ? getenv("PA_VM_NLOOP_PATHS") : "0"));
	assert_true(g.gl_pathc >= 2);
	globfree(&g);
	check_stack("nvme multipath (nloop, 2 paths)", head, &p, false);
	assert_int_equal(p.n, 1);
	assert_int_equal(p.devs[0].transport, PA_TRANSPORT_NVME);
}

/*
 * What the public probe says about the loop device: its chain reaches the
 * device under the backing file, the zeroing is not offloaded because of the
 * loop driver's own limit, and the plan for a zeroing request starts with a
 * writing method.
 */
static void check_loop_plan(const char *loop, const char *below)
{
	struct prealloc_options o = { .size = sizeof(o), .flags = PREALLOC_ZERO_DATA };
	struct prealloc_probe *pr;
	const char *why, *above;
	int fd = open(loop, O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(prealloc_probe_new(fd, 0, 4 * MiB, &o, &pr), 0);
	close(fd);
	assert_int_equal(prealloc_probe_device_count(pr), 3);
	assert_int_equal(prealloc_probe_device_lookup(pr, 1, "above", NULL, &above),
			 PREALLOC_FACT_STRING);
	assert_string_equal(above, strrchr(loop, '/') + 1);
	assert_int_equal(prealloc_probe_zeroing_offloaded(pr, &why), PREALLOC_NO);
	print_message("%s: offloaded no (%s); plan %s: %s\n", loop, why,
		      prealloc_method_name((unsigned int)prealloc_probe_plan(pr, 0)),
		      prealloc_probe_plan_reason(pr));
	assert_non_null(strstr(why, "loop driver; backing file on"));
	assert_non_null(strstr(why, strrchr(below, '/') + 1));
	assert_true(prealloc_probe_plan(pr, 0) != PREALLOC_METHOD_WRITE_ZEROES);
	prealloc_probe_free(pr);
}

/*
 * A loop device over a file on ext4 on dm-linear over the unmap-capable
 * disk: the chain goes loop -> dm -> disk; the verdict is the loop
 * driver's (6.18: no unmap zeroing) and preallocation on it, raw and through
 * ext4, falls back.
 */
static void test_stack_loop(void **state)
{
	const uint64_t size = 48 * MiB;
	char mnt[64], file[96];
	const char *disk;
	struct probed p;
	int fd;

	(void)state;
	need_stacks();
	disk = need_dev("sdebug");
	make_dm_linear("lower", disk);
	snprintf(file, sizeof(file), "%s/backing.img",
		 mkfs_mount_opts(built.dmpath, 0, NULL, mnt, sizeof(mnt)));
	fd = open(file, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(prealloc_file(fd, 0, size, 0), 0);
	close(fd);
	assert_int_equal(vm_loop_attach(file, built.loop, sizeof(built.loop)), 0);
	check_stack("loop over a file on ext4 on dm-linear over sdebug", built.loop, &p, true);
	check_loop_plan(built.loop, built.dmpath);
	assert_int_equal(p.n, 3);
	assert_int_equal(p.devs[0].role, PA_ROLE_LOOP);
	assert_string_equal(p.devs[0].backing_file, file);
	expect_child(&p, 1, 0, PA_ROLE_DM, built.dmpath);
	expect_child(&p, 2, 1, PA_ROLE_DISK, disk);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nvme512),
		cmocka_unit_test(test_nvme4k),
		cmocka_unit_test(test_intelid),
		cmocka_unit_test(test_nloop),
		cmocka_unit_test(test_scsihd),
		cmocka_unit_test(test_sdebug),
		cmocka_unit_test(test_unprivileged),
		cmocka_unit_test(test_raw_nvme512),
		cmocka_unit_test(test_raw_nvme4k),
		cmocka_unit_test(test_raw_intelid),
		cmocka_unit_test(test_raw_scsihd),
		cmocka_unit_test(test_raw_sdebug),
		cmocka_unit_test(test_raw_nloop),
		cmocka_unit_test_teardown(test_speed, unmount_all),
		cmocka_unit_test_teardown(test_speed_xfs, unmount_all),
		cmocka_unit_test_teardown(test_ext4_nvme512, unmount_all),
		cmocka_unit_test_teardown(test_ext4_intelid, unmount_all),
		cmocka_unit_test_teardown(test_ext4_scsihd, unmount_all),
		cmocka_unit_test_teardown(test_ext4_sdebug, unmount_all),
		cmocka_unit_test_teardown(test_ext4_nloop, unmount_all),
		cmocka_unit_test_teardown(test_ext4_edges_nvme512, unmount_all),
		cmocka_unit_test_teardown(test_ext4_edges_sdebug, unmount_all),
		cmocka_unit_test_teardown(test_ext4_edges_nloop, unmount_all),
		cmocka_unit_test_teardown(test_xfs_sdebug, unmount_all),
		cmocka_unit_test_teardown(test_xfs_nloop, unmount_all),
		cmocka_unit_test_teardown(test_xfs_calls_sdebug, unmount_all),
		cmocka_unit_test_teardown(test_xfs_calls_nloop, unmount_all),
		cmocka_unit_test_teardown(test_xfs_realtime, unmount_all),
		cmocka_unit_test_teardown(test_atomic, unmount_all),
		cmocka_unit_test_teardown(test_stack_gpt, stack_teardown),
		cmocka_unit_test_teardown(test_stack_dm_linear, stack_teardown),
		cmocka_unit_test_teardown(test_stack_dm_stripe, stack_teardown),
		cmocka_unit_test_teardown(test_stack_dm_mixed, stack_teardown),
		cmocka_unit_test_teardown(test_stack_md_raid0, stack_teardown),
		cmocka_unit_test_teardown(test_stack_md_raid1, stack_teardown),
		cmocka_unit_test_teardown(test_stack_md_raid1_mixed, stack_teardown),
		cmocka_unit_test_teardown(test_stack_multipath, stack_teardown),
		cmocka_unit_test_teardown(test_stack_loop, stack_teardown),
	};

	for (int i = 1; i < argc; i++) {
		run_stacks |= !strcmp(argv[i], "stacks");
		run_xfs |= !strcmp(argv[i], "xfs");
		if (!strncmp(argv[i], "only=", 5))	/* a glob of test names */
			cmocka_set_test_filter(argv[i] + 5);
		if (sscanf(argv[i], "bench=%u,%u", &bench_mib, &bench_rounds) == 2 &&
		    (!bench_mib || !bench_rounds || bench_rounds > BENCH_MAX_ROUNDS))
			return 2;
	}
	return cmocka_run_group_tests(tests, NULL, unmount_all);
}

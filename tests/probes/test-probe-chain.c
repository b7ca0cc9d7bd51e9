/* SPDX-License-Identifier: MIT */
/*
 * The chain walk, the verdict, the cache and the plan over sysfs trees
 * captured from real kernels (tests/probes/fixtures/sysfs), plus trees built
 * from their pieces (dm over two disks), and unprivileged probing.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "probes/caps.h"
#include "config.h"
#include "probes/chain.h"
#include "fake-io.h"
#include "src/plan/plan.h"
#include "probes/registry.h"
#include "src/call/context.h"
#include "tfs.h"

static char tmpdir[] = "/tmp/probe-chain-XXXXXX";

#define sh(...) assert_int_equal(tfs_sh(__VA_ARGS__), 0)

/* A fresh root $tmpdir/@name/sys holding the listed captured trees. */
static const char *make_root(const char *name, const char *const *tars)
{
	static char root[512];
	const char *fx = getenv("PROBE_FIXTURES");

	snprintf(root, sizeof(root), "%s/%s", tmpdir, name);
	sh("rm -rf '%s' && mkdir -p '%s'", root, root);
	for (; *tars; tars++)
		sh("tar -C '%s' -xJf '%s/sysfs/%s.tar.xz'", root, fx ? fx : "fixtures", *tars);
	strcat(root, "/sys");
	return root;
}

static void put(const char *dir, const char *attr, const char *val)
{
	sh("mkdir -p \"$(dirname '%s/%s')\" && printf '%%s\\n' '%s' > '%s/%s'", dir, attr, val, dir, attr);
}

/* A dm device 253:0 over @lower (sysfs dirs relative to @root), with its own
 * queue claiming unmap zeroing, as a dm table over mixed devices could. */
static void make_dm(const char *root, const char *const *lower)
{
	char dm[600], q[700];

	snprintf(dm, sizeof(dm), "%s/devices/virtual/block/dm-0", root);
	snprintf(q, sizeof(q), "%s/queue", dm);
	put(dm, "dev", "253:0");
	put(dm, "size", "131072");
	put(dm, "dm/name", "vg-data");
	put(q, "logical_block_size", "512");
	put(q, "write_zeroes_max_bytes", "1044480");
	put(q, "write_zeroes_unmap_max_hw_bytes", "1044480");
	put(q, "write_zeroes_unmap_max_bytes", "1044480");
	sh("mkdir -p '%s/slaves' '%s/dev/block' && ln -s ../../devices/virtual/block/dm-0 '%s/dev/block/253:0'",
	   dm, root, root);
	for (; *lower; lower++)
		sh("ln -s '%s/%s' '%s/slaves/'", root, *lower, dm);
}

static int walk(const char *root, unsigned int ma, unsigned int mi, struct pa_device *d)
{
	return pa_chain_walk(root, makedev(ma, mi), d, PA_CHAIN_MAX);
}

static int verdict(struct pa_device *d, int n, bool *kwz, char *ev)
{
	return pa_chain_verdict(d, (size_t)n, kwz, ev, 192);
}

static void partition_to_disk(void **state)
{
	static const char *const t[] = { "qemu-nvme-512-6.18", NULL };
	const char *root = make_root("part", t);
	struct pa_device d[PA_CHAIN_MAX];
	char ev[192];
	bool kwz;
	int n;

	(void)state;
	n = walk(root, 259, 4, d);
	assert_int_equal(n, 2);
	assert_string_equal(d[0].name, "nvme0n1p1");
	assert_int_equal(d[0].role, PA_ROLE_PARTITION);
	assert_int_equal(d[0].part_start, 2048);
	assert_int_equal(d[0].size_sectors, 16384);
	assert_string_equal(d[1].name, "nvme0n1");
	assert_int_equal(d[1].role, PA_ROLE_DISK);
	assert_int_equal(d[1].parent, 0);
	assert_int_equal(d[1].transport, PA_TRANSPORT_NVME);
	assert_string_equal(pa_transport_name(d[1].transport), "nvme");
	assert_int_equal(d[1].queue[PA_Q_WRITE_ZEROES_MAX_BYTES], 524288);
	assert_int_equal(d[1].queue[PA_Q_WRITE_ZEROES_UNMAP_MAX_HW_BYTES], 0);
	/* The partition reports its disk's queue. */
	assert_int_equal(d[0].queue[PA_Q_LOGICAL_BLOCK_SIZE], 512);
	assert_int_equal(verdict(d, n, &kwz, ev), PREALLOC_NO);
	assert_true(kwz);
	assert_string_equal(ev, "nvme0n1: queue/write_zeroes_unmap_max_hw_bytes = 0");
	assert_int_equal(walk(root, 259, 77, d), -ENOENT);
}

static void old_kernel_unknown(void **state)
{
	static const char *const t[] = { "qemu-nvme-512-6.1", NULL };
	const char *root = make_root("old", t);
	struct pa_device d[PA_CHAIN_MAX];
	char ev[192];
	bool kwz = true;
	int n;

	(void)state;
	n = walk(root, 259, 0, d);
	assert_true(n >= 1);
	assert_true(d[0].queue[PA_Q_WRITE_ZEROES_UNMAP_MAX_HW_BYTES] == PA_Q_ABSENT);
	assert_true(d[0].queue[PA_Q_WRITE_ZEROES_MAX_BYTES] == 524288);
	assert_int_equal(verdict(d, n, &kwz, ev), PREALLOC_UNKNOWN);
	assert_false(kwz);
	assert_non_null(strstr(ev, "kernel older than 6.17"));
	/* The transport's hint (struct pa_prober.hint) says what the device would do. */
	d[0].transport = PA_TRANSPORT_NVME;
	d[0].nvme.have_ns = true;
	d[0].nvme.ns.dlfeat = 0x01;
	d[0].nvme.unmap_zeroes = false;
	assert_int_equal(verdict(d, n, &kwz, ev), PREALLOC_UNKNOWN);
	assert_non_null(strstr(ev, "6.17; nvme0n1: DLFEAT 0x01 would not allow it"));
}

static void nvme_loop_yes(void **state)
{
	static const char *const t[] = { "nvme-loop-over-scsi-debug-6.18", NULL };
	struct pa_nvme_io io = { fake_identify, (void *)"nvme-loop-over-scsi-debug-6.18" };
	const char *root = make_root("nvmeloop", t);
	struct pa_device d[PA_CHAIN_MAX];
	char ev[192];
	bool kwz;
	int n;

	(void)state;
	n = walk(root, 259, 1, d);
	assert_int_equal(n, 1);
	pa_probe_set_io(PA_TRANSPORT_NVME, &io);
	pa_chain_probe_transports(root, false, d, (size_t)n);
	pa_probe_set_io(PA_TRANSPORT_NVME, NULL);
	if (HAVE_LIBNVME) {
		assert_true(d[0].nvme.have_ns && d[0].nvme.have_ctrl && d[0].nvme.have_nvm);
		assert_int_equal(d[0].nvme.ns.dlfeat, 9);
		assert_int_equal(d[0].nvme.ctrl.oncs, 0x2c);
		assert_string_equal(d[0].nvme.reason, "");
	} else {
		/* The bytes arrive, but decoding needs libnvme's structs. */
		assert_false(d[0].nvme.have_ns);
		assert_non_null(strstr(d[0].nvme.reason, "built without"));
	}
	assert_int_equal(verdict(d, n, &kwz, ev), PREALLOC_YES);
	assert_string_equal(ev, "nvme0n1: queue/write_zeroes_unmap_max_bytes = 1044480");

	/* No seam and a captured tree: no ioctl, an unknown with its reason. */
	pa_chain_probe_transports(root, false, d, (size_t)n);
	assert_false(d[0].nvme.have_ns);
	assert_non_null(strstr(d[0].nvme.reason, "no device node"));
}

static void scsi_sysfs_vpd(void **state)
{
	static const char *const t[] = { "scsi-debug-lbprz1-6.18", NULL };
	struct pa_scsi_io io = { fake_vpd, fake_rc16, (void *)"scsi/scsi-debug-lbprz1-6.18-readcap16.bin" };
	const char *root = make_root("scsi", t);
	struct pa_device d[PA_CHAIN_MAX];
	char ev[192];
	bool kwz;
	int n;

	(void)state;
	n = walk(root, 8, 0, d);
	assert_int_equal(n, 1);
	assert_int_equal(d[0].transport, PA_TRANSPORT_SCSI);
	pa_probe_set_io(PA_TRANSPORT_SCSI, &io);
	pa_chain_probe_transports(root, false, d, (size_t)n);
	pa_probe_set_io(PA_TRANSPORT_SCSI, NULL);
	assert_true(d[0].scsi.have_bl && d[0].scsi.have_lbp && d[0].scsi.have_rc16);
	assert_string_equal(d[0].scsi.source, "sysfs");
	assert_int_equal(d[0].scsi.zeroing_mode, PA_SCSI_ZERO_WS16_UNMAP);
	assert_string_equal(d[0].scsi.kernel_zeroing_mode, "writesame_16_unmap");
	assert_int_equal(verdict(d, n, &kwz, ev), PREALLOC_YES);

	/* Without a seam: VPD from sysfs still, READ CAPACITY(16) unknown. */
	pa_chain_probe_transports(root, false, d, (size_t)n);
	assert_true(d[0].scsi.have_lbp);
	assert_false(d[0].scsi.have_rc16);
	assert_non_null(strstr(d[0].scsi.reason, "READ CAPACITY(16)"));
	assert_int_equal(d[0].scsi.zeroing_mode, PA_SCSI_ZERO_WS16_UNMAP);
}

/* dm-0 over two captured disks: the stack can only if both can. */
static void check_dm(const char *name, const char *const *trees, const char *const *lower,
		     int want, const char *want_ev)
{
	const char *root = make_root(name, trees);
	struct pa_device d[PA_CHAIN_MAX];
	char ev[192];
	bool kwz;
	int n;

	make_dm(root, lower);
	n = walk(root, 253, 0, d);
	assert_int_equal(n, 3);
	assert_int_equal(d[0].role, PA_ROLE_DM);
	assert_string_equal(d[0].dm_name, "vg-data");
	assert_int_equal(d[1].parent, 0);
	assert_int_equal(d[2].parent, 0);
	assert_int_equal(d[1].depth, 1);
	assert_int_equal(verdict(d, n, &kwz, ev), want);
	assert_string_equal(ev, want_ev);
}

static void dm_one_lower_cannot(void **state)
{
	static const char *const t[] = { "scsi-debug-lbprz1-6.18", "qemu-nvme-512-6.18", NULL };
	static const char *const lower[] = {
		"devices/pseudo_0/adapter0/host0/target0:0:0/0:0:0:0/block/sda",
		"devices/pci0000:00/0000:00:02.0/nvme/nvme0/nvme0n1", NULL };

	(void)state;
	/* dm-0 claims it can; nvme0n1 below cannot: the stack cannot. */
	check_dm("dm-mixed", t, lower, PREALLOC_NO, "nvme0n1: queue/write_zeroes_unmap_max_hw_bytes = 0");
}

static void dm_all_lower_can(void **state)
{
	static const char *const t[] = { "scsi-debug-lbprz1-6.18", "nvme-loop-over-scsi-debug-6.18", NULL };
	static const char *const lower[] = {
		"devices/pseudo_0/adapter0/host0/target0:0:0/0:0:0:0/block/sda",
		"devices/virtual/nvme-subsystem/nvme-subsys0/nvme0n1", NULL };

	(void)state;
	check_dm("dm-yes", t, lower, PREALLOC_YES, "dm-0: queue/write_zeroes_unmap_max_bytes = 1044480, "
		 "and every device below allows it");
}

static void loop_captured(void **state)
{
	static const char *const t[] = { "sysfs-6.18.44-fc-v669", NULL };
	const char *root = make_root("loop", t);
	struct pa_device d[PA_CHAIN_MAX];
	char ev[192];
	bool kwz;
	int n;

	(void)state;
	n = walk(root, 7, 0, d);
	assert_int_equal(n, 1);
	assert_int_equal(d[0].role, PA_ROLE_LOOP);
	assert_string_equal(pa_role_name(d[0].role), "loop");
	assert_true(d[0].backing_file[0] == '/');
	assert_int_equal(d[0].loop_dio, 0);
	assert_int_equal(verdict(d, n, &kwz, ev), PREALLOC_NO);
	assert_string_equal(ev, "loop0: queue/write_zeroes_unmap_max_hw_bytes = 0");
	/* A partition of the loop device walks up to it. */
	n = walk(root, 259, 0, d);
	assert_int_equal(n, 2);
	assert_int_equal(d[0].role, PA_ROLE_PARTITION);
	assert_int_equal(d[1].role, PA_ROLE_LOOP);
	/* vda: a virtio disk, no NVMe or SCSI transport. */
	n = walk(root, 254, 0, d);
	assert_int_equal(n, 1);
	assert_int_equal(d[0].transport, PA_TRANSPORT_NONE);
	assert_null(pa_transport_name(d[0].transport));
}

/* A block device @name (sysfs dir devices/virtual/block/@name) with @dev and
 * the queue limits a loop device or an unmap-zeroing disk has on 6.18. */
static void make_blockdev(const char *root, const char *name, dev_t dev, const char *wz_unmap)
{
	char dir[600], q[700], num[32];

	snprintf(dir, sizeof(dir), "%s/devices/virtual/block/%s", root, name);
	snprintf(q, sizeof(q), "%s/queue", dir);
	snprintf(num, sizeof(num), "%u:%u", major(dev), minor(dev));
	put(dir, "dev", num);
	put(dir, "size", "131072");
	put(q, "logical_block_size", "512");
	put(q, "write_zeroes_max_bytes", "1044480");
	put(q, "write_zeroes_unmap_max_hw_bytes", wz_unmap);
	put(q, "write_zeroes_unmap_max_bytes", wz_unmap);
	sh("mkdir -p '%s/dev/block' && ln -sfn ../../devices/virtual/block/%s '%s/dev/block/%s'",
	   root, name, root, num);
}

/*
 * loop0 over a file: the walk follows the backing file (a real file here,
 * looked up like the kernel's path) down to the device holding it, found
 * by the file's st_dev in the tree.  The verdict stays the loop driver's.
 */
static void loop_backing_followed(void **state)
{
	char root[512], file[600], loopdir[700];
	struct pa_device d[PA_CHAIN_MAX];
	const struct pa_caps *c;
	struct stat st;
	char ev[192];
	bool kwz;
	int n;

	(void)state;
	snprintf(root, sizeof(root), "%s/loopfile/sys", tmpdir);
	snprintf(file, sizeof(file), "%s/loopfile/backing.img", tmpdir);
	sh("mkdir -p '%s' && : > '%s'", root, file);
	assert_int_equal(stat(file, &st), 0);
	assert_true(major(st.st_dev) != 7);	/* the tree's loop0 is 7:0 */
	make_blockdev(root, "loop0", makedev(7, 0), "0");
	make_blockdev(root, "under", st.st_dev, "1044480");
	snprintf(loopdir, sizeof(loopdir), "%s/devices/virtual/block/loop0", root);
	put(loopdir, "loop/backing_file", file);
	put(loopdir, "loop/dio", "1");
	put(loopdir, "queue/atomic_write_unit_min_bytes", "4096");
	put(loopdir, "queue/atomic_write_unit_max_bytes", "65536");
	put(loopdir, "queue/atomic_write_max_bytes", "131072");
	put(loopdir, "queue/atomic_write_boundary_bytes", "0");

	n = walk(root, 7, 0, d);
	assert_int_equal(n, 2);
	assert_int_equal(d[0].role, PA_ROLE_LOOP);
	assert_string_equal(d[0].backing_file, file);
	assert_int_equal(d[0].loop_dio, 1);
	assert_string_equal(d[1].name, "under");
	assert_int_equal(d[1].dev, st.st_dev);
	assert_int_equal(d[1].parent, 0);
	assert_int_equal(d[1].depth, 1);
	assert_int_equal(d[1].queue[PA_Q_WRITE_ZEROES_UNMAP_MAX_BYTES], 1044480);
	/* The device beneath could; the loop driver cannot, and it decides. */
	assert_int_equal(verdict(d, n, &kwz, ev), PREALLOC_NO);
	assert_string_equal(ev, "loop0: queue/write_zeroes_unmap_max_hw_bytes = 0 "
			    "(loop driver; backing file on under)");

	/* The atomic write limits are read with the other queue limits. */
	assert_int_equal(d[0].queue[PA_Q_ATOMIC_WRITE_UNIT_MIN_BYTES], 4096);
	assert_int_equal(d[0].queue[PA_Q_ATOMIC_WRITE_UNIT_MAX_BYTES], 65536);
	assert_int_equal(d[0].queue[PA_Q_ATOMIC_WRITE_MAX_BYTES], 131072);
	assert_int_equal(d[0].queue[PA_Q_ATOMIC_WRITE_BOUNDARY_BYTES], 0);
	assert_true(d[1].queue[PA_Q_ATOMIC_WRITE_UNIT_MAX_BYTES] == PA_Q_ABSENT);
	/* The record carries the whole chain. */
	setenv("PREALLOC_SYSFS_ROOT", root, 1);
	pa_caps_invalidate(0);
	assert_int_equal(pa_caps_get(makedev(7, 0), &c), 0);
	assert_int_equal(c->ndevices, 2);
	assert_int_equal(c->write_zeroes_unmap, PREALLOC_NO);
	pa_caps_put(c);
	unsetenv("PREALLOC_SYSFS_ROOT");

	/* A filesystem without a block device under it (tmpfs, btrfs): the
	 * chain ends at the loop device. */
	sh("rm '%s/dev/block/%u:%u'", root, major(st.st_dev), minor(st.st_dev));
	assert_int_equal(walk(root, 7, 0, d), 1);
	/* So does a backing file that is gone (deleted, other namespace). */
	make_blockdev(root, "under", st.st_dev, "1044480");
	assert_int_equal(walk(root, 7, 0, d), 2);
	assert_int_equal(unlink(file), 0);
	n = walk(root, 7, 0, d);
	assert_int_equal(n, 1);
	assert_int_equal(verdict(d, n, &kwz, ev), PREALLOC_NO);
	assert_string_equal(ev, "loop0: queue/write_zeroes_unmap_max_hw_bytes = 0");
}

/* The partition tree the CLI and the lead's tests use (make-tree.sh). */
static void make_tree_script(void **state)
{
	char out[600];
	const char *scripts = getenv("PROBE_SCRIPTS");
	struct pa_device d[PA_CHAIN_MAX];
	char ev[192];
	bool kwz;
	int n;

	(void)state;
	snprintf(out, sizeof(out), "%s/made", tmpdir);
	sh("'%s/make-tree.sh' 7:3 '%s' >/dev/null", scripts ? scripts : ".", out);
	strcat(out, "/sys");
	n = walk(out, 7, 3, d);
	assert_int_equal(n, 2);
	assert_string_equal(d[0].name, "nvme0n1p1");
	assert_string_equal(d[1].name, "nvme0n1");
	assert_int_equal(verdict(d, n, &kwz, ev), PREALLOC_YES);
}

static void caps_cache_and_plan(void **state)
{
	static const char *const ty[] = { "nvme-loop-over-scsi-debug-6.18", NULL };
	static const char *const tn[] = { "qemu-nvme-512-6.18", NULL };
	char yes[512], no[512];
	const struct pa_caps *a, *b, *c;
	struct pa_plan_input in = { .target = PA_TARGET_FILE, .device_facts = true };
	struct pa_plan plan;

	(void)state;
	snprintf(yes, sizeof(yes), "%s", make_root("cache-yes", ty));
	snprintf(no, sizeof(no), "%s", make_root("cache-no", tn));

	setenv("PREALLOC_SYSFS_ROOT", yes, 1);
	assert_int_equal(pa_caps_get(makedev(259, 1), &a), 0);
	assert_int_equal(a->write_zeroes_unmap, PREALLOC_YES);
	assert_true(a->kernel_write_zeroes);
	assert_int_equal(a->write_zeroes_max_bytes, 1044480);
	assert_int_equal(a->ndevices, 1);
	assert_int_equal(pa_caps_get(makedev(259, 1), &b), 0);
	assert_ptr_equal(a, b);		/* from the cache */
	pa_caps_put(b);

	in.write_zeroes_unmap = a->write_zeroes_unmap;
	in.kernel_write_zeroes = a->kernel_write_zeroes;
	assert_int_equal(pa_plan(&in, &plan), 0);
	assert_int_equal(plan.methods[0], PREALLOC_METHOD_WRITE_ZEROES);

	/* Invalidation: a new record; the old one stays valid for its holder. */
	pa_caps_invalidate(makedev(259, 1));
	assert_int_equal(pa_caps_get(makedev(259, 1), &b), 0);
	assert_ptr_not_equal(a, b);
	assert_int_equal(a->write_zeroes_unmap, PREALLOC_YES);
	pa_caps_put(a);
	pa_caps_put(b);

	/* Another sysfs root: the cache follows it. */
	setenv("PREALLOC_SYSFS_ROOT", no, 1);
	assert_int_equal(pa_caps_get(makedev(259, 0), &c), 0);
	assert_int_equal(c->write_zeroes_unmap, PREALLOC_NO);
	assert_non_null(strstr(c->evidence, "write_zeroes_unmap_max_hw_bytes = 0"));
	in.write_zeroes_unmap = c->write_zeroes_unmap;
	assert_int_equal(pa_plan(&in, &plan), 0);
	assert_int_equal(plan.methods[0], PREALLOC_METHOD_URING);
	pa_caps_put(c);
	assert_int_equal(pa_caps_get(makedev(259, 1), &c), -ENOENT);
	assert_int_equal(pa_caps_get(makedev(0, 42), &c), -ENOENT);
	assert_int_equal(pa_caps_get(makedev(0, 42), NULL), -EINVAL);
	unsetenv("PREALLOC_SYSFS_ROOT");
}

/* As nobody: the probe still succeeds, what needs privilege is unknown. */
static void unprivileged(void **state)
{
	static const char *const t[] = { "nvme-loop-over-scsi-debug-6.18", NULL };
	const char *root = make_root("unpriv", t);
	int status;
	pid_t pid;

	(void)state;
	sh("chmod -R a+rX '%s'", tmpdir);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct pa_nvme_io io = { fake_identify, (void *)"errno:13" };
		const struct pa_caps *c;
		struct stat st;

		if (getuid() == 0 && setuid(65534) < 0)
			_exit(10);
		/* The real /sys for a real file. */
		unsetenv("PREALLOC_SYSFS_ROOT");
		if (stat("/", &st) < 0)
			_exit(11);
		int r = pa_caps_get(st.st_dev, &c);
		if (r == 0)
			pa_caps_put(c);
		else if (r != -ENOENT)
			_exit(12);
		/* An NVMe device refusing Identify (EACCES): unknown, not an error. */
		setenv("PREALLOC_SYSFS_ROOT", root, 1);
		pa_probe_set_io(PA_TRANSPORT_NVME, &io);
		if (pa_caps_get(makedev(259, 1), &c) != 0)
			_exit(13);
		if (c->devices[0].nvme.have_ns || !strstr(c->devices[0].nvme.reason, "Permission denied"))
			_exit(14);
		if (c->write_zeroes_unmap != PREALLOC_YES)
			_exit(15);
		pa_caps_put(c);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return tfs_rmtree(tmpdir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(partition_to_disk),
		cmocka_unit_test(old_kernel_unknown),
		cmocka_unit_test(nvme_loop_yes),
		cmocka_unit_test(scsi_sysfs_vpd),
		cmocka_unit_test(dm_one_lower_cannot),
		cmocka_unit_test(dm_all_lower_can),
		cmocka_unit_test(loop_captured),
		cmocka_unit_test(loop_backing_followed),
		cmocka_unit_test(make_tree_script),
		cmocka_unit_test(caps_cache_and_plan),
		cmocka_unit_test(unprivileged),
	};

	unsetenv("PREALLOC_SYSFS_ROOT");
	return cmocka_run_group_tests(tests, setup, teardown);
}

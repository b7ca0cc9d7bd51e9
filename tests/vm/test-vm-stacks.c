/* SPDX-License-Identifier: MIT */
/*
 * Block-device stacks built in the guest (tests/vm/stacks.h, guest.h),
 * given "stacks": partition, device-mapper, md, native NVMe multipath and
 * loop devices, each probed and preallocated on, raw and through ext4.
 */
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>

#include "stacks.h"
#include "guest.h"

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

	vm_args(argc, argv);
	return cmocka_run_group_tests_name("test-vm-stacks", tests, NULL, unmount_all);
}

/* SPDX-License-Identifier: MIT */
/*
 * The probes against the guest's real drivers (tests/vm/guest.h): the NVMe
 * Identify data of QEMU's controllers and of nvme-loop, the SCSI VPD pages
 * and READ CAPACITY(16) of QEMU's scsi-hd and scsi_debug, each device's
 * verdict on FALLOC_FL_WRITE_ZEROES against the kernel's own queue limits,
 * what the probes still know as nobody, and that probing a device node the
 * caller holds a record lock on leaves the lock alone.
 */
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "probes/caps.h"
#include "base/sysfs_root.h"
#include "src/call/context.h"
#include "guest.h"
#include "tcheck.h"

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

/* ----------------------------------------------------------- caller's locks */

/* The transport probers open the device node (NVMe Identify, SCSI READ
 * CAPACITY); a close in the caller's file table would drop the caller's
 * record locks on it. */
static void test_probe_keeps_locks(void **state)
{
	static const char *const names[] = { "nvme512", "scsihd", "sdebug", "nloop" };
	int probed = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const char *devpath = vm_dev(names[i]);
		struct flock l = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_len = 4096 };
		struct prealloc_probe *p;
		int fd;

		if (!devpath)
			continue;
		fd = open(devpath, O_RDWR | O_CLOEXEC);
		assert_true(fd >= 0);
		assert_int_equal(fcntl(fd, F_SETLK, &l), 0);
		pa_caps_invalidate(0);		/* probe afresh: open the node */
		assert_int_equal(prealloc_probe_new(fd, 0, 1 << 20, NULL, &p), 0);
		prealloc_probe_free(p);
		assert_int_equal(tc_lock_holder(devpath, 0, 4096), getpid());
		close(fd);
		probed++;
	}
	if (!probed)
		skip();
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
		cmocka_unit_test(test_probe_keeps_locks),
	};

	vm_args(argc, argv);
	return cmocka_run_group_tests_name("test-vm-probes", tests, NULL, unmount_all);
}

/* SPDX-License-Identifier: MIT */
/*
 * Zeroing on the guest's raw block devices (tests/vm/guest.h): on each of
 * NVMe (512 B and 4 KiB blocks, the Intel-id quirk), QEMU scsi-hd,
 * scsi_debug and nvme-loop, prealloc_file_ex() uses FALLOC_FL_WRITE_ZEROES
 * exactly when the kernel allows unmap zeroing and otherwise falls back to
 * a zeroing method (BLKZEROOUT, io_uring or buffered writes); a forced flag
 * works or is refused, and the report says why.
 */
#include <string.h>

#include "guest.h"

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

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_raw_nvme512),
		cmocka_unit_test(test_raw_nvme4k),
		cmocka_unit_test(test_raw_intelid),
		cmocka_unit_test(test_raw_scsihd),
		cmocka_unit_test(test_raw_sdebug),
		cmocka_unit_test(test_raw_nloop),
	};

	vm_args(argc, argv);
	return cmocka_run_group_tests_name("test-vm-blockdev", tests, NULL, unmount_all);
}

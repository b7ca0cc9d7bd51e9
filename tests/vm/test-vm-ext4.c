/* SPDX-License-Identifier: MIT */
/*
 * Files on ext4 over each of the guest's devices (tests/vm/guest.h): a file
 * with data and an unwritten extent preallocated (and, with edges, extended
 * unaligned beyond EOF) is written everywhere, keeps its data and reads
 * zero elsewhere, also after a remount; the kernel flag is used exactly
 * when ext4 takes it on a new file over a device that unmap-zeroes.
 */
#include <string.h>

#include "guest.h"

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

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_ext4_nvme512, unmount_all),
		cmocka_unit_test_teardown(test_ext4_intelid, unmount_all),
		cmocka_unit_test_teardown(test_ext4_scsihd, unmount_all),
		cmocka_unit_test_teardown(test_ext4_sdebug, unmount_all),
		cmocka_unit_test_teardown(test_ext4_nloop, unmount_all),
		cmocka_unit_test_teardown(test_ext4_edges_nvme512, unmount_all),
		cmocka_unit_test_teardown(test_ext4_edges_sdebug, unmount_all),
		cmocka_unit_test_teardown(test_ext4_edges_nloop, unmount_all),
	};

	vm_args(argc, argv);
	return cmocka_run_group_tests_name("test-vm-ext4", tests, NULL, unmount_all);
}

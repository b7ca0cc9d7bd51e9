/* SPDX-License-Identifier: MIT */
/* The NVMe and SCSI decoders over captured, crafted, truncated and garbage bytes. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "fixture.h"
#include "config.h"
#include "probes/nvme.h"
#include "probes/scsi.h"

static void *must_load(const char *name, size_t *len)
{
	void *b = fixture_load(name, len);

	if (!b)
		fail_msg("fixture %s missing (PROBE_FIXTURES)", name);
	return b;
}

/* ---- NVMe ---- */

static void nvme_id_ns_qemu(void **state)
{
	struct pa_nvme_ns ns;
	size_t len;
	void *b = must_load("nvme/qemu-nvme-512-6.18-id-ns.bin", &len);

	(void)state;
	assert_int_equal(pa_nvme_decode_id_ns(b, len, &ns), 0);
	assert_int_equal(ns.dlfeat, 1);
	assert_int_equal(ns.read_back, 1);
	assert_false(ns.deac);
	assert_false(ns.guard_crc);
	assert_int_equal(ns.lba_size, 512);
	assert_false(pa_nvme_unmap_zeroes(&ns));
	free(b);

	b = must_load("nvme/qemu-nvme-4k-6.18-id-ns.bin", &len);
	assert_int_equal(pa_nvme_decode_id_ns(b, len, &ns), 0);
	assert_int_equal(ns.lba_size, 4096);
	free(b);
}

static void nvme_id_ns_loop_deac(void **state)
{
	struct pa_nvme_ns ns;
	size_t len;
	void *b = must_load("nvme/nvme-loop-over-scsi-debug-6.18-id-ns.bin", &len);

	(void)state;
	assert_int_equal(pa_nvme_decode_id_ns(b, len, &ns), 0);
	assert_int_equal(ns.dlfeat, 9);
	assert_true(ns.deac);
	assert_true(pa_nvme_unmap_zeroes(&ns));
	assert_int_equal(ns.nsfeat & 0x10, 0x10);
	free(b);
}

static void nvme_id_ns_dlfeat19(void **state)
{
	struct pa_nvme_ns ns;
	size_t len;
	void *b = must_load("nvme/crafted-dlfeat19-id-ns.bin", &len);

	(void)state;
	assert_int_equal(pa_nvme_decode_id_ns(b, len, &ns), 0);
	assert_int_equal(ns.dlfeat, 0x19);
	assert_int_equal(ns.read_back, 1);
	assert_true(ns.deac);
	assert_true(ns.guard_crc);
	assert_true(pa_nvme_unmap_zeroes(&ns));
	free(b);
}

static void nvme_id_ns_bad(void **state)
{
	uint8_t g[PA_NVME_IDENTIFY_SIZE];
	struct pa_nvme_ns ns = { .dlfeat = 0xaa };
	size_t len;
	uint8_t *b = must_load("nvme/qemu-nvme-512-6.18-id-ns.bin", &len);

	(void)state;
	assert_int_equal(pa_nvme_decode_id_ns(b, len - 1, &ns), -EINVAL);
	assert_int_equal(pa_nvme_decode_id_ns(b, 34, &ns), -EINVAL);
	assert_int_equal(pa_nvme_decode_id_ns(NULL, len, &ns), -EINVAL);
	assert_int_equal(ns.dlfeat, 0xaa);	/* untouched on failure */
	/* FLBAS pointing past NLBAF, or an LBA size below 512: not identify data. */
	b[26] = b[25] + 1;
	assert_int_equal(pa_nvme_decode_id_ns(b, len, &ns), -EBADMSG);
	memset(g, 0xff, sizeof(g));
	g[26] = 0;
	g[128 + 2] = 3;
	assert_int_equal(pa_nvme_decode_id_ns(g, sizeof(g), &ns), -EBADMSG);
	free(b);
}

static void nvme_id_ctrl(void **state)
{
	struct pa_nvme_ctrl c;
	struct pa_nvme_nvm_ctrl nvm;
	size_t len, nlen;
	void *b = must_load("nvme/qemu-nvme-512-6.18-id-ctrl.bin", &len);
	void *n = must_load("nvme/qemu-nvme-512-6.18-nvm-id-ctrl.bin", &nlen);

	(void)state;
	assert_int_equal(pa_nvme_decode_id_ctrl(b, len, &c), 0);
	assert_int_equal(c.vid, 0x1b36);
	assert_int_equal(c.oncs, 0x15d);
	assert_int_equal(c.mdts, 7);
	assert_true(c.write_zeroes);
	assert_true(c.dsm);
	assert_false(c.wz_dealloc_limit);
	assert_int_equal(pa_nvme_decode_nvm_id_ctrl(n, nlen, &nvm), 0);
	assert_int_equal(nvm.wzsl, 0);
	/* MDTS 7 with 4 KiB pages: 512 KiB, the kernel's write_zeroes_max_bytes. */
	assert_int_equal(pa_nvme_write_zeroes_limit(&c, &nvm, true), 524288);
	nvm.wzsl = 2;
	assert_int_equal(pa_nvme_write_zeroes_limit(&c, &nvm, true), 16384);
	free(b);
	free(n);

	b = must_load("nvme/nvme-loop-over-scsi-debug-6.18-id-ctrl.bin", &len);
	assert_int_equal(pa_nvme_decode_id_ctrl(b, len, &c), 0);
	assert_int_equal(c.oncs, 0x2c);
	assert_int_equal(c.mdts, 0);
	assert_string_equal(c.model, "Linux");
	assert_true(pa_nvme_write_zeroes_limit(&c, NULL, false) == UINT64_MAX);
	free(b);

	b = must_load("nvme/qemu-nvme-intelid-6.18-id-ctrl.bin", &len);
	assert_int_equal(pa_nvme_decode_id_ctrl(b, len, &c), 0);
	assert_int_equal(c.vid, 0x8086);
	free(b);
}

static void nvme_id_ctrl_bad(void **state)
{
	uint8_t g[PA_NVME_IDENTIFY_SIZE];
	struct pa_nvme_ctrl c;
	struct pa_nvme_nvm_ctrl nvm;
	size_t len;
	void *b = must_load("nvme/qemu-nvme-512-6.18-id-ctrl.bin", &len);

	(void)state;
	assert_int_equal(pa_nvme_decode_id_ctrl(b, 520, &c), -EINVAL);
	assert_int_equal(pa_nvme_decode_nvm_id_ctrl(b, 16, &nvm), -EINVAL);
	/* Control characters in the model number: not identify data. */
	for (size_t i = 0; i < sizeof(g); i++)
		g[i] = (uint8_t)(i * 37 + 11);
	g[30] = 0x07;
	assert_int_equal(pa_nvme_decode_id_ctrl(g, sizeof(g), &c), -EBADMSG);
	free(b);
}

/* ---- SCSI ---- */

static void scsi_lbprz1(void **state)
{
	struct pa_scsi_block_limits bl;
	struct pa_scsi_lbp lbp;
	struct pa_scsi_rc16 rc;
	size_t l0, l2, l3;
	void *b0 = must_load("scsi/scsi-debug-lbprz1-6.18-vpd-b0.bin", &l0);
	void *b2 = must_load("scsi/scsi-debug-lbprz1-6.18-vpd-b2.bin", &l2);
	void *r = must_load("scsi/scsi-debug-lbprz1-6.18-readcap16.bin", &l3);

	(void)state;
	assert_int_equal(pa_scsi_decode_block_limits(b0, l0, &bl), 0);
	assert_int_equal(bl.max_write_same_len, 0xffff);
	assert_false(bl.wsnz);	/* sg_vpd: "Write same non-zero (WSNZ): 0" */
	assert_int_equal(bl.max_unmap_lba_count, 0xffffffff);
	assert_int_equal(pa_scsi_decode_lbp(b2, l2, &lbp), 0);
	assert_true(lbp.lbpu);
	assert_true(lbp.lbpws);
	assert_false(lbp.lbpws10);
	assert_int_equal(lbp.lbprz, 1);
	assert_false(lbp.anc_sup);
	assert_int_equal(pa_scsi_decode_rc16(r, l3, &rc), 0);
	assert_true(rc.lbpme);
	assert_true(rc.lbprz);
	assert_int_equal(rc.block_len, 512);
	assert_string_equal(pa_scsi_zeroing_name(pa_scsi_zeroing_mode(&lbp, &bl, &rc)),
			    "writesame_16_unmap");
	free(b0);
	free(b2);
	free(r);
}

static void scsi_no_unmap(void **state)
{
	static const char *const dev[] = { "scsi-debug-lbprz0-lbpws0-6.18", "qemu-scsihd-512-6.18" };

	(void)state;
	for (int i = 0; i < 2; i++) {
		struct pa_scsi_block_limits bl;
		struct pa_scsi_lbp lbp;
		struct pa_scsi_rc16 rc;
		char name[128];
		size_t l;
		void *b;

		snprintf(name, sizeof(name), "scsi/%s-vpd-b0.bin", dev[i]);
		b = must_load(name, &l);
		assert_int_equal(pa_scsi_decode_block_limits(b, l, &bl), 0);
		/* sg_vpd: WSNZ 1 on QEMU scsi-hd (MWSL 0x3fffff), 0 on scsi_debug. */
		assert_int_equal(bl.wsnz, i == 1);
		assert_int_equal(bl.max_write_same_len, i == 1 ? 0x3fffff : 0xffff);
		free(b);
		snprintf(name, sizeof(name), "scsi/%s-vpd-b2.bin", dev[i]);
		b = must_load(name, &l);
		assert_int_equal(pa_scsi_decode_lbp(b, l, &lbp), 0);
		free(b);
		snprintf(name, sizeof(name), "scsi/%s-readcap16.bin", dev[i]);
		b = must_load(name, &l);
		assert_int_equal(pa_scsi_decode_rc16(b, l, &rc), 0);
		free(b);
		assert_false(rc.lbprz);
		assert_string_equal(pa_scsi_zeroing_name(pa_scsi_zeroing_mode(&lbp, &bl, &rc)),
				    "writesame");
	}
}

static void scsi_crafted(void **state)
{
	struct pa_scsi_lbp lbp;
	struct pa_scsi_rc16 rc;
	size_t l, lr;
	void *b = must_load("scsi/crafted-lbprz1-lbpws-vpd-b2.bin", &l);
	void *r = must_load("scsi/crafted-lbpme-lbprz-readcap16.bin", &lr);

	(void)state;
	assert_int_equal(pa_scsi_decode_rc16(r, lr, &rc), 0);
	assert_true(rc.last_lba == 0xfffff);
	assert_int_equal(pa_scsi_decode_lbp(b, l, &lbp), 0);
	assert_true(lbp.lbpws && lbp.lbpws10 && lbp.lbprz == 1);
	assert_string_equal(pa_scsi_prov_name(lbp.prov_type), "thin");
	assert_int_equal(pa_scsi_zeroing_mode(&lbp, NULL, &rc), PA_SCSI_ZERO_WS16_UNMAP);
	/* Without READ CAPACITY(16), LBPRZ comes from the LBP page. */
	assert_int_equal(pa_scsi_zeroing_mode(&lbp, NULL, NULL), PA_SCSI_ZERO_WS16_UNMAP);
	/* LBPME clear: sd ignores the LBP page, so no unmap zeroing. */
	rc.lbpme = false;
	assert_int_equal(pa_scsi_zeroing_mode(&lbp, NULL, &rc), PA_SCSI_ZERO_WRITE);
	free(b);

	b = must_load("scsi/crafted-lbprz1-lbpws10-vpd-b2.bin", &l);
	assert_int_equal(pa_scsi_decode_lbp(b, l, &lbp), 0);
	rc.lbpme = true;
	assert_int_equal(pa_scsi_zeroing_mode(&lbp, NULL, &rc), PA_SCSI_ZERO_WS10_UNMAP);
	free(b);
	free(r);
}

static void scsi_bad(void **state)
{
	static const uint8_t garbage[64] = { 0x41, 0x42, 0x43, 0x44, 0x45, 0x46 };
	struct pa_scsi_block_limits bl;
	struct pa_scsi_lbp lbp;
	struct pa_scsi_rc16 rc;
	uint8_t zero[32] = { 0 };
	size_t l0, l2;
	uint8_t *b0 = must_load("scsi/scsi-debug-lbprz1-6.18-vpd-b0.bin", &l0);
	uint8_t *b2 = must_load("scsi/scsi-debug-lbprz1-6.18-vpd-b2.bin", &l2);

	(void)state;
	/* Truncated below the length the header announces. */
	assert_int_equal(pa_scsi_decode_block_limits(b0, l0 - 1, &bl), -EINVAL);
	assert_int_equal(pa_scsi_decode_block_limits(b0, 3, &bl), -EINVAL);
	assert_int_equal(pa_scsi_decode_lbp(b2, l2 - 1, &lbp), -EINVAL);
	assert_int_equal(pa_scsi_decode_rc16(b0, 31, &rc), -EINVAL);
	/* A page of the wrong code, or garbage. */
	assert_int_equal(pa_scsi_decode_block_limits(b2, l2, &bl), -EBADMSG);
	assert_int_equal(pa_scsi_decode_lbp(b0, l0, &lbp), -EBADMSG);
	assert_int_equal(pa_scsi_decode_lbp(garbage, sizeof(garbage), &lbp), -EBADMSG);
	assert_int_equal(pa_scsi_decode_rc16(zero, sizeof(zero), &rc), -EBADMSG);
	/* An old (SBC-2) Block Limits page: 16 bytes, no WRITE SAME length. */
	b0[3] = 12;
	assert_int_equal(pa_scsi_decode_block_limits(b0, 16, &bl), 0);
	assert_true(bl.max_write_same_len == 0);
	/* LBP page too short to hold the provisioning byte. */
	b2[3] = 2;
	assert_int_equal(pa_scsi_decode_lbp(b2, 6, &lbp), -EBADMSG);
	free(b0);
	free(b2);
}

/* NVMe decoding goes through libnvme's structs: nothing to test without it. */
static void skip_without_libnvme(void **state)
{
	(void)state;
	skip();
}

#define NVME_TEST(f) { #f, HAVE_LIBNVME ? f : skip_without_libnvme, NULL, NULL, NULL }

int main(void)
{
	const struct CMUnitTest tests[] = {
		NVME_TEST(nvme_id_ns_qemu),
		NVME_TEST(nvme_id_ns_loop_deac),
		NVME_TEST(nvme_id_ns_dlfeat19),
		NVME_TEST(nvme_id_ns_bad),
		NVME_TEST(nvme_id_ctrl),
		NVME_TEST(nvme_id_ctrl_bad),
		cmocka_unit_test(scsi_lbprz1),
		cmocka_unit_test(scsi_no_unmap),
		cmocka_unit_test(scsi_crafted),
		cmocka_unit_test(scsi_bad),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

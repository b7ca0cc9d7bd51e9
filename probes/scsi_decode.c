/* SPDX-License-Identifier: MIT */
/*
 * Pure decoders for the SCSI pages that decide zeroing (SBC-4): VPD B0h
 * Block Limits, VPD B2h Logical Block Provisioning, READ CAPACITY(16).
 * No I/O: tested over captured bytes and fuzzed.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "config.h"
#include "probes/scsi.h"
#include "base/util.h"

#if HAVE_SGUTILS
/* sg_unaligned.h's generic loads shift bytes into an int, undefined for a
 * byte >= 0x80 shifted by 24; its <byteswap.h> path is memcpy + bswap.  Linux
 * C libraries all have <byteswap.h>. */
#ifndef HAVE_BYTESWAP_H
#define HAVE_BYTESWAP_H 1
#endif
#include <scsi/sg_unaligned.h>
#else
/* The VPD pages are world-readable in sysfs: decode them without sg3_utils. */
#define sg_get_unaligned_be16 pa_get_be16
#define sg_get_unaligned_be32 pa_get_be32
#define sg_get_unaligned_be64 pa_get_be64
#endif

#define RC16_LEN 32

/* Check the 4-byte VPD header; returns the usable length (header included). */
static int vpd_len(const uint8_t *b, size_t len, uint8_t page)
{
	size_t n;

	if (!b || len < 4)
		return -EINVAL;
	if (b[1] != page)
		return -EBADMSG;
	n = 4 + (size_t)sg_get_unaligned_be16(b + 2);
	if (n > len)
		return -EINVAL;
	return (int)n;
}

int pa_scsi_decode_block_limits(const void *buf, size_t len, struct pa_scsi_block_limits *ret)
{
	struct pa_scsi_block_limits bl = { 0 };
	const uint8_t *b = buf;
	int n = vpd_len(b, len, 0xb0);

	if (n < 0)
		return n;
	/* The page grew over SBC revisions: decode the fields it reaches. */
	if (n >= 5)
		bl.wsnz = b[4] & 1;
	if (n >= 16) {
		bl.max_xfer_len = sg_get_unaligned_be32(b + 8);
		bl.opt_xfer_len = sg_get_unaligned_be32(b + 12);
	}
	if (n >= 36) {
		bl.max_unmap_lba_count = sg_get_unaligned_be32(b + 20);
		bl.max_unmap_desc_count = sg_get_unaligned_be32(b + 24);
		bl.opt_unmap_granularity = sg_get_unaligned_be32(b + 28);
		bl.ugavalid = b[32] & 0x80;
		bl.unmap_granularity_align = sg_get_unaligned_be32(b + 32) & 0x7fffffff;
	}
	if (n >= 44)
		bl.max_write_same_len = sg_get_unaligned_be64(b + 36);
	*ret = bl;
	return 0;
}

int pa_scsi_decode_lbp(const void *buf, size_t len, struct pa_scsi_lbp *ret)
{
	struct pa_scsi_lbp lbp = { 0 };
	const uint8_t *b = buf;
	int n = vpd_len(b, len, 0xb2);

	if (n < 0)
		return n;
	if (n < 7)
		return -EBADMSG;
	lbp.lbpu = b[5] & 0x80;
	lbp.lbpws = b[5] & 0x40;
	lbp.lbpws10 = b[5] & 0x20;
	lbp.lbprz = b[5] >> 2 & 7;
	lbp.anc_sup = b[5] & 0x02;
	lbp.dp = b[5] & 0x01;
	lbp.prov_type = b[6] & 7;
	*ret = lbp;
	return 0;
}

int pa_scsi_decode_rc16(const void *buf, size_t len, struct pa_scsi_rc16 *ret)
{
	struct pa_scsi_rc16 rc = { 0 };
	const uint8_t *b = buf;

	if (!b || len < RC16_LEN)
		return -EINVAL;
	rc.last_lba = sg_get_unaligned_be64(b);
	rc.block_len = sg_get_unaligned_be32(b + 8);
	/* sd rejects 0 and sizes beyond a page; so do we. */
	if (rc.block_len < 256 || rc.block_len > (1u << 20))
		return -EBADMSG;
	rc.lbppbe = b[13] & 0xf;
	rc.lbpme = b[14] & 0x80;
	rc.lbprz = b[14] & 0x40;
	*ret = rc;
	return 0;
}

int pa_scsi_zeroing_mode(const struct pa_scsi_lbp *lbp, const struct pa_scsi_block_limits *bl,
			 const struct pa_scsi_rc16 *rc16)
{
	bool lbprz, lbpws = false, lbpws10 = false;

	/* sd takes LBPRZ from READ CAPACITY(16) and reads the LBP page only
	 * when LBPME is set (sd_read_block_provisioning). */
	lbprz = rc16 ? rc16->lbprz : (lbp && (lbp->lbprz & 1));
	if (lbp && (!rc16 || rc16->lbpme)) {
		lbpws = lbp->lbpws;
		lbpws10 = lbp->lbpws10;
	}
	if (lbprz && lbpws)
		return PA_SCSI_ZERO_WS16_UNMAP;
	if (lbprz && lbpws10)
		return PA_SCSI_ZERO_WS10_UNMAP;
	if (lbpws || lbpws10 || (bl && bl->max_write_same_len))
		return PA_SCSI_ZERO_WS;
	return PA_SCSI_ZERO_WRITE;
}

const char *pa_scsi_zeroing_name(int mode)
{
	static const char *const names[] = {
		[PA_SCSI_ZERO_WRITE] = "write",
		[PA_SCSI_ZERO_WS] = "writesame",
		[PA_SCSI_ZERO_WS16_UNMAP] = "writesame_16_unmap",
		[PA_SCSI_ZERO_WS10_UNMAP] = "writesame_10_unmap",
	};

	if (mode < 0 || mode >= (int)PA_ARRAY_SIZE(names))
		return NULL;
	return names[mode];
}

const char *pa_scsi_prov_name(int type)
{
	static const char *const names[] = { "full", "resource", "thin" };

	return type >= 0 && type < 3 ? names[type] : NULL;
}

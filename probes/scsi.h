/* SPDX-License-Identifier: MIT */
/*
 * SCSI block provisioning: pure decoders (probes/scsi_decode.c) and the probe
 * that reads the VPD pages from sysfs or through libsgutils2 (probes/scsi.c).
 */
#ifndef PREALLOC_SCSI_H
#define PREALLOC_SCSI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* VPD page B0h, Block Limits.  Fields the device did not return are 0. */
struct pa_scsi_block_limits {
	bool wsnz;			/* WRITE SAME with NUMBER OF BLOCKS 0 refused */
	uint32_t max_xfer_len;		/* blocks */
	uint32_t opt_xfer_len;
	uint32_t max_unmap_lba_count;
	uint32_t max_unmap_desc_count;
	uint32_t opt_unmap_granularity;
	bool ugavalid;
	uint32_t unmap_granularity_align;
	uint64_t max_write_same_len;	/* blocks; 0 = not reported */
};

/* VPD page B2h, Logical Block Provisioning. */
struct pa_scsi_lbp {
	bool lbpu, lbpws, lbpws10;
	uint8_t lbprz;			/* 3 bits; 1 = unmapped blocks read zero */
	bool anc_sup, dp;
	uint8_t prov_type;		/* 0 full, 1 resource, 2 thin */
};

/* READ CAPACITY(16) parameter data. */
struct pa_scsi_rc16 {
	uint64_t last_lba;
	uint32_t block_len;
	bool lbpme, lbprz;
	uint8_t lbppbe;			/* logical blocks per physical, log2 */
};

/* Each returns 0, or -EINVAL (too short) / -EBADMSG (not this page). */
int pa_scsi_decode_block_limits(const void *buf, size_t len, struct pa_scsi_block_limits *ret);
int pa_scsi_decode_lbp(const void *buf, size_t len, struct pa_scsi_lbp *ret);
int pa_scsi_decode_rc16(const void *buf, size_t len, struct pa_scsi_rc16 *ret);

enum pa_scsi_zeroing {
	PA_SCSI_ZERO_WRITE,
	PA_SCSI_ZERO_WS,
	PA_SCSI_ZERO_WS16_UNMAP,
	PA_SCSI_ZERO_WS10_UNMAP,
};

/*
 * The zeroing_mode sd will choose (drivers/scsi/sd.c).  @rc16 may be NULL:
 * LBPRZ then comes from the LBP page and LBPME is assumed.
 */
int pa_scsi_zeroing_mode(const struct pa_scsi_lbp *lbp, const struct pa_scsi_block_limits *bl,
			 const struct pa_scsi_rc16 *rc16);
/* "write", "writesame", "writesame_16_unmap", "writesame_10_unmap". */
const char *pa_scsi_zeroing_name(int mode);
/* "full", "resource", "thin", or NULL for a reserved value. */
const char *pa_scsi_prov_name(int type);

struct pa_scsi_info {
	bool have_bl, have_lbp, have_rc16;
	struct pa_scsi_block_limits bl;
	struct pa_scsi_lbp lbp;
	struct pa_scsi_rc16 rc16;
	int zeroing_mode;		/* predicted, enum pa_scsi_zeroing; -1 unknown */
	char kernel_zeroing_mode[24];	/* scsi_disk/.../zeroing_mode, "" if absent */
	char source[16];		/* "sysfs" or "sg_io" */
	char reason[96];		/* why something is unknown, "" if all known */
};

/* Device I/O on the disk's block device node @fd (pa_probe_io(); test builds
 * substitute fixture bytes) for INQUIRY EVPD / READ CAPACITY(16): fill @buf
 * (@len bytes), return the byte count or -errno. */
struct pa_scsi_io {
	int (*vpd)(void *ctx, int fd, int page, void *buf, size_t len);
	int (*rc16)(void *ctx, int fd, void *buf, size_t len);
	void *ctx;
};

#endif

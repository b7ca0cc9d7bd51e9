/* SPDX-License-Identifier: MIT */
/*
 * SCSI probe: the VPD pages the kernel caches in sysfs (world-readable), else
 * INQUIRY EVPD through libsgutils2; READ CAPACITY(16) through libsgutils2.
 * Decoded by probes/scsi_decode.c.  Failures become "unknown (reason)".
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "probes/facts.h"
#include "probes/registry.h"
#include "probes/scsi.h"
#include "base/sysfs_read.h"
#include "base/util.h"

#if HAVE_SGUTILS
#include <scsi/sg_lib.h>
#include <scsi/sg_cmds_basic.h>
#endif

#define VPD_MAX 252		/* B0h and B2h are 64 bytes or less in practice */
#define SG_TIMEOUT 20

static int real_vpd(void *ctx, int fd, int page, void *buf, size_t len)
{
	(void)ctx;
#if HAVE_SGUTILS
	int r, resid = 0;

	r = sg_ll_inquiry_v2(fd, true, page, buf, (int)len, SG_TIMEOUT, &resid, false, 0);
	if (r != 0)
		return r == SG_LIB_CAT_ILLEGAL_REQ ? -EOPNOTSUPP : -EIO;
	return (int)len - resid;
#else
	(void)fd; (void)page; (void)buf; (void)len;
	return -ENOSYS;
#endif
}

static int real_rc16(void *ctx, int fd, void *buf, size_t len)
{
	(void)ctx;
#if HAVE_SGUTILS
	int r = sg_ll_readcap_16(fd, false, 0, buf, (int)len, false, 0);

	if (r != 0)
		return r == SG_LIB_CAT_ILLEGAL_REQ || r == SG_LIB_CAT_INVALID_OP ? -EOPNOTSUPP : -EIO;
	return (int)len;
#else
	(void)fd; (void)buf; (void)len;
	return -ENOSYS;
#endif
}

static const struct pa_scsi_io real_io = { .vpd = real_vpd, .rc16 = real_rc16 };

/* scsi_disk/H:C:T:L/zeroing_mode: what the kernel actually chose. */
static void read_kernel_mode(const char *sysdir, struct pa_scsi_info *s)
{
	char dir[PATH_MAX];
	struct dirent *e;
	DIR *dp;

	if (pa_path_join(dir, sizeof(dir), sysdir, "device/scsi_disk") < 0)
		return;
	dp = opendir(dir);
	if (!dp)
		return;
	while ((e = readdir(dp))) {
		char sub[PATH_MAX];

		if (e->d_name[0] == '.' || pa_path_join(sub, sizeof(sub), dir, e->d_name) < 0)
			continue;
		if (pa_sysfs_read_str(sub, "zeroing_mode", s->kernel_zeroing_mode,
				      sizeof(s->kernel_zeroing_mode)) == 0 &&
		    s->kernel_zeroing_mode[0])
			break;
	}
	closedir(dp);
}

/* A VPD page: from sysfs (world-readable, cached by the kernel), else asked
 * through @fd.  The byte count, or -errno. */
static int get_vpd(const struct pa_scsi_io *io, const char *sysdir, int fd, int page,
		   uint8_t *buf, struct pa_scsi_info *s)
{
	char attr[32];
	int n;

	snprintf(attr, sizeof(attr), "device/vpd_pg%02x", page);
	n = pa_sysfs_read(sysdir, attr, buf, VPD_MAX);
	if (n > 0) {
		snprintf(s->source, sizeof(s->source), "sysfs");
		return n;
	}
	if (!io)
		return fd;	/* why there is no device node */
	n = io->vpd(io->ctx, fd, page, buf, VPD_MAX);
	if (n > 0)
		snprintf(s->source, sizeof(s->source), "sg_io");
	return n;
}

/* struct pa_prober.probe: the kernel's zeroing mode, VPD B0h and B2h, READ CAPACITY(16). */
static void scsi_probe(const char *sysdir, struct pa_device *d, int fd)
{
	struct pa_scsi_info *ret = &d->scsi;
	const struct pa_scsi_io *io = pa_probe_io(PA_TRANSPORT_SCSI, &real_io, fd);
	char *why = ret->reason;
	size_t wl = sizeof(ret->reason);
	uint8_t buf[VPD_MAX];
	int n;

	memset(ret, 0, sizeof(*ret));
	ret->zeroing_mode = -1;
	read_kernel_mode(sysdir, ret);

	n = get_vpd(io, sysdir, fd, 0xb0, buf, ret);
	n = n < 0 ? n : pa_scsi_decode_block_limits(buf, (size_t)n, &ret->bl);
	ret->have_bl = pa_probe_query_ok(why, wl, "Block Limits VPD", n);

	n = get_vpd(io, sysdir, fd, 0xb2, buf, ret);
	n = n < 0 ? n : pa_scsi_decode_lbp(buf, (size_t)n, &ret->lbp);
	ret->have_lbp = pa_probe_query_ok(why, wl, "Logical Block Provisioning VPD", n);

	n = io ? io->rc16(io->ctx, fd, buf, 32) : fd;
	n = n < 0 ? n : pa_scsi_decode_rc16(buf, (size_t)n, &ret->rc16);
	ret->have_rc16 = pa_probe_query_ok(why, wl, "READ CAPACITY(16)", n);

	if (ret->have_lbp)
		ret->zeroing_mode = pa_scsi_zeroing_mode(&ret->lbp, ret->have_bl ? &ret->bl : NULL,
							 ret->have_rc16 ? &ret->rc16 : NULL);
}

static bool scsi_match(const char *sysdir, const char *name)
{
	(void)name;
	return pa_sysfs_exists(sysdir, "device/scsi_level") ||
	       pa_sysfs_exists(sysdir, "device/vpd_pg0");
}

/* struct pa_prober.hint: the zeroing mode sd would pick, when the kernel cannot tell. */
static bool scsi_hint(const struct pa_device *d, char *buf, size_t len)
{
	if (d->scsi.zeroing_mode < 0)
		return false;
	snprintf(buf, len, "; %s: predicted zeroing_mode %s", d->name,
		 pa_scsi_zeroing_name(d->scsi.zeroing_mode));
	return true;
}

/* Facts named as their fields, per page of struct pa_scsi_info. */
#define BL(m, t) PA_FACT_OF(struct pa_device, scsi.bl, m, t)
#define LBP(m, t) PA_FACT_OF(struct pa_device, scsi.lbp, m, t)
#define RC16(m, t) PA_FACT_OF(struct pa_device, scsi.rc16, m, t)

static const struct pa_fact_def source_facts[] = {
	PA_FACT_TEXT(struct pa_device, "source", scsi.source),
};

/* A line per command the limits bound: WRITE SAME, then UNMAP. */
static const struct pa_fact_def bl_facts[] = {
	BL(wsnz, BOOL), BL(max_write_same_len, NUMBER),
	BL(max_unmap_lba_count, NUMBER), BL(max_unmap_desc_count, NUMBER),
	BL(opt_unmap_granularity, NUMBER),
};

/* The provisioning bits, then the provisioning type. */
static const struct pa_fact_def lbp_facts[] = {
	LBP(lbpu, BOOL), LBP(lbpws, BOOL), LBP(lbpws10, BOOL), LBP(lbprz, NUMBER),
	LBP(anc_sup, BOOL),
	PA_FACT_LABEL(struct pa_device, "provisioning", scsi.lbp.prov_type, pa_scsi_prov_name),
};

static const struct pa_fact_def rc16_facts[] = {
	RC16(lbpme, BOOL), RC16(lbprz, BOOL), RC16(block_len, BYTES),
};

static const struct pa_fact_def mode_facts[] = {
	PA_FACT_LABEL(struct pa_device, "zeroing_mode", scsi.zeroing_mode, pa_scsi_zeroing_name),
	PA_FACT_TEXT(struct pa_device, "kernel_zeroing_mode", scsi.kernel_zeroing_mode),
	PA_FACT_TEXT(struct pa_device, "unknown", scsi.reason),
};

#define LEARNT(flag) (long)offsetof(struct pa_device, scsi.flag)

/* One group per page or command, each a single null fact when it failed. */
static const struct pa_fact_group scsi_facts[] = {
	{ "scsi", PA_FACTS_ALWAYS, NULL, source_facts, PA_ARRAY_SIZE(source_facts) },
	{ "scsi.block_limits", LEARNT(have_bl), "scsi.block_limits", bl_facts,
	  PA_ARRAY_SIZE(bl_facts) },
	{ "scsi.lbp", LEARNT(have_lbp), "scsi.lbp", lbp_facts, PA_ARRAY_SIZE(lbp_facts) },
	{ "scsi.read_capacity_16", LEARNT(have_rc16), "scsi.read_capacity_16", rc16_facts,
	  PA_ARRAY_SIZE(rc16_facts) },
	{ "scsi", PA_FACTS_ALWAYS, NULL, mode_facts, PA_ARRAY_SIZE(mode_facts) },
};

const struct pa_prober pa_scsi_prober = {
	.name = "scsi",
	.transport = PA_TRANSPORT_SCSI,
	.match = scsi_match,
	.probe = scsi_probe,
	.hint = scsi_hint,
	.facts = scsi_facts,
	.nfacts = PA_ARRAY_SIZE(scsi_facts),
};

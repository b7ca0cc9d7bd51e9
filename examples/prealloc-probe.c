/* SPDX-License-Identifier: MIT */
/*
 * `prealloc probe [--json] PATH`: the device chain under PATH, what each
 * device can do, and the plan the library would follow, with its reason.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "prealloc.h"
#include "blkid.h"
#include "caps.h"
#include "chain.h"
#include "cli.h"
#include "engine.h"
#include "json.h"
#include "plan.h"

/* The request planned for: extend a file by 1 MiB, zero 1 MiB of a device. */
#define PROBE_LEN (1u << 20)

struct probe {
	const char *path;
	bool bdev;
	struct pa_target t;
	struct pa_plan plan;
	int plan_err;
	char sigs[128];
	int nsigs;		/* signatures found, or -errno */
};

static void usage(FILE *f)
{
	fprintf(f, "usage: prealloc probe [--json] PATH\n");
}

/* ---- JSON ---- */

static void json_queue(struct json *j, const struct pa_device *d)
{
	json_object(j, "queue");
	for (int i = 0; i < PA_Q_NR; i++) {
		if (d->queue[i] == PA_Q_ABSENT)
			json_null(j, pa_queue_attr_names[i]);
		else if (i == PA_Q_ZONED)
			json_str(j, pa_queue_attr_names[i], pa_zoned_name(d->queue[i]));
		else
			json_u64(j, pa_queue_attr_names[i], d->queue[i]);
	}
	json_object_end(j);
}

static void json_nvme(struct json *j, const struct pa_nvme_info *n)
{
	json_object(j, "nvme");
	if (n->have_ns) {
		json_u64(j, "nsid", n->nsid);
		json_u64(j, "dlfeat", n->ns.dlfeat);
		json_u64(j, "read_back", n->ns.read_back);
		json_bool(j, "deac", n->ns.deac);
		json_bool(j, "guard_crc", n->ns.guard_crc);
		json_u64(j, "noiob", n->ns.noiob);
		json_u64(j, "npwg", n->ns.npwg);
		json_u64(j, "npdg", n->ns.npdg);
		json_u64(j, "npda", n->ns.npda);
		json_u64(j, "lba_size", n->ns.lba_size);
		json_bool(j, "unmap_zeroes", pa_nvme_unmap_zeroes(&n->ns));
	} else {
		json_null(j, "dlfeat");
	}
	if (n->have_ctrl) {
		json_u64(j, "vid", n->ctrl.vid);
		json_str(j, "model", n->ctrl.model);
		json_u64(j, "mdts", n->ctrl.mdts);
		json_u64(j, "oncs", n->ctrl.oncs);
		json_bool(j, "dsm", n->ctrl.dsm);
		json_bool(j, "write_zeroes", n->ctrl.write_zeroes);
		json_bool(j, "wz_dealloc_limit", n->ctrl.wz_dealloc_limit);
		json_bool(j, "ns_zeroes", n->ctrl.ns_zeroes);
	} else {
		json_null(j, "oncs");
	}
	if (n->have_nvm) {
		json_u64(j, "wzsl", n->nvm.wzsl);
		json_u64(j, "wzdsl", n->nvm.wzdsl);
	} else {
		json_null(j, "wzsl");
	}
	json_str(j, "unknown", n->reason[0] ? n->reason : NULL);
	json_object_end(j);
}

static void json_scsi(struct json *j, const struct pa_scsi_info *s)
{
	json_object(j, "scsi");
	json_str(j, "source", s->source[0] ? s->source : NULL);
	if (s->have_bl) {
		json_object(j, "block_limits");
		json_bool(j, "wsnz", s->bl.wsnz);
		json_u64(j, "max_write_same_len", s->bl.max_write_same_len);
		json_u64(j, "max_unmap_lba_count", s->bl.max_unmap_lba_count);
		json_u64(j, "max_unmap_desc_count", s->bl.max_unmap_desc_count);
		json_u64(j, "opt_unmap_granularity", s->bl.opt_unmap_granularity);
		json_object_end(j);
	} else {
		json_null(j, "block_limits");
	}
	if (s->have_lbp) {
		json_object(j, "lbp");
		json_bool(j, "lbpu", s->lbp.lbpu);
		json_bool(j, "lbpws", s->lbp.lbpws);
		json_bool(j, "lbpws10", s->lbp.lbpws10);
		json_u64(j, "lbprz", s->lbp.lbprz);
		json_bool(j, "anc_sup", s->lbp.anc_sup);
		json_str(j, "provisioning", pa_scsi_prov_name(s->lbp.prov_type));
		json_object_end(j);
	} else {
		json_null(j, "lbp");
	}
	if (s->have_rc16) {
		json_object(j, "read_capacity_16");
		json_bool(j, "lbpme", s->rc16.lbpme);
		json_bool(j, "lbprz", s->rc16.lbprz);
		json_u64(j, "block_len", s->rc16.block_len);
		json_object_end(j);
	} else {
		json_null(j, "read_capacity_16");
	}
	json_str(j, "zeroing_mode", pa_scsi_zeroing_name(s->zeroing_mode));
	json_str(j, "kernel_zeroing_mode", s->kernel_zeroing_mode[0] ? s->kernel_zeroing_mode : NULL);
	json_str(j, "unknown", s->reason[0] ? s->reason : NULL);
	json_object_end(j);
}

static void json_device(struct json *j, const struct pa_caps *c, const struct pa_device *d)
{
	char num[32];

	json_object(j, NULL);
	json_str(j, "name", d->name);
	snprintf(num, sizeof(num), "%u:%u", major(d->dev), minor(d->dev));
	json_str(j, "dev", num);
	json_str(j, "role", pa_role_name(d->role));
	json_str(j, "above", d->parent >= 0 ? c->devices[d->parent].name : NULL);
	json_u64(j, "size_bytes", d->size_sectors * 512);
	if (d->role == PA_ROLE_PARTITION)
		json_u64(j, "start_bytes", d->part_start * 512);
	if (d->role == PA_ROLE_LOOP) {
		json_str(j, "backing_file", d->backing_file[0] ? d->backing_file : NULL);
		if (d->loop_dio < 0)
			json_null(j, "direct_io");
		else
			json_bool(j, "direct_io", d->loop_dio);
	}
	if (d->role == PA_ROLE_DM)
		json_str(j, "dm_name", d->dm_name);
	if (d->role == PA_ROLE_MD)
		json_str(j, "md_level", d->md_level);
	json_queue(j, d);
	if (d->transport == PA_TRANSPORT_NVME)
		json_nvme(j, &d->nvme);
	else
		json_null(j, "nvme");
	if (d->transport == PA_TRANSPORT_SCSI)
		json_scsi(j, &d->scsi);
	else
		json_null(j, "scsi");
	json_object_end(j);
}

static void print_json(const struct probe *p)
{
	const struct pa_caps *c = p->t.caps;
	struct json j;

	json_begin(&j, stdout);
	json_str(&j, "path", p->path);
	json_str(&j, "kind", p->bdev ? "block-device" : "file");
	json_str(&j, "filesystem", p->bdev ? NULL : pa_fs_name(p->t.fs_type));
	json_str(&j, "sysfs_root", pa_sysfs_root());
	json_array(&j, "devices");
	for (size_t i = 0; c && i < c->ndevices; i++)
		json_device(&j, c, &c->devices[i]);
	json_array_end(&j);
	if (!c || c->write_zeroes_unmap == PA_UNKNOWN)
		json_null(&j, "write_zeroes_unmap");
	else
		json_bool(&j, "write_zeroes_unmap", c->write_zeroes_unmap == PA_YES);
	json_str(&j, "evidence", c ? c->evidence : "no block device under this file");
	json_bool(&j, "kernel_write_zeroes", c && c->kernel_write_zeroes);
	if (p->bdev && p->nsigs >= 0)
		json_str(&j, "signatures", p->sigs);
	else
		json_null(&j, "signatures");
	json_object(&j, "plan");
	if (p->plan_err) {
		json_null(&j, "method");
		json_str(&j, "reason", strerror(-p->plan_err));
	} else {
		json_str(&j, "method", prealloc_method_name(p->plan.methods[0]));
		json_array(&j, "fallbacks");
		for (unsigned int i = 1; i < p->plan.n; i++)
			json_str(&j, NULL, prealloc_method_name(p->plan.methods[i]));
		json_array_end(&j);
		json_bool(&j, "reserve", p->plan.reserve);
		json_str(&j, "reason", p->plan.reason);
	}
	json_object_end(&j);
	json_end(&j);
}

/* ---- text ---- */

static const char *yes_no(int tri)
{
	return tri == PA_YES ? "yes" : tri == PA_NO ? "no" : "unknown";
}

static void text_queue(const struct pa_device *d)
{
	int ind = 4 + d->depth * 2, col = ind + 6;

	printf("%*squeue:", ind, "");
	for (int i = 0; i < PA_Q_NR; i++) {
		char v[48];

		if (d->queue[i] == PA_Q_ABSENT)
			snprintf(v, sizeof(v), "absent");
		else if (i == PA_Q_ZONED)
			snprintf(v, sizeof(v), "%s", pa_zoned_name(d->queue[i]));
		else
			snprintf(v, sizeof(v), "%llu", (unsigned long long)d->queue[i]);
		col += (int)(strlen(pa_queue_attr_names[i]) + strlen(v) + 2);
		if (col > 100) {
			printf("\n%*s", ind + 6, "");
			col = ind + 6 + (int)(strlen(pa_queue_attr_names[i]) + strlen(v) + 2);
		}
		printf(" %s=%s", pa_queue_attr_names[i], v);
	}
	printf("\n");
}

static void text_nvme(const struct pa_nvme_info *n)
{
	if (n->have_ns)
		printf("    nvme: nsid %u, DLFEAT 0x%02x (read-back %u, DEAC %s, guard CRC %s)"
		       " -> unmap zeroing %s; NOIOB %u NPWG %u NPDG %u NPDA %u; LBA %u\n",
		       n->nsid, n->ns.dlfeat, n->ns.read_back, n->ns.deac ? "yes" : "no",
		       n->ns.guard_crc ? "yes" : "no",
		       pa_nvme_unmap_zeroes(&n->ns) ? "possible" : "not possible",
		       n->ns.noiob, n->ns.npwg, n->ns.npdg, n->ns.npda, n->ns.lba_size);
	if (n->have_ctrl)
		printf("    nvme: controller %04x \"%s\", MDTS %u, ONCS 0x%04x (DSM %s, Write Zeroes %s,"
		       " WZ deallocate limit %s, Namespace Zeroes %s)\n",
		       n->ctrl.vid, n->ctrl.model, n->ctrl.mdts, n->ctrl.oncs,
		       n->ctrl.dsm ? "yes" : "no", n->ctrl.write_zeroes ? "yes" : "no",
		       n->ctrl.wz_dealloc_limit ? "yes" : "no", n->ctrl.ns_zeroes ? "yes" : "no");
	if (n->have_nvm)
		printf("    nvme: WZSL %u, WZDSL %u\n", n->nvm.wzsl, n->nvm.wzdsl);
	if (n->reason[0])
		printf("    nvme: unknown (%s)\n", n->reason);
}

static void text_scsi(const struct pa_scsi_info *s)
{
	if (s->have_bl)
		printf("    scsi: block limits: MAXIMUM WRITE SAME LENGTH %llu, WSNZ %d,"
		       " MAXIMUM UNMAP LBA COUNT %u, OPTIMAL UNMAP GRANULARITY %u\n",
		       (unsigned long long)s->bl.max_write_same_len, s->bl.wsnz,
		       s->bl.max_unmap_lba_count, s->bl.opt_unmap_granularity);
	if (s->have_lbp)
		printf("    scsi: provisioning: LBPU %d LBPWS %d LBPWS10 %d LBPRZ %u ANC_SUP %d, %s\n",
		       s->lbp.lbpu, s->lbp.lbpws, s->lbp.lbpws10, s->lbp.lbprz, s->lbp.anc_sup,
		       pa_scsi_prov_name(s->lbp.prov_type) ?: "reserved type");
	if (s->have_rc16)
		printf("    scsi: READ CAPACITY(16): LBPME %d LBPRZ %d, block %u\n",
		       s->rc16.lbpme, s->rc16.lbprz, s->rc16.block_len);
	if (s->zeroing_mode >= 0 || s->kernel_zeroing_mode[0])
		printf("    scsi: zeroing_mode predicted %s, kernel says %s\n",
		       pa_scsi_zeroing_name(s->zeroing_mode) ?: "unknown",
		       s->kernel_zeroing_mode[0] ? s->kernel_zeroing_mode : "(not exposed)");
	if (s->reason[0])
		printf("    scsi: unknown (%s)\n", s->reason);
}

static void text_device(const struct pa_device *d)
{
	printf("  %*s%s (%u:%u) %s, %llu bytes", d->depth * 2, "", d->name, major(d->dev),
	       minor(d->dev), pa_role_name(d->role), (unsigned long long)d->size_sectors * 512);
	if (d->role == PA_ROLE_PARTITION)
		printf(", starts at byte %llu", (unsigned long long)d->part_start * 512);
	if (d->role == PA_ROLE_LOOP)
		printf(", backing file %s, direct I/O %s", d->backing_file[0] ? d->backing_file : "(none)",
		       d->loop_dio < 0 ? "unknown" : d->loop_dio ? "on" : "off");
	if (d->role == PA_ROLE_DM)
		printf(", dm name %s", d->dm_name);
	if (d->role == PA_ROLE_MD)
		printf(", %s", d->md_level);
	printf("\n");
	if (d->role != PA_ROLE_PARTITION)
		text_queue(d);
	if (d->transport == PA_TRANSPORT_NVME)
		text_nvme(&d->nvme);
	if (d->transport == PA_TRANSPORT_SCSI)
		text_scsi(&d->scsi);
}

static void print_text(const struct probe *p)
{
	const struct pa_caps *c = p->t.caps;
	const char *fs = pa_fs_name(p->t.fs_type);

	printf("%s: %s", p->path, p->bdev ? "block device" : "file");
	if (!p->bdev)
		printf(" on %s", fs ? fs : "an unknown filesystem");
	printf("\n");
	if (c) {
		printf("devices (sysfs %s):\n", pa_sysfs_root());
		for (size_t i = 0; i < c->ndevices; i++)
			text_device(&c->devices[i]);
		printf("write zeroes with unmap: %s (%s)\n", yes_no(c->write_zeroes_unmap), c->evidence);
	} else {
		printf("devices: none (no block device under this file)\n");
	}
	if (p->bdev)
		printf("signatures: %s\n", p->nsigs > 0 ? p->sigs : p->nsigs == 0 ? "none" :
		       strerror(-p->nsigs));
	if (p->plan_err) {
		printf("plan: none (%s)\n", strerror(-p->plan_err));
		return;
	}
	printf("plan: %s", prealloc_method_name(p->plan.methods[0]));
	for (unsigned int i = 1; i < p->plan.n; i++)
		printf(", else %s", prealloc_method_name(p->plan.methods[i]));
	printf("%s\n  because %s\n", p->plan.reserve ? " (after reserving with fallocate)" : "",
	       p->plan.reason);
}

static int run_probe(struct probe *p)
{
	struct stat st;
	uint64_t off = 0;
	uint32_t flags = 0;
	int fd, r;

	fd = open(p->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		cli_fail(p->path, errno, "cannot open");
		return EXIT_OPERATIONAL;
	}
	if (fstat(fd, &st) < 0 || S_ISDIR(st.st_mode)) {
		cli_fail(p->path, S_ISDIR(st.st_mode) ? EISDIR : errno,
			 "a regular file or a block device is needed");
		close(fd);
		return EXIT_OPERATIONAL;
	}
	p->bdev = S_ISBLK(st.st_mode);
	if (p->bdev)
		flags = PREALLOC_ZERO_DATA;	/* block devices are only ever zeroed */
	else
		off = (uint64_t)st.st_size;
	r = pa_target_open(fd, off, PROBE_LEN, flags, PREALLOC_METHOD_AUTO, &p->t);
	if (r < 0) {
		cli_fail(p->path, -r, "cannot probe");
		close(fd);
		return EXIT_OPERATIONAL;
	}
	if (p->bdev)
		p->nsigs = pa_blkid_signatures(p->path, p->sigs, sizeof(p->sigs));
	p->plan_err = pa_plan(&p->t.in, &p->plan);
	close(fd);
	return 0;
}

int cmd_probe(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct probe p = { 0 };
	bool json = false;
	int c, r;

	optind = 1;
	while ((c = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return EXIT_USAGE;
	}
	p.path = argv[optind];
	r = run_probe(&p);
	if (r)
		return r;
	if (json)
		print_json(&p);
	else
		print_text(&p);
	pa_target_close(&p.t);
	return 0;
}

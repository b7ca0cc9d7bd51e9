/* SPDX-License-Identifier: MIT */
/*
 * The transports' device I/O seams (pa_probe_set_io(), PA_TEST_HOOKS builds)
 * answered from fixture files, for the probe tests.
 */
#ifndef PROBE_FAKE_IO_H
#define PROBE_FAKE_IO_H

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "probes/registry.h"

/* NVMe seam: fixture bytes named "nvme/<ctx>-<what>.bin", or an errno. */
static inline int fake_identify(void *ctx, int fd, enum pa_nvme_identify what,
				uint32_t *nsid, void *buf)
{
	static const char *const suffix[] = { "id-ns", "id-ctrl", "nvm-id-ctrl" };
	char name[256];
	size_t len;
	void *b;

	(void)fd;
	if (!strncmp(ctx, "errno:", 6))
		return -atoi((const char *)ctx + 6);
	snprintf(name, sizeof(name), "nvme/%s-%s.bin", (const char *)ctx, suffix[what]);
	b = fixture_load(name, &len);
	if (!b)
		return -ENOENT;
	memcpy(buf, b, len < PA_NVME_IDENTIFY_SIZE ? len : PA_NVME_IDENTIFY_SIZE);
	free(b);
	if (nsid)
		*nsid = 1;
	return 0;
}

/* SCSI READ CAPACITY(16) seam: the bytes of fixture file @ctx. */
static inline int fake_rc16(void *ctx, int fd, void *buf, size_t len)
{
	size_t l;
	void *b = fixture_load(ctx, &l);

	(void)fd;
	if (!b)
		return -ENOENT;
	l = l < len ? l : len;
	memcpy(buf, b, l);
	free(b);
	return (int)l;
}

/* SCSI INQUIRY seam: refused, so VPD pages come from sysfs or not at all. */
static inline int fake_vpd(void *ctx, int fd, int page, void *buf, size_t len)
{
	(void)ctx; (void)fd; (void)page; (void)buf; (void)len;
	return -EACCES;
}

#endif

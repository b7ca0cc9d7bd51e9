/* SPDX-License-Identifier: MIT */
/*
 * NVMe probe: Identify through libnvme on the namespace block device, decoded
 * by probes/nvme_decode.c.  Every failure (no privilege, NVMe status, no
 * device node) becomes an "unknown" with its reason, never an error.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "nvme.h"
#include "registry.h"

#if HAVE_LIBNVME
#include <libnvme.h>
#endif

#if HAVE_LIBNVME
/* Convert libnvme's "status > 0 or -1 with errno" to "status > 0 or -errno". */
static int nvme_ret(int r)
{
	return r < 0 ? -errno : r;
}

static int libnvme_identify(int fd, enum pa_nvme_identify what, uint32_t *nsid, void *buf)
{
	switch (what) {
	case PA_NVME_ID_NS:
		if (nvme_get_nsid(fd, nsid) < 0)
			return -errno;
		return nvme_ret(nvme_identify_ns(fd, *nsid, buf));
	case PA_NVME_ID_CTRL:
		return nvme_ret(nvme_identify_ctrl(fd, buf));
	case PA_NVME_ID_NVM_CTRL:
		return nvme_ret(nvme_nvm_identify_ctrl(fd, buf));
	}
	return -EINVAL;
}
#endif

/* The real device: open /dev/NAME, check it is @dev, ask libnvme. */
static int real_identify(void *ctx, const char *devnode, dev_t dev,
			 enum pa_nvme_identify what, uint32_t *nsid, void *buf)
{
#if HAVE_LIBNVME
	int fd, r;

	(void)ctx;
	fd = pa_probe_open_node(devnode, dev);
	if (fd < 0)
		return fd;
	r = libnvme_identify(fd, what, nsid, buf);
	close(fd);
	return r;
#else
	(void)ctx; (void)devnode; (void)dev; (void)what; (void)nsid; (void)buf;
	return -ENOSYS;
#endif
}

static const struct pa_nvme_io real_io = { .identify = real_identify };

void pa_nvme_probe(const char *name, dev_t dev, bool real_root, struct pa_nvme_info *ret)
{
	uint8_t buf[PA_NVME_IDENTIFY_SIZE];	/* on the stack: no per-thread TLS cost */
	const struct pa_nvme_io *io = pa_probe_io(PA_TRANSPORT_NVME, real_root, &real_io);
	char node[64];
	int r;

	memset(ret, 0, sizeof(*ret));
	if (!io) {
		pa_probe_step_ok(ret->reason, sizeof(ret->reason), "Identify", -ENOENT);
		return;
	}
	snprintf(node, sizeof(node), "/dev/%s", name);

	r = io->identify(io->ctx, node, dev, PA_NVME_ID_NS, &ret->nsid, buf);
	if (r == 0)
		r = pa_nvme_decode_id_ns(buf, sizeof(buf), &ret->ns);
	ret->have_ns = pa_probe_step_ok(ret->reason, sizeof(ret->reason), "Identify Namespace", r);

	r = io->identify(io->ctx, node, dev, PA_NVME_ID_CTRL, NULL, buf);
	if (r == 0)
		r = pa_nvme_decode_id_ctrl(buf, sizeof(buf), &ret->ctrl);
	ret->have_ctrl = pa_probe_step_ok(ret->reason, sizeof(ret->reason), "Identify Controller", r);

	r = io->identify(io->ctx, node, dev, PA_NVME_ID_NVM_CTRL, NULL, buf);
	if (r == 0)
		r = pa_nvme_decode_nvm_id_ctrl(buf, sizeof(buf), &ret->nvm);
	ret->have_nvm = pa_probe_step_ok(ret->reason, sizeof(ret->reason), "NVM Identify Controller", r);
}

static bool nvme_match(const char *sysdir, const char *name)
{
	(void)sysdir;
	return !strncmp(name, "nvme", 4);
}

static void nvme_probe(const char *sysdir, struct pa_device *d, bool real_root)
{
	(void)sysdir;
	pa_nvme_probe(d->name, d->dev, real_root, &d->nvme);
}

const struct pa_prober pa_nvme_prober = {
	.name = "nvme",
	.transport = PA_TRANSPORT_NVME,
	.match = nvme_match,
	.probe = nvme_probe,
};

/* SPDX-License-Identifier: MIT */
/*
 * NVMe probe: Identify through libnvme on the namespace block device, decoded
 * by probes/nvme_decode.c.  Every failure (no privilege, NVMe status, no
 * device node) becomes an "unknown" with its reason, never an error.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "config.h"
#include "nvme.h"

#if HAVE_LIBNVME
#include <libnvme.h>
#endif

static const struct pa_nvme_io *probe_io;

void pa_nvme_set_io(const struct pa_nvme_io *io)
{
	probe_io = io;
}

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

/* The default seam: open /dev/NAME, check it is @dev, ask libnvme. */
static int real_identify(void *ctx, const char *devnode, dev_t dev,
			 enum pa_nvme_identify what, uint32_t *nsid, void *buf)
{
#if HAVE_LIBNVME
	struct stat st;
	int fd, r;

	(void)ctx;
	fd = open(devnode, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* Never talk to a node that is not the device we walked to. */
	if (fstat(fd, &st) < 0 || !S_ISBLK(st.st_mode) || st.st_rdev != dev)
		r = -ENODEV;
	else
		r = libnvme_identify(fd, what, nsid, buf);
	close(fd);
	return r;
#else
	(void)ctx; (void)devnode; (void)dev; (void)what; (void)nsid; (void)buf;
	return -EOPNOTSUPP;
#endif
}

static void set_reason(struct pa_nvme_info *n, const char *what, int r)
{
	if (n->reason[0])
		return;		/* keep the first, it usually explains the rest */
	if (r > 0)
		snprintf(n->reason, sizeof(n->reason), "%s: NVMe status 0x%x", what, r);
	else if (r == -EOPNOTSUPP)
		snprintf(n->reason, sizeof(n->reason), "%s: built without libnvme", what);
	else
		snprintf(n->reason, sizeof(n->reason), "%s: %s", what, strerror(-r));
}

void pa_nvme_probe(const char *name, dev_t dev, bool real_root, struct pa_nvme_info *ret)
{
	uint8_t buf[PA_NVME_IDENTIFY_SIZE];	/* on the stack: no per-thread TLS cost */
	const struct pa_nvme_io *io = probe_io;
	int (*identify)(void *, const char *, dev_t, enum pa_nvme_identify, uint32_t *, void *);
	char node[64];
	void *ctx = NULL;
	int r;

	memset(ret, 0, sizeof(*ret));
	if (io) {
		identify = io->identify;
		ctx = io->ctx;
	} else if (!real_root) {
		snprintf(ret->reason, sizeof(ret->reason),
			 "sysfs root overridden: no device node to ask");
		return;
	} else {
		identify = real_identify;
	}
	snprintf(node, sizeof(node), "/dev/%s", name);

	r = identify(ctx, node, dev, PA_NVME_ID_NS, &ret->nsid, buf);
	if (r == 0)
		r = pa_nvme_decode_id_ns(buf, sizeof(buf), &ret->ns);
	if (r == 0)
		ret->have_ns = true;
	else
		set_reason(ret, "Identify Namespace", r);

	r = identify(ctx, node, dev, PA_NVME_ID_CTRL, NULL, buf);
	if (r == 0)
		r = pa_nvme_decode_id_ctrl(buf, sizeof(buf), &ret->ctrl);
	if (r == 0)
		ret->have_ctrl = true;
	else
		set_reason(ret, "Identify Controller", r);

	r = identify(ctx, node, dev, PA_NVME_ID_NVM_CTRL, NULL, buf);
	if (r == 0)
		r = pa_nvme_decode_nvm_id_ctrl(buf, sizeof(buf), &ret->nvm);
	if (r == 0)
		ret->have_nvm = true;
	else
		set_reason(ret, "NVM Identify Controller", r);
}

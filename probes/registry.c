/* SPDX-License-Identifier: MIT */
/* The transport prober table and the loop over it (see registry.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>

#include "probes/registry.h"
#include "base/sysfs_read.h"
#include "base/util.h"

/* Order matters only if two probers could match the same disk. */
static const struct pa_prober *const probers[] = {
	&pa_nvme_prober,
	&pa_scsi_prober,
};

const struct pa_prober *pa_prober_of(int transport)
{
	for (size_t i = 0; i < PA_ARRAY_SIZE(probers); i++)
		if ((int)probers[i]->transport == transport)
			return probers[i];
	return NULL;
}

enum pa_transport pa_transport_detect(const char *sysdir, const char *name)
{
	for (size_t i = 0; i < PA_ARRAY_SIZE(probers); i++)
		if (probers[i]->match(sysdir, name))
			return probers[i]->transport;
	return PA_TRANSPORT_NONE;
}

const char *pa_transport_name(int transport)
{
	const struct pa_prober *p = pa_prober_of(transport);

	return p ? p->name : NULL;
}

void pa_chain_probe_transports(const char *root, bool real_root,
			       struct pa_device *devs, size_t n)
{
	char dir[PATH_MAX], node[64];

	for (size_t i = 0; i < n; i++) {
		const struct pa_prober *p = pa_prober_of(devs[i].transport);
		int fd;

		if (!p || pa_sysfs_dev_dir(root, devs[i].dev, dir) < 0)
			continue;
		/* A captured tree's device numbers are not this machine's. */
		snprintf(node, sizeof(node), "/dev/%s", devs[i].name);
		fd = real_root ? pa_probe_open_node(node, devs[i].dev) : -ENOENT;
		p->probe(dir, &devs[i], fd);
		if (fd >= 0)
			close(fd);
	}
}

/* SPDX-License-Identifier: MIT */
/* The transport prober table and the loop over it (see registry.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>

#include "probes/registry.h"
#include "base/own_files.h"
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

/* One device's transport probe, its node opened for the commands. */
struct node_probe {
	const struct pa_prober *p;
	const char *dir;
	struct pa_device *d;
};

/*
 * On a file table of the library's own (base/own_files.h): the application
 * may hold record locks on the device node, and a close() of it through the
 * process's table would drop them.
 */
static int probe_with_node(int none, void *arg)
{
	struct node_probe *np = arg;
	char node[64];
	int fd;

	(void)none;
	snprintf(node, sizeof(node), "/dev/%s", np->d->name);
	fd = pa_probe_open_node(node, np->d->dev);
	np->p->probe(np->dir, np->d, fd);
	if (fd >= 0)
		close(fd);
	return 0;
}

void pa_chain_probe_transports(const char *root, bool real_root,
			       struct pa_device *devs, size_t n)
{
	char dir[PATH_MAX];

	for (size_t i = 0; i < n; i++) {
		struct node_probe np = { pa_prober_of(devs[i].transport), dir, &devs[i] };
		int ret = -ENOENT;	/* a captured tree's numbers are not this machine's */

		if (!np.p || pa_sysfs_dev_dir(root, devs[i].dev, dir) < 0)
			continue;
		if (real_root)
			ret = pa_own_files_run(-1, probe_with_node, &np);
		if (ret < 0)		/* no node: what it would tell stays unknown */
			np.p->probe(dir, &devs[i], ret);
	}
}

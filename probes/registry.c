/* SPDX-License-Identifier: MIT */
/* The transport prober table and the loop over it (see registry.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "registry.h"
#include "sysfs_read.h"
#include "util.h"

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

bool pa_probe_step_ok(char *reason, size_t len, const char *what, int r)
{
	if (r == 0)
		return true;
	if (reason[0])
		return false;
	if (r > 0)
		snprintf(reason, len, "%s: device status 0x%x", what, (unsigned int)r);
	else if (r == -ENOSYS)
		snprintf(reason, len, "%s: built without the library to ask the device", what);
	else if (r == -EOPNOTSUPP)
		snprintf(reason, len, "%s: not supported by the device", what);
	else if (r == -ENOENT)
		snprintf(reason, len, "%s: not in sysfs and no device node to ask", what);
	else
		snprintf(reason, len, "%s: %s", what, strerror(-r));
	return false;
}

int pa_probe_open_node(const char *devnode, dev_t dev)
{
	struct stat st;
	int fd = open(devnode, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISBLK(st.st_mode) || st.st_rdev != dev) {
		close(fd);
		return -ENODEV;
	}
	return fd;
}

#ifdef PA_TEST_HOOKS
static const void *test_io[PA_TRANSPORT_SCSI + 1];

void pa_probe_set_io(enum pa_transport t, const void *io)
{
	if ((size_t)t < PA_ARRAY_SIZE(test_io))
		test_io[t] = io;
}
#endif

const void *pa_probe_io(enum pa_transport t, const void *real_io, int fd)
{
#ifdef PA_TEST_HOOKS
	if ((size_t)t < PA_ARRAY_SIZE(test_io) && test_io[t])
		return test_io[t];
#else
	(void)t;
#endif
	return fd >= 0 ? real_io : NULL;
}

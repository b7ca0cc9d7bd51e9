/* SPDX-License-Identifier: MIT */
/* Where sysfs is (base/sysfs_root.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "base/sysfs_root.h"

int pa_sysfs_root_init(struct pa_sysfs_root *r, const char *path)
{
	*r = (struct pa_sysfs_root)PA_SYSFS_ROOT_INIT;
	if (path && !(r->fixed = strdup(path)))
		return -ENOMEM;
	return 0;
}

void pa_sysfs_root_fini(struct pa_sysfs_root *r)
{
	free(r->fixed);
	r->fixed = NULL;
}

const char *pa_sysfs_root_path(const struct pa_sysfs_root *r)
{
	const char *env;

	if (r->fixed)
		return r->fixed;
	env = secure_getenv("PREALLOC_SYSFS_ROOT");
	return env && *env ? env : PA_SYSFS_MACHINE;
}

bool pa_sysfs_root_is_machine(const char *path)
{
	return strcmp(path, PA_SYSFS_MACHINE) == 0;
}

int pa_sysfs_dev_link(const char *root, dev_t dev, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s/dev/block/%u:%u", root, major(dev), minor(dev));

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * Signatures on a block device through libblkid, for the safety check before
 * a raw device is zeroed and for `prealloc probe`.  Like wipefs, every
 * signature is listed (blkid_do_probe() in a loop), not only the one
 * blkid_do_safeprobe() would pick: a device with two candidate signatures is
 * ambivalent to safeprobe but must still be refused here.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "probes/blkid.h"

#if HAVE_BLKID
#include <blkid/blkid.h>

/* Append @name to the comma-separated list in @buf unless already there. */
static bool list_add(char *buf, size_t len, const char *name)
{
	size_t used = strlen(buf), n = strlen(name);
	const char *p = buf;

	while ((p = strstr(p, name))) {
		if ((p == buf || p[-1] == ',') && (p[n] == ',' || p[n] == 0))
			return false;
		p += n;
	}
	if (used + (used ? 1 : 0) + n + 1 > len)
		return true;	/* counted, not shown */
	if (used)
		buf[used++] = ',';
	memcpy(buf + used, name, n + 1);
	return true;
}

static void probe_setup(blkid_probe pr)
{
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE | BLKID_SUBLKS_USAGE |
					  BLKID_SUBLKS_BADCSUM);
	/* Only the table's own magic: never PART_ENTRY_* details of a partition. */
	blkid_probe_enable_partitions(pr, 1);
	blkid_probe_set_partitions_flags(pr, BLKID_PARTS_MAGIC);
}

/* One name per probe result: a superblock TYPE or a partition-table PTTYPE. */
static int probe_all(blkid_probe pr, char *tmp, size_t len)
{
	const char *name;
	int ret, found = 0;

	while ((ret = blkid_do_probe(pr)) == 0) {
		if (blkid_probe_lookup_value(pr, "TYPE", &name, NULL) &&
		    blkid_probe_lookup_value(pr, "PTTYPE", &name, NULL))
			name = "unknown";
		if (list_add(tmp, len, name))
			found++;
	}
	return ret < 0 ? -EIO : found;
}

int pa_blkid_signatures_fd(int fd, char *buf, size_t len)
{
	char tmp[256] = "";
	blkid_probe pr;
	int ret;

	if (fd < 0 || (len && !buf))
		return -EINVAL;
	pr = blkid_new_probe();
	if (!pr)
		return -ENOMEM;
	if (blkid_probe_set_device(pr, fd, 0, 0)) {
		blkid_free_probe(pr);
		return -EIO;
	}
	probe_setup(pr);
	ret = probe_all(pr, tmp, sizeof(tmp));
	blkid_free_probe(pr);
	if (ret >= 0 && len)
		snprintf(buf, len, "%s", tmp);
	return ret;
}

#else

int pa_blkid_signatures_fd(int fd, char *buf, size_t len)
{
	(void)fd;
	if (len && buf)
		buf[0] = 0;
	return -EOPNOTSUPP;
}

#endif

int pa_blkid_signatures(const char *devpath, char *buf, size_t len)
{
	int fd, ret;

	if (!devpath)
		return -EINVAL;
	fd = open(devpath, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	ret = pa_blkid_signatures_fd(fd, buf, len);
	close(fd);
	return ret;
}

/* SPDX-License-Identifier: MIT */
/* Reading sysfs attributes: one open/read/close path for every probe. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/sysmacros.h>

#include "base/sysfs_read.h"
#include "base/sysfs_root.h"
#include "base/util.h"

int pa_path_join(char *buf, size_t len, const char *a, const char *b)
{
	int n = snprintf(buf, len, "%s/%s", a, b);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int pa_sysfs_read(const char *dir, const char *attr, void *buf, size_t len)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd;

	if (pa_path_join(path, sizeof(path), dir, attr) < 0)
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* sysfs hands out an attribute in one read. */
	n = PA_RETRY_EINTR(read(fd, buf, len));
	if (n < 0)
		n = -errno;
	close(fd);
	return (int)n;
}

int pa_sysfs_read_str(const char *dir, const char *attr, char *buf, size_t len)
{
	int n;

	if (len == 0)
		return -EINVAL;
	n = pa_sysfs_read(dir, attr, buf, len - 1);
	if (n < 0)
		return n;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		n--;
	buf[n] = 0;
	return 0;
}

int pa_sysfs_uevent(const char *dir, const char *key, char *buf, size_t len)
{
	char ev[1024], *line, *save = NULL;
	size_t klen = strlen(key);
	int ret = pa_sysfs_read_str(dir, "uevent", ev, sizeof(ev));

	if (ret)
		return ret;
	for (line = strtok_r(ev, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, key, klen) || line[klen] != '=')
			continue;
		if (strlen(line + klen + 1) >= len)
			return -ENAMETOOLONG;
		strcpy(buf, line + klen + 1);
		return 0;
	}
	return -ENOENT;
}

int pa_sysfs_parse_u64(const char *s, uint64_t *ret)
{
	char *end;
	unsigned long long v;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		return -EINVAL;
	*ret = v;
	return 0;
}

int pa_sysfs_read_u64(const char *dir, const char *attr, uint64_t *ret)
{
	char buf[64];
	int r = pa_sysfs_read_str(dir, attr, buf, sizeof(buf));

	return r < 0 ? r : pa_sysfs_parse_u64(buf, ret);
}

int pa_sysfs_read_devnum(const char *dir, const char *attr, dev_t *ret)
{
	char buf[32];
	unsigned int ma, mi;
	char c;

	if (pa_sysfs_read_str(dir, attr, buf, sizeof(buf)) < 0)
		return -ENOENT;
	if (sscanf(buf, "%u:%u%c", &ma, &mi, &c) != 2)
		return -EINVAL;
	*ret = makedev(ma, mi);
	return 0;
}

bool pa_sysfs_exists(const char *dir, const char *name)
{
	char path[PATH_MAX];

	return pa_path_join(path, sizeof(path), dir, name) == 0 && access(path, F_OK) == 0;
}

int pa_sysfs_dev_dir(const char *root, dev_t dev, char *ret)
{
	char path[PATH_MAX];

	if (pa_sysfs_dev_link(root, dev, path, sizeof(path)) < 0)
		return -ENAMETOOLONG;
	if (!realpath(path, ret))
		return errno == ENOTDIR ? -ENOENT : -errno;
	return 0;
}

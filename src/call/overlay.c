/* SPDX-License-Identifier: MIT */
/*
 * The filesystem that holds an overlayfs file's data.  statfs() on overlayfs
 * answers with the overlay's own type, but writes go to the upper layer
 * (files opened for writing are copied up), so copy-on-write is judged on
 * the upper layer's filesystem: /proc/thread-self/fdinfo gives the descriptor's
 * mount, /proc/self/mountinfo that mount's upperdir.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>

#include "base/internal.h"
#include "src/call/overlay.h"

/* The mount id of @fd, or -1. */
static long mount_id(int fd)
{
	char path[64], line[128];
	long id = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/thread-self/fdinfo/%d", fd);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (id < 0 && fgets(line, sizeof(line), f))
		if (sscanf(line, "mnt_id: %ld", &id) != 1)
			id = -1;
	fclose(f);
	return id;
}

/* Copy the option @key= of the comma-separated @opts into @out, undoing
 * mountinfo's octal escapes (\040 for a space, \054 for a comma). */
static bool option(const char *opts, const char *key, char *out, size_t len)
{
	size_t klen = strlen(key), n = 0;
	const char *p = opts;

	while (p && strncmp(p, key, klen) != 0)
		p = (p = strchr(p, ',')) ? p + 1 : NULL;
	if (!p)
		return false;
	for (p += klen; *p && *p != ',' && *p != '\n' && n + 1 < len; n++) {
		if (p[0] == '\\' && p[1] >= '0' && p[1] <= '3' && p[2] && p[3]) {
			out[n] = (char)((p[1] - '0') * 64 + (p[2] - '0') * 8 + (p[3] - '0'));
			p += 4;
		} else {
			out[n] = *p++;
		}
	}
	out[n] = 0;
	return n > 0;
}

uint64_t pa_overlay_upper_fs(int fd)
{
	long id = mount_id(fd), lid;
	char *line = NULL, upper[4096];
	uint64_t type = 0;
	size_t cap = 0;
	struct statfs sfs;
	FILE *f;

	if (id < 0 || !(f = fopen("/proc/self/mountinfo", "re")))
		return 0;
	while (getline(&line, &cap, f) > 0) {
		char *sep = strstr(line, " - "), *opts;

		if (sscanf(line, "%ld", &lid) != 1 || lid != id || !sep)
			continue;
		/* " - fstype source super-options" */
		opts = strchr(sep + 3, ' ');
		opts = opts ? strchr(opts + 1, ' ') : NULL;
		if (opts && option(opts + 1, "upperdir=", upper, sizeof(upper)) &&
		    statfs(upper, &sfs) == 0)
			type = (uint64_t)sfs.f_type;
		break;
	}
	free(line);
	fclose(f);
	return type;
}

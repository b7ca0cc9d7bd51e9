/* SPDX-License-Identifier: MIT */
/*
 * A block device's I/O counters (sysfs `stat`, the kernel's
 * Documentation/block/stat.rst), decoded: background mode compares them with
 * its own writes to see whether anyone else uses the device.
 */
#ifndef PREALLOC_DEVSTAT_H
#define PREALLOC_DEVSTAT_H

#include <stdbool.h>
#include <stdint.h>

struct pa_devstat {
	uint64_t reads;		/* read requests completed */
	uint64_t write_bytes;	/* bytes written */
	uint64_t flushes;	/* flush requests completed (0 before Linux 5.5) */
};

/* Decode one `stat` line into @s: at least 11 fields (11 before Linux 4.18,
 * 15 with the discard fields, 17 with the flush fields); later fields are
 * ignored.  False if it is not such a line. */
bool pa_devstat_parse(const char *line, struct pa_devstat *s);

#endif

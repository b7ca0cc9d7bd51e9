/* SPDX-License-Identifier: MIT */
/* Direct-I/O alignment and atomic-write limits of an open file (statx). */
#ifndef PREALLOC_STATX_H
#define PREALLOC_STATX_H

#include <stdbool.h>
#include <stdint.h>

struct pa_statx_limits {
	bool have_dio;			/* STATX_DIOALIGN answered (6.1+) */
	uint32_t dio_offset_align;	/* 0: no direct I/O on this file */
	uint32_t dio_mem_align;
	bool have_atomic;		/* STATX_WRITE_ATOMIC answered (6.11+) */
	uint32_t atomic_unit_min;	/* 0: no atomic writes on this file */
	uint32_t atomic_unit_max;
	uint32_t atomic_segments_max;
	uint32_t atomic_unit_max_opt;	/* 6.16+; 0 when not reported */
};

/* One statx() asking for both; 0 or -errno (fields unset on error). */
int pa_statx_limits(int fd, struct pa_statx_limits *ret);

#endif

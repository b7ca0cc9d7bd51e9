/* SPDX-License-Identifier: MIT */
/* Block-device targets (src/exec/blockdev.c). */
#ifndef PREALLOC_BLOCKDEV_H
#define PREALLOC_BLOCKDEV_H

#include <stdint.h>

#include "src/exec/job.h"

/* Make [off, off + len) of the device read as zeros.  0 or -errno. */
int pa_blockdev_prealloc(struct pa_job *j, uint64_t off, uint64_t len);

#endif

/* SPDX-License-Identifier: MIT */
/* What a file's inode says about a FALLOC_FL_WRITE_ZEROES refusal
 * (src/exec/wz_inode.c). */
#ifndef PREALLOC_WZ_INODE_H
#define PREALLOC_WZ_INODE_H

#include "src/exec/job.h"

/* What @t's inode says about a FALLOC_FL_WRITE_ZEROES refusal on @fd (@sysfs
 * the context's root, for the filesystems' knobs), as
 * "this file, which ...", or NULL when it explains nothing. */
const char *pa_wz_inode_refusal(int fd, const struct pa_target *t, const char *sysfs);

#endif

/* SPDX-License-Identifier: MIT */
/* The filesystem that holds an overlayfs file's data (src/call/overlay.c). */
#ifndef PREALLOC_OVERLAY_H
#define PREALLOC_OVERLAY_H

#include <stdint.h>

/* statfs f_type of the upper layer under overlayfs descriptor @fd: where
 * its data is written.  0 when it cannot be told. */
uint64_t pa_overlay_upper_fs(int fd);

#endif

/* SPDX-License-Identifier: MIT */
/* Helpers shared by the library's source files. Not installed. */
#ifndef PREALLOC_INTERNAL_H
#define PREALLOC_INTERNAL_H

#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "prealloc.h"
#include "base/util.h"

#define PA_EXPORT __attribute__((visibility("default")))

/* Largest size a caller may claim for a size-prefixed struct: the bytes past
 * what this library knows are read to check they are zero, so a garbage
 * size (0xFFFFFFFF) must not send that check through memory (-E2BIG). */
#define PA_STRUCT_SIZE_MAX 4096u

/* Methods this library knows: [0, PA_METHOD_COUNT). */
#define PA_METHOD_COUNT (PREALLOC_METHOD_AIO + 1)
_Static_assert(PA_METHOD_COUNT <= PREALLOC_METHOD_SLOTS, "report has a slot per method");

/* Largest file offset + 1 the kernel accepts (loff_t is signed). */
#define PA_MAX_END ((uint64_t)INT64_MAX)

#ifndef FALLOC_FL_WRITE_ZEROES
#define FALLOC_FL_WRITE_ZEROES 0x80	/* Linux 6.17 */
#endif

/* pthread_create() with every signal blocked in the new thread
 * (base/thread.c).  0 or -errno. */
int pa_thread_start(pthread_t *t, void *(*fn)(void *), void *arg);

/* Copy a size-prefixed input struct (see &prealloc_options.size): 0, -EINVAL
 * (user_size below min_size) or -E2BIG (unknown non-zero bytes)
 * (base/sized_in.c). */
int pa_copy_sized_in(void *dst, size_t ksize, const void *src, uint32_t user_size,
		     size_t min_size);

/* pwritev2()/io_uring flag (Linux 6.9): this write ignores O_APPEND.  Our
 * own name: the C library's and the kernel's headers may both define it. */
#define PA_RWF_NOAPPEND 0x00000020
/* pwritev2() flag (Linux 6.14): drop the pages once written back. */
#define PA_RWF_DONTCACHE 0x00000080

/* [off, off + len) as the kernel takes it: -EINVAL if empty, -EFBIG past loff_t. */
static inline int pa_check_range(uint64_t off, uint64_t len)
{
	if (len == 0)
		return -EINVAL;
	return off > PA_MAX_END || len > PA_MAX_END - off ? -EFBIG : 0;
}

#endif

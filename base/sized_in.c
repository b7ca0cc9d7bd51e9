/* SPDX-License-Identifier: MIT */
/* The caller's size-prefixed structs (base/internal.h). */
#include <string.h>

#include "base/internal.h"

/*
 * Copy a size-prefixed input struct: min(user_size, ksize) bytes, rest zero;
 * bytes beyond what this library knows must be zero (-E2BIG otherwise).
 */
int pa_copy_sized_in(void *dst, size_t ksize, const void *src, uint32_t user_size,
		     size_t min_size)
{
	const uint8_t *tail = (const uint8_t *)src + ksize;

	if (user_size < min_size)
		return -EINVAL;
	if (user_size > PA_STRUCT_SIZE_MAX)
		return -E2BIG;
	for (size_t i = ksize; i < user_size; i++, tail++)
		if (*tail)
			return -E2BIG;
	memset(dst, 0, ksize);
	memcpy(dst, src, PA_MIN((size_t)user_size, ksize));
	return 0;
}

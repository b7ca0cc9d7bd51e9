/* SPDX-License-Identifier: MIT */
/* The table of zeroing methods (src/method/method.h) and their names. */
#include <string.h>

#include "base/internal.h"
#include "src/method/method.h"

#define ANY (PA_M_FILE | PA_M_BDEV)

static const struct pa_method methods[PA_METHOD_COUNT] = {
	[PREALLOC_METHOD_WRITE_ZEROES] = { "write-zeroes", ANY },
	[PREALLOC_METHOD_ZEROOUT] = { "zeroout", PA_M_BDEV },
	[PREALLOC_METHOD_URING] = { "uring", ANY | PA_M_RESERVE | PA_M_WRITES | PA_M_DIRECT |
					     PA_M_BATCH },
	[PREALLOC_METHOD_AIO] = { "aio", ANY | PA_M_RESERVE | PA_M_WRITES | PA_M_DIRECT |
					 PA_M_BATCH },
	[PREALLOC_METHOD_BUFFERED] = { "buffered", ANY | PA_M_RESERVE | PA_M_WRITES | PA_M_WHOLE },
	[PREALLOC_METHOD_ALLOCATE] = { "allocate", PA_M_FILE | PA_M_RESERVE | PA_M_WHOLE },
};

const uint8_t pa_method_order[] = {
	PREALLOC_METHOD_WRITE_ZEROES,
	PREALLOC_METHOD_ZEROOUT,
	PREALLOC_METHOD_URING,
	PREALLOC_METHOD_AIO,
	PREALLOC_METHOD_BUFFERED,
};
const size_t pa_method_order_n = PA_ARRAY_SIZE(pa_method_order);

const struct pa_method *pa_method(unsigned int m)
{
	return m < PA_METHOD_COUNT && methods[m].name ? &methods[m] : NULL;
}

bool pa_method_is(unsigned int m, uint32_t flags)
{
	const struct pa_method *row = pa_method(m);

	return row && (row->flags & flags) == flags;
}

PA_EXPORT const char *prealloc_method_name(enum prealloc_method method)
{
	const struct pa_method *m = pa_method((unsigned int)method);

	if (method == PREALLOC_METHOD_AUTO)
		return "auto";
	return m ? m->name : NULL;
}

PA_EXPORT int prealloc_method_from_name(const char *name)
{
	if (!name)
		return -EINVAL;
	for (int i = 0; i < PA_METHOD_COUNT; i++)
		if (prealloc_method_name(i) && strcmp(name, prealloc_method_name(i)) == 0)
			return i;
	return -EINVAL;
}

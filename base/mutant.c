/* SPDX-License-Identifier: MIT */
/* The durability mutants' switch (mutant.h); built into the test archive only. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/mutant.h"

static const char *const names[] = {
	[PA_MUTANT_DATA_SYNC] = "data-sync",
	[PA_MUTANT_POOL_SYNC] = "pool-sync",
	[PA_MUTANT_DIR_SYNC] = "dir-sync",
};
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int active = -1;

static void read_env(void)
{
	const char *e = getenv("PREALLOC_CRASH_MUTANT");

	for (size_t i = 0; e && i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(e, names[i]))
			active = (int)i;
}

bool pa_mutant(enum pa_mutant m)
{
	pthread_once(&once, read_env);
	return active == (int)m;
}

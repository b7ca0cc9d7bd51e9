/* SPDX-License-Identifier: MIT */
/* Zeros ordered against other writers (src/exec/exchange.c). */
#ifndef PREALLOC_EXEC_EXCHANGE_H
#define PREALLOC_EXEC_EXCHANGE_H

#include <stdint.h>

#include "src/exec/job.h"

/*
 * Make [off, off + len) of the call's file written while others may write
 * into it (PREALLOC_CONCURRENT_WRITES, a plan that exchanges): zero a
 * temporary file with the plan's methods, then exchange it in where, and
 * while, the file is unchanged.  The file is untouched unless it returns
 * 0; -EOPNOTSUPP when no temporary file or no conditional exchange can be
 * had here, -EBUSY when the file changed under every attempt.
 */
int pa_exchange_prealloc(struct pa_job *j, uint64_t off, uint64_t len);

#endif

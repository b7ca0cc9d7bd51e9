/* SPDX-License-Identifier: MIT */
/*
 * The pool's segments on disk (store.c): names, making, moving, removing;
 * and the start-up scan (scan.c).  No lock and no pool state: callers call in without the
 * pool's lock.
 */
#ifndef PREALLOC_POOL_STORE_H
#define PREALLOC_POOL_STORE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "base/internal.h"
#include "src/pool/state.h"

#define PA_POOL_PREFIX ".prealloc-"
#define PA_POOL_TMP_PREFIX PA_POOL_PREFIX "tmp-"
#define PA_POOL_READY_PREFIX PA_POOL_PREFIX "ready-"

struct pa_store {
	int dirfd;			/* the pool's directory, flock()ed */
	dev_t dev;
	ino_t ino;
	const struct prealloc_pool_config *cfg;	/* size, mode, pacing, context */
	bool *stop;			/* the pool closes: abandon a segment being made */
	bool counts_late;		/* statfs counts allocations and frees late (src/fs):
					 * pa_store_settle() has it catch up */
};

/* How a segment is zeroed. */
enum pa_pool_pace {
	PA_POOL_CALLER,		/* a miss: the caller waits; full speed */
	PA_POOL_URGENT,		/* the worker with none ready: full speed */
	PA_POOL_QUIET,		/* the worker with one ready anyway: beside the commits */
};

/* A complete ready segment found by the scan. */
typedef int (*pa_store_found_fn)(void *arg, uint32_t seq, bool cow);

int pa_store_open(struct pa_store *s, const char *dir, uint64_t *ret_fs_bytes);
void pa_store_close(struct pa_store *s);
void pa_store_name(char *buf, size_t len, bool ready, uint32_t seq);
bool pa_store_holds(const struct pa_store *s, const char *name);

/* Could a file with @st be one of the pool's?  Only a regular file with no
 * other name: anything else under a pool name is left alone. */
static inline bool pa_store_own_type(const struct stat *st)
{
	return S_ISREG(st->st_mode) && st->st_nlink == 1;
}
int pa_store_open_seg(const struct pa_store *s, const char *name, int oflags);
int pa_store_make(const struct pa_store *s, uint32_t seq, enum pa_pool_pace pace,
		  struct pa_fill *f);
int pa_store_refill(const struct pa_store *s, uint32_t seq, bool zero, enum pa_pool_pace pace,
		    struct pa_fill *f);
int pa_store_publish(const struct pa_store *s, uint32_t seq);
int pa_store_move(const struct pa_store *s, const char *from, int dirfd, const char *to,
		  bool *ret_renamed);
int pa_store_move_in(const struct pa_store *s, int dirfd, const char *from, const char *to);
int pa_store_remove(const struct pa_store *s, bool ready, uint32_t seq);
int pa_store_avail(const struct pa_store *s, uint64_t *ret_avail);
int pa_store_settle(const struct pa_store *s);
int pa_store_same_fs(const struct pa_store *s, int dirfd, const char *name);
int pa_store_sync(const struct pa_store *s);

/* scan.c */
int pa_store_scan(const struct pa_store *s, pa_store_found_fn found, void *arg,
		  uint32_t *ret_next);

#endif

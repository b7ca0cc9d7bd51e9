/* SPDX-License-Identifier: MIT */
/*
 * Undoing a failed call on a regular file: release exactly the blocks the
 * call allocated inside its range, restore the size only if the call changed
 * it, and give back any reservation beyond end of file the file had.
 */
#ifndef PREALLOC_UNDO_H
#define PREALLOC_UNDO_H

#include <stdbool.h>
#include <stdint.h>

#include "src/file/extents.h"

/* What the file was before the call, as far as undo needs it. */
struct pa_undo {
	uint64_t off, end;		/* the call's range */
	uint64_t old_size;
	uint64_t bs;			/* filesystem block size */
	bool may_resize;		/* the call may extend the size (no KEEP_SIZE) */
	bool eof_hole;			/* the block holding the old EOF was a hole */
	struct pa_extlist beyond;	/* extents beyond the old EOF block */
};

/* Record the state undo restores.  Call before anything is changed.
 * 0 or -errno. */
int pa_undo_record(struct pa_undo *u, int fd, uint64_t off, uint64_t end,
		   uint64_t old_size, uint64_t bs, bool may_resize);

/*
 * Undo on @fd: @regions is the range's classification taken before the call;
 * its holes and unallocated EOF regions are the blocks the call may have
 * allocated.  Every part of it is tried whatever failed before it; with @sync the
 * result is made durable.  0, or the first error met: then the file may not
 * be as it was.
 */
int pa_undo_run(const struct pa_undo *u, const struct pa_regionlist *regions, int fd, bool sync);

void pa_undo_free(struct pa_undo *u);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * Reordering within a flush epoch (tests/vm/README.md, "Crash points").
 *
 * dm-log-writes logs the plain writes a flush made durable as one run of
 * entries right before that flush's entry: they completed before the flush
 * was issued and sat in the device's volatile cache, in no order it must
 * keep.  A power loss before the flush completed may have kept any subset
 * of them (CrashMonkey's reordering), while FUA writes, marks and earlier
 * epochs stay as logged.  A group holds one such run and the bytes each of
 * its entries overwrote on the replay disk, so that a copy of that disk with
 * the whole run applied (a snapshot) can be turned into the state where only
 * a chosen subset of it reached the media.
 */
#ifndef VM_REORDER_H
#define VM_REORDER_H

#include <stdbool.h>
#include <stdint.h>

#include "logwrites.h"

#define RO_MAX 64			/* entries in a group: a subset is a bit mask */
#define RO_MAX_BYTES (32u << 20)	/* bytes they overwrite, kept in memory */

struct ro_group {
	struct lw_entry e[RO_MAX];
	void *undo[RO_MAX];	/* the bytes entry i overwrote */
	int n;			/* entries kept */
	int total;		/* entries in the run, kept or not */
	uint64_t bytes;
	bool overflow;		/* more than RO_MAX entries or RO_MAX_BYTES */
};

/* A plain entry: neither flush, FUA nor mark (a data write or a discard). */
bool ro_plain(const struct lw_entry *e);

/* Forget the group (after any entry that is not plain). */
void ro_reset(struct ro_group *g);

/*
 * Before plain entry @e is applied to @devfd: remember it and the bytes it
 * will overwrite there.  A group past RO_MAX or RO_MAX_BYTES is marked
 * overflow and keeps nothing more (still counting @total).  0 or a negative
 * errno (reading @devfd).
 */
int ro_add(struct ro_group *g, const struct lw_entry *e, uint32_t sectorsize, int devfd);

/*
 * Pure: up to @max subsets of @n entries as bit masks in @masks, neither
 * empty nor full (the prefixes before and after the group are crash points
 * of their own): every one when 2^n - 2 <= @max, else @max distinct ones
 * drawn with the xorshift state @seed.  Returns how many.
 */
int ro_subsets(int n, uint64_t *masks, int max, uint64_t *seed);

/*
 * @devfd holds the whole group applied: put back what the group overwrote,
 * newest entry first, then apply the entries in @mask in log order.
 */
int ro_write(const struct ro_group *g, const struct lw_log *log, uint64_t mask, int devfd);

#endif

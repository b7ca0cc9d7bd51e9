/* SPDX-License-Identifier: MIT */
/*
 * Pacing for PREALLOC_BACKGROUND and prealloc_options.max_rate: a byte-rate
 * pacer that every zeroing method asks before sending work, and an AIMD
 * controller that lowers the rate while the device serves someone else's
 * I/O (its sysfs counters; without them, our own completions slowing down)
 * and raises it while it does not.
 */
#ifndef PREALLOC_PACE_H
#define PREALLOC_PACE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "src/exec/devstat.h"

/* Background mode while nobody else uses the device: 1 MiB requests (the
 * loop device splits at 1.25 MiB), enough in flight for ~0.8x of the
 * default's speed; PA_BG_BUSY_REQUEST, one at a time, while others do. */
#define PA_BG_QUEUE_DEPTH	4
#define PA_BG_REQUEST		(1u << 20)
/* Offloaded zeroing (write-zeroes, BLKZEROOUT) in background mode: bytes
 * per call, so one call cannot hold the device for long. */
#define PA_BG_CHUNK		(16ull << 20)
/* While others use the device: smaller requests, one at a time. */
#define PA_BG_BUSY_REQUEST	(256u << 10)

struct pa_log;

struct pa_pace {
	struct pa_log *log;	/* the context's log hook */
	bool on;		/* any pacing at all (background or a cap) */
	bool adaptive;		/* background: AIMD on the rate */
	bool idle_prio;		/* the scheduler honours IOPRIO_CLASS_IDLE */
	uint32_t applied;	/* enum prealloc_background bits */
	uint64_t cap;		/* bytes/s, 0 = none */
	uint64_t rate;		/* adaptive rate, bytes/s; 0 = not limiting yet */
	uint64_t next_ns;	/* earliest start of the next request */
	uint64_t base_ns;	/* quietest latency seen for a full request */
	uint64_t avg_ns;	/* smoothed latency of full requests */
	uint64_t full;		/* size of a full request */
	unsigned int samples;	/* full requests timed */
	uint64_t inflight;	/* bytes sent and not yet done */
	uint64_t win_ns, win_bytes;	/* measurement window: start, our bytes */
	uint64_t tput;		/* last measured throughput, bytes/s */
	uint64_t peak;		/* highest measured throughput, bytes/s */
	uint64_t anchor;	/* busy shape, back to back beside others; 0 = unknown */
	bool measuring;		/* this window learns it: busy shape, unpaced */
	bool busy;		/* others used the device in the last window */
	struct pa_devstat dev;	/* what the device did so far (sysfs stat) */
	char stat[160];		/* the sysfs directory of the device's stat, "" if none */
};

/* Set up for a call with @flags and @max_rate on device @dev (st_dev of a
 * file, st_rdev of a block device; 0 if none), reading the sysfs under
 * @root and logging through @log. */
void pa_pace_init(struct pa_pace *p, struct pa_log *log, const char *root, uint32_t flags,
		  uint64_t max_rate, uint64_t dev);

/* May a request go now?  With nothing in flight (@inflight == 0) it sleeps
 * until it may and returns true; otherwise it returns false when the caller
 * should first wait for a completion (rate, or one at a time while busy). */
bool pa_pace_go(struct pa_pace *p, unsigned int inflight);

/* @bytes were just sent. */
void pa_pace_sent(struct pa_pace *p, uint64_t bytes);

/* @bytes completed after @lat_ns: feeds the adaptive controller. */
void pa_pace_done(struct pa_pace *p, uint64_t bytes, uint64_t lat_ns);

/* The ioprio for an io_uring write: IOPRIO_CLASS_IDLE where it is honoured
 * (and noted in the report), else 0 (the submitter's). */
uint16_t pa_pace_ioprio(struct pa_pace *p);

/* Bytes for the next io_uring write: @req, less while the device is busy
 * with others or when a cap allows less per window (a multiple of @align). */
uint64_t pa_pace_request(const struct pa_pace *p, uint64_t req, uint32_t align);

/* Bytes per call for chunked synchronous methods: @chunk, or less when
 * paced (a multiple of 1 MiB, or @chunk). */
uint64_t pa_pace_chunk(const struct pa_pace *p, uint64_t chunk);

/* Run one synchronous request of @bytes under the pacer: wait, send, time. */
#define PA_PACED(p, bytes, expr) ({				\
	uint64_t __pt0;						\
	long __pr;						\
	pa_pace_go((p), 0);					\
	pa_pace_sent((p), (bytes));				\
	__pt0 = pa_now_ns();					\
	__pr = (long)(expr);					\
	if (__pr >= 0)						\
		pa_pace_done((p), (bytes), pa_now_ns() - __pt0);	\
	__pr; })

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The C half of prealloc-sys's layout test: every struct's size and field
 * offsets, and every constant, as the compiler sees the installed header.
 * src/layout_test.rs compares the Rust declarations with this table.
 */
#include <stddef.h>
#include <prealloc.h>

struct pa_layout_entry {
	const char *name;
	unsigned long long value;
};

#define SIZE(s) { "sizeof " #s, sizeof(struct s) }
#define FIELD(s, f) { #s "." #f, offsetof(struct s, f) }
#define CONST(c) { #c, (unsigned long long)(c) }

static const struct pa_layout_entry entries[] = {
	SIZE(prealloc_options),
	FIELD(prealloc_options, size),
	FIELD(prealloc_options, flags),
	FIELD(prealloc_options, method),
	FIELD(prealloc_options, queue_depth),
	FIELD(prealloc_options, request_bytes),
	FIELD(prealloc_options, progress),
	FIELD(prealloc_options, progress_data),
	FIELD(prealloc_options, max_rate),
	FIELD(prealloc_options, ctx),
	SIZE(prealloc_report),
	FIELD(prealloc_report, size),
	FIELD(prealloc_report, written),
	FIELD(prealloc_report, cow),
	FIELD(prealloc_report, __pad),
	FIELD(prealloc_report, method),
	FIELD(prealloc_report, refused),
	FIELD(prealloc_report, bytes_zeroed),
	FIELD(prealloc_report, bytes_kept),
	FIELD(prealloc_report, bytes_reserved),
	FIELD(prealloc_report, elapsed_ns),
	FIELD(prealloc_report, bytes_by_method),
	FIELD(prealloc_report, failed_step),
	FIELD(prealloc_report, failed_method),
	FIELD(prealloc_report, bytes_unknown),
	FIELD(prealloc_report, background),
	FIELD(prealloc_report, __pad2),
	FIELD(prealloc_report, bytes_per_sec),
	FIELD(prealloc_report, undo_error),
	FIELD(prealloc_report, __pad3),
	FIELD(prealloc_report, lock_error),
	FIELD(prealloc_report, __pad4),
	SIZE(prealloc_census),
	FIELD(prealloc_census, size),
	FIELD(prealloc_census, fiemap),
	FIELD(prealloc_census, written_bytes),
	FIELD(prealloc_census, unwritten_bytes),
	FIELD(prealloc_census, hole_bytes),
	FIELD(prealloc_census, shared_bytes),
	FIELD(prealloc_census, unknown_bytes),
	SIZE(prealloc_pool_config),
	FIELD(prealloc_pool_config, size),
	FIELD(prealloc_pool_config, flags),
	FIELD(prealloc_pool_config, segment_size),
	FIELD(prealloc_pool_config, target),
	FIELD(prealloc_pool_config, mode),
	FIELD(prealloc_pool_config, free_floor),
	FIELD(prealloc_pool_config, max_rate),
	FIELD(prealloc_pool_config, ctx),
	SIZE(prealloc_pool_stats),
	FIELD(prealloc_pool_stats, size),
	FIELD(prealloc_pool_stats, ready),
	FIELD(prealloc_pool_stats, target),
	FIELD(prealloc_pool_stats, last_error),
	FIELD(prealloc_pool_stats, hits),
	FIELD(prealloc_pool_stats, misses),
	FIELD(prealloc_pool_stats, foreground_wait_ns),
	FIELD(prealloc_pool_stats, created),
	FIELD(prealloc_pool_stats, recycled),
	FIELD(prealloc_pool_stats, removed),
	FIELD(prealloc_pool_stats, bytes_zeroed),
	FIELD(prealloc_pool_stats, enospc),
	FIELD(prealloc_pool_stats, worker_ns),
	FIELD(prealloc_pool_stats, prepared),
	FIELD(prealloc_pool_stats, cow_segments),
	CONST(PREALLOC_KEEP_SIZE),
	CONST(PREALLOC_ZERO_DATA),
	CONST(PREALLOC_NO_SYNC),
	CONST(PREALLOC_FORCE),
	CONST(PREALLOC_BACKGROUND),
	CONST(PREALLOC_METHOD_AUTO),
	CONST(PREALLOC_METHOD_WRITE_ZEROES),
	CONST(PREALLOC_METHOD_ZEROOUT),
	CONST(PREALLOC_METHOD_URING),
	CONST(PREALLOC_METHOD_BUFFERED),
	CONST(PREALLOC_METHOD_ALLOCATE),
	CONST(PREALLOC_METHOD_AIO),
	CONST(PREALLOC_METHOD_SLOTS),
	CONST(PREALLOC_STEP_NONE),
	CONST(PREALLOC_STEP_TARGET),
	CONST(PREALLOC_STEP_REQUEST),
	CONST(PREALLOC_STEP_CLAIM),
	CONST(PREALLOC_STEP_SIGNATURES),
	CONST(PREALLOC_STEP_CLASSIFY),
	CONST(PREALLOC_STEP_SPACE_CHECK),
	CONST(PREALLOC_STEP_RESERVE),
	CONST(PREALLOC_STEP_ZERO),
	CONST(PREALLOC_STEP_SYNC),
	CONST(PREALLOC_ACTION_RESERVE),
	CONST(PREALLOC_ACTION_ZERO),
	CONST(PREALLOC_ACTION_WRITE_EDGES),
	CONST(PREALLOC_ACTION_SYNC),
	CONST(PREALLOC_BG_PACED),
	CONST(PREALLOC_BG_IDLE_PRIO),
	CONST(PREALLOC_BG_ADAPTED),
	CONST(PREALLOC_NO),
	CONST(PREALLOC_YES),
	CONST(PREALLOC_UNKNOWN),
	CONST(PREALLOC_FACT_NULL),
	CONST(PREALLOC_FACT_BOOL),
	CONST(PREALLOC_FACT_NUMBER),
	CONST(PREALLOC_FACT_BYTES),
	CONST(PREALLOC_FACT_FLAGS),
	CONST(PREALLOC_FACT_STRING),
	CONST(PREALLOC_POOL_FULL_SPEED),
	CONST(PREALLOC_POOL_RECYCLE_ZERO),
	CONST(PREALLOC_POOL_MAX_TARGET),
};

/* Called by the test only; the name keeps clear of the library's prefixes. */
const struct pa_layout_entry *prealloc_sys_layout(size_t *count);
const struct pa_layout_entry *prealloc_sys_layout(size_t *count)
{
	*count = sizeof(entries) / sizeof(entries[0]);
	return entries;
}

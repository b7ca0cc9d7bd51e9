/* SPDX-License-Identifier: MIT */
/*
 * The pool worker's decisions over free space (src/pool/state.c), as
 * tables: where statfs is up to date they follow the count alone; where it
 * counts allocations and frees late (btrfs), the bytes the pool allocated
 * and freed since the filesystem last settled bound what free space will
 * be, and the worker settles first whenever the answer hangs on them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "src/pool/state.h"
#include "tassert.h"

#define MiB (1ull << 20)
#define SEG (8 * MiB)
#define FLOOR (64 * MiB)

/* A pool state: @ready segments, aiming at @target. */
static struct pa_state pool_state(uint32_t ready, uint32_t target, bool late)
{
	struct pa_state s = { 0 };

	pa_state_init(&s, target);
	s.counts_late = late;
	for (uint32_t i = 0; i < ready; i++)
		assert_int_equal(pa_seqs_add(&s.ready, pa_state_new_seq(&s)), 0);
	return s;
}

static const char *name(enum pa_work w)
{
	static const char *const names[] = { "none", "recycle", "give back", "grow", "settle" };

	return names[w];
}

/* One decision: free space by statfs, what the pool did unseen, the answer. */
struct row {
	uint64_t avail, alloc, freed;
	uint32_t ready;
	bool backoff;
	enum pa_work want;
};

static void check_rows(const struct row *rows, size_t n, bool late)
{
	for (size_t i = 0; i < n; i++) {
		const struct row *r = &rows[i];
		struct pa_state s = pool_state(r->ready, 4, late);
		enum pa_work got;

		s.unseen_alloc = r->alloc;
		s.unseen_freed = r->freed;
		s.backoff = r->backoff;
		got = pa_state_next_work(&s, true, r->avail, FLOOR, SEG);
		assert_msg(got == r->want, "row %zu (late %d): %s, want %s", i, late, name(got),
			   name(r->want));
		pa_state_free(&s);
	}
}

/* statfs up to date (ext4, xfs): the count decides, nothing is settled. */
static void up_to_date_count_decides(void **state)
{
	static const struct row rows[] = {
		{ FLOOR + SEG, 0, 0, 0, false, PA_WORK_GROW },
		{ FLOOR + SEG - 1, 0, 0, 0, false, PA_WORK_NONE },
		{ FLOOR, 0, 0, 2, false, PA_WORK_NONE },
		{ FLOOR - 1, 0, 0, 2, false, PA_WORK_GIVE_BACK },
		{ FLOOR - 1, 0, 0, 0, false, PA_WORK_NONE },	/* none to give */
		{ FLOOR + SEG, 0, 0, 4, false, PA_WORK_NONE },	/* at the target */
		{ FLOOR + SEG, 0, 0, 1, true, PA_WORK_NONE },	/* backing off */
		{ FLOOR - 1, 0, 0, 1, true, PA_WORK_GIVE_BACK },
	};

	(void)state;
	check_rows(rows, sizeof(rows) / sizeof(rows[0]), false);
}

/* statfs late (btrfs): settled, the same answers. */
static void late_count_settled_decides(void **state)
{
	static const struct row rows[] = {
		{ FLOOR + SEG, 0, 0, 0, false, PA_WORK_GROW },
		{ FLOOR + SEG - 1, 0, 0, 0, false, PA_WORK_NONE },
		{ FLOOR, 0, 0, 2, false, PA_WORK_NONE },
		{ FLOOR - 1, 0, 0, 2, false, PA_WORK_GIVE_BACK },
	};

	(void)state;
	check_rows(rows, sizeof(rows) / sizeof(rows[0]), true);
}

/* statfs late: grow or give back only when whatever of the pool's own
 * allocations and frees it shows yet, the answer is the same; settle when
 * it is not; never settle while backing off (a failed settle is retried at
 * the next tick, as any failure of the worker). */
static void late_count_settles_when_unsure(void **state)
{
	static const struct row rows[] = {
		/* Sure to fit after the segments made unseen. */
		{ FLOOR + 3 * SEG, 2 * SEG, 0, 1, false, PA_WORK_GROW },
		/* Fits only if statfs already shows them: ask. */
		{ FLOOR + 3 * SEG - 1, 2 * SEG, 0, 1, false, PA_WORK_SETTLE },
		{ FLOOR + SEG, SEG, 0, 0, false, PA_WORK_SETTLE },
		/* Would not fit even so: nothing to ask. */
		{ FLOOR + SEG - 1, SEG, 0, 0, false, PA_WORK_NONE },
		/* Below the floor unless the segments given back count yet. */
		{ FLOOR - SEG, 0, SEG, 2, false, PA_WORK_SETTLE },
		{ FLOOR - SEG - 1, 0, SEG, 2, false, PA_WORK_GIVE_BACK },
		/* Below the floor once the segments made count. */
		{ FLOOR + SEG - 1, 2 * SEG, 0, 2, false, PA_WORK_SETTLE },
		/* Above the floor whatever shows, at the target. */
		{ FLOOR + 2 * SEG, 2 * SEG, 4 * SEG, 4, false, PA_WORK_NONE },
		/* Backing off: no settle, no growth; a sure give-back still. */
		{ FLOOR + SEG, SEG, 0, 0, true, PA_WORK_NONE },
		{ FLOOR - SEG, 0, SEG, 2, true, PA_WORK_NONE },
		{ FLOOR - SEG - 1, 0, SEG, 2, true, PA_WORK_GIVE_BACK },
	};

	(void)state;
	check_rows(rows, sizeof(rows) / sizeof(rows[0]), true);
}

/* Unknown free space: neither grow, nor give back, nor settle. */
static void unknown_count_does_nothing(void **state)
{
	struct pa_state s = pool_state(2, 4, true);

	(void)state;
	s.unseen_alloc = SEG;
	s.unseen_freed = SEG;
	assert_int_equal(pa_state_next_work(&s, false, 0, FLOOR, SEG), PA_WORK_NONE);
	assert_true(s.space_limited);
	pa_state_free(&s);
}

/* What the pool makes and gives back is unseen only where statfs is late;
 * a settle clears what was unseen when it began, not what came since. */
static void unseen_bytes_counted(void **state)
{
	const struct pa_fill f = { .allocated = SEG };
	struct pa_state up = pool_state(2, 4, false), late = pool_state(2, 4, true);
	uint64_t alloc, freed;

	(void)state;
	pa_state_count_fill(&up, &f);
	pa_state_gave_back(&up, SEG);
	assert_int_equal(up.unseen_alloc, 0);
	assert_int_equal(up.unseen_freed, 0);
	assert_int_equal(up.st.removed, 1);

	pa_state_count_fill(&late, &f);
	pa_state_gave_back(&late, SEG);
	assert_int_equal(late.unseen_alloc, SEG);
	assert_int_equal(late.unseen_freed, SEG);
	alloc = late.unseen_alloc;
	freed = late.unseen_freed;
	pa_state_count_fill(&late, &f);		/* a miss while the worker settles */
	pa_state_settled(&late, alloc, freed);
	assert_int_equal(late.unseen_alloc, SEG);
	assert_int_equal(late.unseen_freed, 0);
	pa_state_free(&up);
	pa_state_free(&late);
}

/* A settle is a round of work: the decision after it, on an up-to-date
 * count, settles nothing again. */
static void settle_then_decide(void **state)
{
	struct pa_state s = pool_state(1, 4, true);

	(void)state;
	s.unseen_alloc = SEG;
	assert_int_equal(pa_state_next_work(&s, true, FLOOR + SEG, FLOOR, SEG), PA_WORK_SETTLE);
	pa_state_settled(&s, SEG, 0);
	/* statfs now shows the segment: no room for another. */
	assert_int_equal(pa_state_next_work(&s, true, FLOOR, FLOOR, SEG), PA_WORK_NONE);
	assert_true(s.space_limited);
	pa_state_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(up_to_date_count_decides),
		cmocka_unit_test(late_count_settled_decides),
		cmocka_unit_test(late_count_settles_when_unsure),
		cmocka_unit_test(unknown_count_does_nothing),
		cmocka_unit_test(unseen_bytes_counted),
		cmocka_unit_test(settle_then_decide),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

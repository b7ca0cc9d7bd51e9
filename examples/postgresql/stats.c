/* SPDX-License-Identifier: MIT */
/* pg_prealloc_stats(): the worker's and the pool's counters, one row. */
#include "pg_prealloc.h"

#include "fmgr.h"
#include "funcapi.h"
#include "utils/builtins.h"

PG_FUNCTION_INFO_V1(pg_prealloc_stats);

#define PGP_COLS 18

static void fill(Datum *v, bool *null, const PgpShared *s)
{
	const struct prealloc_pool_stats *p = &s->pool;
	int i = 0;

	v[i++] = Int32GetDatum(s->worker_pid);
	v[i++] = Int64GetDatum(s->tli);
	v[i++] = Int32GetDatum(s->ahead_target);
	v[i++] = Int32GetDatum(s->ahead_present);
	v[i++] = Int32GetDatum(s->installed_ahead);
	v[i++] = Int64GetDatum(s->installed);
	v[i++] = Int64GetDatum(s->switched_installed);
	v[i++] = Int64GetDatum(s->misses);
	v[i++] = Int64GetDatum(s->pool_empty);
	v[i++] = Int64GetDatum(s->rounds);
	v[i++] = Int32GetDatum(p->ready);
	v[i++] = Int32GetDatum(p->target);
	v[i++] = Int64GetDatum(p->created);
	v[i++] = Int64GetDatum(p->removed);
	v[i++] = Int64GetDatum(p->bytes_zeroed);
	v[i++] = Int64GetDatum(p->enospc);
	null[i] = !s->last_error && !p->last_error;
	v[i++] = CStringGetTextDatum(strerror(-(s->last_error ? s->last_error : p->last_error)));
	null[i] = !s->plan[0];
	v[i++] = CStringGetTextDatum(s->plan);
	Assert(i == PGP_COLS);
}

Datum pg_prealloc_stats(PG_FUNCTION_ARGS)
{
	Datum v[PGP_COLS];
	bool null[PGP_COLS] = { 0 };
	TupleDesc desc;
	PgpShared copy;

	if (!pgp_shared)
		ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				errmsg("pg_prealloc is not in shared_preload_libraries")));
	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		ereport(ERROR, (errmsg("pg_prealloc_stats: return type must be a row type")));
	SpinLockAcquire(&pgp_shared->mutex);
	copy = *pgp_shared;
	SpinLockRelease(&pgp_shared->mutex);
	fill(v, null, &copy);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(desc), v, null)));
}

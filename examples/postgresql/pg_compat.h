/* SPDX-License-Identifier: MIT */
/*
 * What pg_prealloc uses that differs between PostgreSQL's majors, in one
 * place (PostgreSQL 15 is the oldest it builds against).
 */
#ifndef PG_PREALLOC_COMPAT_H
#define PG_PREALLOC_COMPAT_H

#if PG_VERSION_NUM < 150000
#error "pg_prealloc needs PostgreSQL 15 or later"
#endif

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The pool's life in the power-loss test: open and fill, take, prepare and
 * take, recycle with zeroing, close, reopen and take; and the checks of the
 * pool directory ("poolN") and the caller's directory ("walN") at a crash
 * point.  Two lives: the first writes its segments through io_uring with
 * O_DIRECT; the second runs with io_uring and Linux AIO refused (a seccomp
 * profile refusing io_uring alone leaves the library its aio method, still
 * O_DIRECT), so the library falls back to writes through the page cache;
 * with RWF_DONTCACHE and sync_file_range() refused too, nothing writes them
 * back before the data sync that precedes a segment's rename, which alone
 * makes the segment durable (on 6.18 the write-back RWF_DONTCACHE starts
 * raced the rename, and the pool-sync mutant showed in some runs only).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <prealloc.h>

#include "crash.h"
#include "tcheck.h"
#include "tseccomp.h"

#define READY ".prealloc-ready-"
#define LIVES 2

struct cw_pool_run {
	int dirfd, waldir, life;
	char pooldir[256];
	struct prealloc_pool *pool;
	int (*mark)(const char *text);
	struct cw_oracle *o;
};

static const struct prealloc_pool_config pool_cfg = {
	.size = sizeof(pool_cfg), .flags = PREALLOC_POOL_FULL_SPEED, .segment_size = CW_SEG,
	.target = 2,
};

/* The ready names in @pooldir (at most 8). */
static void ready_names(const char *pooldir, char names[8][32], int *n)
{
	DIR *d = opendir(pooldir);
	struct dirent *de;

	*n = 0;
	while (d && (de = readdir(d)) && *n < 8)
		if (!strncmp(de->d_name, READY, strlen(READY)))
			snprintf(names[(*n)++], 32, "%.31s", de->d_name);
	if (d)
		closedir(d);
}

/* The ready name present before and gone after the take. */
static void find_taken(const char before[8][32], int nb, const char after[8][32], int na,
		       char *out)
{
	for (int i = 0; i < nb; i++) {
		bool gone = true;

		for (int j = 0; j < na; j++)
			gone = gone && strcmp(before[i], after[j]);
		if (gone) {
			memcpy(out, before[i], 32);
			return;
		}
	}
}

static struct cw_call *pool_call(struct cw_pool_run *r, enum cw_kind kind, const char *name,
				 int *idx)
{
	struct cw_call *c = &r->o->call[r->o->n];

	memset(c, 0, sizeof(*c));
	c->kind = kind;
	c->life = r->life;
	snprintf(c->name, sizeof(c->name), "%s", name);
	snprintf(c->what, sizeof(c->what), "pool%d %s %s", r->life,
		 kind == CW_POOL_OPEN ? "open" : kind == CW_POOL_TAKE ? "take" :
		 kind == CW_POOL_RECYCLE ? "recycle" : "close", name);
	*idx = r->o->n++;
	return c;
}

static int mark(struct cw_pool_run *r, char c, int i)
{
	char text[16];

	snprintf(text, sizeof(text), "%c%d", c, i);
	return r->mark(text);
}

/* take (@prepare: prepare first) @name into wal/. */
static int do_take(struct cw_pool_run *r, struct cw_call *c, bool prepare)
{
	char before[8][32], after[8][32];
	int nb, na, fd;

	ready_names(r->pooldir, before, &nb);
	c->ret = prepare ? prealloc_pool_prepare(r->pool, r->waldir, c->name, 0) : 0;
	fd = c->ret ? c->ret : prealloc_pool_take(r->pool, r->waldir, c->name, 0);
	c->ret = fd < 0 ? fd : 0;
	if (fd >= 0)
		close(fd);
	ready_names(r->pooldir, after, &na);
	if (!prepare)
		find_taken(before, nb, after, na, c->taken_from);
	return 0;
}

/* Overwrite @name (so zeroing shows), then give it back with ZERO_DATA. */
static int do_recycle(struct cw_pool_run *r, struct cw_call *c)
{
	int fd = openat(r->waldir, c->name, O_RDWR | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	ret = tc_write_pattern(fd, NULL, 0x5e9, 0, CW_SEG);
	if (!ret && fdatasync(fd) < 0)
		ret = -errno;
	close(fd);
	c->ret = ret ? ret : prealloc_pool_recycle(r->pool, r->waldir, c->name, PREALLOC_ZERO_DATA);
	if (!c->ret)
		c->ret = prealloc_pool_wait_ready(r->pool, pool_cfg.target, -1);
	return 0;
}

static int do_step(struct cw_pool_run *r, enum cw_kind kind, const char *name, bool prepare)
{
	int i, ret;
	struct cw_call *c = pool_call(r, kind, name, &i);

	ret = mark(r, 'B', i);
	if (ret)
		return ret;
	switch (kind) {
	case CW_POOL_OPEN:
		c->ret = prealloc_pool_open(r->pooldir, &pool_cfg, &r->pool);
		if (!c->ret)
			c->ret = prealloc_pool_wait_ready(r->pool, pool_cfg.target, -1);
		break;
	case CW_POOL_TAKE:
		do_take(r, c, prepare);
		break;
	case CW_POOL_RECYCLE:
		do_recycle(r, c);
		break;
	default:
		prealloc_pool_close(r->pool);
		r->pool = NULL;
		break;
	}
	printf("crash: call %d %s: %d\n", i, c->what, c->ret);
	ret = mark(r, 'A', i);
	return ret ? ret : c->ret;
}

/* The pool's life, in order. */
static const struct {
	enum cw_kind kind;
	const char *name;
	bool prepare;
} life_steps[] = {
	{ CW_POOL_OPEN, "", false },	{ CW_POOL_TAKE, "wal1", false },
	{ CW_POOL_TAKE, "wal2", true },	{ CW_POOL_RECYCLE, "wal1", false },
	{ CW_POOL_CLOSE, "", false },	{ CW_POOL_OPEN, "", false },
	{ CW_POOL_TAKE, "wal3", false },
};
_Static_assert(LIVES * sizeof(life_steps) / sizeof(life_steps[0]) <= CW_POOL_CALLS,
	       "the oracle's room for the pool (crash.h)");

static int run_life(const char *dir, struct cw_pool_run *r)
{
	char pool[16], wal[16];
	int ret = 0;

	snprintf(pool, sizeof(pool), "pool%d", r->life);
	snprintf(wal, sizeof(wal), "wal%d", r->life);
	snprintf(r->pooldir, sizeof(r->pooldir), "%s/%s", dir, pool);
	if (mkdirat(r->dirfd, pool, 0755) < 0 || mkdirat(r->dirfd, wal, 0755) < 0 ||
	    fsync(r->dirfd) < 0)
		return -errno;
	r->waldir = openat(r->dirfd, wal, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (r->waldir < 0)
		return -errno;
	for (size_t i = 0; i < sizeof(life_steps) / sizeof(life_steps[0]) && !ret; i++)
		ret = do_step(r, life_steps[i].kind, life_steps[i].name, life_steps[i].prepare);
	if (r->pool)
		prealloc_pool_close(r->pool);
	r->pool = NULL;
	close(r->waldir);
	return ret;
}

int cw_run_pool(const char *dir, int dirfd, int (*markfn)(const char *text), struct cw_oracle *o)
{
	struct cw_pool_run r = { .dirfd = dirfd, .mark = markfn, .o = o };
	int ret = 0;

	for (r.life = 0; r.life < LIVES && !ret; r.life++) {
		/* The second life: no direct method, writes that stay in the
		 * page cache until the pool's data sync. */
		if (r.life == 1)
			ret = tsec_refuse(EPERM, true);
		if (r.life == 1 && !ret)
			ret = tsec_refuse_writeback();
		if (!ret)
			ret = run_life(dir, &r);
	}
	return ret;
}

/* ------------------------------------------------------------ checks */

/* A complete segment: the segment size, written (FIEMAP), reading zero. */
static const char *incomplete(int dirfd, const char *name)
{
	struct prealloc_census cs = { .size = sizeof(cs) };
	static uint8_t buf[CW_SEG];
	struct stat st;
	const char *why = NULL;
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return "missing";
	if (fstat(fd, &st) < 0 || st.st_size != CW_SEG)
		why = "wrong size";
	else if (prealloc_verify(fd, 0, CW_SEG, &cs) || cs.written_bytes != CW_SEG)
		why = "not fully written";
	else if (tc_read(fd, buf, CW_SEG) != CW_SEG)
		why = "unreadable";
	else if (buf[0] || memcmp(buf, buf + 1, CW_SEG - 1))	/* all bytes equal to the first */
		why = "not zero";
	close(fd);
	return why;
}

static bool exists(int dirfd, const char *name)
{
	struct stat st;

	return !fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW);
}

static int violation(const char *where, const char *what, const char *name, const char *why)
{
	printf("VIOLATION %s: %s: %s %s\n", where, what, name, why);
	return 1;
}

/* Every ready segment in the pool is complete. */
static int check_ready(int pooldir, const char *where, const char *when)
{
	DIR *d = fdopendir(dup(pooldir));
	struct dirent *de;
	const char *why;
	int bad = 0;

	while (d && (de = readdir(d)))
		if (!strncmp(de->d_name, READY, strlen(READY)) &&
		    (why = incomplete(pooldir, de->d_name)))
			bad += violation(where, when, de->d_name, why);
	if (d)
		closedir(d);
	return bad;
}

/* The index of the recycle of @name in @life, or -1. */
static int recycle_of(const struct cw_oracle *o, int life, const char *name)
{
	for (int i = 0; i < o->n; i++)
		if (o->call[i].kind == CW_POOL_RECYCLE && o->call[i].life == life &&
		    !strcmp(o->call[i].name, name))
			return i;
	return -1;
}

/*
 * A take not started left no name; one in flight left exactly one of the
 * ready name and the caller's name, complete; a returned one left the
 * caller's name complete until its recycle starts, and none once that
 * returned.
 */
static int check_name(int pooldir, int waldir, const struct cw_oracle *o, int i,
		      const struct cw_seen *seen, const char *where)
{
	const struct cw_call *c = &o->call[i];
	int rec = recycle_of(o, c->life, c->name);
	const char *why;

	if (rec >= 0 && seen->after[rec])
		return exists(waldir, c->name) ? violation(where, o->call[rec].what, c->name,
							   "still exists") : 0;
	if (rec >= 0 && seen->before[rec])
		return 0;
	if (!seen->before[i])
		return exists(waldir, c->name) ? violation(where, c->what, c->name,
							   "exists before the take") : 0;
	if (!seen->after[i] && c->taken_from[0] &&
	    exists(waldir, c->name) == exists(pooldir, c->taken_from))
		return violation(where, c->what, c->name, exists(waldir, c->name) ?
				 "and the ready segment both exist" : "and the ready segment both gone");
	if (!seen->after[i] && !exists(waldir, c->name))
		return 0;
	why = incomplete(waldir, c->name);
	return why ? violation(where, c->what, c->name, why) : 0;
}

/* Then the pool's own start-up must succeed and keep only complete ones. */
static int check_reopen(const char *dir, int life, int pooldir, const char *where)
{
	struct prealloc_pool_config cfg = pool_cfg;
	struct prealloc_pool *p;
	char path[256];
	int ret;

	cfg.target = 0;
	snprintf(path, sizeof(path), "%s/pool%d", dir, life);
	ret = prealloc_pool_open(path, &cfg, &p);
	if (ret)
		return violation(where, "pool open", path, strerror(-ret));
	prealloc_pool_close(p);
	return check_ready(pooldir, where, "after pool open");
}

static int check_life(const char *dir, int dirfd, const struct cw_oracle *o,
		      const struct cw_seen *seen, const char *where, int life)
{
	int pooldir, waldir, bad = 0, first = -1;
	char name[16];

	for (int i = 0; i < o->n && first < 0; i++)
		if (o->call[i].kind == CW_POOL_OPEN && o->call[i].life == life)
			first = i;
	if (first < 0 || !seen->before[first])
		return 0;
	snprintf(name, sizeof(name), "pool%d", life);
	pooldir = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	snprintf(name, sizeof(name), "wal%d", life);
	waldir = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pooldir < 0 || waldir < 0)
		bad += violation(where, "pool", name, "or its pool missing");
	if (!bad) {
		bad += check_ready(pooldir, where, "ready segment");
		for (int i = 0; i < o->n; i++)
			if (o->call[i].kind == CW_POOL_TAKE && o->call[i].life == life)
				bad += check_name(pooldir, waldir, o, i, seen, where);
		bad += check_reopen(dir, life, pooldir, where);
	}
	if (pooldir >= 0)
		close(pooldir);
	if (waldir >= 0)
		close(waldir);
	return bad;
}

int cw_check_pool(const char *dir, int dirfd, const struct cw_oracle *o,
		  const struct cw_seen *seen, const char *where)
{
	int bad = 0;

	for (int life = 0; life < LIVES; life++)
		bad += check_life(dir, dirfd, o, seen, where, life);
	return bad;
}

/* SPDX-License-Identifier: MIT */
/*
 * The recorded workload of the power-loss test: prealloc_file_ex() over
 * holes, data, unwritten extents and beyond EOF with each method the guest
 * allows, a cancelled call and one refused with ENOSPC, then the pool's
 * life.  Each call's question and answer go to the oracle (crash.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include <prealloc.h>

#include "crash.h"
#include "tcheck.h"

#define K 1024ull
#define M (1024ull * 1024)

struct cw_case {
	const char *what;
	uint64_t size;			/* old size */
	struct cw_extent data[CW_MAX_DATA];
	struct cw_extent unwritten;	/* fallocate()d; KEEP_SIZE beyond size */
	uint64_t off, len;
	unsigned int flags;
};

static const struct cw_case cases[] = {
	{ "hole", 0, { { 0, 0 } }, { 0, 0 }, 0, 1 * M, 0 },
	{ "data+holes", 2 * M, { { 0, 256 * K }, { 1 * M, 100 * K } }, { 0, 0 },
	  100 * K + 7, 3 * M + 123, 0 },
	{ "unwritten", 1 * M, { { 0, 64 * K } }, { 64 * K, 1 * M - 64 * K }, 0, 1 * M, 0 },
	{ "beyond-eof", 500 * K, { { 0, 500 * K } }, { 0, 0 }, 400 * K, 1600 * K, 0 },
	{ "reserved-beyond-eof", 256 * K, { { 0, 256 * K } }, { 256 * K, 768 * K },
	  0, 1 * M, 0 },
	{ "keep-size", 1 * M, { { 0, 1 * M } }, { 0, 0 }, 512 * K, 1536 * K,
	  PREALLOC_KEEP_SIZE },
	{ "zero-data", 1 * M, { { 0, 1 * M } }, { 0, 0 }, 256 * K, 512 * K,
	  PREALLOC_ZERO_DATA },
};

static const uint32_t methods[] = { PREALLOC_METHOD_AUTO, PREALLOC_METHOD_BUFFERED };

struct cw_run {
	const char *dir;
	int dirfd;
	int (*mark)(const char *text);
	struct cw_oracle *o;
};

static int mark(struct cw_run *r, char c, int i)
{
	char text[16];

	snprintf(text, sizeof(text), "%c%d", c, i);
	return r->mark(text);
}

/* The call's file in its old state, durable (file and directory). */
static int setup_file(struct cw_run *r, const struct cw_call *c, const struct cw_extent *unw)
{
	int fd = openat(r->dirfd, c->name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600), ret = 0;

	if (fd < 0)
		return -errno;
	for (int k = 0; k < c->ndata && !ret; k++)
		ret = tc_write_pattern(fd, NULL, c->tag, c->data[k].off, c->data[k].len);
	if (!ret && ftruncate(fd, (off_t)c->old_size) < 0)
		ret = -errno;
	if (!ret && unw->len &&
	    fallocate(fd, unw->off + unw->len > c->old_size ? FALLOC_FL_KEEP_SIZE : 0,
		      (off_t)unw->off, (off_t)unw->len) < 0)
		ret = -errno;
	if (!ret && fsync(fd) < 0)
		ret = -errno;
	close(fd);
	return ret ? ret : fsync(r->dirfd) < 0 ? -errno : 0;
}

static int cancel_at_1m(uint64_t done, uint64_t total, void *data)
{
	(void)total;
	(void)data;
	return done >= 1 * M;
}

/* Mark, call, mark: the answer goes to the oracle. */
static int call_file(struct cw_run *r, struct cw_call *c, const struct cw_extent *unw,
		     const struct prealloc_options *opts)
{
	struct prealloc_report rep = { .size = sizeof(rep) };
	int i = (int)(c - r->o->call), fd, ret = setup_file(r, c, unw);

	if (ret)
		return ret;
	fd = openat(r->dirfd, c->name, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = mark(r, 'B', i);
	if (!ret) {
		c->ret = prealloc_file_ex(fd, c->off, c->len, opts, &rep);
		ret = mark(r, 'A', i);
	}
	close(fd);
	printf("crash: call %d %s: %d (method %s)\n", i, c->what, c->ret,
	       prealloc_method_name(rep.method) ?: "?");
	return ret;
}

static struct cw_call *new_call(struct cw_run *r, enum cw_kind kind, const char *what)
{
	struct cw_call *c = &r->o->call[r->o->n];

	memset(c, 0, sizeof(*c));
	c->kind = kind;
	snprintf(c->what, sizeof(c->what), "%s", what);
	snprintf(c->name, sizeof(c->name), "f%03d", r->o->n);
	c->tag = 0x100u + (uint32_t)r->o->n;
	r->o->n++;
	return c;
}

static int run_case(struct cw_run *r, const struct cw_case *cs, uint32_t method)
{
	struct prealloc_options opts = { .size = sizeof(opts), .flags = cs->flags, .method = method };
	struct cw_call *c = new_call(r, CW_FILE, cs->what);

	snprintf(c->what, sizeof(c->what), "%s/%s", cs->what,
		 prealloc_method_name(method) ?: "?");
	c->off = cs->off;
	c->len = cs->len;
	c->flags = cs->flags;
	c->method = method;
	c->old_size = c->new_size = cs->size;
	if (!(cs->flags & PREALLOC_KEEP_SIZE) && cs->off + cs->len > cs->size)
		c->new_size = cs->off + cs->len;
	for (int k = 0; k < CW_MAX_DATA && cs->data[k].len; k++)
		c->data[c->ndata++] = cs->data[k];
	return call_file(r, c, &cs->unwritten, &opts);
}

/* A call cancelled a quarter of the way, and one the space check refuses. */
static int run_failures(struct cw_run *r)
{
	struct prealloc_options opts = { .size = sizeof(opts), .progress = cancel_at_1m,
					 .request_bytes = 256 * K, .queue_depth = 1 };
	static const struct cw_extent none;
	struct cw_call *c = new_call(r, CW_FILE, "cancelled");
	struct statvfs sv;
	int ret;

	c->off = 0;
	c->len = c->new_size = 4 * M;
	ret = call_file(r, c, &none, &opts);
	if (ret || c->ret != -ECANCELED)
		return ret ? ret : -EPROTO;
	if (fstatvfs(r->dirfd, &sv) < 0)
		return -errno;
	c = new_call(r, CW_FILE, "enospc");
	c->data[c->ndata++] = (struct cw_extent){ 0, 64 * K };
	c->old_size = 64 * K;
	c->off = 32 * K;
	c->len = 2 * (uint64_t)sv.f_bavail * sv.f_frsize;
	c->new_size = c->off + c->len;
	opts = (struct prealloc_options){ .size = sizeof(opts) };
	ret = call_file(r, c, &none, &opts);
	return ret ? ret : c->ret == -ENOSPC ? 0 : -EPROTO;
}

/* The file calls of one round: every case with every method, then two. */
#define ROUND_CALLS (sizeof(cases) / sizeof(cases[0]) * sizeof(methods) / sizeof(methods[0]) + 2)

static bool room(const struct cw_oracle *o)
{
	return o->n + ROUND_CALLS + CW_POOL_CALLS <= CW_MAX_CALLS;
}

int cw_run(const char *dir, bool (*more)(void), int (*markfn)(const char *text),
	   struct cw_oracle *o)
{
	struct cw_run r = { .dir = dir, .mark = markfn, .o = o };
	int ret = 0;

	o->n = 0;
	r.dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (r.dirfd < 0)
		return -errno;
	for (int round = 0; !ret && (!round || (more && room(o) && more())); round++) {
		for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]) && !ret; k++)
			for (size_t m = 0; m < sizeof(methods) / sizeof(methods[0]) && !ret; m++)
				ret = run_case(&r, &cases[k], methods[m]);
		if (!ret)
			ret = run_failures(&r);
	}
	if (!ret)
		ret = cw_run_pool(dir, r.dirfd, markfn, o);
	close(r.dirfd);
	return ret;
}

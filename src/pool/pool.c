/* SPDX-License-Identifier: MIT */
/*
 * The ready-segment pool's public entry points: open and close (with the
 * worker thread), take, recycle, wait and counters.  The worker is in
 * worker.c, the segments on disk in store.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include "pool.h"

/* The 0.2 name of the recycle flag stays an alias of the pool's own. */
_Static_assert((unsigned int)PREALLOC_POOL_RECYCLE_ZERO == (unsigned int)PREALLOC_ZERO_DATA,
	       "recycle flag ABI");

/* Default floor: leave a twentieth of the filesystem to everyone else. */
#define PA_POOL_FLOOR_DIV 20

int pa_seqs_add(struct pa_seqs *s, uint32_t seq)
{
	uint32_t i;

	if (s->n == s->cap) {
		uint32_t cap = s->cap ? s->cap * 2 : 16;
		uint32_t *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	for (i = s->n; i > 0 && s->v[i - 1] > seq; i--)
		s->v[i] = s->v[i - 1];
	s->v[i] = seq;
	s->n++;
	return 0;
}

uint32_t pa_seqs_pop_oldest(struct pa_seqs *s)
{
	uint32_t seq = s->v[0];

	memmove(s->v, s->v + 1, --s->n * sizeof(*s->v));
	return seq;
}

/* New work for the worker: it is not idle any more until it says so. */
void pa_pool_kick(struct prealloc_pool *p)
{
	p->idle = false;
	pthread_cond_signal(&p->wake);
}

int pa_pool_check_caller(const struct prealloc_pool *p)
{
	if (!p)
		return -EINVAL;
	return getpid() == p->pid ? 0 : -ECHILD;
}

static int get_config(const struct prealloc_pool_config *cfg, struct prealloc_pool_config *c)
{
	int ret;

	if (!cfg)
		return -EINVAL;
	ret = pa_copy_sized_in(c, sizeof(*c), cfg, cfg->size,
			       offsetof(struct prealloc_pool_config, target));
	if (ret)
		return ret;
	if ((c->flags & ~(uint32_t)PREALLOC_POOL_FULL_SPEED) || !c->segment_size || c->segment_size > PA_MAX_END ||
	    c->target > PREALLOC_POOL_MAX_TARGET || (c->mode & ~07777u))
		return -EINVAL;
	if (!c->mode)
		c->mode = 0600;
	return 0;
}

static int open_dir(struct prealloc_pool *p, const char *dir)
{
	struct statvfs sv;
	struct stat st;

	p->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (p->dirfd < 0)
		return -errno;
	if (fstat(p->dirfd, &st) < 0 || fstatvfs(p->dirfd, &sv) < 0)
		return -errno;
	p->dev = st.st_dev;
	p->ino = st.st_ino;
	/* One pool per directory: a second one would remove our temporaries. */
	if (flock(p->dirfd, LOCK_EX | LOCK_NB) < 0)
		return errno == EWOULDBLOCK ? -EBUSY : -errno;
	p->floor = p->cfg.free_floor ? p->cfg.free_floor :
		   (uint64_t)sv.f_blocks * (uint64_t)sv.f_frsize / PA_POOL_FLOOR_DIV;
	return 0;
}

static int init_sync(struct prealloc_pool *p)
{
	pthread_condattr_t ca;
	int ret = pthread_condattr_init(&ca);

	if (ret)
		return -ret;
	ret = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	if (!ret)
		ret = pthread_cond_init(&p->wake, &ca);
	if (!ret && (ret = pthread_cond_init(&p->changed, &ca)))
		pthread_cond_destroy(&p->wake);
	if (!ret && (ret = pthread_mutex_init(&p->lock, NULL))) {
		pthread_cond_destroy(&p->wake);
		pthread_cond_destroy(&p->changed);
	}
	pthread_condattr_destroy(&ca);
	return -ret;
}

static void free_pool(struct prealloc_pool *p)
{
	if (p->dirfd >= 0)
		close(p->dirfd);
	prealloc_ctx_unref(p->cfg.ctx);
	free(p->ready.v);
	free(p->rq);
	pa_pool_prep_free(p);
	free(p);
}

PA_EXPORT int prealloc_pool_open(const char *dir, const struct prealloc_pool_config *cfg,
				 struct prealloc_pool **ret_pool)
{
	struct prealloc_pool *p;
	int ret;

	if (!dir || !*dir || !ret_pool)
		return -EINVAL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->dirfd = -1;
	ret = get_config(cfg, &p->cfg);
	/* Ours until close; none taken when the config was refused. */
	p->cfg.ctx = ret ? NULL : prealloc_ctx_ref(p->cfg.ctx);
	if (!ret)
		ret = open_dir(p, dir);
	if (!ret)
		ret = pa_pool_scan(p);
	if (ret) {
		free_pool(p);
		return ret;
	}
	p->pid = getpid();
	p->target = p->cfg.target;
	ret = init_sync(p);
	if (!ret && (ret = pa_thread_start(&p->worker, pa_pool_worker, p))) {
		pthread_mutex_destroy(&p->lock);
		pthread_cond_destroy(&p->wake);
		pthread_cond_destroy(&p->changed);
	}
	if (ret) {
		free_pool(p);
		return ret;
	}
	*ret_pool = p;
	return 0;
}

PA_EXPORT void prealloc_pool_close(struct prealloc_pool *p)
{
	if (!p)
		return;
	/* A forked child's copy: no worker to stop, and the lock may have been
	 * held by a thread of the parent.  Closing our descriptor does not
	 * release the parent's flock (it belongs to the shared open file). */
	if (getpid() != p->pid) {
		free_pool(p);
		return;
	}
	pthread_mutex_lock(&p->lock);
	__atomic_store_n(&p->stop, true, __ATOMIC_RELAXED);
	pthread_cond_signal(&p->wake);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->worker, NULL);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->wake);
	pthread_cond_destroy(&p->changed);
	free_pool(p);
}

/* The pool's own names are refused: a segment taken under one would be
 * removed or adopted again by the next prealloc_pool_open(). */
static bool pool_name(const char *name)
{
	const char *base = strrchr(name, '/');

	return strncmp(base ? base + 1 : name, ".prealloc-", strlen(".prealloc-")) == 0;
}

bool pa_pool_bad_name(const char *name)
{
	return !name || !*name || pool_name(name);
}

/* 0 if @name (checked with pa_pool_bad_name() before) does not exist. */
int pa_pool_name_free(int dirfd, const char *name)
{
	struct stat st;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
		return -EEXIST;
	return errno == ENOENT ? 0 : -errno;
}

static bool in_pool(const struct prealloc_pool *p, const char *name)
{
	return faccessat(p->dirfd, name, F_OK, AT_SYMLINK_NOFOLLOW) == 0;
}

/* A segment that did not move out and is still in the pool is ready again;
 * false if it is not there. */
static bool keep(struct prealloc_pool *p, uint32_t seq, bool ready)
{
	char name[64];

	pa_pool_name(name, sizeof(name), ready, seq);
	if (!in_pool(p, name))
		return false;
	if (!ready)
		return pa_pool_adopt(p, seq, NULL, NULL) == 0;
	pthread_mutex_lock(&p->lock);
	(void)pa_seqs_add(&p->ready, seq);	/* cannot fail: it was there */
	pthread_cond_broadcast(&p->changed);
	pthread_mutex_unlock(&p->lock);
	return true;
}

/* The segment made under @name (a temporary one) opened again with
 * @oflags, which making it could not use; @fd is closed. */
static int reopen(struct prealloc_pool *p, const char *name, int fd, int oflags)
{
	int nfd = openat(p->dirfd, name, O_RDWR | O_CLOEXEC | oflags);

	close(fd);
	return nfd < 0 ? -errno : nfd;
}

/*
 * The oldest ready segment, or (none ready) one made now at @pace, moved
 * under @name.  Returns it open O_RDWR, or -errno: @o->moved says the rename
 * happened and only a directory fsync() after it failed (the segment is under
 * @name), @o->kept that the rename failed and the segment is back in the
 * pool; neither: making or opening the segment failed, or it was lost
 * putting it back.  For take (a miss when none is ready) and the worker's
 * installs.
 */
int pa_pool_hand_out(struct prealloc_pool *p, int dirfd, const char *name, int oflags,
		     enum pa_pool_pace pace, struct pa_hand_out *o)
{
	char from[64];
	uint32_t seq;
	int fd, ret;

	pthread_mutex_lock(&p->lock);
	o->hit = p->ready.n > 0;
	seq = o->hit ? pa_seqs_pop_oldest(&p->ready) : p->next_seq++;
	pthread_mutex_unlock(&p->lock);
	pa_pool_name(from, sizeof(from), o->hit, seq);
	if (o->hit) {
		fd = openat(p->dirfd, from, O_RDWR | O_CLOEXEC | oflags);
		if (fd < 0)
			fd = -errno;
	} else {
		fd = pa_pool_make(p, seq, pace, &o->fill);
		o->made = fd >= 0;
		if (fd >= 0 && oflags)
			fd = reopen(p, from, fd, oflags);
	}
	ret = fd < 0 ? fd : pa_pool_move(p, from, dirfd, name, &o->moved);
	if (!ret)
		return fd;
	if (fd >= 0)
		close(fd);
	if (!o->moved)
		o->kept = keep(p, seq, o->hit) && fd >= 0;
	return ret;
}

PA_EXPORT int prealloc_pool_take(struct prealloc_pool *p, int dirfd, const char *name,
				 unsigned int flags)
{
	return prealloc_pool_take_ex(p, dirfd, name, flags, 0);
}

/* What take_ex() may add to O_RDWR | O_CLOEXEC. */
#define PA_POOL_OPEN_FLAGS (O_DSYNC | O_SYNC | O_DIRECT)

PA_EXPORT int prealloc_pool_take_ex(struct prealloc_pool *p, int dirfd, const char *name,
				    unsigned int flags, int open_flags)
{
	struct pa_hand_out o = { 0 };
	uint64_t t0;
	int ret = pa_pool_check_caller(p);

	if (!ret && (flags || pa_pool_bad_name(name) || (open_flags & ~PA_POOL_OPEN_FLAGS)))
		ret = -EINVAL;
	if (!ret && pa_pool_take_prepared(p, dirfd, name, open_flags, &ret))
		return ret;
	if (!ret)
		ret = pa_pool_name_free(dirfd, name);
	if (ret)
		return ret;
	t0 = pa_now_ns();
	/* None ready: made here, at full speed (no background pacing). */
	ret = pa_pool_hand_out(p, dirfd, name, open_flags, PA_POOL_CALLER, &o);
	pthread_mutex_lock(&p->lock);
	if (o.hit && ret >= 0)
		p->st.hits++;
	if (!o.hit) {
		p->st.misses++;
		p->st.foreground_wait_ns += pa_now_ns() - t0;
		pa_pool_count_fill(p, &o.fill);
		if (pa_pool_out_of_space(ret))
			p->st.enospc++;
	}
	/* Refill only now: the worker's first writes would queue in front of
	 * the directory sync of the move. */
	pa_pool_kick(p);
	pthread_mutex_unlock(&p->lock);
	return ret;
}

/* Room in the queue reserved under lock, so that the push after the rename
 * cannot fail. */
static int reserve_recycle(struct prealloc_pool *p, uint32_t *seq)
{
	uint32_t want = p->nrq + p->rq_reserved + 1;

	if (want > p->rq_cap) {
		struct pa_recycled *v = realloc(p->rq, want * 2 * sizeof(*v));

		if (!v)
			return -ENOMEM;
		p->rq = v;
		p->rq_cap = want * 2;
	}
	p->rq_reserved++;
	*seq = p->next_seq++;
	return 0;
}

PA_EXPORT int prealloc_pool_recycle(struct prealloc_pool *p, int dirfd, const char *name,
				    unsigned int flags)
{
	char to[64];
	struct stat st;
	uint32_t seq = 0;
	int ret = pa_pool_check_caller(p);

	if (!ret && (pa_pool_bad_name(name) || (flags & ~(unsigned int)PREALLOC_POOL_RECYCLE_ZERO)))
		ret = -EINVAL;
	if (!ret && fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		ret = -errno;
	/* Another link would keep seeing what the pool writes into it. */
	if (!ret && (!S_ISREG(st.st_mode) || st.st_nlink != 1))
		ret = -EINVAL;
	if (ret)
		return ret;
	pthread_mutex_lock(&p->lock);
	ret = reserve_recycle(p, &seq);
	pthread_mutex_unlock(&p->lock);
	if (ret)
		return ret;
	pa_pool_name(to, sizeof(to), false, seq);
	ret = pa_pool_move_in(p, dirfd, name, to);
	pthread_mutex_lock(&p->lock);
	p->rq_reserved--;
	if (in_pool(p, to)) {
		p->rq[p->nrq++] = (struct pa_recycled){ .seq = seq,
							.zero = flags & PREALLOC_POOL_RECYCLE_ZERO };
		pa_pool_kick(p);
	}
	pthread_mutex_unlock(&p->lock);
	return ret;
}

PA_EXPORT int prealloc_pool_wait_ready(struct prealloc_pool *p, uint32_t count, int timeout_ms)
{
	struct timespec ts;
	uint64_t mine;
	int ret = pa_pool_check_caller(p);

	if (!ret && (count > p->cfg.target || timeout_ms < -1))
		ret = -EINVAL;
	if (ret)
		return ret;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += timeout_ms / 1000;
	ts.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&p->lock);
	/* A fresh round: look at free space again, retry after ENOSPC. */
	mine = ++p->kicks;
	p->backoff = false;
	pa_pool_kick(p);
	for (;;) {
		if (p->ready.n >= count) {
			ret = 0;
			break;
		}
		if (p->idle && p->idle_after >= mine) {
			ret = p->space_limited ? -ENOSPC : p->st.last_error ? p->st.last_error : -EAGAIN;
			break;
		}
		if (timeout_ms < 0) {
			pthread_cond_wait(&p->changed, &p->lock);
		} else if (pthread_cond_timedwait(&p->changed, &p->lock, &ts) == ETIMEDOUT) {
			ret = -ETIMEDOUT;
			break;
		}
	}
	pthread_mutex_unlock(&p->lock);
	return ret;
}

PA_EXPORT int prealloc_pool_get_stats(struct prealloc_pool *p, struct prealloc_pool_stats *stats)
{
	struct prealloc_pool_stats s;
	int ret = pa_pool_check_caller(p);

	if (!ret && (!stats || stats->size < offsetof(struct prealloc_pool_stats, hits)))
		ret = -EINVAL;
	if (ret)
		return ret;
	pthread_mutex_lock(&p->lock);
	s = p->st;
	s.ready = p->ready.n;
	s.target = p->target;
	pthread_mutex_unlock(&p->lock);
	s.size = stats->size;
	memcpy(stats, &s, PA_MIN((size_t)stats->size, sizeof(s)));
	return 0;
}

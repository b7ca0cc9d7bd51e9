/* SPDX-License-Identifier: MIT */
/*
 * The ready-segment pool's public entry points: open and close (with the
 * worker thread), take, recycle, wait and counters.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "src/pool/pool.h"

/* The 0.2 name of the recycle flag stays an alias of the pool's own. */
_Static_assert((unsigned int)PREALLOC_POOL_RECYCLE_ZERO == (unsigned int)PREALLOC_ZERO_DATA,
	       "recycle flag ABI");

/* Default floor: leave a twentieth of the filesystem to everyone else. */
#define PA_POOL_FLOOR_DIV 20

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

static void fini_sync(struct prealloc_pool *p)
{
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->wake);
	pthread_cond_destroy(&p->changed);
}

static void free_pool(struct prealloc_pool *p)
{
	pa_store_close(&p->store);
	prealloc_ctx_unref(p->cfg.ctx);
	pa_state_free(&p->s);
	pa_pool_prep_free(p);
	free(p);
}

/* The scan found a complete ready segment. */
static int found(void *arg, uint32_t seq, bool cow)
{
	struct pa_state *s = arg;

	s->st.cow_segments += cow;
	return pa_seqs_add(&s->ready, seq);
}

static int open_store(struct prealloc_pool *p, const char *dir)
{
	uint64_t fs_bytes = 0;
	int ret = pa_store_open(&p->store, dir, &fs_bytes);

	p->floor = p->cfg.free_floor ? p->cfg.free_floor : fs_bytes / PA_POOL_FLOOR_DIV;
	p->s.counts_late = p->store.counts_late;
	if (!ret)
		ret = pa_store_scan(&p->store, found, &p->s, &p->s.next_seq);
	return ret;
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
	p->store = (struct pa_store){ .dirfd = -1, .cfg = &p->cfg, .stop = &p->stop };
	ret = get_config(cfg, &p->cfg);
	/* Ours until close; none taken when the config was refused. */
	p->cfg.ctx = ret ? NULL : prealloc_ctx_ref(p->cfg.ctx);
	pa_state_init(&p->s, p->cfg.target);
	if (!ret)
		ret = open_store(p, dir);
	if (ret) {
		free_pool(p);
		return ret;
	}
	p->pid = getpid();
	ret = init_sync(p);
	if (!ret && (ret = pa_thread_start(&p->worker, pa_pool_worker, p)))
		fini_sync(p);
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
	fini_sync(p);
	free_pool(p);
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
	struct pa_hand_out o = { .nowait = flags & PREALLOC_POOL_TAKE_NOWAIT };
	uint64_t t0;
	int ret = pa_pool_check_caller(p);

	if (!ret && ((flags & ~(unsigned int)PREALLOC_POOL_TAKE_NOWAIT) || pa_pool_bad_name(name) ||
		     (open_flags & ~PA_POOL_OPEN_FLAGS)))
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
	if (!o.hit && o.nowait)
		return ret;	/* nothing happened: no miss, no refill to ask for */
	pthread_mutex_lock(&p->lock);
	if (o.hit && ret >= 0)
		p->s.st.hits++;
	if (!o.hit) {
		p->s.st.misses++;
		p->s.st.foreground_wait_ns += pa_now_ns() - t0;
		pa_state_count_fill(&p->s, &o.fill);
		if (pa_out_of_space(ret))
			p->s.st.enospc++;
	}
	/* Refill only now: the worker's first writes would queue in front of
	 * the directory sync of the move. */
	pa_pool_kick(p);
	pthread_mutex_unlock(&p->lock);
	return ret;
}

PA_EXPORT int prealloc_pool_recycle(struct prealloc_pool *p, int dirfd, const char *name,
				    unsigned int flags)
{
	char to[64];
	struct stat st;
	uint32_t seq = 0;
	bool arrived;
	int ret = pa_pool_check_caller(p);

	if (!ret && (pa_pool_bad_name(name) || (flags & ~(unsigned int)PREALLOC_POOL_RECYCLE_ZERO)))
		ret = -EINVAL;
	if (!ret && fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		ret = -errno;
	/* Another link would keep seeing what the pool writes into it. */
	if (!ret && !pa_store_own_type(&st))
		ret = -EINVAL;
	if (ret)
		return ret;
	pthread_mutex_lock(&p->lock);
	ret = pa_state_reserve_recycle(&p->s, &seq);
	pthread_mutex_unlock(&p->lock);
	if (ret)
		return ret;
	pa_store_name(to, sizeof(to), false, seq);
	ret = pa_store_move_in(&p->store, dirfd, name, to);
	arrived = pa_store_holds(&p->store, to);
	pthread_mutex_lock(&p->lock);
	pa_state_recycled(&p->s, seq, flags & PREALLOC_POOL_RECYCLE_ZERO, arrived);
	if (arrived)
		pa_pool_kick(p);
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
	ts = pa_ns_ts(pa_now_ns() + (uint64_t)(timeout_ms < 0 ? 0 : timeout_ms) * 1000000ull);
	pthread_mutex_lock(&p->lock);
	/* A fresh round: look at free space again, retry after ENOSPC. */
	mine = ++p->kicks;
	p->s.backoff = false;
	pa_pool_kick(p);
	for (;;) {
		if (p->s.ready.n >= count) {
			ret = 0;
			break;
		}
		if (p->idle && p->idle_after >= mine) {
			ret = p->s.space_limited ? -ENOSPC :
			      p->s.st.last_error ? p->s.st.last_error : -EAGAIN;
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
	s = p->s.st;
	s.ready = p->s.ready.n;
	s.target = p->s.target;
	pthread_mutex_unlock(&p->lock);
	s.size = stats->size;
	memcpy(stats, &s, PA_MIN((size_t)stats->size, sizeof(s)));
	return 0;
}

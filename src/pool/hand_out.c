/* SPDX-License-Identifier: MIT */
/*
 * Handing a segment out (for prealloc_pool_take() and the worker's install
 * of a prepared name) and adopting one into the ready list: the store's I/O
 * without the lock, the state's change under it.
 */
#include <errno.h>
#include <unistd.h>

#include "src/pool/pool.h"

/* A complete segment under its temporary name becomes ready (counted in
 * @counter with @f, when not NULL, at the same moment), or is removed.
 * Called without the lock. */
int pa_pool_adopt(struct prealloc_pool *p, uint32_t seq, uint64_t *counter,
		  const struct pa_fill *f)
{
	int ret = pa_store_publish(&p->store, seq);

	if (ret) {
		pa_store_remove(&p->store, false, seq);
		return ret;
	}
	pthread_mutex_lock(&p->lock);
	ret = pa_seqs_add(&p->s.ready, seq);
	if (!ret)
		pthread_cond_broadcast(&p->changed);
	if (!ret && counter) {
		(*counter)++;
		pa_state_count_fill(&p->s, f);
	}
	pthread_mutex_unlock(&p->lock);
	if (ret)
		pa_store_remove(&p->store, true, seq);
	return ret;
}

/* A segment that did not move out and is still in the pool is ready again;
 * false if it is not there. */
static bool keep(struct prealloc_pool *p, uint32_t seq, bool ready)
{
	char name[64];

	pa_store_name(name, sizeof(name), ready, seq);
	if (!pa_store_holds(&p->store, name))
		return false;
	if (!ready)
		return pa_pool_adopt(p, seq, NULL, NULL) == 0;
	pthread_mutex_lock(&p->lock);
	(void)pa_seqs_add(&p->s.ready, seq);	/* cannot fail: it was there */
	pthread_cond_broadcast(&p->changed);
	pthread_mutex_unlock(&p->lock);
	return true;
}

/* The oldest ready segment opened with @oflags, or (none ready) one made
 * now at @pace and opened again with @oflags, which making it cannot use. */
static int get_segment(struct prealloc_pool *p, const char *from, uint32_t seq, int oflags,
		       enum pa_pool_pace pace, struct pa_hand_out *o)
{
	int fd;

	if (o->hit)
		return pa_store_open_seg(&p->store, from, oflags);
	fd = pa_store_make(&p->store, seq, pace, &o->fill);
	o->made = fd >= 0;
	if (fd < 0 || !oflags)
		return fd;
	close(fd);
	return pa_store_open_seg(&p->store, from, oflags);
}

/*
 * The oldest ready segment, or (none ready) one made now at @pace or with
 * @o->nowait -EAGAIN, moved under @name.  Returns it open O_RDWR | @oflags, or -errno: @o->moved says
 * the rename happened and only a directory fsync() after it failed (the
 * segment is under @name), @o->kept that the rename failed and the segment
 * is back in the pool; neither: making or opening the segment failed (a
 * complete one is back in the pool), or it was lost putting it back.
 */
int pa_pool_hand_out(struct prealloc_pool *p, int dirfd, const char *name, int oflags,
		     enum pa_pool_pace pace, struct pa_hand_out *o)
{
	char from[64];
	uint32_t seq;
	int fd, ret;

	pthread_mutex_lock(&p->lock);
	o->hit = p->s.ready.n > 0;
	if (!o->hit && o->nowait) {
		pthread_mutex_unlock(&p->lock);
		return -EAGAIN;
	}
	seq = o->hit ? pa_seqs_pop_oldest(&p->s.ready) : pa_state_new_seq(&p->s);
	pthread_mutex_unlock(&p->lock);
	pa_store_name(from, sizeof(from), o->hit, seq);
	fd = get_segment(p, from, seq, oflags, pace, o);
	ret = fd < 0 ? fd : pa_store_move(&p->store, from, dirfd, name, &o->moved);
	if (!ret)
		return fd;
	if (fd >= 0)
		close(fd);
	if (!o->moved)
		o->kept = keep(p, seq, o->hit) && fd >= 0;
	return ret;
}

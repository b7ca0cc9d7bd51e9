/* SPDX-License-Identifier: MIT */
/*
 * Names prepared ahead: prealloc_pool_prepare() queues a name, the worker
 * moves a segment under it before any other work (pa_pool_install_next), and
 * prealloc_pool_take() of that name then only opens it, so a WAL's segment
 * switch pays no rename and no directory fsync (PostgreSQL installs its
 * future segments the same way, InstallXLogFileSegment).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "src/file/reopen.h"
#include "src/pool/pool.h"

enum pa_prep_state {
	PA_PREP_QUEUED,		/* take removes it and takes in the caller */
	PA_PREP_INSTALLING,	/* the worker is moving a segment: take waits */
	PA_PREP_INSTALLED,	/* the segment is under the name: take opens it */
	PA_PREP_FAILED,		/* take takes in the caller */
};

struct pa_prepared {
	struct pa_prepared *next;
	char *name;
	dev_t key_dev;		/* the directory @name is relative to; */
	ino_t key_ino;		/* 0, 0 for an absolute @name */
	int dirfd;		/* the worker's own; -1 once the install ended */
	enum pa_prep_state state;
	int err;		/* FAILED: why */
	bool moved;		/* FAILED after the rename: the segment is under @name */
	int seg;		/* INSTALLED: the segment, held open so that its
				 * inode number cannot be reused meanwhile */
};

/* Requests match by directory and the exact name string. */
static int dir_key(int dirfd, const char *name, dev_t *dev, ino_t *ino)
{
	struct stat st;

	*dev = 0;
	*ino = 0;
	if (name[0] == '/')
		return 0;
	if (fstatat(dirfd, "", &st, AT_EMPTY_PATH) < 0)
		return -errno;
	*dev = st.st_dev;
	*ino = st.st_ino;
	return 0;
}

/* Under lock. */
static struct pa_prepared **find(struct prealloc_pool *p, dev_t dev, ino_t ino, const char *name)
{
	struct pa_prepared **pp;

	for (pp = &p->prep; *pp; pp = &(*pp)->next)
		if ((*pp)->key_dev == dev && (*pp)->key_ino == ino && strcmp((*pp)->name, name) == 0)
			return pp;
	return NULL;
}

static void free_req(struct pa_prepared *r)
{
	if (!r)
		return;
	if (r->dirfd >= 0)
		close(r->dirfd);
	if (r->seg >= 0)
		close(r->seg);
	free(r->name);
	free(r);
}

/* Under lock: off the list and freed. */
static void drop(struct pa_prepared **pp)
{
	struct pa_prepared *r = *pp;

	*pp = r->next;
	free_req(r);
}

void pa_pool_prep_free(struct prealloc_pool *p)
{
	while (p->prep)
		drop(&p->prep);
}

/* The worker's own descriptor of @dirfd's directory: the caller may close
 * its own (and move to another working directory) once prepare returns. */
static int own_dir(int dirfd)
{
	int fd, own;

	if (dirfd != AT_FDCWD)
		return pa_dup(dirfd);
	fd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	own = pa_dup(fd);
	close(fd);
	return own;
}

static int new_req(struct prealloc_pool *p, int dirfd, const char *name,
		   struct pa_prepared **ret_req)
{
	struct pa_prepared *r = calloc(1, sizeof(*r));
	int ret;

	if (!r)
		return -ENOMEM;
	r->dirfd = -1;
	r->seg = -1;
	r->name = strdup(name);
	ret = r->name ? dir_key(dirfd, name, &r->key_dev, &r->key_ino) : -ENOMEM;
	if (!ret)
		ret = pa_store_same_fs(&p->store, dirfd, name);
	if (!ret && (r->dirfd = own_dir(dirfd)) < 0)
		ret = r->dirfd;
	if (ret) {
		free_req(r);
		return ret;
	}
	*ret_req = r;
	return 0;
}

/*
 * Under lock: -EEXIST if @q's name is queued or being installed.  An
 * installed or failed request for it is stale and dropped: the caller found
 * the name free just before (pa_pool_name_free), so an installed segment was
 * removed or renamed since.  No path lookup here: a stuck directory would
 * block the whole pool.  If the name reappears between that check and this
 * one, the new request's install fails with -EEXIST and take says so.
 */
static int check_dup(struct prealloc_pool *p, const struct pa_prepared *q)
{
	struct pa_prepared **pp = find(p, q->key_dev, q->key_ino, q->name);

	if (!pp)
		return 0;
	if ((*pp)->state == PA_PREP_QUEUED || (*pp)->state == PA_PREP_INSTALLING)
		return -EEXIST;
	drop(pp);
	return 0;
}

PA_EXPORT int prealloc_pool_prepare(struct prealloc_pool *p, int dirfd, const char *name,
				    unsigned int flags)
{
	struct pa_prepared *r, **tail;
	int ret = pa_pool_check_caller(p);

	if (!ret && (flags || pa_pool_bad_name(name)))
		ret = -EINVAL;
	if (!ret)
		ret = pa_pool_name_free(dirfd, name);
	if (!ret)
		ret = new_req(p, dirfd, name, &r);
	if (ret)
		return ret;
	pthread_mutex_lock(&p->lock);
	ret = check_dup(p, r);
	if (!ret) {
		for (tail = &p->prep; *tail; tail = &(*tail)->next)
			;
		*tail = r;
		pa_pool_kick(p);
	}
	pthread_mutex_unlock(&p->lock);
	if (ret)
		free_req(r);
	return ret;
}

/* An install: the request, and what handing the segment out did. */
struct pa_install {
	struct pa_prepared *r;
	struct pa_hand_out o;
	int fd;
};

/* Worker, without the lock: move a segment under the request's name. */
static int install_io(struct prealloc_pool *p, void *arg)
{
	struct pa_install *in = arg;

	in->fd = pa_pool_hand_out(p, in->r->dirfd, in->r->name, 0, PA_POOL_URGENT, &in->o);
	return in->fd;
}

/* Worker, under lock: the install's outcome. */
static void installed(struct prealloc_pool *p, struct pa_prepared *r, int fd,
		      const struct pa_hand_out *o)
{
	int dirfd;

	/* -1 before the close: a child forked in between must not close a
	 * number reused by then. */
	dirfd = r->dirfd;
	r->dirfd = -1;
	close(dirfd);
	if (o->made) {
		p->s.st.created++;
		pa_state_count_fill(&p->s, &o->fill);
	}
	if (fd >= 0) {
		r->state = PA_PREP_INSTALLED;
		r->seg = fd;
		p->s.st.prepared++;
	} else {
		r->state = PA_PREP_FAILED;
		r->err = fd;
		r->moved = o->moved;
		/* The caller's name or directory (EEXIST, ENOENT, EXDEV, ...)
		 * with the segment back in the pool is not the pool's failure:
		 * no back-off, no last_error. */
		if (!o->kept || pa_out_of_space(fd))
			pa_state_failed(&p->s, fd, p->stop);
	}
	pthread_cond_broadcast(&p->changed);
}

/* Worker, called and returning with the lock held: install the oldest queued
 * name; false if none is queued. */
bool pa_pool_install_next(struct prealloc_pool *p)
{
	struct pa_install in = { 0 };
	struct pa_prepared *r;

	for (r = p->prep; r && r->state != PA_PREP_QUEUED; r = r->next)
		;
	if (!r)
		return false;
	/* Nobody frees an INSTALLING request: take waits, close joins first. */
	r->state = PA_PREP_INSTALLING;
	in.r = r;
	(void)pa_pool_unlocked(p, install_io, &in, &p->s.st.worker_ns);
	installed(p, r, in.fd, &in.o);
	return true;
}

/* The installed segment under @name, opened through the caller's @dirfd and
 * checked to be the inode the worker put there and still holds open (so its
 * number was not reused), still linked. */
static int open_installed(struct prealloc_pool *p, const struct pa_prepared *r, int dirfd,
			  const char *name, int oflags, bool *ret_gone)
{
	struct stat st, held;
	int fd = openat(dirfd, name, O_RDWR | O_CLOEXEC | oflags);

	*ret_gone = fd < 0 && errno == ENOENT;
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || fstat(r->seg, &held) < 0) {
		int ret = -errno;

		close(fd);
		return ret;
	}
	if (st.st_dev != held.st_dev || st.st_ino != held.st_ino || held.st_nlink < 1) {
		close(fd);
		return -ESTALE;
	}
	pthread_mutex_lock(&p->lock);
	p->s.st.hits++;
	pthread_mutex_unlock(&p->lock);
	return fd;
}

/* Back on the list, as it was before take found it. */
static void relink(struct prealloc_pool *p, struct pa_prepared *r)
{
	pthread_mutex_lock(&p->lock);
	r->next = p->prep;
	p->prep = r;
	pthread_mutex_unlock(&p->lock);
}

/*
 * prealloc_pool_take() of a prepared name: true with *@ret set (a descriptor
 * or -errno) when the install served it; false when the caller takes as
 * usual (not prepared, still queued, the install failed, or the installed
 * name was removed since).
 */
bool pa_pool_take_prepared(struct prealloc_pool *p, int dirfd, const char *name, int oflags,
			   int *ret)
{
	struct pa_prepared **pp, *r = NULL;
	bool any, gone, served = false;
	dev_t dev;
	ino_t ino;

	pthread_mutex_lock(&p->lock);
	any = p->prep != NULL;
	pthread_mutex_unlock(&p->lock);
	if (!any || dir_key(dirfd, name, &dev, &ino) < 0)
		return false;
	pthread_mutex_lock(&p->lock);
	while ((pp = find(p, dev, ino, name)) && (*pp)->state == PA_PREP_INSTALLING)
		pthread_cond_wait(&p->changed, &p->lock);
	if (pp) {
		r = *pp;
		*pp = r->next;
	}
	pthread_mutex_unlock(&p->lock);
	if (r && r->state == PA_PREP_INSTALLED) {
		int fd = open_installed(p, r, dirfd, name, oflags, &gone);

		served = !gone;
		if (served)
			*ret = fd;
		/* O_DIRECT refused: still installed, for a take without it. */
		if (fd == -EINVAL) {
			relink(p, r);
			r = NULL;
		}
	} else if (r && r->state == PA_PREP_FAILED && r->moved) {
		*ret = r->err;	/* under @name, maybe not durable: as take says */
		served = true;
	}
	free_req(r);
	return served;
}

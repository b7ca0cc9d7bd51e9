/* SPDX-License-Identifier: MIT */
/*
 * The direct zero writers' shared part (src/exec/direct_writer.h).  Every
 * request reads the same zero buffer; several stay in flight so the device
 * is never idle between them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "base/internal.h"
#include "base/workers.h"
#include "src/exec/direct.h"
#include "src/exec/direct_writer.h"
#include "src/exec/progress.h"
#include "src/plan/steps.h"

/* The end of r[0], less the tail's part of the last range. */
static uint64_t range_end(const struct pa_dw *w)
{
	return w->r->start + w->r->len - (w->n == 1 ? w->cut : 0);
}

static bool next_piece(struct pa_dw *w, struct pa_range *piece)
{
	while (w->n && w->pos >= range_end(w)) {
		w->r++;
		w->n--;
		w->pos = w->n ? w->r->start : 0;
	}
	if (!w->n)
		return false;
	piece->start = w->pos;
	piece->len = PA_MIN(pa_pace_request(&w->j->pace, w->req, w->j->dio_align),
			    range_end(w) - w->pos);
	w->pos += piece->len;
	return true;
}

static void dw_send(struct pa_dw *w, unsigned int s)
{
	w->sent_ns[s] = w->j->pace.on ? pa_now_ns() : 0;
	w->inflight++;
	w->send(w, s);
}

/* The tail first, then nothing until it completed; then the rest. */
static bool next(struct pa_dw *w, struct pa_range *piece)
{
	if (w->tail.len) {
		*piece = w->tail;
		w->tail.len = 0;
		w->tail_sent = true;
		return true;
	}
	if (w->tail_sent && w->inflight)
		return false;
	w->tail_sent = false;
	return next_piece(w, piece);
}

void pa_dw_fill(struct pa_dw *w)
{
	struct pa_range piece;

	while (!w->err && w->nfree && pa_pace_go(&w->j->pace, w->inflight) && next(w, &piece)) {
		unsigned int s = w->free_slots[--w->nfree];

		w->slot[s] = piece;
		pa_pace_sent(&w->j->pace, piece.len);
		dw_send(w, s);
	}
}

/*
 * A request the kernel gave up on without writing: interrupted by a signal
 * (a busy interval timer) or cancelled with its worker.  Writing it again
 * is always right, and -ECANCELED must stay the progress callback's.
 */
static bool transient(int res)
{
	return res == -EINTR || res == -ECANCELED || res == -EAGAIN;
}

void pa_dw_complete(struct pa_dw *w, unsigned int s, int res)
{
	struct pa_range *p = &w->slot[s];

	w->inflight--;
	if (transient(res) && !w->err) {
		dw_send(w, s);
		return;
	}
	if (res < 0 || (res == 0 && p->len)) {
		if (!w->err)
			w->err = res < 0 ? res : -EIO;
	} else {
		if (w->sent_ns[s])
			pa_pace_done(&w->j->pace, (uint64_t)res, pa_now_ns() - w->sent_ns[s]);
		/* Bytes written after a failure count too: the report says
		 * what the file holds. */
		if (w->err)
			pa_count(w->j, w->method, (uint64_t)res);
		else if (pa_advance(w->j, w->method, (uint64_t)res))
			w->err = -ECANCELED;
		p->start += (uint64_t)res;
		p->len -= (uint64_t)res;
		if (p->len && !w->err) {
			if (p->start % w->j->dio_align)
				w->err = -EIO;	/* a device that tears O_DIRECT writes */
			else {
				dw_send(w, s);
				return;
			}
		}
	}
	w->free_slots[w->nfree++] = s;
}

void pa_dw_unsent(struct pa_dw *w, unsigned int n)
{
	w->inflight -= PA_MIN(n, w->inflight);
}

/*
 * The zero buffer, kept by a worker for its next call (base/workers.h):
 * mapping and faulting in megabytes of zeros costs more than a small
 * call's writes, and io_uring keeps it registered.  Not beyond KEPT_MAX:
 * a call asking for huge requests keeps nothing.
 */
#define KEPT_MAX (16ull << 20)

struct zbuf {
	void *buf;
	uint64_t len;
};

static void zbuf_free(void *p)
{
	struct zbuf *z = p;

	munmap(z->buf, z->len);
	free(z);
}

/* Pages of our own, huge where the system allows: an untouched buffer
 * maps the shared zero page, which the kernel's fast pinning of each
 * request's pages refuses, and pinning it page by page costs Linux AIO
 * (no registered buffers) 4-5x io_uring's system CPU. */
static void *zeros_map(uint64_t len)
{
	void *buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (buf == MAP_FAILED)
		return NULL;
	madvise(buf, len, MADV_HUGEPAGE);
	memset(buf, 0, len);
	return buf;
}

/* At least @len bytes of zeros: the worker's kept buffer when it is large
 * enough, else a new one (kept in its place when not too large). */
static int zeros_get(struct pa_dw *w, uint64_t len)
{
	struct pa_kept *k = pa_worker_kept(PA_SLOT_ZEROS);
	struct zbuf *z = k ? k->p : NULL;

	if (z && z->len >= len) {
		w->buf = z->buf;
		w->buf_len = z->len;
		return 0;
	}
	w->buf = zeros_map(len);
	w->buf_len = len;
	if (!w->buf)
		return -ENOMEM;
	if (!k || len > KEPT_MAX || (!z && !(z = calloc(1, sizeof(*z)))))
		return 0;
	if (z->buf)
		munmap(z->buf, z->len);
	*z = (struct zbuf){ .buf = w->buf, .len = len };
	*k = (struct pa_kept){ .p = z, .free = zbuf_free };
	return 0;
}

/*
 * A direct write that starts beyond end of file waits for every direct
 * write in flight (xfs, which zeroes the gap under its exclusive lock; ext4
 * serialises extending writes too): when the ranges reach past EOF, the
 * last request goes first and alone, so that every other lands inside
 * the new size, side by side.  Where nothing was reserved (an xfs file
 * not marked preallocated) that is all but one of them.
 */
static void tail_first(struct pa_dw *w)
{
	const struct pa_range *last = &w->r[w->n - 1];
	uint64_t end = last->start + last->len;
	struct stat st;

	/* Now, not when the call began: a reservation may have moved EOF. */
	if (fstat(w->j->dfd, &st) < 0 || !S_ISREG(st.st_mode) || end <= (uint64_t)st.st_size)
		return;
	w->cut = PA_MIN(w->req, last->len);
	w->tail = (struct pa_range){ end - w->cut, w->cut };
}

int pa_dw_init(struct pa_dw *w, struct pa_job *j, unsigned int method,
	       const struct pa_range *r, size_t n)
{
	uint64_t a = pa_direct_align(j), work = 0;
	int ret;

	w->j = j;
	w->method = method;
	w->qd = PA_MIN(PA_MAX(j->opts->queue_depth, 1u), (unsigned int)PA_DW_MAX_QD);
	w->r = r;
	w->n = n;
	w->pos = n ? r->start : 0;
	for (size_t i = 0; i < n; i++)
		work += r[i].len;
	/* Whole pages, below 2 GiB (the length is 32 bits), and no more than
	 * the work needs: a huge request_bytes must not map a huge buffer. */
	w->req = PA_MIN(PA_MAX(j->opts->request_bytes, a), 1ull << 30);
	w->req = PA_MIN(PA_ROUND_DOWN(w->req, a), PA_ROUND_UP(work, a));
	ret = zeros_get(w, w->req);
	if (ret)
		return ret;
	if (n)
		tail_first(w);
	for (unsigned int i = 0; i < w->qd; i++)
		w->free_slots[w->nfree++] = i;
	return 0;
}

bool pa_dw_buf_kept(const struct pa_dw *w)
{
	const struct pa_kept *k = pa_worker_kept(PA_SLOT_ZEROS);
	const struct zbuf *z = k ? k->p : NULL;

	return z && z->buf == w->buf;
}

void pa_dw_free(struct pa_dw *w)
{
	if (w->buf && !pa_dw_buf_kept(w))
		munmap(w->buf, w->buf_len);
	w->buf = NULL;
}

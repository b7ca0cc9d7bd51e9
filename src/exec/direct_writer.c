/* SPDX-License-Identifier: MIT */
/*
 * The direct zero writers' shared part (src/exec/direct_writer.h).  Every
 * request reads the same zero buffer; several stay in flight so the device
 * is never idle between them.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "base/internal.h"
#include "src/exec/direct.h"
#include "src/exec/direct_writer.h"
#include "src/exec/progress.h"
#include "src/plan/steps.h"

static bool next_piece(struct pa_dw *w, struct pa_range *piece)
{
	while (w->n && w->pos >= w->r->start + w->r->len) {
		w->r++;
		w->n--;
		w->pos = w->n ? w->r->start : 0;
	}
	if (!w->n)
		return false;
	piece->start = w->pos;
	piece->len = PA_MIN(pa_pace_request(&w->j->pace, w->req, w->j->dio_align),
			    w->r->start + w->r->len - w->pos);
	w->pos += piece->len;
	return true;
}

static void dw_send(struct pa_dw *w, unsigned int s)
{
	w->sent_ns[s] = w->j->pace.on ? pa_now_ns() : 0;
	w->inflight++;
	w->send(w, s);
}

void pa_dw_fill(struct pa_dw *w)
{
	struct pa_range piece;

	while (!w->err && w->nfree && pa_pace_go(&w->j->pace, w->inflight) &&
	       next_piece(w, &piece)) {
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

int pa_dw_init(struct pa_dw *w, struct pa_job *j, unsigned int method,
	       const struct pa_range *r, size_t n)
{
	uint64_t a = pa_direct_align(j), work = 0;

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
	w->buf = mmap(NULL, w->req, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (w->buf == MAP_FAILED) {
		w->buf = NULL;
		return -ENOMEM;
	}
	/* Pages of our own, huge where the system allows: an untouched
	 * buffer maps the shared zero page, which the kernel's fast pinning
	 * of each request's pages refuses, and pinning it page by page costs
	 * Linux AIO (no registered buffers) 4-5x io_uring's system CPU. */
	madvise(w->buf, w->req, MADV_HUGEPAGE);
	memset(w->buf, 0, w->req);
	for (unsigned int i = 0; i < w->qd; i++)
		w->free_slots[w->nfree++] = i;
	return 0;
}

void pa_dw_free(struct pa_dw *w)
{
	if (w->buf)
		munmap(w->buf, w->req);
	w->buf = NULL;
}

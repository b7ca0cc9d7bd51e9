/* SPDX-License-Identifier: MIT */
/* Subsets of a flush epoch's writes on a replay disk (reorder.h). */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "reorder.h"

bool ro_plain(const struct lw_entry *e)
{
	return !(e->flags & (LW_FLUSH | LW_FUA | LW_MARK));
}

void ro_reset(struct ro_group *g)
{
	for (int i = 0; i < g->n; i++)
		free(g->undo[i]);
	g->n = g->total = 0;
	g->bytes = 0;
	g->overflow = false;
}

static uint64_t entry_bytes(const struct lw_entry *e, uint32_t sectorsize)
{
	return e->nr_sectors * sectorsize;
}

int ro_add(struct ro_group *g, const struct lw_entry *e, uint32_t sectorsize, int devfd)
{
	uint64_t len = entry_bytes(e, sectorsize);
	ssize_t r;
	void *buf;

	if (!len)
		return 0;
	g->total++;
	if (g->overflow)
		return 0;
	if (g->n == RO_MAX || g->bytes + len > RO_MAX_BYTES) {
		g->overflow = true;
		return 0;
	}
	buf = malloc(len);
	if (!buf)
		return -ENOMEM;
	r = pread(devfd, buf, len, (off_t)(e->sector * sectorsize));
	if (r != (ssize_t)len) {
		free(buf);
		return r < 0 ? -errno : -EIO;
	}
	g->e[g->n] = *e;
	g->undo[g->n++] = buf;
	g->bytes += len;
	return 0;
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

int ro_subsets(int n, uint64_t *masks, int max, uint64_t *seed)
{
	uint64_t full = n >= 64 ? ~0ull : (1ull << n) - 1;
	int k = 0;

	if (n < 2 || max <= 0)
		return 0;
	if (!*seed)	/* xorshift's one fixed point */
		*seed = 0x9e3779b97f4a7c15ull;
	if (n < 63 && full - 1 <= (uint64_t)max) {
		for (uint64_t m = 1; m < full; m++)
			masks[k++] = m;
		return k;
	}
	while (k < max) {
		uint64_t m = xorshift(seed) & full;
		bool seen = m == 0 || m == full;

		for (int i = 0; i < k && !seen; i++)
			seen = masks[i] == m;
		if (!seen)
			masks[k++] = m;
	}
	return k;
}

int ro_write(const struct ro_group *g, const struct lw_log *log, uint64_t mask, int devfd)
{
	uint32_t ss = log->super.sectorsize;
	int r = 0;

	for (int i = g->n - 1; i >= 0 && !r; i--)
		r = lw_write_at(devfd, g->undo[i], entry_bytes(&g->e[i], ss), g->e[i].sector * ss);
	for (int i = 0; i < g->n && !r; i++)
		if (mask >> i & 1)
			r = lw_apply(log, &g->e[i], devfd);
	return r;
}

/* SPDX-License-Identifier: MIT */
/*
 * dm-log-writes: record through the kernel target, read its log back and
 * replay it entry by entry (format: see logwrites.h).
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "logwrites.h"
#include "stacks.h"

#define LW_MAGIC 0x6a736677736872ULL
#define LW_VERSION 1
#define LW_SUPER_SIZE 28	/* magic, version, nr_entries (le64), sectorsize (le32) */
#define LW_ENTRY_SIZE 32	/* sector, nr_sectors, flags, data_len (le64) */

static uint64_t le64_at(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return le64toh(v);
}

int lw_decode_super(const void *buf, size_t n, struct lw_super *s)
{
	const uint8_t *p = buf;
	uint32_t ss;

	if (n < LW_SUPER_SIZE || le64_at(p) != LW_MAGIC || le64_at(p + 8) != LW_VERSION)
		return -EINVAL;
	memcpy(&ss, p + 24, sizeof(ss));
	ss = le32toh(ss);
	if (ss < 512 || ss > 65536 || (ss & (ss - 1)))
		return -EINVAL;
	s->nr_entries = le64_at(p + 16);
	s->sectorsize = ss;
	return 0;
}

int lw_decode_entry(const void *buf, size_t n, uint32_t sectorsize, struct lw_entry *e)
{
	const uint8_t *p = buf;
	uint64_t data_len;

	if (n < sectorsize || sectorsize < LW_ENTRY_SIZE)
		return -EINVAL;
	memset(e, 0, sizeof(*e));
	e->sector = le64_at(p);
	e->nr_sectors = le64_at(p + 8);
	e->flags = le64_at(p + 16);
	data_len = le64_at(p + 24);
	if (e->flags & LW_MARK) {
		/* The kernel keeps the text inside the entry's sector. */
		if (data_len >= sizeof(e->mark) || data_len > sectorsize - LW_ENTRY_SIZE)
			return -EINVAL;
		memcpy(e->mark, p + LW_ENTRY_SIZE, data_len);
		return 0;
	}
	/* data_len is a mark's; a write's data follows its entry as
	 * nr_sectors sectors (device-mapper sends a flush with data as an
	 * empty flush, then the write). */
	if (data_len || e->nr_sectors > (1ull << 32))
		return -EINVAL;
	return 0;
}

uint64_t lw_entry_span(const struct lw_entry *e, uint32_t sectorsize)
{
	uint64_t data = (e->flags & (LW_DISCARD | LW_MARK)) ? 0 : e->nr_sectors;

	return (1 + data) * sectorsize;
}

static int pread_all(int fd, void *buf, size_t len, uint64_t off)
{
	ssize_t r = pread(fd, buf, len, (off_t)off);

	return r == (ssize_t)len ? 0 : r < 0 ? -errno : -EIO;
}

int lw_write_at(int fd, const void *buf, size_t len, uint64_t off)
{
	ssize_t r = pwrite(fd, buf, len, (off_t)off);

	return r == (ssize_t)len ? 0 : r < 0 ? -errno : -EIO;
}

int lw_open(struct lw_log *log, const char *path)
{
	uint8_t sb[512];
	int r;

	log->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (log->fd < 0)
		return -errno;
	r = pread_all(log->fd, sb, sizeof(sb), 0);
	if (!r)
		r = lw_decode_super(sb, sizeof(sb), &log->super);
	if (r) {
		close(log->fd);
		return r;
	}
	log->next = 0;
	log->off = log->super.sectorsize;
	return 0;
}

void lw_close(struct lw_log *log)
{
	close(log->fd);
}

int lw_next(struct lw_log *log, struct lw_entry *e)
{
	uint32_t ss = log->super.sectorsize;
	uint8_t *buf;
	int r;

	if (log->next >= log->super.nr_entries)
		return 1;
	buf = malloc(ss);
	if (!buf)
		return -ENOMEM;
	r = pread_all(log->fd, buf, ss, log->off);
	if (!r)
		r = lw_decode_entry(buf, ss, ss, e);
	free(buf);
	if (r)
		return r;
	e->data_off = log->off + ss;
	log->off += lw_entry_span(e, ss);
	log->next++;
	return 0;
}

/* Copy @len bytes at @from in the log to @to on @devfd, 1 MiB at a time. */
static int copy_out(int logfd, uint64_t from, int devfd, uint64_t to, uint64_t len, bool zero)
{
	const size_t chunk = 1u << 20;
	char *buf = calloc(1, chunk);
	int r = buf ? 0 : -ENOMEM;

	while (!r && len) {
		size_t n = len < chunk ? (size_t)len : chunk;

		if (!zero)
			r = pread_all(logfd, buf, n, from);
		if (!r)
			r = lw_write_at(devfd, buf, n, to);
		from += n;
		to += n;
		len -= n;
	}
	free(buf);
	return r;
}

int lw_apply(const struct lw_log *log, const struct lw_entry *e, int devfd)
{
	uint32_t ss = log->super.sectorsize;

	if (e->flags & LW_MARK || !e->nr_sectors)
		return 0;
	return copy_out(log->fd, e->data_off, devfd, e->sector * ss, e->nr_sectors * ss,
			e->flags & LW_DISCARD);
}

int lw_create(const char *name, const char *dev, const char *logdev, char *path, size_t n)
{
	char params[64], a[16], b[16];
	uint64_t size;
	int fd, r;

	r = vm_devnum(dev, a, sizeof(a));
	if (!r)
		r = vm_devnum(logdev, b, sizeof(b));
	if (r)
		return r;
	fd = open(dev, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	size = (uint64_t)lseek(fd, 0, SEEK_END);
	close(fd);
	snprintf(params, sizeof(params), "%s %s", a, b);
	struct vm_dm_target t = { 0, size / 512, "log-writes", params };
	return vm_dm_create(name, &t, 1, path, n);
}

int lw_mark(const char *name, const char *text)
{
	char msg[96];

	snprintf(msg, sizeof(msg), "mark %s", text);
	return vm_dm_message(name, msg);
}

int lw_logged_entries(const char *name, uint64_t *n)
{
	char status[256];
	unsigned long long v;
	int r = vm_dm_status(name, status, sizeof(status));

	if (r)
		return r;
	if (sscanf(status, "%llu", &v) != 1)
		return -EIO;
	*n = v;
	return 0;
}

int lw_check_enabled(const char *name)
{
	char status[256];
	int r = vm_dm_status(name, status, sizeof(status));

	if (r)
		return r;
	return strstr(status, "logging_disabled") ? -EIO : 0;
}

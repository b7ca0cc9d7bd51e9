/* SPDX-License-Identifier: MIT */
/*
 * dm-log-writes logs (tests/vm/logwrites.c): the on-disk format of the
 * kernel's drivers/md/dm-log-writes.c, decoded here without its headers, and
 * a linear replay of the log onto a scratch device.
 *
 * Layout: a super block in the first sector (sectorsize = the logical block
 * size of the logged device), then one entry per sector, each followed by the
 * nr_sectors sectors it wrote (none for flushes, discards and marks; a mark's
 * text sits in its entry's sector after the header).  A plain write reaches
 * the log when the next flush completes, just before that flush's entry (the
 * run reorder.h works on); FUA writes and marks as they complete.  So a
 * prefix of the log is a state the device could have been in after a power
 * loss.
 */
#ifndef VM_LOGWRITES_H
#define VM_LOGWRITES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LW_FLUSH	(1u << 0)
#define LW_FUA		(1u << 1)
#define LW_DISCARD	(1u << 2)
#define LW_MARK		(1u << 3)
#define LW_METADATA	(1u << 4)

struct lw_super {
	uint64_t nr_entries;
	uint32_t sectorsize;
};

struct lw_entry {
	uint64_t sector;	/* in sectorsize units of the logged device */
	uint64_t nr_sectors;
	uint64_t flags;
	uint64_t data_off;	/* byte offset of the written data in the log */
	char mark[64];		/* LW_MARK: the text, NUL-terminated */
};

/* Pure decoders: 0, or -EINVAL for a bad magic, version, size or entry. */
int lw_decode_super(const void *buf, size_t n, struct lw_super *s);
int lw_decode_entry(const void *buf, size_t n, uint32_t sectorsize, struct lw_entry *e);

/* Bytes of the log one entry occupies (header sector and data). */
uint64_t lw_entry_span(const struct lw_entry *e, uint32_t sectorsize);

struct lw_log {
	int fd;
	struct lw_super super;
	uint64_t next;		/* index of the next entry */
	uint64_t off;		/* its byte offset in the log */
};

int lw_open(struct lw_log *log, const char *path);
void lw_close(struct lw_log *log);
/* The next entry, 1 at the end of the log, or a negative errno. */
int lw_next(struct lw_log *log, struct lw_entry *e);
/* pwrite() all of @len bytes: 0 or a negative errno. */
int lw_write_at(int fd, const void *buf, size_t len, uint64_t off);
/* Apply a data or discard entry to @devfd (discards write zeros, what the
 * recorded devices read after one); flushes and marks do nothing. */
int lw_apply(const struct lw_log *log, const struct lw_entry *e, int devfd);

/* The dm-log-writes target over @dev logging to @logdev, as dm device
 * @name; its path in @path. */
int lw_create(const char *name, const char *dev, const char *logdev, char *path, size_t n);
int lw_mark(const char *name, const char *text);
/* 0 while logging, -EIO once the target says "logging_disabled". */
int lw_check_enabled(const char *name);
/* The entries the target has logged so far (its status's first number:
 * written to the log by its thread, so a little behind the bios). */
int lw_logged_entries(const char *name, uint64_t *n);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * Content checks shared by the reliability tests: a non-zero pattern that
 * says where each byte came from, whole-file comparison against an expected
 * image, and filling a filesystem's free space with stale bytes so a method
 * that exposed stale blocks would be caught.
 */
#ifndef PREALLOC_TCHECK_H
#define PREALLOC_TCHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TC_STALE 0xAA	/* what tc_fill_stale() leaves in free blocks */

/* A 64-bit mix (splitmix64): case seeds and pattern bytes. */
uint64_t tc_mix(uint64_t x);

/* A seeded random stream (splitmix64): reproducible from a printed seed. */
struct tc_rng {
	uint64_t s;
};
uint64_t tc_rnd(struct tc_rng *r);
/* Uniform in [0, n); 0 when n is 0. */
uint64_t tc_below(struct tc_rng *r, uint64_t n);

/* Byte of the pattern @tag at file offset @off; never 0 and never TC_STALE. */
uint8_t tc_pattern_byte(uint32_t tag, uint64_t off);
void tc_pattern(uint8_t *buf, uint32_t tag, uint64_t off, size_t len);

/* pwrite() the pattern @tag to [off, off + len) of @fd; mirror it into
 * @shadow (which must cover off + len) when not NULL.  0 or -errno. */
int tc_write_pattern(int fd, uint8_t *shadow, uint32_t tag, uint64_t off, uint64_t len);

/* Read [0, len) of @fd into @buf (short at EOF: the rest is left alone).
 * Returns the bytes read or -errno. */
int64_t tc_read(int fd, uint8_t *buf, uint64_t len);

/* Compare [0, len) of @fd with @expect.  Returns -1 when equal, else the
 * first differing offset (or the first offset the file could not supply). */
int64_t tc_compare(int fd, const uint8_t *expect, uint64_t len);

/* Whole-file snapshot: contents and size, for "nothing changed" checks. */
struct tc_snap {
	uint8_t *data;
	uint64_t size;
};
int tc_snap_take(int fd, struct tc_snap *s);
/* 0 when @fd still has exactly the snapshot's size and bytes; else the first
 * differing offset + 1, INT64_MAX if the size differs (or -errno). */
int64_t tc_snap_diff(int fd, const struct tc_snap *s);
void tc_snap_free(struct tc_snap *s);

/* Fill the free space of the filesystem mounted at @dir (at most
 * @max_bytes of it when not 0) with TC_STALE,
 * sync it and delete the file again.  0 or -errno. */
int tc_fill_stale(const char *dir, uint64_t max_bytes);

/* Bytes of @len read from @fd at @off equal to TC_STALE in a run of at
 * least 16 (a stale block shows as long runs; single 0xAA bytes of a
 * pattern do not).  Returns the offset of the first run or -1. */
int64_t tc_find_stale(const uint8_t *buf, uint64_t len);

/* statfs(@dir) free blocks (f_bfree) times the block size. */
uint64_t tc_free_bytes(const char *dir);

/* "Nothing changed" baseline: the file (after syncfs) and the free space of
 * the filesystem mounted at @dir.  0 or -errno. */
struct tc_before {
	struct tc_snap snap;
	uint64_t free;
	const char *dir;
};
int tc_before_take(struct tc_before *b, int fd, const char *dir);

/* Who holds a record lock meeting a write lock on [@start, @start + @len)
 * of @path (@len 0: to the end), asked from a child process (a process
 * never meets its own locks): its pid, -1 for an OFD lock, 0 for none, or
 * -2 when the child could not say. */
int tc_lock_holder(const char *path, int64_t start, int64_t len);

#endif

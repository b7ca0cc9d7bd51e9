/* SPDX-License-Identifier: MIT */
/*
 * What the pool's tests share (root; skip otherwise): each test program runs
 * its cases once per filesystem (ext4, xfs, btrfs) on a fresh loop device;
 * a case makes its own pool directory, checks every segment it takes
 * (complete: size, FIEMAP fully written, zeros) and synchronises on
 * prealloc_pool_wait_ready() and inotify, never on time.
 */
#ifndef PREALLOC_POOL_FIXTURE_H
#define PREALLOC_POOL_FIXTURE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <cmocka.h>

#include "prealloc.h"

#define MiB (1ull << 20)
#define SEG (4 * MiB)
#define TMP_PREFIX ".prealloc-tmp-"
#define READY_PREFIX ".prealloc-ready-"

/* The filesystem type of the group running now. */
extern const char *pool_fstype;

/* Run @tests as one group per filesystem the machine has; 0 when all pass. */
int pool_run(const struct CMUnitTest *tests, size_t n);
#define POOL_RUN(tests) pool_run((tests), sizeof(tests) / sizeof((tests)[0]))

/* A fresh pool directory on the group's filesystem. */
const char *new_dir(char *buf, size_t len);
int open_dir(const char *dir);
struct prealloc_pool *open_pool_flags(const char *dir, uint64_t seg, uint32_t target,
				      uint64_t floor, uint32_t flags);
struct prealloc_pool *open_pool(const char *dir, uint64_t seg, uint32_t target, uint64_t floor);
struct prealloc_pool_stats stats(struct prealloc_pool *p);

/* A copy-on-write file: btrfs without nodatacow (chattr +C). */
bool file_cow(int fd);
/* What every segment out of the pool must be: @seg bytes, every block
 * written (copy-on-write: allocated), reading zero (unless @zero is false:
 * a recycled one). */
void check_segment(int fd, uint64_t seg, bool zero);
/* Names in @dir starting with @prefix; their count, the sequence numbers of
 * ready ones in @seqs (ascending by readdir order is not promised: sorted). */
unsigned int list(const char *dir, const char *prefix, unsigned long *seqs, unsigned int max);
ino_t inode_of(int dfd, const char *name);
/* The segment @fd is the one under @name, and complete. */
void check_taken(int fd, int dfd, const char *name, uint64_t seg);
/* take @name (prepared or not), check it as above, close it. */
void take_checked(struct prealloc_pool *p, int dfd, const char *name, uint64_t seg);

/* inotify events of watched directories, kept until waited for: one read
 * may return several. */
struct watch {
	int in;
	unsigned int n;
	struct {
		uint32_t mask;
		char name[64];
	} ev[256];
};

void watch_start(struct watch *w, const char *dir, uint32_t mask);
/* Wait for an event in @mask on a name starting with the @len bytes of
 * @name.  No timing: a minute without any event fails the test rather than
 * hanging it. */
void wait_event(struct watch *w, uint32_t mask, const char *name, size_t len);
/* Something renamed to @name: the worker's install of a prepared name. */
void wait_moved_to(struct watch *w, const char *name);
/* A temporary segment created: the worker is making one. */
void wait_tmp_created(struct watch *w);

#endif

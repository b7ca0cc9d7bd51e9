/* SPDX-License-Identifier: MIT */
/*
 * What a program does with the ranges `prealloc exec` converted for it
 * (src/tool/exec-watch.c).  Each converted range's file is watched for
 * EXEC_WATCH_S through an O_PATH descriptor of the tool's own, which
 * follows renames, holds no lock and reads nothing; what the program cuts
 * off the range (ftruncate() below its end) or unlinks in that time it
 * threw away, counted per file pattern in the tally.  A pattern that has
 * thrown away more than half of what its conversions wrote is speculative
 * preallocation (Prometheus' 512 MiB chunk files, cut to the few KB they
 * hold): its later calls pass.  A file unlinked unwritten since its call
 * is a spare the program discarded (etcd's next WAL segment, made ahead
 * and removed when the WAL is closed, as it is to be repaired after a
 * crash): its zeros are counted thrown away, but as no sign of
 * speculation.  The descriptor would keep an unlinked
 * file's blocks allocated: inotify tells of each unlink (IN_ATTRIB, its
 * link count), and the file is let go as soon as it is seen, before any
 * later call of the program is taken.
 */
#ifndef PREALLOC_EXEC_WATCH_H
#define PREALLOC_EXEC_WATCH_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "exec-tally.h"

#define EXEC_WATCHED_MAX 256		/* files watched at once: the oldest goes first */
#define EXEC_LOOK_MS 1000		/* how often files inotify cannot watch are looked at */

/* One converted range. */
struct exec_watched {
	int fd;				/* O_PATH descriptor of its file */
	int wd;				/* its inotify watch, or -1 */
	size_t pattern;			/* its pattern's index in the tally */
	uint64_t off, end;
	uint64_t bytes;			/* zeros its conversion wrote */
	uint64_t thrown;		/* ... counted thrown away so far */
	uint64_t until_ns;		/* watched until */
	struct timespec mtime;		/* the file's, after the call */
	uint64_t size;			/* ... and its size */
};

struct exec_watch {
	struct exec_watched *v;
	size_t n;
	int inotify;			/* made with the first watch; -1: none (yet) */
	uint64_t looked_ns;		/* the last look */
	int log_fd;			/* --log, or -1: what was thrown away, when */
};

#define EXEC_WATCH_INIT { .inotify = -1, .log_fd = -1 }

/* Watch @fd (taken over), the file of call @c whose result @r the tally
 * @t has counted, for EXEC_WATCH_S. */
void exec_watch_add(struct exec_watch *w, struct exec_tally *t, const struct exec_call *c,
		    const struct exec_result *r, int fd);

/* What inotify said, acted on: each file unlinked since, let go (its
 * descriptor, for poll(): -1 while there is none). */
int exec_watch_fd(const struct exec_watch *w);
void exec_watch_events(struct exec_watch *w, struct exec_tally *t);

/* Is the file at @path of a pattern learnt speculative?  The watched
 * files are looked at first, so what the program did just before the call
 * counts. */
bool exec_watch_speculative(struct exec_watch *w, struct exec_tally *t, const char *path);

/* Milliseconds until a look is due (the next watch to end, or a file
 * inotify does not watch), for poll(): -1 with nothing watched;
 * exec_watch_tick() looks when one is. */
int exec_watch_due_ms(const struct exec_watch *w);
void exec_watch_tick(struct exec_watch *w, struct exec_tally *t);

/* A last look, then every file let go. */
void exec_watch_end(struct exec_watch *w, struct exec_tally *t);

#endif

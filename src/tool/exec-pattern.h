/* SPDX-License-Identifier: MIT */
/*
 * A file's pattern under `prealloc exec` (src/tool/exec-pattern.c): the
 * files a program makes alike (its WAL segments, its chunk files, one
 * table's extensions) share one, which is what the tool learns and
 * reports per, and what --exclude and --unordered take as printed.
 */
#ifndef PREALLOC_EXEC_PATTERN_H
#define PREALLOC_EXEC_PATTERN_H

#include <stdbool.h>
#include <stddef.h>

/* Room for any pattern: two path components, each byte escaped. */
#define EXEC_PATTERN_MAX 1024

/*
 * The pattern of the file at absolute @path (a " (deleted)" suffix, as
 * /proc shows an unlinked file, ignored), into @buf: a "*", then "/", its
 * directory's name, "/" and its name, each run of digits made one "*" and
 * each other character special to fnmatch(3) escaped with "\", so that
 * fnmatch() of the pattern matches the path.  Prometheus' chunk files as
 * it makes them, "/p/01HX.tmp-for-creation/chunks/000001.tmp" and
 * "/p/snapshots/s/01HY/chunks/000002.tmp", share a star, "/chunks/", a
 * star and ".tmp".  A file in "/" gives "/" and its name.  False, @buf "", for a path
 * that names no file in a directory (empty, relative, a pseudo-file such
 * as "anon_inode:[eventfd]") or one whose pattern is @len bytes or more.
 */
bool exec_pattern_of(const char *path, char *buf, size_t len);

#endif

/* SPDX-License-Identifier: MIT */
/* Shared pieces of the prealloc tool. */
#ifndef PREALLOC_CLI_H
#define PREALLOC_CLI_H

#include <stdint.h>

#define EXIT_OPERATIONAL 1
#define EXIT_USAGE 2

/* Print "prealloc: PATH: reason" to stderr. */
void cli_fail(const char *path, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Parse a size with an optional binary suffix (K, M, G, T, P, E). */
int cli_parse_size(const char *s, uint64_t *ret);

int cmd_run(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_probe(int argc, char **argv);	/* examples/prealloc-probe.c */
int cmd_pool(int argc, char **argv);	/* examples/cmd-pool.c */

#endif

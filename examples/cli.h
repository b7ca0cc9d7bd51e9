/* SPDX-License-Identifier: MIT */
/* Shared pieces of the prealloc tool.  The tool uses only <prealloc.h>. */
#ifndef PREALLOC_CLI_H
#define PREALLOC_CLI_H

#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

/* Exit codes (README "The prealloc tool", prealloc --help). */
#define EXIT_OPERATIONAL 1	/* an error; verify: range not fully written */
#define EXIT_USAGE 2		/* bad command line */
#define EXIT_NOTSUPP 3		/* not supported here (EOPNOTSUPP) */

struct cli_command {
	const char *name;
	int (*run)(int argc, char **argv);	/* argv[0] is the command name */
	const char *summary;
};

/* Print "prealloc: PATH: reason" to stderr. */
void cli_fail(const char *path, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Print "prealloc: MESSAGE" and the short "Try 'prealloc [CMD ]--help'"
 * hint to stderr; returns EXIT_USAGE.  @cmd may be NULL. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* EXIT_NOTSUPP for EOPNOTSUPP, EXIT_OPERATIONAL otherwise (@err > 0). */
int cli_exit_code(int err);

/*
 * Parse a size like fallocate(1): a decimal number with an optional suffix,
 * K, M, G, T, P, E (or KiB, MiB, ...) for powers of 1024, KB, MB, ... for
 * powers of 1000.  0, -EINVAL or -ERANGE.
 */
int cli_parse_size(const char *s, uint64_t *ret);

/*
 * A size option of command @cmd: @arg parsed by cli_parse_size() into @ret
 * when it lies in [@min, @max].  0, or EXIT_USAGE after saying
 * "bad @what '@arg'" (@ret untouched).
 */
int cli_size_arg(const char *cmd, const char *what, const char *arg, uint64_t min,
		 uint64_t max, uint64_t *ret);

/* --method @arg of command @cmd into @ret: 0, or EXIT_USAGE after saying
 * "unknown method '@arg'". */
int cli_method_arg(const char *cmd, const char *arg, uint32_t *ret);

/* "512 B", "4 KiB", "1.5 GiB": for people; exact bytes go to JSON. */
const char *cli_human_size(uint64_t bytes, char *buf, size_t len);

/* A new JSON object holding the "path", "offset" and "length" a command
 * reports on. */
struct json_object *cli_json_range(const char *path, uint64_t off, uint64_t len);

/* Print @o as one line of JSON on stdout and drop it. */
void cli_json_print(struct json_object *o);

int cmd_run(int argc, char **argv);	/* examples/prealloc-run.c */
int cmd_verify(int argc, char **argv);	/* examples/prealloc-verify.c */
int cmd_probe(int argc, char **argv);	/* examples/prealloc-probe.c */
int cmd_pool(int argc, char **argv);	/* examples/prealloc-pool.c */

#endif

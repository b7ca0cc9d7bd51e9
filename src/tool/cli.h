/* SPDX-License-Identifier: MIT */
/* Shared pieces of the prealloc tool.  The tool uses only <prealloc.h>. */
#ifndef PREALLOC_CLI_H
#define PREALLOC_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

/* Exit codes (prealloc(1), EXIT STATUS; prealloc --help). */
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
 * util-linux's close_stdout habit: close stdout and turn a write error
 * that printf() could not report (a full disk, EIO) into "prealloc: write
 * error: reason" and EXIT_OPERATIONAL, unless @ret is a failure already.
 * A closed pipe (EPIPE) is not an error.  Returns the exit code.
 */
int cli_close_stdout(int ret);

/* What a command knows when it checks its options (enum of bits). */
enum cli_situation {
	CLI_ON_FILE = 1u << 0,		/* PATH is a regular file, or will be created */
	CLI_ON_BLKDEV = 1u << 1,	/* PATH is a block device */
	CLI_NOT_DIRECT = 1u << 2,	/* --method forces a method other than uring, aio */
	CLI_INSPECT_ONLY = 1u << 3,	/* nothing will be made (pool without --count) */
	CLI_ON_DIR = 1u << 4,		/* PATH is a directory (verify walks it) */
};

/* Short option @opt does not apply when the situation has every bit of @when. */
struct cli_rule {
	int opt;
	unsigned int when;
	const char *why;		/* follows "--long-name " in the message */
};

/*
 * Refuse options that do not apply instead of ignoring them: 0, or
 * EXIT_USAGE after "--NAME @why" for the first of @rules (@n) broken by an
 * option in @seen (indexed by short option) in @situation.  Long names come
 * from @lopts.
 */
int cli_check_rules(const char *cmd, const struct option *lopts, const struct cli_rule *rules,
		    size_t n, const bool seen[128], unsigned int situation);

/* CLI_ON_FILE (also for a missing PATH) or CLI_ON_BLKDEV for @path, else 0. */
unsigned int cli_target_kind(const char *path);

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

/* The options that say what to preallocate, shared by run and probe:
 * their short letters, for getopt_long(), and their struct option rows. */
#define CLI_REQUEST_SHORT "o:l:kzm:"
#define CLI_REQUEST_LONG \
	{ "offset", required_argument, NULL, 'o' }, \
	{ "length", required_argument, NULL, 'l' }, \
	{ "keep-size", no_argument, NULL, 'k' }, \
	{ "zero-data", no_argument, NULL, 'z' }, \
	{ "method", required_argument, NULL, 'm' }

struct prealloc_options;

/*
 * Option @c (argument @arg) of command @cmd, when it is a request option,
 * into @offset, @length or @o: 0, or EXIT_USAGE after saying what is wrong;
 * -1 when @c is not a request option.
 */
int cli_request_opt(const char *cmd, int c, const char *arg, uint64_t *offset,
		    uint64_t *length, struct prealloc_options *o);

/* "512 B", "4 KiB", "1.5 GiB": for people; exact bytes go to JSON. */
const char *cli_human_size(uint64_t bytes, char *buf, size_t len);

/* A new JSON object holding the "path", "offset" and "length" a command
 * reports on. */
struct json_object *cli_json_range(const char *path, uint64_t off, uint64_t len);

/* Print @o as one line of JSON on stdout and drop it. */
void cli_json_print(struct json_object *o);

int cmd_run(int argc, char **argv);	/* src/tool/cmd-run.c */
int cmd_verify(int argc, char **argv);	/* src/tool/cmd-verify.c */
int cmd_probe(int argc, char **argv);	/* src/tool/cmd-probe.c */
int cmd_pool(int argc, char **argv);	/* src/tool/cmd-pool.c */

#endif

/* SPDX-License-Identifier: MIT */
/*
 * prealloc - try libprealloc on a file or block device, and describe the
 * machine in a bug report.  Built on the public API only (<prealloc.h>,
 * linked against libprealloc.so), like any program using the library.
 */
#include <stdio.h>
#include <string.h>

#include <prealloc.h>

#include "cli.h"
#include "cmd-exec.h"

static const struct cli_command commands[] = {
	{ "run", cmd_run, "make a range allocated, written and durable" },
	{ "verify", cmd_verify, "count written, unwritten and hole bytes of a range" },
	{ "probe", cmd_probe, "describe the storage under a path and the plan for it" },
	{ "pool", cmd_pool, "fill or inspect a pool of ready segments in a directory" },
	{ "exec", cmd_exec, "run a program whose fallocate() calls leave written extents" },
};

static void usage(void)
{
	fputs("Usage:\n"
	      " prealloc <command> [options] PATH|DIR\n"
	      " prealloc --version\n"
	      "\nCommands:\n", stdout);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		printf(" %-8s %s\n", commands[i].name, commands[i].summary);
	fputs("\n'prealloc <command> --help' describes each command's options.\n"
	      "\nSizes are bytes, or take a suffix like fallocate(1): K, M, G, T, P, E\n"
	      "(or KiB, MiB, ...) for powers of 1024, KB, MB, ... for powers of 1000.\n"
	      "\nExit status:\n"
	      " 0  success (verify: the range is fully written)\n"
	      " 1  failure (verify: the range is not fully written)\n"
	      " 2  bad command line\n"
	      " 3  not supported here (e.g. a forced --method the storage cannot do)\n", stdout);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return cli_usage_error(NULL, "no command given");
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
		printf("prealloc %s\n", prealloc_version());
		return cli_close_stdout(0);
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		usage();
		return cli_close_stdout(0);
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return cli_close_stdout(commands[i].run(argc - 1, argv + 1));
	return cli_usage_error(NULL, "unknown command '%s'", argv[1]);
}

/* SPDX-License-Identifier: MIT */
/*
 * The program `prealloc exec` runs (src/tool/exec-program.c): found as
 * execvp() finds it, opened once, inspected on that descriptor and run
 * from it, so the file inspected is the file run.
 */
#ifndef PREALLOC_EXEC_PROGRAM_H
#define PREALLOC_EXEC_PROGRAM_H

#include <limits.h>
#include <stdbool.h>

struct exec_program {
	int fd;			/* O_RDONLY, or O_PATH where it cannot be read */
	bool script;		/* "#!": its interpreter opens it again (/dev/fd/N) */
	bool preloadable;	/* the interposer reaches its calls (see .c) */
	char path[PATH_MAX];	/* where it was found */
};

/* @name as execvp() would find it (PATH, an empty entry for the current
 * directory), opened and inspected.  0, or -errno (-ENOENT: nowhere;
 * -EACCES: found, not executable). */
int exec_program_open(const char *name, struct exec_program *p);

/* Run @p with @argv and this process's environment: never returns; exits
 * 127 with a message when it cannot. */
__attribute__((noreturn)) void exec_program_run(const struct exec_program *p, char **argv);

/* Is @fd an ELF object of this process's class and machine (one the
 * dynamic loader would put beside this program's code)? */
bool exec_elf_native(int fd);

#endif

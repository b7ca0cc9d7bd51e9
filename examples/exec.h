/* SPDX-License-Identifier: MIT */
/* `prealloc exec` (examples/prealloc-exec.c). */
#ifndef PREALLOC_EXEC_H
#define PREALLOC_EXEC_H

int cmd_exec(int argc, char **argv);

#endif

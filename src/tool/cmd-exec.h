/* SPDX-License-Identifier: MIT */
/* `prealloc exec` (src/tool/cmd-exec.c). */
#ifndef PREALLOC_PREALLOC_EXEC_H
#define PREALLOC_PREALLOC_EXEC_H

int cmd_exec(int argc, char **argv);

#endif

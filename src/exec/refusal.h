/* SPDX-License-Identifier: MIT */
/*
 * A method the process itself is refused (io_uring_setup or io_setup
 * denied by a seccomp profile, a sysctl, a kernel built without it): asked
 * once, by a small setup call, and remembered for the process, so later
 * calls neither retry it nor lose time on it.  A forked child asks again:
 * its seccomp filter may differ from its parent's.
 */
#ifndef PREALLOC_REFUSAL_H
#define PREALLOC_REFUSAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pa_refusal {
	uint64_t word;			/* pid, errno, known: one atomic word */
};

/* Is the answer known in this process?  *@err: 0 (usable) or -errno. */
bool pa_refusal_get(const struct pa_refusal *r, int *err);

/* Learn @err (0 or -errno): remembered for this process and returned,
 * unless it may pass (-ENOMEM, -EAGAIN, -EMFILE, -ENFILE: resources, not
 * policy), which is neither and returns 0: the method's own setup then
 * decides (and refuses) in the call. */
int pa_refusal_learn(struct pa_refusal *r, int err);

/* "@call refused: EPERM (a seccomp profile?)", "@call refused: ENOSYS (no
 * @what in this kernel, or a seccomp profile)", "@call refused: ENAME"
 * into @buf (@len bytes); returns @buf. */
char *pa_refusal_describe(const char *call, const char *what, int err, char *buf, size_t len);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * A method the process itself is refused (io_uring_setup or io_setup
 * denied by a seccomp profile, a sysctl, a kernel built without it): asked
 * once, by a small setup call, and remembered for the process, so later
 * calls neither retry it nor lose time on it.  A forked child asks again:
 * its seccomp filter may differ from its parent's.
 *
 * Every system call a method makes, and what its refusal (EPERM or ENOSYS,
 * as seccomp profiles answer) means; profiles are written call by call:
 *
 *   uring    io_uring_setup     probed: the method is not used, remembered
 *            io_uring_register  the zero buffer goes unregistered: plain writes
 *            io_uring_enter     before the kernel took a request: nothing
 *                               written, the next method, remembered; after:
 *                               the call's error, undone
 *   aio      io_setup           probed: the method is not used, remembered
 *            io_submit          as io_uring_enter
 *            io_getevents       after requests were taken: the call's error
 *   buffered pwritev2 RWF_DONTCACHE  plain writes, remembered per call
 *            sync_file_range    no early write-back: the final sync does it
 *   write-zeroes fallocate(FALLOC_FL_WRITE_ZEROES): EOPNOTSUPP is the
 *            kernel's or the device's refusal (src/plan/write_zeroes.c)
 *
 * tests/fs/test-fallback.c refuses each of them alone.
 */
#ifndef PREALLOC_REFUSAL_H
#define PREALLOC_REFUSAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pa_refusal {
	uint64_t word;			/* pid, errno, known: one atomic word */
};

struct pa_log;

/* A method the process may be refused: its setup call, asked once by a
 * probe, and the call that submits its writes, whose refusal a run learns. */
struct pa_refusable {
	const char *method;		/* "uring", for the log */
	const char *what;		/* "io_uring": what ENOSYS says is missing */
	const char *setup;		/* "io_uring_setup" */
	const char *submit;		/* "io_uring_enter" */
	int (*probe)(void);		/* the setup call, undone: 0 or -errno */
	/* The setup call's refusal @err as evidence into @buf; NULL:
	 * pa_refusal_describe()'s. */
	void (*describe)(int err, char *buf, size_t len);
	struct pa_refusal setup_refusal, submit_refusal;
};

/* Is @r usable in this process?  0, or -EOPNOTSUPP with the evidence in
 * @why (NULL: not wanted); the probe's refusal is logged through @log when
 * learnt.  The usable() hook of src/exec/ops.h for such a method. */
int pa_refusable_usable(struct pa_refusable *r, struct pa_log *log, char *why, size_t len);

/* A run's submit call was refused with @err before the kernel took any
 * request: remembered for the process, and logged through @log. */
void pa_refusable_submit_refused(struct pa_refusable *r, struct pa_log *log, int err);

/*
 * What a run's failed setup of @what (a ring, an AIO context: @call
 * returned @err), logged through @log, means for the call: nothing was
 * written.  The kernel's or a profile's refusal (EPERM,
 * ENOSYS) is one (-EOPNOTSUPP); so is any failure in an automatic call,
 * which goes on with its next method.  A forced call gets any other error
 * itself (ENOMEM, EMFILE, EAGAIN: resources, which may pass), never a
 * refusal it would take for the machine's answer.
 */
int pa_setup_failed(struct pa_log *log, const char *what, const char *call, int err, bool forced);

/* "@call refused: EPERM (a seccomp profile?)", "@call refused: ENOSYS (no
 * @what in this kernel, or a seccomp profile)", "@call refused: ENAME"
 * into @buf (@len bytes); returns @buf. */
char *pa_refusal_describe(const char *call, const char *what, int err, char *buf, size_t len);

#endif

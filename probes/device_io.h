/* SPDX-License-Identifier: MIT */
/*
 * What a transport prober (registry.h) uses to reach its device: the node,
 * opened and checked; the device I/O, which test builds may substitute;
 * and the record of a query that failed.  Apart from the registry so that
 * the probers depend on it and the registry on them, not both ways.
 */
#ifndef PREALLOC_DEVICE_IO_H
#define PREALLOC_DEVICE_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "probes/chain.h"

/*
 * The outcome of one device query (fetch, then decode): true when @r is 0.
 * Otherwise records why @what could not be learnt in @reason (@len bytes),
 * unless a reason is already there: the first failure usually explains the
 * rest.  @r: -errno, or a device status > 0.  -ENOSYS means "built without
 * the library for it", -ENOENT "not in sysfs and no device node to ask".
 */
bool pa_probe_query_ok(char *reason, size_t len, const char *what, int r);

/*
 * Open the device node @devnode read-only for device commands, refusing
 * (-ENODEV) a node that is not block device @dev: never send a command to a
 * device other than the one the chain walk reached.  An fd or -errno.
 */
int pa_probe_open_node(const char *devnode, dev_t dev);

/*
 * The device I/O a transport probe uses: @real_io when the device node is
 * open (@fd >= 0), else none (NULL).  Test builds (PA_TEST_HOOKS) may
 * substitute their own through pa_probe_set_io(); the installed library has
 * no seam.
 */
const void *pa_probe_io(enum pa_transport t, const void *real_io, int fd);
#ifdef PA_TEST_HOOKS
void pa_probe_set_io(enum pa_transport t, const void *io);
#endif

#endif

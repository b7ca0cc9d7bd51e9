/* SPDX-License-Identifier: MIT */
/*
 * The transport probes as a registry (probes/registry.c), after libblkid's
 * topology prober table: one const entry per transport, each defined in the
 * transport's own file with everything the rest of the library asks of a
 * transport (detection, probing, the verdict's hint, the facts the public
 * probe lists), iterated in order by the chain walk (detection) and by the
 * capabilities builder (pa_chain_probe_transports).  A new transport is its
 * file, its member of struct pa_device's union and its line in probers[].
 */
#ifndef PREALLOC_REGISTRY_H
#define PREALLOC_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "probes/chain.h"
#include "probes/device_io.h"
#include "probes/facts.h"

struct pa_prober {
	const char *name;		/* "nvme", "scsi" */
	enum pa_transport transport;
	/* Is the whole disk at sysfs directory @sysdir (kernel name @name) ours? */
	bool (*match)(const char *sysdir, const char *name);
	/* Fill the transport details of @d.  @fd: its device node, opened
	 * read-only once for all the commands and checked to be @d
	 * (pa_probe_open_node), or -errno why there is none: -ENOENT on a
	 * captured tree, -EACCES unprivileged.  Never fails: what cannot be
	 * learnt is recorded as unknown with its reason. */
	void (*probe)(const char *sysdir, struct pa_device *d, int fd);
	/* The verdict's hint when the kernel cannot tell ("; nvme0n1: DLFEAT
	 * 0x09 would allow it"), from what probe() learnt: false when none. */
	bool (*hint)(const struct pa_device *d, char *buf, size_t len);
	/* The facts probe() learnt, in the order the public probe lists them. */
	const struct pa_fact_group *facts;
	size_t nfacts;
};

extern const struct pa_prober pa_nvme_prober;	/* probes/nvme.c */
extern const struct pa_prober pa_scsi_prober;	/* probes/scsi.c */

/* The prober of @transport, or NULL (PA_TRANSPORT_NONE, unknown values). */
const struct pa_prober *pa_prober_of(int transport);

/* The transport of the disk at @sysdir: the first prober that matches, or
 * PA_TRANSPORT_NONE. */
enum pa_transport pa_transport_detect(const char *sysdir, const char *name);

/* "nvme", "scsi", or NULL for PA_TRANSPORT_NONE and unknown values. */
const char *pa_transport_name(int transport);

#endif

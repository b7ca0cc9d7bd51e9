/* SPDX-License-Identifier: MIT */
/*
 * The credentials a file operation is checked against, per thread
 * (base/creds.c): a library thread that works for the caller's thread
 * takes them on, so it never does more than that thread could.
 */
#ifndef PREALLOC_CREDS_H
#define PREALLOC_CREDS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define PA_CREDS_GROUPS 64	/* more supplementary groups: not taken on */

struct pa_creds {
	uint32_t fsuid, fsgid;
	uint64_t cap_eff, cap_prm, cap_inh;
	int ngroups;			/* -1: more than PA_CREDS_GROUPS */
	gid_t groups[PA_CREDS_GROUPS];
};

/* This thread's: 0 or -errno. */
int pa_creds_read(struct pa_creds *c);

/*
 * This thread takes on @want's file-system ids, supplementary groups and
 * effective capabilities (what permission checks, quotas and reserved
 * blocks look at), its own kept in *@saved.  1 when it changed them
 * (pa_creds_restore() undoes it), 0 when they were the same already, or
 * -EPERM: this thread cannot take them on exactly (it lacks the privilege
 * or the capabilities in its permitted set), and is as it was.
 */
int pa_creds_take(const struct pa_creds *want, struct pa_creds *saved);

/* Back to *@saved after pa_creds_take() returned 1. */
void pa_creds_restore(const struct pa_creds *saved);

/* May this thread allocate the blocks ext4 keeps for root (its fsuid is
 * the default reserved uid 0, or it has CAP_SYS_RESOURCE)? */
bool pa_creds_may_use_reserved(void);

#endif

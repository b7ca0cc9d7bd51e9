/* SPDX-License-Identifier: MIT */
/*
 * Where sysfs is: the one handle every sysfs reader asks (util-linux's
 * path_cxt is the model: a root, and paths relative to it).  A context owns
 * one; it is this machine's /sys, or a captured tree standing in for a
 * machine (prealloc_ctx_new()'s @sysfs_root, or $PREALLOC_SYSFS_ROOT).
 */
#ifndef PREALLOC_SYSFS_ROOT_H
#define PREALLOC_SYSFS_ROOT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* This machine's sysfs: the one spelling of it in the library. */
#define PA_SYSFS_MACHINE "/sys"

struct pa_sysfs_root {
	char *fixed;	/* the context's root; NULL: $PREALLOC_SYSFS_ROOT, else /sys */
};

#define PA_SYSFS_ROOT_INIT { .fixed = NULL }

/* @path: a fixed root (copied), or NULL to follow the environment.  0 or -ENOMEM. */
int pa_sysfs_root_init(struct pa_sysfs_root *r, const char *path);
void pa_sysfs_root_fini(struct pa_sysfs_root *r);

/* The root's path now.  The environment is read here and nowhere else
 * (secure_getenv: a set-uid caller cannot be pointed at another tree); the
 * pointer is valid until the environment changes. */
const char *pa_sysfs_root_path(const struct pa_sysfs_root *r);

/* Is @path this machine's sysfs, so device nodes may be opened? */
bool pa_sysfs_root_is_machine(const char *path);

/* "@root/dev/block/MAJ:MIN" for block device @dev into @buf.  0 or -ENAMETOOLONG. */
int pa_sysfs_dev_link(const char *root, dev_t dev, char *buf, size_t len);

#endif

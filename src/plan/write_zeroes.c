/* SPDX-License-Identifier: MIT */
/*
 * The verdict on FALLOC_FL_WRITE_ZEROES (&enum prealloc_write_zeroes): the
 * planner's, from what is known before a call, and what each verdict is
 * called and says.  One table, so the probe's sentence, the report's value,
 * the tool's word and the log cannot disagree.  Pure.
 */
#include <stddef.h>

#include "probes/caps.h"
#include "base/util.h"
#include "src/plan/plan.h"

static const struct pa_wz_verdict verdicts[] = {
	[PREALLOC_WZ_NOT_WEIGHED] = { "not-weighed",
		"FALLOC_FL_WRITE_ZEROES not weighed", NULL },
	[PREALLOC_WZ_USED] = { "used", "asked the kernel: works here", NULL },
	[PREALLOC_WZ_WOULD_TRY] = { "would-try", "not asked yet: would try", NULL },
	[PREALLOC_WZ_NO_DEVICE_FACTS] = { "no-device-facts",
		"no block device facts under the target: FALLOC_FL_WRITE_ZEROES not tried", NULL },
	[PREALLOC_WZ_NO_KERNEL] = { "no-kernel",
		"this kernel has no FALLOC_FL_WRITE_ZEROES (6.17 added it)",
		"this kernel, which has no such mode" },
	[PREALLOC_WZ_FS_REFUSED] = { "fs-refused",
		"asked the kernel: refused: this filesystem has no FALLOC_FL_WRITE_ZEROES "
		"on this kernel", "the filesystem on this kernel" },
	[PREALLOC_WZ_DEVICE_CANNOT] = { "device-cannot",
		"the device cannot zero by unmapping", "the device" },
	[PREALLOC_WZ_FS_OR_DEVICE] = { "fs-or-device",
		"asked the kernel: refused here (the device's answer is not in sysfs, "
		"so the filesystem or the device)",
		"the filesystem or the device (sysfs does not say which)" },
	[PREALLOC_WZ_INODE] = { "inode",
		"this file cannot take FALLOC_FL_WRITE_ZEROES (its inode)", NULL },
	[PREALLOC_WZ_KEEP_SIZE] = { "keep-size",
		"keep-size beyond end of file cannot use FALLOC_FL_WRITE_ZEROES", NULL },
};

const struct pa_wz_verdict *pa_wz_verdict(unsigned int v)
{
	return v < PA_ARRAY_SIZE(verdicts) ? &verdicts[v] : NULL;
}

const char *pa_wz_sentence(const struct pa_plan_input *in, unsigned int v)
{
	/* A block device that refused where sysfs said it could: say it was asked. */
	if (v == PREALLOC_WZ_DEVICE_CANNOT && in->write_zeroes_refused &&
	    in->write_zeroes_unmap != PREALLOC_NO)
		return "asked the kernel: refused on this device";
	return pa_wz_verdict(v)->sentence;
}

enum prealloc_write_zeroes pa_plan_write_zeroes(const struct pa_plan_input *in)
{
	bool file = in->target == PA_TARGET_FILE;

	if (!in->device_facts)
		return PREALLOC_WZ_NO_DEVICE_FACTS;
	if (!in->kernel_write_zeroes)
		return PREALLOC_WZ_NO_KERNEL;
	if (in->write_zeroes_unmap == PREALLOC_NO || (!file && in->write_zeroes_refused))
		return PREALLOC_WZ_DEVICE_CANNOT;
	if (in->write_zeroes_refused)
		return in->write_zeroes_unmap == PREALLOC_UNKNOWN ? PREALLOC_WZ_FS_OR_DEVICE :
								    PREALLOC_WZ_FS_REFUSED;
	if (file && (in->flags & PREALLOC_KEEP_SIZE) && !in->range_in_eof)
		return PREALLOC_WZ_KEEP_SIZE;
	return in->write_zeroes_works ? PREALLOC_WZ_USED : PREALLOC_WZ_WOULD_TRY;
}

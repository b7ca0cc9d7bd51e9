/* SPDX-License-Identifier: MIT */
/*
 * The unmap-zeroing verdict over a device chain: a pure function, so the
 * rules are tested with tables.  A stack can unmap-zero only if every device
 * in it can; the kernel reports "cannot" as a 0 limit and "old kernel" as a
 * missing attribute.
 */
#include <stdio.h>

#include "probes/chain.h"
#include "probes/registry.h"

/* A device whose queue is its own (partitions repeat their disk's). */
static bool has_own_queue(const struct pa_device *d)
{
	return d->role != PA_ROLE_PARTITION;
}

/* Hint from the transport when the kernel cannot tell us: the first one. */
static void device_hint(const struct pa_device *devs, size_t n, char *buf, size_t len)
{
	for (size_t i = 0; i < n; i++) {
		const struct pa_prober *p = pa_prober_of(devs[i].transport);

		if (p && p->hint(&devs[i], buf, len))
			return;
	}
	buf[0] = 0;
}

/*
 * For a loop device: the limit is the loop driver's own, whatever the
 * device holding its backing file could do (the kernel asks only the top).
 */
static void loop_note(const struct pa_device *devs, size_t n, size_t i, char *buf, size_t len)
{
	buf[0] = 0;
	if (devs[i].role != PA_ROLE_LOOP)
		return;
	for (size_t k = i + 1; k < n; k++) {
		if (devs[k].parent == (int)i) {
			snprintf(buf, len, " (loop driver; backing file on %s)", devs[k].name);
			return;
		}
	}
}

int pa_chain_verdict(const struct pa_device *devs, size_t n, bool *kernel_wz,
		     char *evidence, size_t len)
{
	static const int order[] = {
		PA_Q_WRITE_ZEROES_UNMAP_MAX_HW_BYTES,
		PA_Q_WRITE_ZEROES_UNMAP_MAX_BYTES,
	};
	char hint[96];

	*kernel_wz = n > 0 && devs[0].queue[PA_Q_WRITE_ZEROES_UNMAP_MAX_HW_BYTES] != PA_Q_ABSENT;
	if (!*kernel_wz) {
		device_hint(devs, n, hint, sizeof(hint));
		snprintf(evidence, len, "no write_zeroes_unmap attributes: kernel older than 6.17%s",
			 hint);
		return PREALLOC_UNKNOWN;
	}
	/* Top device first: its value is what the kernel checks. */
	for (size_t k = 0; k < 2; k++) {
		for (size_t i = 0; i < n; i++) {
			const struct pa_device *d = &devs[i];
			uint64_t v = d->queue[order[k]];

			if (!has_own_queue(d) || v != 0)
				continue;
			loop_note(devs, n, i, hint, sizeof(hint));
			snprintf(evidence, len, "%s: queue/%s = 0%s", d->name,
				 pa_queue_attr_names[order[k]], hint);
			return PREALLOC_NO;
		}
	}
	for (size_t i = 0; i < n; i++) {
		const struct pa_device *d = &devs[i];

		if (has_own_queue(d) && d->queue[PA_Q_WRITE_ZEROES_UNMAP_MAX_BYTES] == PA_Q_ABSENT) {
			snprintf(evidence, len, "%s: queue/write_zeroes_unmap_max_bytes unreadable",
				 d->name);
			return PREALLOC_UNKNOWN;
		}
	}
	const struct pa_device *top = NULL;
	size_t own = 0;

	for (size_t i = 0; i < n; i++) {
		if (has_own_queue(&devs[i]) && own++ == 0)
			top = &devs[i];
	}
	if (!top) {
		snprintf(evidence, len, "no device with a queue in the chain");
		return PREALLOC_UNKNOWN;
	}
	snprintf(evidence, len, "%s: queue/write_zeroes_unmap_max_bytes = %llu%s", top->name,
		 (unsigned long long)top->queue[PA_Q_WRITE_ZEROES_UNMAP_MAX_BYTES],
		 own > 1 ? ", and every device below allows it" : "");
	return PREALLOC_YES;
}

/* SPDX-License-Identifier: MIT */
/*
 * Benchmark, not a test: cost of the first (uncached) probe of a device and
 * of a cached one.  bench-probe [PATH] (default: the current directory's
 * device).  The first probe is measured after pa_caps_invalidate(), i.e.
 * sysfs reads only (no NVMe/SCSI device here, or their ioctls included).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "caps.h"
#include "internal.h"

#define ROUNDS 200
#define CACHED 100000

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : ".";
	const struct pa_caps *c;
	uint64_t t0, first = 0, best = UINT64_MAX;
	struct stat st;
	size_t ndev = 0;
	dev_t dev;
	int r;

	if (stat(path, &st) < 0) {
		perror(path);
		return 1;
	}
	dev = S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev;
	for (int i = 0; i < ROUNDS; i++) {
		pa_caps_invalidate(0);
		t0 = pa_now_ns();
		r = pa_caps_get(dev, &c);
		t0 = pa_now_ns() - t0;
		if (r < 0) {
			fprintf(stderr, "%s: %s\n", path, strerror(-r));
			return 1;
		}
		ndev = c->ndevices;
		pa_caps_put(c);
		first += t0;
		best = t0 < best ? t0 : best;
	}
	printf("first probe: %.1f us mean, %.1f us best over %d (%zu devices)\n",
	       first / 1e3 / ROUNDS, best / 1e3, ROUNDS, ndev);
	pa_caps_get(dev, &c);
	pa_caps_put(c);
	t0 = pa_now_ns();
	for (int i = 0; i < CACHED; i++) {
		pa_caps_get(dev, &c);
		pa_caps_put(c);
	}
	printf("cached probe: %.3f us mean over %d\n", (pa_now_ns() - t0) / 1e3 / CACHED, CACHED);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * What a database can log at start-up: is zeroing offloaded on the volume of
 * PATH, how would a 1 GiB segment be preallocated there, and why.
 *   cc zeroing-plan.c $(pkg-config --cflags --libs libprealloc) -o zeroing-plan
 */
#include <fcntl.h>
#include <prealloc.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static const char *const answer[] = { "no", "yes", "unknown" };
	struct prealloc_probe *p;
	const char *why;
	int fd, r;

	if (argc != 2 || (fd = open(argv[1], O_RDONLY | O_CLOEXEC)) < 0) {
		fprintf(stderr, "usage: %s PATH (an existing file or block device)\n", argv[0]);
		return 2;
	}
	r = prealloc_probe_new(fd, 0, 1ull << 30, NULL, &p);
	close(fd);
	if (r < 0) {
		fprintf(stderr, "%s: %s\n", argv[1], strerror(-r));
		return 1;
	}
	r = prealloc_probe_zeroing_offloaded(p, &why);
	printf("zeroing offloaded: %s (%s)\n", answer[r], why);
	r = prealloc_probe_plan(p, 0);
	printf("1 GiB: %s, because %s\n", r < 0 ? strerror(-r) : prealloc_method_name(r),
	       r < 0 ? "no plan" : prealloc_probe_plan_reason(p));
	prealloc_probe_free(p);
	return 0;
}

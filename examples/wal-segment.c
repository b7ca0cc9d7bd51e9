/* SPDX-License-Identifier: MIT */
/*
 * Create a 16 MiB WAL segment the way a database would: allocated, written
 * and durable before the first commit record goes into it, so every later
 * O_DSYNC/fdatasync write is a pure overwrite.
 *
 *   cc wal-segment.c $(pkg-config --cflags --libs libprealloc) -o wal-segment
 *   ./wal-segment /path/to/pg_wal/000000010000000000000001
 */
#include <fcntl.h>
#include <prealloc.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define WAL_SEGMENT_SIZE (16u << 20)

int main(int argc, char **argv)
{
	struct prealloc_report r = { .size = sizeof(r) };
	int fd, ret;

	if (argc != 2) {
		fprintf(stderr, "usage: %s SEGMENT\n", argv[0]);
		return 2;
	}
	fd = open(argv[1], O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	ret = prealloc_file_ex(fd, 0, WAL_SEGMENT_SIZE, NULL, &r);
	if (ret < 0) {
		fprintf(stderr, "%s: %s\n", argv[1], strerror(-ret));
		unlink(argv[1]);
		close(fd);
		return 1;
	}
	printf("%s: %s, %s, %.1f ms\n", argv[1], prealloc_method_name(r.method),
	       r.written ? "written" : "reserved only", (double)r.elapsed_ns / 1e6);
	close(fd);
	return 0;
}

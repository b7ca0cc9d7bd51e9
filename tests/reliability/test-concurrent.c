/* SPDX-License-Identifier: MIT */
/*
 * PREALLOC_CONCURRENT_WRITES (root; skip otherwise): a thread writes 2,000
 * records at scattered offsets of a new file, buffered, O_DIRECT or
 * through mmap, while another makes 64 MiB of it written; every record
 * must survive and the range end written, on xfs formatted for
 * exchange-range.  Without the flag records may be lost (printed, not
 * asserted: it depends on timing).  Where no exchange can order the zeros
 * (ext4, xfs without exchange-range) the call fails with -EOPNOTSUPP and
 * the file is as it was; so it is after ENOSPC while the temporary file
 * is zeroed, after a refused exchange, and at once for a descriptor the
 * exchange refuses (write-only, appending); a keep-size call whose file
 * is cut below its range meanwhile keeps the cut size (-EBUSY).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "prealloc.h"
#include "tassert.h"
#include "tfs.h"
#include "tseccomp.h"

#define MiB (1ull << 20)
#define LEN (64 * MiB)
#define RECORDS 2000
#define REC 4096		/* one block: O_DIRECT takes it as it is */
#define RUNS 3			/* per writer and filesystem */

/* XFS_IOC_COMMIT_RANGE, _IOW('X', 131, struct xfs_commit_range). */
#define XFS_IOC_COMMIT_RANGE 0x40585883u

enum writer { BUFFERED, DIRECT, MMAP };
static const char *const writer_name[] = { "buffered", "O_DIRECT", "mmap" };

struct race {
	int fd;				/* the file, for the call and buffered records */
	int dfd;			/* O_DIRECT descriptor of it */
	char *map;			/* the file mapped, LEN bytes */
	enum writer how;
	uint64_t off[RECORDS];
	pthread_barrier_t go;
	int werr;
};

/* Record @i: its number in every byte slot, never zero. */
static void record(unsigned int i, unsigned char *buf)
{
	for (size_t k = 0; k < REC; k++)
		buf[k] = (unsigned char)(1 + (i + k) % 251);
}

/* Distinct block-aligned offsets spread over the range. */
static void offsets(struct race *r, unsigned int seed)
{
	const uint64_t blocks = LEN / REC;

	for (unsigned int i = 0; i < RECORDS; i++)
		r->off[i] = ((uint64_t)i * (blocks / RECORDS) +
			     (uint64_t)(rand_r(&seed) % (blocks / RECORDS))) * REC;
}

static void *writer(void *arg)
{
	struct race *r = arg;
	unsigned char *buf = NULL;

	if (posix_memalign((void **)&buf, 4096, REC))
		abort();
	pthread_barrier_wait(&r->go);
	for (unsigned int i = 0; i < RECORDS && !r->werr; i++) {
		record(i, buf);
		if (r->how == MMAP)
			memcpy(r->map + r->off[i], buf, REC);
		else if (pwrite(r->how == DIRECT ? r->dfd : r->fd, buf, REC, (off_t)r->off[i]) != REC)
			r->werr = errno ? errno : EIO;
	}
	free(buf);
	return NULL;
}

/* Records that do not read back as written. */
static unsigned int lost(const struct race *r)
{
	unsigned char want[REC], got[REC];
	unsigned int n = 0;

	for (unsigned int i = 0; i < RECORDS; i++) {
		record(i, want);
		if (pread(r->fd, got, REC, (off_t)r->off[i]) != REC || memcmp(got, want, REC))
			n++;
	}
	return n;
}

/* One race on a new file of @dir: the call (with @flags) against the
 * writer.  The call's result; *@ret_lost, the records lost. */
static int race(const char *dir, enum writer how, unsigned int flags, unsigned int seed,
		unsigned int *ret_lost, struct prealloc_report *rep)
{
	struct prealloc_options o = { .size = sizeof(o), .flags = flags };
	struct race r = { .how = how, .dfd = -1 };
	char path[256];
	pthread_t t;
	int ret;

	snprintf(path, sizeof(path), "%s/race-%u", dir, seed);
	unlink(path);
	r.fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0644);
	assert_true(r.fd >= 0);
	if (how == DIRECT) {
		r.dfd = open(path, O_RDWR | O_DIRECT);
		assert_true(r.dfd >= 0);
	}
	if (how == MMAP) {
		/* A mapping needs the size; the range is then holes. */
		assert_int_equal(ftruncate(r.fd, LEN), 0);
		r.map = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_SHARED, r.fd, 0);
		assert_true(r.map != MAP_FAILED);
	}
	offsets(&r, seed);
	pthread_barrier_init(&r.go, NULL, 2);
	assert_int_equal(pthread_create(&t, NULL, writer, &r), 0);
	pthread_barrier_wait(&r.go);
	*rep = (struct prealloc_report){ .size = sizeof(*rep) };
	ret = prealloc_file_ex(r.fd, 0, LEN, &o, rep);
	pthread_join(t, NULL);
	pthread_barrier_destroy(&r.go);
	assert_int_equal(r.werr, 0);
	if (r.map) {
		assert_int_equal(msync(r.map, LEN, MS_SYNC), 0);
		munmap(r.map, LEN);
	}
	*ret_lost = lost(&r);
	if (r.dfd >= 0)
		close(r.dfd);
	close(r.fd);
	unlink(path);
	return ret;
}

/* With the flag: every record kept, the range written, every run. */
static void races(struct tfs *t, enum writer how)
{
	for (unsigned int i = 0; i < RUNS; i++) {
		struct prealloc_report rep;
		unsigned int n;
		int ret = race(t->dir, how, PREALLOC_CONCURRENT_WRITES, 100 * how + i, &n, &rep);

		assert_msg(ret == 0, "%s writer, run %u: %d (%s)", writer_name[how], i, ret,
			   strerror(-ret));
		assert_msg(n == 0, "%s writer, run %u: %u of %d records lost", writer_name[how], i,
			   n, RECORDS);
		assert_msg(rep.written == 1, "%s writer, run %u: range not written",
			   writer_name[how], i);
	}
}

/* prealloc_verify() agrees with the report on a file that held data. */
static void test_xfs_verify(void **state)
{
	struct prealloc_options o = { .size = sizeof(o), .flags = PREALLOC_CONCURRENT_WRITES };
	struct prealloc_census c = { .size = sizeof(c) };
	struct tfs *t = *state;
	char path[256], head[5];
	int fd;

	tfs_path(t, "verified", path, sizeof(path));
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, "head", 4, 0), 4);
	assert_int_equal(prealloc_file_ex(fd, 0, LEN, &o, NULL), 0);
	assert_int_equal(prealloc_verify(fd, 0, LEN, &c), 0);
	assert_true(c.fiemap);
	assert_int_equal(c.written_bytes, LEN);
	assert_int_equal(pread(fd, head, 5, 0), 5);
	assert_memory_equal(head, "head", 5);
	close(fd);
	unlink(path);
}

static struct tfs xfs_exchange;

static int setup_xfs(void **state)
{
	*state = &xfs_exchange;
	return 0;
}

static void test_xfs_buffered(void **state)
{
	races(*state, BUFFERED);
}

static void test_xfs_direct(void **state)
{
	races(*state, DIRECT);
}

static void test_xfs_mmap(void **state)
{
	races(*state, MMAP);
}

/* Without the flag the zeros may land over records: say how many. */
static void test_xfs_unordered(void **state)
{
	struct tfs *t = *state;

	for (enum writer how = BUFFERED; how <= MMAP; how++) {
		struct prealloc_report rep;
		unsigned int n;

		int ret = race(t->dir, how, 0, 900 + how, &n, &rep);

		/* Its own zero writes may also meet the writer's (-EIO). */
		print_message("without the flag, %s writer: %u of %d records lost (%s)\n",
			      writer_name[how], n, RECORDS, ret ? strerror(-ret) : "call succeeded");
	}
}

/* What a file is, to compare before and after a failed call. */
struct before {
	struct stat st;
	unsigned char head[8192];
	struct prealloc_census c;
};

static void take(struct before *b, int fd)
{
	b->c = (struct prealloc_census){ .size = sizeof(b->c) };
	assert_int_equal(fstat(fd, &b->st), 0);
	assert_int_equal(pread(fd, b->head, sizeof(b->head), 0), (ssize_t)sizeof(b->head));
	assert_int_equal(prealloc_verify(fd, 0, LEN, &b->c), 0);
}

static void unchanged(const struct before *b, int fd)
{
	struct before now;

	take(&now, fd);
	assert_int_equal(now.st.st_size, b->st.st_size);
	assert_int_equal(now.st.st_blocks, b->st.st_blocks);
	assert_memory_equal(now.head, b->head, sizeof(b->head));
	assert_int_equal(now.c.written_bytes, b->c.written_bytes);
	assert_int_equal(now.c.unwritten_bytes, b->c.unwritten_bytes);
	assert_int_equal(now.c.hole_bytes, b->c.hole_bytes);
}

/* A file of 8 KiB of data and a hole, fdatasync()ed. */
static int data_file(const struct tfs *t, const char *name)
{
	unsigned char buf[8192];
	char path[256];
	int fd;

	tfs_path(t, name, path, sizeof(path));
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	memset(buf, 0x5a, sizeof(buf));
	assert_int_equal(pwrite(fd, buf, sizeof(buf), 0), (ssize_t)sizeof(buf));
	assert_int_equal(ftruncate(fd, 3 * MiB), 0);
	assert_int_equal(fdatasync(fd), 0);
	return fd;
}

/* No exchange on this filesystem: -EOPNOTSUPP, the file untouched. */
static void refused_here(const char *type)
{
	struct prealloc_options o = { .size = sizeof(o), .flags = PREALLOC_CONCURRENT_WRITES };
	struct prealloc_report rep = { .size = sizeof(rep) };
	struct before b;
	struct tfs t;
	int fd;

	assert_int_equal(tfs_create(&t, type, 512, NULL), 0);
	fd = data_file(&t, "f");
	take(&b, fd);
	assert_int_equal(prealloc_file_ex(fd, 0, LEN, &o, &rep), -EOPNOTSUPP);
	unchanged(&b, fd);
	close(fd);
	tfs_destroy(&t);
}

static int note_progress(uint64_t done, uint64_t total, void *data)
{
	(void)total;
	*(uint64_t *)data += done;
	return 0;
}

/* A descriptor the exchange refuses (write-only, appending): -EOPNOTSUPP
 * before anything is zeroed anywhere, the file untouched. */
static void test_xfs_descriptor_refused(void **state)
{
	static const int modes[] = { O_WRONLY, O_RDWR | O_APPEND };
	struct tfs *t = *state;
	char path[256];

	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		uint64_t progress = 0;
		struct prealloc_options o = { .size = sizeof(o), .flags = PREALLOC_CONCURRENT_WRITES,
					      .progress = note_progress, .progress_data = &progress };
		struct before b;
		int rw = data_file(t, "mode"), fd;

		take(&b, rw);
		fd = open(tfs_path(t, "mode", path, sizeof(path)), modes[i]);
		assert_true(fd >= 0);
		assert_int_equal(prealloc_file_ex(fd, 0, LEN, &o, NULL), -EOPNOTSUPP);
		assert_int_equal(progress, 0);
		unchanged(&b, rw);
		close(fd);
		close(rw);
		unlink(path);
	}
}

static void test_ext4_refused(void **state)
{
	(void)state;
	refused_here("ext4");
}

static void test_xfs_plain_refused(void **state)
{
	(void)state;
	refused_here("xfs");
}

/* Fill the filesystem on the first progress call: the temporary file's
 * zeros run out of space. */
static int fill_once(uint64_t done, uint64_t total, void *data)
{
	static const uint64_t step = 4 * MiB;
	const char *dir = data;
	char path[256];
	int fd;

	(void)done, (void)total;
	snprintf(path, sizeof(path), "%s/filler", dir);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0644);
	if (fd < 0)
		return 0;
	for (uint64_t off = 0; fallocate(fd, 0, (off_t)off, (off_t)step) == 0; off += step)
		;
	close(fd);
	return 0;
}

static void test_xfs_enospc_in_tmpfile(void **state)
{
	struct tfs *t = *state;
	struct prealloc_options o = { .size = sizeof(o), .flags = PREALLOC_CONCURRENT_WRITES,
				      .progress = fill_once, .progress_data = t->dir,
				      .request_bytes = MiB };
	struct before b;
	char path[256];
	int fd = data_file(t, "enospc");

	take(&b, fd);
	assert_int_equal(prealloc_file_ex(fd, 0, LEN, &o, NULL), -ENOSPC);
	unchanged(&b, fd);
	close(fd);
	unlink(tfs_path(t, "filler", path, sizeof(path)));
	unlink(tfs_path(t, "enospc", path, sizeof(path)));
}

/* A profile that refuses the exchange itself, in a child (the filter
 * cannot be removed): the error, the file untouched. */
static void test_xfs_exchange_refused(void **state)
{
	struct tfs *t = *state;
	struct before b;
	char path[256];
	int fd = data_file(t, "refused"), st;
	pid_t pid;

	take(&b, fd);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int ret = tsec_refuse_ioctl(XFS_IOC_COMMIT_RANGE, EPERM);

		if (ret)
			_exit(ret == -ENOSYS ? 77 : 100);
		_exit(-prealloc_file(fd, 0, LEN, PREALLOC_CONCURRENT_WRITES) & 0x7f);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	if (WEXITSTATUS(st) == 77)
		skip();
	assert_int_equal(WEXITSTATUS(st), EPERM);
	unchanged(&b, fd);
	close(fd);
	unlink(tfs_path(t, "refused", path, sizeof(path)));
}

static int cut_once(uint64_t done, uint64_t total, void *data)
{
	int *fd = data;

	(void)done, (void)total;
	if (*fd >= 0 && ftruncate(*fd, (off_t)MiB) == 0)
		*fd = -1;
	return 0;
}

/* Keep-size, and another cuts the file below the range meanwhile: the
 * exchange would give it its old size back; the call fails -EBUSY and the
 * size stays as cut. */
static void test_xfs_keep_size_cut(void **state)
{
	struct tfs *t = *state;
	char path[256];
	int fd = open(tfs_path(t, "cut", path, sizeof(path)), O_RDWR | O_CREAT | O_TRUNC, 0644);
	int cutter = fd;
	struct prealloc_options o = { .size = sizeof(o), .progress = cut_once,
				      .progress_data = &cutter, .request_bytes = MiB,
				      .flags = PREALLOC_CONCURRENT_WRITES | PREALLOC_KEEP_SIZE };
	struct stat st;

	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 8 * MiB), 0);
	assert_int_equal(prealloc_file_ex(fd, 0, 8 * MiB, &o, NULL), -EBUSY);
	assert_int_equal(cutter, -1);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_size, MiB);
	close(fd);
	unlink(path);
}

/* Zeroing data others write into cannot keep their writes. */
static void test_zero_data_refused(void **state)
{
	struct tfs *t = *state;
	char path[256];
	int fd = data_file(t, "zd");

	assert_int_equal(prealloc_file(fd, 0, MiB, PREALLOC_CONCURRENT_WRITES | PREALLOC_ZERO_DATA),
			 -EINVAL);
	close(fd);
	unlink(tfs_path(t, "zd", path, sizeof(path)));
}

int main(void)
{
	const struct CMUnitTest xfs[] = {
		cmocka_unit_test(test_zero_data_refused),
		cmocka_unit_test(test_xfs_buffered),
		cmocka_unit_test(test_xfs_direct),
		cmocka_unit_test(test_xfs_mmap),
		cmocka_unit_test(test_xfs_verify),
		cmocka_unit_test(test_xfs_unordered),
		cmocka_unit_test(test_xfs_enospc_in_tmpfile),
		cmocka_unit_test(test_xfs_exchange_refused),
		cmocka_unit_test(test_xfs_descriptor_refused),
		cmocka_unit_test(test_xfs_keep_size_cut),
	};
	const struct CMUnitTest elsewhere[] = {
		cmocka_unit_test(test_ext4_refused),
		cmocka_unit_test(test_xfs_plain_refused),
	};
	int fails = 0;

	tfs_enter_for("xfs");
	/* Linux 6.10 mounts it; xfsprogs formats it from 6.10, with xfs_db before. */
	if (tfs_create_xfs_exchange(&xfs_exchange, 512) == 0)
		fails = cmocka_run_group_tests_name("concurrent writes, xfs with exchange-range",
						    xfs, setup_xfs, tfs_group_teardown);
	else
		printf("# SKIP concurrent writes on xfs: no xfs with exchange-range here\n");
	if (tfs_supported("ext4"))
		fails += cmocka_run_group_tests_name("no exchange", elsewhere, NULL, NULL);
	return fails;
}

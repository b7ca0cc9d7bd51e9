/* SPDX-License-Identifier: MIT */
/*
 * Calls from several processes on one file (root; skip otherwise), as
 * seeded random streams, on ext4 and xfs.
 *
 *  fork   worker processes forked from the test: they share the test's open
 *         file description of the file.
 *  exec   worker processes that are this program run again: each opens
 *         the file by its name.
 *
 * Each round makes a new file (data and holes) and runs PROCS workers at
 * once, each making CALLS calls of random ranges that overlap at random
 * (often within a page), inside and beyond end of file: keep-size,
 * zero-data and no-sync calls, forced io_uring and buffered methods, a
 * quarter cancelled from the progress callback at a random point (at once:
 * while the call may wait for another), an eighth failing with an I/O error
 * injected into an io_uring completion.  One more process only holds the
 * file open.  After the round, checked against what the calls returned:
 *
 *   eio    no call failed but as injected or cancelled (no -EIO from the
 *          page cache's invalidation failing, no -EDEADLK ...), or as a
 *          forced method the machine refuses (counted apart);
 *   fiemap every call that returned 0 has its range written (keep-size:
 *          allocated) by FIEMAP;
 *   bytes  data reads as it was unless a zero-data call covered it, all
 *          else reads zero;
 *   size   the size is the largest a successful call promised;
 *   fsync  fsync() returns 0 in every worker, in the process that only held
 *          the file open, and in the test itself;
 *   lock   every call was ordered with the other processes' calls
 *          (&prealloc_report.lock_error 0).
 *
 * app_locks: another process's call makes a call wait (calling its progress
 * callback, cancellable), while a plain flock() on another filesystem's file
 * of the same inode number is not taken for its holder; the application's
 * own record locks never meet the library's, and its own flock() makes the
 * call go on unordered (&prealloc_report.lock_error -EDEADLK).
 *
 * Every round runs, whatever failed before; the counts by kind are printed
 * and any failure fails the test.  Nothing waits on time: the workers start
 * when a pipe closes and are reaped with waitpid().
 *
 * PREALLOC_PROCESSES_SEED repeats a run, PREALLOC_PROCESSES_ROUNDS sets the
 * rounds per filesystem and mode.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "prealloc.h"
#include "base/util.h"
#include "src/exec/method_uring.h"	/* pa_uring_set_cqe_hook() of test builds */
#include "tcheck.h"
#include "tfs.h"

#define KiB (1ull << 10)
#define MiB (1ull << 20)
#define SPAN (56 * MiB)		/* ranges fall in [0, SPAN) */
#define SIZE0 (48 * MiB)	/* the file's size at the start of a round */
#define PROCS 6
#define CALLS 40		/* per worker and round */
#define DEFAULT_ROUNDS 3	/* per filesystem and mode */

enum { ZD_ANY = 1, ZD_DONE = 2 };	/* per-byte marks of zero-data calls */

enum kind { K_EIO, K_FIEMAP, K_BYTES, K_SIZE, K_FSYNC, K_LOCK, K_COUNT };
static const char *const kind_name[K_COUNT] = { "eio", "fiemap", "bytes", "size", "fsync",
						"lock" };

struct call {
	uint64_t off, len;
	unsigned int flags, method;
	int ret;
	bool injected;		/* an I/O error was injected into it */
	struct prealloc_report rep;
};

/* What the workers leave for the checker: in a shared memfd, which forked
 * workers inherit mapped and exec'd ones map by its number. */
struct shared {
	int fsync_ret[PROCS + 1];	/* PROCS: the process that only held the file */
	unsigned int n[PROCS];		/* calls made */
	struct call v[PROCS][CALLS];
};

static uint64_t seed;
static unsigned int rounds = DEFAULT_ROUNDS;

/* --- injected failures: the Nth io_uring completion ------------------------ */

static unsigned int inject_at;	/* 0: none */
static bool injected;

static int inject_eio(int res)
{
	if (inject_at && --inject_at == 0) {
		injected = true;
		return -EIO;
	}
	return res;
}

/* --- a worker ---------------------------------------------------------------- */

/* Cancel once @data permille of the work is done (0: at once, while the
 * call may still wait for another). */
static int cancel_at(uint64_t done, uint64_t total, void *data)
{
	return done * 1000 >= total * *(const uint64_t *)data;
}

/* Anywhere in [0, SPAN), often a few bytes, so calls share pages. */
static void pick(struct tc_rng *r, struct call *c, struct prealloc_options *o)
{
	uint64_t most = tc_below(r, 3) ? 2 * MiB : 8 * KiB;
	unsigned int k = (unsigned int)tc_below(r, 10);

	c->off = tc_below(r, SPAN);
	c->len = 1 + tc_below(r, PA_MIN(most, SPAN - c->off));
	c->flags = (k < 3 ? PREALLOC_KEEP_SIZE : 0) | (k == 3 ? PREALLOC_ZERO_DATA : 0) |
		   (tc_below(r, 4) == 0 ? PREALLOC_NO_SYNC : 0);
	*o = (struct prealloc_options){ .size = sizeof(*o), .flags = c->flags,
					.request_bytes = 64 * KiB << tc_below(r, 4) };
	k = (unsigned int)tc_below(r, 10);
	o->method = k == 0 ? PREALLOC_METHOD_URING : k == 1 ? PREALLOC_METHOD_BUFFERED :
		    PREALLOC_METHOD_AUTO;
	c->method = o->method;
}

/* Worker @id's calls on @fd, then its fsync(). */
static void work(struct shared *sh, unsigned int id, int fd, uint64_t sd)
{
	struct tc_rng r = { tc_mix(sd) };

	for (unsigned int i = 0; i < CALLS; i++) {
		struct call *c = &sh->v[id][i];
		struct prealloc_options o;
		uint64_t stop = UINT64_MAX;

		pick(&r, c, &o);
		if (tc_below(&r, 4) == 0) {
			stop = tc_below(&r, 1001);
			o.progress = cancel_at;
			o.progress_data = &stop;
		}
		inject_at = tc_below(&r, 8) == 0 ? 1 + (unsigned int)tc_below(&r, 4) : 0;
		injected = false;
		c->rep.size = sizeof(c->rep);
		c->ret = prealloc_file_ex(fd, c->off, c->len, &o, &c->rep);
		c->injected = injected;
		inject_at = 0;
		sh->n[id] = i + 1;
	}
	sh->fsync_ret[id] = fsync(fd) < 0 ? -errno : 0;
}

/* Block until the test closes the write end of @go. */
static void wait_go(int go)
{
	char b;

	while (read(go, &b, 1) < 0 && errno == EINTR)
		;
}

static struct shared *map_shared(int memfd)
{
	void *p = mmap(NULL, sizeof(struct shared), PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* argv: --worker PATH MEMFD ID SEED GO: an exec'd worker opens the file itself. */
static int exec_worker(char **argv)
{
	struct shared *sh = map_shared(atoi(argv[3]));
	unsigned int id = (unsigned int)atoi(argv[4]);
	int fd = open(argv[2], O_RDWR | O_CLOEXEC);

	if (!sh || fd < 0)
		return 2;
	pa_uring_set_cqe_hook(inject_eio);
	wait_go(atoi(argv[6]));
	work(sh, id, fd, strtoull(argv[5], NULL, 0));
	close(fd);
	return 0;
}

/* --- a round ------------------------------------------------------------------ */

struct round {
	const char *path;
	int fd;			/* the test's own descriptor of the file */
	int memfd;
	struct shared *sh;
	int go[2];		/* workers start when go[1] closes */
	int done[2];		/* the holder fsync()s when done[1] closes */
	unsigned int fails[K_COUNT];
	unsigned int calls, failed_calls, refused;
};

/* A new file: pattern in 48 of every 64 KiB of [0, SIZE0), holes between. */
static int make_file(const char *path, uint8_t *img)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	assert_true(fd >= 0);
	memset(img, 0, SPAN);
	for (uint64_t off = 0; off < SIZE0; off += 64 * KiB)
		assert_int_equal(tc_write_pattern(fd, img, 7, off, 48 * KiB), 0);
	assert_int_equal(ftruncate(fd, (off_t)SIZE0), 0);
	assert_int_equal(fsync(fd), 0);
	return fd;
}

/* The process that only holds the file open, from before the round to its
 * end, and then fsync()s. */
static pid_t start_holder(struct round *rd)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		int fd = open(rd->path, O_RDONLY | O_CLOEXEC);

		close(rd->go[1]);
		close(rd->done[1]);
		wait_go(rd->done[0]);
		rd->sh->fsync_ret[PROCS] = fd < 0 ? -errno : fsync(fd) < 0 ? -errno : 0;
		_exit(0);
	}
	return pid;
}

static pid_t start_worker(struct round *rd, unsigned int id, bool exec, uint64_t sd)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid)
		return pid;
	close(rd->go[1]);
	close(rd->done[1]);
	if (exec) {
		char m[16], i[16], s[32], g[16];

		snprintf(m, sizeof(m), "%d", rd->memfd);
		snprintf(i, sizeof(i), "%u", id);
		snprintf(s, sizeof(s), "%#" PRIx64, sd);
		snprintf(g, sizeof(g), "%d", rd->go[0]);
		execl("/proc/self/exe", "test-processes", "--worker", rd->path, m, i, s, g,
		      (char *)NULL);
		_exit(3);
	}
	wait_go(rd->go[0]);
	work(rd->sh, id, rd->fd, sd);
	_exit(0);
}

static void reap(pid_t pid)
{
	int st;

	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static void broken(struct round *rd, enum kind k, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void broken(struct round *rd, enum kind k, const char *fmt, ...)
{
	va_list ap;

	/* The first few of each kind, so a broken run stays readable. */
	if (rd->fails[k]++ < 5) {
		fprintf(stderr, "  %s: ", kind_name[k]);
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fputc('\n', stderr);
	}
}

static void check_call(struct round *rd, const struct call *c)
{
	struct prealloc_census cs = { .size = sizeof(cs) };
	bool ok;

	/* A forced method may be refused by the machine (io_uring_queue_init()
	 * failing on a host short of memory, or with io_uring disabled). */
	if (c->ret == -EOPNOTSUPP && c->method != PREALLOC_METHOD_AUTO)
		rd->refused++;
	else if (c->ret && c->ret != -ECANCELED && !(c->ret == -EIO && c->injected)) {
		broken(rd, K_EIO, "[%" PRIu64 ", +%" PRIu64 ") flags %#x method %s: %s", c->off,
		     c->len, c->flags, prealloc_method_name(c->method), strerror(-c->ret));
		return;
	}
	if (c->rep.lock_error)
		broken(rd, K_LOCK, "[%" PRIu64 ", +%" PRIu64 ") not ordered: %s", c->off, c->len,
		       strerror(-c->rep.lock_error));
	if (c->ret)
		return;
	assert_int_equal(prealloc_verify(rd->fd, c->off, c->len, &cs), 0);
	/* Keep-size space beyond EOF is reserved, not written. */
	ok = c->flags & PREALLOC_KEEP_SIZE ? cs.hole_bytes == 0 : cs.written_bytes == c->len;
	if (!ok)
		broken(rd, K_FIEMAP, "[%" PRIu64 ", +%" PRIu64 ") flags %#x returned 0, now written "
		     "%" PRIu64 " unwritten %" PRIu64 " holes %" PRIu64, c->off, c->len,
		     c->flags, cs.written_bytes, cs.unwritten_bytes, cs.hole_bytes);
}

/* Data as it was, unless a zero-data call covered it; zero elsewhere. */
static void check_bytes(struct round *rd, const uint8_t *img, const uint8_t *zd, uint64_t size)
{
	uint8_t *got = malloc(size);

	assert_non_null(got);
	assert_int_equal(tc_read(rd->fd, got, size), (int64_t)size);
	for (uint64_t i = 0; i < size; i++) {
		uint8_t want = i < SPAN ? img[i] : 0, z = i < SPAN ? zd[i] : 0;

		if ((got[i] == want && !(want && (z & ZD_DONE))) || (got[i] == 0 && (z & ZD_ANY)))
			continue;
		broken(rd, K_BYTES, "byte %" PRIu64 " is %#x, was %#x", i, got[i], want);
		break;
	}
	free(got);
}

static void check_round(struct round *rd, const uint8_t *img)
{
	uint8_t *zd = calloc(1, SPAN);
	uint64_t size = SIZE0;
	struct stat st;

	assert_non_null(zd);
	for (unsigned int p = 0; p < PROCS; p++)
		for (unsigned int i = 0; i < rd->sh->n[p]; i++) {
			const struct call *c = &rd->sh->v[p][i];

			rd->calls++;
			rd->failed_calls += c->ret != 0;
			check_call(rd, c);
			if (c->ret == 0 && !(c->flags & PREALLOC_KEEP_SIZE))
				size = PA_MAX(size, c->off + c->len);
			if (c->flags & PREALLOC_ZERO_DATA)
				for (uint64_t b = c->off; b < c->off + c->len; b++)
					zd[b] |= ZD_ANY | (c->ret == 0 ? ZD_DONE : 0);
		}
	for (unsigned int p = 0; p <= PROCS; p++)
		if (rd->sh->fsync_ret[p])
			broken(rd, K_FSYNC, "%s %u: fsync() %s", p < PROCS ? "worker" : "holder", p,
			     strerror(-rd->sh->fsync_ret[p]));
	if (fsync(rd->fd) < 0)
		broken(rd, K_FSYNC, "the test's own fsync() %s", strerror(errno));
	assert_int_equal(fstat(rd->fd, &st), 0);
	if ((uint64_t)st.st_size != size)
		broken(rd, K_SIZE, "size %" PRIu64 ", the calls promised %" PRIu64,
		     (uint64_t)st.st_size, size);
	else
		check_bytes(rd, img, zd, size);
	free(zd);
}

static void run_round(struct round *rd, bool exec, uint64_t sd, uint8_t *img)
{
	pid_t holder, pid[PROCS];

	memset(rd->sh, 0, sizeof(*rd->sh));
	rd->fd = make_file(rd->path, img);
	assert_int_equal(pipe2(rd->go, O_CLOEXEC), 0);
	assert_int_equal(pipe2(rd->done, O_CLOEXEC), 0);
	/* exec'd workers need the go pipe's read end */
	assert_int_equal(fcntl(rd->go[0], F_SETFD, 0), 0);
	holder = start_holder(rd);
	for (unsigned int p = 0; p < PROCS; p++)
		pid[p] = start_worker(rd, p, exec, tc_mix(sd + p));
	close(rd->go[0]);
	close(rd->go[1]);
	for (unsigned int p = 0; p < PROCS; p++)
		reap(pid[p]);
	close(rd->done[0]);
	close(rd->done[1]);
	reap(holder);
	check_round(rd, img);
	close(rd->fd);
	unlink(rd->path);
}

static void run_on(const char *type, bool exec)
{
	struct round rd = { 0 };
	uint8_t *img = malloc(SPAN);
	unsigned int total = 0;
	char path[128];
	struct tfs t;

	if (!tfs_supported(type)) {
		printf("%s: not supported here\n", type);
		free(img);
		return;
	}
	assert_non_null(img);
	assert_int_equal(tfs_create(&t, type, 512, NULL), 0);
	rd.path = tfs_path(&t, "f", path, sizeof(path));
	rd.memfd = memfd_create("test-processes", 0);	/* exec'd workers map it */
	assert_true(rd.memfd >= 0);
	assert_int_equal(ftruncate(rd.memfd, sizeof(struct shared)), 0);
	rd.sh = map_shared(rd.memfd);
	assert_non_null(rd.sh);
	for (unsigned int r = 0; r < rounds; r++)
		run_round(&rd, exec, seed + 1000 * r + (exec ? 500 : 0), img);
	printf("%s %s: %u rounds, %u calls (%u failed as injected or cancelled, %u forced "
	       "methods refused), failures:", type, exec ? "exec" : "fork", rounds, rd.calls,
	       rd.failed_calls - rd.refused, rd.refused);
	for (unsigned int k = 0; k < K_COUNT; k++) {
		printf(" %s %u", kind_name[k], rd.fails[k]);
		total += rd.fails[k];
	}
	printf("\n");
	fflush(stdout);
	munmap(rd.sh, sizeof(*rd.sh));
	close(rd.memfd);
	tfs_destroy(&t);
	free(img);
	if (total)
		fail_msg("%u promises broken (listed above)", total);
}

/* --- the application's own locks ------------------------------------------- */

/* Another process: a call of the library's (@call) held in its progress
 * callback until told to let go, or an application's plain flock(). */
struct holder {
	pid_t pid;
	int go, ack;		/* pipes: tell it to let go, hear it did */
	unsigned int waits;	/* progress calls with done 0 */
	unsigned int release_at, cancel_at;
};

static int child_go = -1, child_ack = -1;

/* In the child's call: say it holds the file, then wait to be let go. */
static int hold_until_go(uint64_t done, uint64_t total, void *data)
{
	static bool said;
	char b = 0;

	(void)total;
	(void)data;
	if (!done || said)
		return 0;
	said = true;
	return write(child_ack, &b, 1) != 1 || read(child_go, &b, 1) != 1;
}

/* Holders still running: a failed assertion leaves them to the teardown. */
static pid_t holders[4];

/* @at: where the call zeroes (8 MiB; fresh each time, or it has nothing to do). */
static void start_flock_holder(struct holder *h, const char *path, bool call, uint64_t at)
{
	int go[2], ack[2];
	char b = 0;

	assert_int_equal(pipe2(go, O_CLOEXEC), 0);
	assert_int_equal(pipe2(ack, O_CLOEXEC), 0);
	h->pid = fork();
	assert_true(h->pid >= 0);
	if (h->pid == 0) {
		struct prealloc_options o = { .size = sizeof(o), .progress = hold_until_go,
					      .request_bytes = 64 << 10 };
		int fd = open(path, call ? O_RDWR | O_CLOEXEC : O_RDONLY | O_CLOEXEC);

		child_go = go[0];
		child_ack = ack[1];
		if (fd < 0)
			_exit(1);
		if (call) {
			if (prealloc_file_ex(fd, at, 8 * MiB, &o, NULL))
				_exit(1);
		} else if (flock(fd, LOCK_EX) < 0 || write(ack[1], &b, 1) != 1 ||
			   read(go[0], &b, 1) != 1) {
			_exit(1);
		}
		close(fd);
		_exit(write(ack[1], &b, 1) == 1 ? 0 : 1);
	}
	close(go[0]);
	close(ack[1]);
	h->go = go[1];
	h->ack = ack[0];
	for (size_t i = 0; i < PA_ARRAY_SIZE(holders); i++)
		if (!holders[i]) {
			holders[i] = h->pid;
			break;
		}
	assert_int_equal(read(h->ack, &b, 1), 1);	/* it holds the file */
}

static void forget_holder(pid_t pid)
{
	for (size_t i = 0; i < PA_ARRAY_SIZE(holders); i++)
		if (holders[i] == pid)
			holders[i] = 0;
}

static int kill_holders(void **state)
{
	(void)state;
	for (size_t i = 0; i < PA_ARRAY_SIZE(holders); i++)
		if (holders[i] > 0) {
			kill(holders[i], SIGKILL);
			waitpid(holders[i], NULL, 0);
			holders[i] = 0;
		}
	return 0;
}

static void stop_flock_holder(struct holder *h)
{
	char b = 0;
	int status;

	if (h->go >= 0 && write(h->go, &b, 1) == 1)
		assert_int_equal(read(h->ack, &b, 1), 1);
	assert_int_equal(waitpid(h->pid, &status, 0), h->pid);
	forget_holder(h->pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(h->go);
	close(h->ack);
}

/* While the call waits: count, then have the holder let go, or cancel. */
static int waiting(uint64_t done, uint64_t total, void *data)
{
	struct holder *h = data;
	char b = 0;

	(void)total;
	if (done)
		return 0;
	if (++h->waits == h->release_at) {
		assert_int_equal(write(h->go, &b, 1), 1);
		assert_int_equal(read(h->ack, &b, 1), 1);
		close(h->go);
		h->go = -1;
	}
	return h->waits == h->cancel_at;
}

/* @type over [0, end of file) through @fd's description. */
static int ofd_lock(int fd, short type)
{
	struct flock f = { .l_type = type, .l_whence = SEEK_SET };

	return fcntl(fd, F_OFD_SETLK, &f);
}

/*
 * Another process's call makes a call wait, calling its progress callback
 * with done 0, until it goes or the callback cancels.  The application's
 * own locks never meet the library's: a whole-file OFD lock on another
 * description (etcd holds one on every WAL file it preallocates), a POSIX
 * lockf(F_LOCK, 0), each still held afterwards; the call is ordered
 * (&prealloc_report.lock_error 0) and never waits.  Only a flock() does,
 * and one that is not a call's, the application's own or another
 * process's (flock(1) around a command), is never waited for: the call
 * goes on unordered (-EDEADLK).
 */
static void app_locks(void **state)
{
	struct holder h = { .release_at = 3 }, decoy = { .go = -1 };
	struct prealloc_options o = { .size = sizeof(o), .progress = waiting,
				      .progress_data = &h };
	struct prealloc_report r = { .size = sizeof(r) };
	char path[128], dpath[128];
	struct tfs t, decoy_fs;
	struct stat st, dst;
	int fd, ofd, dfd;

	(void)state;
	assert_int_equal(tfs_create(&t, "ext4", 64, NULL), 0);
	fd = open(tfs_path(&t, "f", path, sizeof(path)), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	ofd = open(path, O_RDWR | O_CLOEXEC);
	assert_true(fd >= 0 && ofd >= 0);
	/* A plain flock() on another filesystem's file of the same inode
	 * number, held throughout: /proc/locks names both by inode. */
	assert_int_equal(tfs_create(&decoy_fs, "ext4", 64, NULL), 0);
	dfd = open(tfs_path(&decoy_fs, "f", dpath, sizeof(dpath)), O_RDWR | O_CREAT | O_CLOEXEC,
		   0644);
	assert_true(dfd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(fstat(dfd, &dst), 0);
	assert_int_equal(dst.st_ino, st.st_ino);
	start_flock_holder(&decoy, dpath, false, 0);
	start_flock_holder(&h, path, true, 16 * MiB);
	assert_int_equal(prealloc_file_ex(fd, 0, MiB, &o, &r), 0);
	assert_int_equal(h.waits, 3);
	assert_int_equal(r.lock_error, 0);
	stop_flock_holder(&h);
	stop_flock_holder(&decoy);
	close(dfd);
	tfs_destroy(&decoy_fs);

	h = (struct holder){ .cancel_at = 2 };
	start_flock_holder(&h, path, true, 32 * MiB);
	assert_int_equal(prealloc_file_ex(fd, MiB, MiB, &o, &r), -ECANCELED);
	assert_int_equal(h.waits, 2);
	stop_flock_holder(&h);

	h = (struct holder){ .go = -1 };
	assert_int_equal(ofd_lock(ofd, F_WRLCK), 0);
	r = (struct prealloc_report){ .size = sizeof(r) };
	assert_int_equal(prealloc_file_ex(fd, MiB, MiB, &o, &r), 0);
	assert_int_equal(h.waits, 0);
	assert_int_equal(r.lock_error, 0);
	assert_int_equal(tc_lock_holder(path, 0, 0), -1);
	assert_int_equal(ofd_lock(ofd, F_UNLCK), 0);

	assert_int_equal(lockf(fd, F_LOCK, 0), 0);
	r = (struct prealloc_report){ .size = sizeof(r) };
	assert_int_equal(prealloc_file_ex(fd, 2 * MiB, MiB, &o, &r), 0);
	assert_int_equal(h.waits, 0);
	assert_int_equal(r.lock_error, 0);
	assert_int_equal(tc_lock_holder(path, 0, 0), getpid());
	assert_int_equal(lockf(fd, F_ULOCK, 0), 0);

	h = (struct holder){ .go = -1 };
	start_flock_holder(&h, path, false, 0);
	r = (struct prealloc_report){ .size = sizeof(r) };
	assert_int_equal(prealloc_file_ex(fd, 3 * MiB, MiB, &o, &r), 0);
	assert_int_equal(h.waits, 0);
	assert_int_equal(r.lock_error, -EDEADLK);
	stop_flock_holder(&h);

	h = (struct holder){ .go = -1 };
	assert_int_equal(flock(ofd, LOCK_EX), 0);
	r = (struct prealloc_report){ .size = sizeof(r) };
	assert_int_equal(prealloc_file_ex(fd, 4 * MiB, MiB, &o, &r), 0);
	assert_int_equal(h.waits, 0);
	assert_int_equal(r.lock_error, -EDEADLK);
	close(ofd);
	close(fd);
	tfs_destroy(&t);
}

static void fork_ext4(void **state) { (void)state; run_on("ext4", false); }
static void exec_ext4(void **state) { (void)state; run_on("ext4", true); }
static void fork_xfs(void **state) { (void)state; run_on("xfs", false); }
static void exec_xfs(void **state) { (void)state; run_on("xfs", true); }

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fork_ext4),
		cmocka_unit_test(exec_ext4),
		cmocka_unit_test(fork_xfs),
		cmocka_unit_test(exec_xfs),
		cmocka_unit_test_teardown(app_locks, kill_holders),
	};
	const char *env_seed = getenv("PREALLOC_PROCESSES_SEED");
	const char *env_rounds = getenv("PREALLOC_PROCESSES_ROUNDS");

	if (argc == 7 && !strcmp(argv[1], "--worker"))
		return exec_worker(argv);
	if (env_rounds)
		rounds = (unsigned int)strtoul(env_rounds, NULL, 0);
	if (env_seed)
		seed = strtoull(env_seed, NULL, 0);
	else if (getrandom(&seed, sizeof(seed), 0) != sizeof(seed))
		seed = 1;
	printf("seed %" PRIu64 " (PREALLOC_PROCESSES_SEED=%" PRIu64 " repeats this run)\n", seed,
	       seed);
	fflush(stdout);
	tfs_enter();
	pa_uring_set_cqe_hook(inject_eio);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

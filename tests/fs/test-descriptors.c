/* SPDX-License-Identifier: MIT */
/*
 * The caller's descriptor, whatever it is, and an environment that refuses
 * the fast ways: the call still succeeds wherever a slower method works.
 *
 * - no /proc (a mount namespace without it): nothing can be reopened through
 *   it (block devices are claimed through their /dev node instead);
 * - a non-root caller holding O_RDWR on a 0444 file: reopening is refused;
 * - O_APPEND, O_DIRECT, O_DSYNC descriptors in both cases;
 * - io_uring rings refused (unprivileged, RLIMIT_MEMLOCK 0);
 * - a caller that dup2()s another file onto its descriptor mid-call;
 * - a busy interval timer interrupting the io_uring writes;
 * - sub-page direct-I/O requests on an indirect-block ext4 (1 KiB blocks);
 * - request_bytes = 2^63 for an 8 KiB range under an address-space limit.
 *
 * The unprivileged cases run in forked children (setresuid to a uid that
 * needs no passwd entry) that check everything themselves and exit 0.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "prealloc.h"
#include "src/exec/method_uring.h"	/* pa_uring_set_cqe_hook() of test builds */
#include "tassert.h"
#include "tcheck.h"
#include "tfs.h"

#define KiB 1024ull
#define MiB (1024 * KiB)
#define UID 4242		/* any non-root id; no passwd entry needed */

/* Layout of a scenario file: data at [0, 5000) and [600K, 604K), a hole
 * between, old size 1 MiB; the range starts and ends unaligned. */
#define OLD_SIZE	MiB
#define OFF		1000ull
#define LEN		(3 * MiB + 777)
#define END		(OFF + LEN)

static struct tfs t;

static uint8_t expected(uint64_t pos)
{
	if (pos < 5000)
		return 'D';
	if (pos >= 600 * KiB && pos < 604 * KiB)
		return 'E';
	return 0;
}

static int populate(const char *path)
{
	static uint8_t buf[5000];
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0)
		return -1;
	memset(buf, 'D', sizeof(buf));
	if (pwrite(fd, buf, 5000, 0) != 5000)
		return -1;
	memset(buf, 'E', 4096);
	if (pwrite(fd, buf, 4096, 600 * KiB) != 4096 || ftruncate(fd, OLD_SIZE) < 0 ||
	    fsync(fd) < 0)
		return -1;
	return fd;
}

/* Content, size and written state after a successful call. */
static int check_file(const char *path, const char *name)
{
	struct prealloc_census cs = { .size = sizeof(cs) };
	static uint8_t buf[64 * 1024];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;

	if (!expect_msg(fd >= 0 && fstat(fd, &st) == 0, "%s: open: %s", name, strerror(errno)))
		return 1;
	if (!expect_msg((uint64_t)st.st_size == END, "%s: size %ld, want %ld", name,
			(long)st.st_size, (long)END))
		return 1;
	for (uint64_t pos = 0; pos < END; pos += sizeof(buf)) {
		ssize_t n = pread(fd, buf, sizeof(buf), (off_t)pos);

		if (!expect_msg(n > 0, "%s: read returned %ld: %s", name, (long)n, strerror(errno)))
			return 1;
		for (ssize_t i = 0; i < n; i++)
			if (!expect_msg(buf[i] == expected(pos + (uint64_t)i), "%s: byte %ld is %#x",
					name, (long)(pos + (uint64_t)i), buf[i]))
				return 1;
	}
	if (!expect_msg(prealloc_verify(fd, OFF, LEN, &cs) == 0 && cs.written_bytes == LEN,
			"%s: %ld of %ld bytes written", name, (long)cs.written_bytes, (long)LEN))
		return 1;
	close(fd);
	return 0;
}

/*
 * Populate @name, open it with @oflags (then make it 0444 when @ro), call
 * the library with @method and check everything.  0, or 1 with a message.
 */
static int scenario(const char *name, int oflags, bool ro, uint32_t method, uint32_t *ret_refused)
{
	struct prealloc_options o = { .size = sizeof(o), .method = method };
	struct prealloc_report r = { .size = sizeof(r) };
	char path[256];
	int fd, pfd, fds, fl, ret;

	tfs_path(&t, name, path, sizeof(path));
	pfd = populate(path);
	if (!expect_msg(pfd >= 0, "%s: populate: %s", name, strerror(errno)))
		return 1;
	fd = open(path, oflags | O_CLOEXEC);
	if (!expect_msg(fd >= 0 && (!ro || fchmod(pfd, 0444) == 0), "%s: open: %s", name,
			strerror(errno)))
		return 1;
	close(pfd);
	fl = fcntl(fd, F_GETFL);
	fds = tfs_count_fds();
	ret = prealloc_file_ex(fd, OFF, LEN, &o, &r);
	if (!expect_msg(ret == 0, "%s: method %u: %s", name, method, strerror(-ret)))
		return 1;
	if (!expect_msg(tfs_count_fds() == fds && fcntl(fd, F_GETFL) == fl &&
			lseek(fd, 0, SEEK_CUR) == 0, "%s: descriptors changed (%d, were %d)",
			name, tfs_count_fds(), fds))
		return 1;
	close(fd);
	if (ret_refused)
		*ret_refused = r.refused;
	ret = check_file(path, name);
	unlink(path);
	return ret;
}

struct flavour {
	const char *name;
	int oflags;
};

static const struct flavour flavours[] = {
	{ "rdwr", O_RDWR },
	{ "append", O_RDWR | O_APPEND },
	{ "direct", O_RDWR | O_DIRECT },
	{ "direct-append", O_RDWR | O_DIRECT | O_APPEND },
	{ "dsync", O_RDWR | O_DSYNC },
	{ "wronly-append", O_WRONLY | O_APPEND },
};

/* Every flavour with auto and buffered; uring too where direct I/O can be
 * had without reopening.  @ro: non-root caller, 0444 file. */
static int all_flavours(bool ro)
{
	static const uint32_t methods[] = { PREALLOC_METHOD_AUTO, PREALLOC_METHOD_BUFFERED,
					    PREALLOC_METHOD_URING };
	int bad = 0;

	for (size_t f = 0; f < sizeof(flavours) / sizeof(flavours[0]); f++) {
		for (size_t m = 0; m < 3; m++) {
			char name[64];

			if (methods[m] == PREALLOC_METHOD_URING && !(flavours[f].oflags & O_DIRECT))
				continue;
			snprintf(name, sizeof(name), "%s-%s%s", flavours[f].name,
				 prealloc_method_name(methods[m]), ro ? "-ro" : "");
			bad |= scenario(name, flavours[f].oflags, ro, methods[m], NULL);
		}
	}
	return bad;
}

/* A write-only O_DIRECT descriptor that cannot be reopened cannot write an
 * unaligned byte; an aligned range on a new file works (-EINVAL otherwise). */
static int wronly_direct(void)
{
	char path[256];
	int fd = open(tfs_path(&t, "wronly-direct", path, sizeof(path)),
		      O_WRONLY | O_CREAT | O_DIRECT | O_CLOEXEC, 0644);
	struct stat st;
	int ret = prealloc_file(fd, 0, 4 * MiB, 0);

	if (!expect_msg(ret == 0 && fstat(fd, &st) == 0 && (uint64_t)st.st_size == 4 * MiB,
			"wronly-direct aligned: %d", ret))
		return 1;
	ret = prealloc_file(fd, 4 * MiB, 100, 0);
	close(fd);
	return !expect_msg(ret == -EINVAL, "wronly-direct unaligned: %d", ret);
}

static void no_proc(void **state)
{
	int bad;

	(void)state;
	/* Our own mount namespace (tfs_enter()): /proc is hidden only here. */
	assert_int_equal(mount("none", "/proc", "tmpfs", 0, "size=1m"), 0);
	bad = access("/proc/self/fd", F_OK) == 0;
	bad |= all_flavours(false);
	bad |= wronly_direct();
	assert_int_equal(umount2("/proc", MNT_DETACH), 0);
	assert_int_equal(bad, 0);
}

/*
 * No /proc and no FIEMAP (tmpfs): the library has no descriptor of its own
 * to seek for SEEK_DATA, and must not seek the caller's (its offset is
 * shared with the caller's threads).  Data kept, the rest zero, the size
 * extended, the caller's offset where it was; the report says the call was
 * not ordered with other processes'.
 */
static void no_proc_no_fiemap(void **state)
{
	struct prealloc_report r = { .size = sizeof(r) };
	struct tfs m = { 0 };
	uint8_t data[5000], buf[8192];
	char path[256];
	struct stat st;
	int fd, ret;

	(void)state;
	if (tfs_create(&m, "tmpfs", 64, NULL))
		skip();
	fd = open(tfs_path(&m, "f", path, sizeof(path)), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	memset(data, 0x3c, sizeof(data));
	assert_int_equal(pwrite(fd, data, sizeof(data), 0), sizeof(data));
	assert_int_equal(lseek(fd, 1234, SEEK_SET), 1234);
	assert_int_equal(mount("none", "/proc", "tmpfs", 0, "size=1m"), 0);
	ret = prealloc_file_ex(fd, 0, MiB, NULL, &r);
	assert_int_equal(umount2("/proc", MNT_DETACH), 0);
	assert_int_equal(ret, 0);
	/* No description of its own to lock: ordered within the process only. */
	assert_int_equal(r.lock_error, -ENOENT);
	assert_int_equal(lseek(fd, 0, SEEK_CUR), 1234);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_size, MiB);
	assert_int_equal(pread(fd, buf, sizeof(buf), 0), sizeof(buf));
	assert_memory_equal(buf, data, sizeof(data));
	for (size_t i = sizeof(data); i < sizeof(buf); i++)
		assert_int_equal(buf[i], 0);
	close(fd);
	tfs_destroy(&m);
}

/* A block device without /proc: claimed and checked for signatures through
 * its /dev node (found by sysfs), zeroed, and nothing beyond the range. */
static void no_proc_blockdev(void **state)
{
	struct tfs d = { 0 };
	uint8_t buf[8192], ones[8192];
	int fd, ret;

	(void)state;
	if (tfs_loop(&d, 16, false))
		skip();
	fd = open(d.dev, O_RDWR | O_CLOEXEC);
	assert_true(fd >= 0);
	memset(ones, 0x5a, sizeof(ones));
	assert_int_equal(pwrite(fd, ones, sizeof(ones), 0), sizeof(ones));
	assert_int_equal(pwrite(fd, ones, sizeof(ones), 4 * MiB), sizeof(ones));
	assert_int_equal(fsync(fd), 0);
	assert_int_equal(mount("none", "/proc", "tmpfs", 0, "size=1m"), 0);
	ret = prealloc_file(fd, 0, 4 * MiB, PREALLOC_ZERO_DATA);
	assert_int_equal(umount2("/proc", MNT_DETACH), 0);
	assert_int_equal(ret, 0);
	assert_int_equal(pread(fd, buf, sizeof(buf), 0), sizeof(buf));
	for (size_t i = 0; i < sizeof(buf); i++)
		assert_int_equal(buf[i], 0);
	assert_int_equal(pread(fd, buf, sizeof(buf), 4 * MiB), sizeof(buf));
	assert_memory_equal(buf, ones, sizeof(buf));
	close(fd);
	tfs_destroy(&d);
}

/* The library's first call in a process opens what it keeps for later
 * (the mount table it watches): not a descriptor of the call. */
static int warm_up(void)
{
	struct prealloc_options o = { .size = sizeof(o), .method = PREALLOC_METHOD_BUFFERED };
	char path[256];
	int fd = open(tfs_path(&t, "warm-up", path, sizeof(path)),
		      O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int ret = prealloc_file_ex(fd, 0, 4096, &o, NULL);

	close(fd);
	unlink(path);
	return ret;
}

/*
 * A /proc whose self/fd/N all lead to a decoy file: whatever reopening
 * gives must be checked to be the caller's file, and the decoy left alone.
 */
static void reopen_checked(void **state)
{
	static const int oflags[] = { O_RDWR | O_APPEND, O_RDWR | O_DIRECT, O_RDWR | O_DSYNC };
	char decoy[256], link[64];
	struct stat st;
	int bad = 0, dfd;

	(void)state;
	dfd = open(tfs_path(&t, "decoy", decoy, sizeof(decoy)),
		   O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	assert_true(dfd >= 0);
	assert_int_equal(pwrite(dfd, "decoy", 5, 0), 5);
	assert_int_equal(mount("none", "/proc", "tmpfs", 0, "size=1m"), 0);
	bad |= mkdir("/proc/self", 0755) || mkdir("/proc/self/fd", 0755);
	for (int i = 0; i < 256 && !bad; i++) {
		snprintf(link, sizeof(link), "/proc/self/fd/%d", i);
		bad |= symlink(decoy, link);
	}
	for (size_t i = 0; i < sizeof(oflags) / sizeof(oflags[0]) && !bad; i++) {
		bad |= scenario("checked", oflags[i], false, PREALLOC_METHOD_AUTO, NULL);
		bad |= scenario("checked", oflags[i], false, PREALLOC_METHOD_BUFFERED, NULL);
	}
	assert_int_equal(umount2("/proc", MNT_DETACH), 0);
	assert_int_equal(bad, 0);
	assert_int_equal(fstat(dfd, &st), 0);
	assert_int_equal(st.st_size, 5);
	close(dfd);
}

/* Run @fn as a non-root uid in a child, with @memlock as RLIMIT_MEMLOCK
 * unless it is RLIM_INFINITY. */
static int as_user(int (*fn)(void), rlim_t memlock)
{
	struct rlimit rl = { memlock, memlock };
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		if ((memlock != RLIM_INFINITY && setrlimit(RLIMIT_MEMLOCK, &rl) < 0) ||
		    setresgid(UID, UID, UID) < 0 || setresuid(UID, UID, UID) < 0 || warm_up())
			_exit(2);
		_exit(fn());
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int readonly_flavours(void)
{
	return all_flavours(true);
}

static void unprivileged_readonly_file(void **state)
{
	(void)state;
	assert_int_equal(as_user(readonly_flavours, RLIM_INFINITY), 0);
}

/* No io_uring rings for this caller: the library falls back (Linux AIO). */
static int uring_refused(void)
{
	uint32_t refused = 0;

	if (scenario("memlock", O_RDWR, false, PREALLOC_METHOD_AUTO, &refused))
		return 1;
	return !expect_msg(refused & (1u << PREALLOC_METHOD_URING), "memlock: io_uring not tried "
			   "(refused %#x)", refused);
}

static void uring_setup_enomem(void **state)
{
	(void)state;
	assert_int_equal(as_user(uring_refused, 0), 0);
}

/* The caller puts another file on its descriptor number mid-call. */
struct swap {
	int fd, other;
	bool done;
};

static int swap_on_first_call(uint64_t done, uint64_t total, void *data)
{
	struct swap *s = data;

	(void)done;
	(void)total;
	if (!s->done)
		s->done = dup2(s->other, s->fd) == s->fd;
	return 0;
}

static void dup2_mid_call(void **state)
{
	static const uint32_t methods[] = { PREALLOC_METHOD_BUFFERED, PREALLOC_METHOD_AUTO };
	static uint8_t data[MiB], back[MiB];
	char path[256], opath[256];

	(void)state;
	memset(data, 'O', sizeof(data));
	for (size_t m = 0; m < 2; m++) {
		struct swap s = { 0 };
		struct prealloc_options o = {
			.size = sizeof(o), .method = methods[m], .request_bytes = MiB,
			.progress = swap_on_first_call, .progress_data = &s,
		};
		struct stat st;

		tfs_path(&t, "swap-target", path, sizeof(path));
		tfs_path(&t, "swap-other", opath, sizeof(opath));
		unlink(path);
		s.fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
		s.other = open(opath, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		assert_true(s.fd >= 0 && s.other >= 0);
		assert_int_equal(pwrite(s.other, data, MiB, 0), MiB);
		assert_int_equal(prealloc_file_ex(s.fd, 100, 32 * MiB, &o, NULL), 0);
		assert_true(s.done);
		/* The other file is as it was... */
		assert_int_equal(fstat(s.other, &st), 0);
		assert_int_equal(st.st_size, MiB);
		assert_int_equal(pread(s.other, back, MiB, 0), MiB);
		assert_memory_equal(back, data, MiB);
		close(s.other);
		close(s.fd);
		/* ...and the target got everything. */
		assert_int_equal(stat(path, &st), 0);
		assert_int_equal(st.st_size, 32 * MiB + 100);
	}
}

static void on_alarm(int sig)
{
	(void)sig;
}

/* A 200 us interval timer whose handler does not restart system calls. */
static void busy_itimer(void **state)
{
	struct sigaction sa = { .sa_handler = on_alarm };	/* no SA_RESTART */
	struct itimerval it = { { 0, 200 }, { 0, 200 } }, off = { 0 };
	/* Many small requests in flight: many submissions for the timer to hit. */
	struct prealloc_options o = { .size = sizeof(o), .queue_depth = 64,
				      .request_bytes = 64 * KiB };
	struct prealloc_census cs = { .size = sizeof(cs) };
	uint64_t seed = 1, size;
	char path[256];

	(void)state;
	tfs_path(&t, "itimer", path, sizeof(path));
	assert_int_equal(sigaction(SIGALRM, &sa, NULL), 0);
	assert_int_equal(setitimer(ITIMER_REAL, &it, NULL), 0);
	for (int i = 0; i < 40; i++) {
		int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		int ret;

		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		size = 16 * MiB << (seed >> 61) % 5;	/* 16 .. 256 MiB */
		ret = prealloc_file_ex(fd, 0, size, &o, NULL);
		if (ret)
			print_message("call %d (%llu MiB): %d\n", i,
				      (unsigned long long)(size / MiB), ret);
		assert_int_equal(ret, 0);
		assert_int_equal(prealloc_verify(fd, 0, size, &cs), 0);
		assert_int_equal(cs.written_bytes, size);
		close(fd);
	}
	assert_int_equal(setitimer(ITIMER_REAL, &off, NULL), 0);
	unlink(path);
}

/* Every third completion interrupted, every fifth cancelled, as a busy
 * interval timer makes the kernel do now and then: the writes go again. */
static int interrupt_some(int res)
{
	static unsigned int n;

	n++;
	return res < 0 ? res : n % 5 == 0 ? -ECANCELED : n % 3 == 0 ? -EINTR : res;
}

static void interrupted_completions(void **state)
{
	struct prealloc_options o = { .size = sizeof(o), .request_bytes = MiB };
	struct prealloc_report r = { .size = sizeof(r) };
	struct prealloc_census cs = { .size = sizeof(cs) };
	char path[256];
	int fd = open(tfs_path(&t, "interrupted", path, sizeof(path)),
		      O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int ret;

	(void)state;
	assert_true(fd >= 0);
	pa_uring_set_cqe_hook(interrupt_some);
	ret = prealloc_file_ex(fd, 0, 64 * MiB, &o, &r);
	pa_uring_set_cqe_hook(NULL);
	assert_int_equal(ret, 0);
	assert_int_equal(r.bytes_by_method[PREALLOC_METHOD_URING], 64 * MiB);
	assert_int_equal(prealloc_verify(fd, 0, 64 * MiB, &cs), 0);
	assert_int_equal(cs.written_bytes, 64 * MiB);
	close(fd);
	unlink(path);
}

/* request_bytes = 2^63 for 8 KiB must not map a 1 GiB buffer. */
static int huge_request(void)
{
	struct prealloc_options o = {
		.size = sizeof(o), .method = PREALLOC_METHOD_URING, .request_bytes = 1ull << 63,
	};
	struct rlimit as = { 256 * MiB, 256 * MiB };
	char path[256];
	int fd = open(tfs_path(&t, "huge-request", path, sizeof(path)),
		      O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	int ret;

	if (!expect_msg(fd >= 0, "huge-request: open: %s", strerror(errno)))
		return 1;
	/* Far more than the process needs, far less than 1 GiB more. */
	if (!expect_msg(setrlimit(RLIMIT_AS, &as) == 0, "huge-request: setrlimit: %s",
			strerror(errno)))
		return 1;
	ret = prealloc_file_ex(fd, 0, 8 * KiB, &o, NULL);
	return !expect_msg(ret == 0, "huge-request: %s", strerror(-ret));
}

static void request_sized_to_work(void **state)
{
	(void)state;
#ifdef __SANITIZE_ADDRESS__
	skip();		/* the shadow memory needs far more address space */
#endif
	assert_int_equal(as_user(huge_request, RLIM_INFINITY), 0);
}

/*
 * Indirect-block ext4 with 1 KiB blocks (no fallocate, direct writes into
 * holes fall back to the page cache): sub-page requests used to put direct
 * writes and cached pages on the same page (-EIO, then the caller's fsync
 * failed too).
 */
static void subpage_requests(void **state)
{
	static const uint64_t reqs[] = { 512, 1024, 3072 };
	static uint8_t img[8 * MiB + 100];	/* zeros but for the two bytes written */
	struct tfs ind;
	char path[256];

	(void)state;
	if (tfs_create(&ind, "ext4", 256, "-b 1024 -O ^extent,^64bit")) {
		skip();
		return;
	}
	img[5000] = 'x';
	img[7] = 'y';
	for (size_t i = 0; i < sizeof(reqs) / sizeof(reqs[0]); i++) {
		struct prealloc_options o = { .size = sizeof(o), .request_bytes = reqs[i] };
		struct prealloc_census cs = { .size = sizeof(cs) };
		int fd = open(tfs_path(&ind, "f", path, sizeof(path)),
			      O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

		assert_true(fd >= 0);
		/* Holes inside EOF: where direct writes fall back to the cache. */
		assert_int_equal(pwrite(fd, "x", 1, 5000), 1);
		assert_int_equal(ftruncate(fd, 8 * MiB + 100), 0);
		assert_int_equal(prealloc_file_ex(fd, 100, 8 * MiB, &o, NULL), 0);
		assert_int_equal(pwrite(fd, "y", 1, 7), 1);
		assert_int_equal(fsync(fd), 0);
		assert_int_equal(prealloc_verify(fd, 100, 8 * MiB, &cs), 0);
		assert_int_equal(cs.written_bytes, 8 * MiB);
		assert_int_equal(tc_compare(fd, img, sizeof(img)), -1);
		close(fd);
	}
	tfs_destroy(&ind);
}

static int setup(void **state)
{
	char path[256];
	int fd, ret;

	*state = &t;
	/* Children with another uid create their files here. */
	if (tfs_create(&t, "ext4", 1024, NULL) || chmod(t.dir, 01777))
		return -1;
	/* The first call leaves the socket to the library's workers in the
	 * process's table, for the calls after it: counted from here on. */
	fd = open(tfs_path(&t, "first", path, sizeof(path)), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	ret = fd < 0 ? -1 : prealloc_file(fd, 0, 4096, 0);
	if (fd >= 0)
		close(fd);
	unlink(path);
	return ret ? -1 : 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(no_proc),
		cmocka_unit_test(no_proc_blockdev),
		cmocka_unit_test(no_proc_no_fiemap),
		cmocka_unit_test(reopen_checked),
		cmocka_unit_test(unprivileged_readonly_file),
		cmocka_unit_test(uring_setup_enomem),
		cmocka_unit_test(dup2_mid_call),
		cmocka_unit_test(request_sized_to_work),
		cmocka_unit_test(busy_itimer),
		cmocka_unit_test(interrupted_completions),
		cmocka_unit_test(subpage_requests),
	};

	tfs_enter_for("ext4");
	return cmocka_run_group_tests(tests, setup, tfs_group_teardown);
}

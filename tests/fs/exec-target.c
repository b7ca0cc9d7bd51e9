/* SPDX-License-Identifier: MIT */
/*
 * A program as databases are, for `prealloc exec` to run unchanged
 * (tests/fs/test-exec.c): built dynamically linked and static.
 *
 *   exec-target all DIR   every call below, in DIR
 *   exec-target one FILE  fallocate(FILE, 0, 0, 4 MiB): what an exec'd
 *                         child does
 *   exec-target signals FILE  the same 64 MiB under a 1 ms interval timer
 *                         whose handler counts (a signal during the call;
 *                         SA_RESTART, as Go's: a signal before the
 *                         supervisor has taken the call restarts it)
 *   exec-target filter FILE   its own seccomp filter first (mknod refused)
 *   exec-target nnp       prints prctl(PR_GET_NO_NEW_PRIVS)
 *   exec-target wait FILE says "ready", reads a byte from standard input,
 *                         then the 4 MiB call; prints its errno (0 for
 *                         success)
 *   exec-target call HOW LEN FILE  FILE opened as HOW (path, rdonly,
 *                         wronly, rdwr, create; posix: rdwr, created if
 *                         missing, and posix_fallocate(); fifo: the write
 *                         end of FIFO FILE with no reader left), then
 *                         fallocate(fd, 0, 0, LEN); prints its errno
 *   exec-target big FILE LEN  says "calling PID", then fallocate(FILE, 0, 0,
 *                         LEN) on a new FILE; prints its errno, and the size,
 *                         unwritten and hole bytes the file had when it
 *                         returned
 *   exec-target table DIR ROUNDS  a thread with a descriptor table of its
 *                         own opens DIR/yN where the process has DIR/xN (8
 *                         bytes), at the same number, and fallocate()s 16 MiB
 *                         there; prints "ok" when yN has the size and xN
 *                         kept its 8 bytes
 *   exec-target cancel DIR ROUNDS LEN  a thread calls fallocate(DIR/cX, 0,
 *                         0, LEN) and is cancelled once the file changes
 *                         (inotify); prints whether the call returned, the
 *                         size and the unwritten and hole bytes (FIEMAP)
 *                         the file has after the thread ended, then
 *                         removes it.  X is a letter per round, so each
 *                         file is a pattern of its own: `prealloc exec`
 *                         learns nothing of one from another's removal
 *   exec-target keep FILE flock()s FILE from a thread named prealloc-keep,
 *                         says "held", then waits for the end of its
 *                         standard input
 *   exec-target fds       prints each descriptor open above 2, "none" if none
 *   exec-target race DIR RUNS HOW  RUNS times, on a new file DIR/raceN: a
 *                         thread writes 2,000 records at scattered offsets
 *                         (HOW: buffered, 512 bytes each, or direct, 4 KiB
 *                         with O_DIRECT) while another calls fallocate(fd,
 *                         0, 0, 64 MiB); then reads them back.  Prints "run
 *                         N: L lost, fallocate E" per run (E its errno),
 *                         then "lost TOTAL".  The files stay
 *   exec-target spec DIR N LEN KEEP  N times, on a new file DIR/specI:
 *                         fallocate(0, LEN), KEEP bytes written, ftruncate()
 *                         to KEEP (speculative preallocation, as Prometheus
 *                         makes its chunk files); prints each errno
 *   exec-target spare DIR N LEN  N times: DIR/spare.tmp made, fallocate(0,
 *                         LEN), unlinked unwritten (a spare made ahead and
 *                         discarded, as etcd's WAL does when it is closed);
 *                         prints each errno
 *   exec-target activated checks what a service manager passed (LISTEN_PID
 *                         its own pid, descriptors 3 to 3 + LISTEN_FDS - 1
 *                         sockets and the next one closed), prints "listen
 *                         N", then sends READY=1 and MAINPID=1 (a process
 *                         not its own) to NOTIFY_SOCKET if set
 *
 * Before the command, -u UID runs it as UID (groups none, gid UID), as a
 * daemon's User= would, -f BYTES sets RLIMIT_FSIZE and -x ignores SIGXFSZ.
 *
 * all: data  'D' bytes at [0, 4096), a record lock on [0, 100), then
 *            fallocate(mode 0) of [0, 8 MiB); the lock must still be the
 *            program's afterwards (asked from a child: F_GETLK)
 *      posix posix_fallocate() of 8 MiB
 *      keep  fallocate(KEEP_SIZE) of 8 MiB: the size stays 0
 *      hole  1 MiB written, [256 KiB, 512 KiB) punched
 *      small fallocate(mode 0) of 64 KiB, below --min-size
 *      child a fork()ed child's call; thread: a thread's; exec: an exec'd
 *            image's
 * Exit 0 when every call returned what it should, else the failing step.
 */
#include <dirent.h>
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fiemap.h>
#include <linux/filter.h>
#include <linux/fs.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MiB (1 << 20)
#define RACE_LEN (64ll * MiB)
#define RECORDS 2000
#define READY "READY=1\nMAINPID=1\n"	/* what "activated" notifies */

static const char *dir;

static int open_in(const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
}

static int fail(int step, const char *what)
{
	fprintf(stderr, "exec-target: %s: %s\n", what, strerror(errno));
	return step;
}

/* The pid of the process holding a lock over [0, 100) of @name, 0 for
 * none, asked from a child. */
static pid_t lock_owner(const char *name)
{
	char path[512];

	int p[2];
	pid_t pid, who = -1;

	if (pipe(p) < 0 || (pid = fork()) < 0)
		return -1;
	if (pid == 0) {
		struct flock f = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_len = 100 };
		int fd;

		snprintf(path, sizeof(path), "%s/%s", dir, name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		who = fd >= 0 && fcntl(fd, F_GETLK, &f) == 0 && f.l_type != F_UNLCK ? f.l_pid : 0;
		_exit(write(p[1], &who, sizeof(who)) == sizeof(who) ? 0 : 1);
	}
	close(p[1]);
	if (read(p[0], &who, sizeof(who)) != sizeof(who))
		who = -1;
	close(p[0]);
	waitpid(pid, NULL, 0);
	return who;
}

static int data(void)
{
	struct flock f = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_len = 100 };
	char buf[4096];
	int fd = open_in("data");

	memset(buf, 'D', sizeof(buf));
	if (fd < 0 || pwrite(fd, buf, sizeof(buf), 0) != sizeof(buf))
		return fail(1, "data");
	if (fcntl(fd, F_SETLK, &f) < 0)
		return fail(1, "lock");
	if (fallocate(fd, 0, 0, 8 * MiB) < 0)
		return fail(1, "fallocate");
	if (lock_owner("data") != getpid())
		return fail(1, "the record lock is gone");
	return 0;
}

static void *in_thread(void *arg)
{
	int fd = open_in("thread");

	(void)arg;
	return (void *)(long)(fd >= 0 && fallocate(fd, 0, 0, 4 * MiB) == 0);
}

static int children(const char *self)
{
	void *ok = NULL;
	pthread_t t;
	int st = 1, fd;
	pid_t pid = fork();

	if (pid == 0)
		_exit((fd = open_in("child")) >= 0 && fallocate(fd, 0, 0, 4 * MiB) == 0 ? 0 : 1);
	if (pid < 0 || waitpid(pid, &st, 0) != pid || st)
		return fail(6, "child");
	if (pthread_create(&t, NULL, in_thread, NULL) || pthread_join(t, &ok) || !ok)
		return fail(7, "thread");
	pid = fork();
	if (pid == 0) {
		char path[512];

		snprintf(path, sizeof(path), "%s/exec", dir);
		execl(self, self, "one", path, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || st)
		return fail(8, "exec");
	return 0;
}

static int all(const char *self)
{
	char buf[MiB];
	int fd, ret = data();

	if (ret)
		return ret;
	fd = open_in("posix");
	if (fd < 0 || (errno = posix_fallocate(fd, 0, 8 * MiB)))
		return fail(2, "posix_fallocate");
	fd = open_in("keep");
	if (fd < 0 || fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, 8 * MiB) < 0 ||
	    lseek(fd, 0, SEEK_END) != 0)
		return fail(3, "keep-size");
	memset(buf, 'H', sizeof(buf));
	fd = open_in("hole");
	if (fd < 0 || pwrite(fd, buf, sizeof(buf), 0) != sizeof(buf) ||
	    fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 256 << 10, 256 << 10) < 0)
		return fail(4, "punch");
	fd = open_in("small");
	if (fd < 0 || fallocate(fd, 0, 0, 64 << 10) < 0)
		return fail(5, "small");
	return children(self);
}

static volatile sig_atomic_t ticks;

static void tick(int sig)
{
	(void)sig;
	ticks++;
}

/* fallocate(@path, 0, 0, @len): 0 or errno. */
static int one(const char *path, off_t len)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	return fd < 0 ? errno : fallocate(fd, 0, 0, len) == 0 ? 0 : errno;
}

static int with_signals(const char *path)
{
	struct sigaction sa = { .sa_handler = tick, .sa_flags = SA_RESTART };
	struct itimerval it = { { 0, 1000 }, { 0, 1000 } };
	int ret;

	if (sigaction(SIGALRM, &sa, NULL) < 0 || setitimer(ITIMER_REAL, &it, NULL) < 0)
		return 1;
	ret = one(path, 64 * MiB);
	it = (struct itimerval){ 0 };
	setitimer(ITIMER_REAL, &it, NULL);
	printf("%d %d\n", ret, ticks > 0);
	return ret;
}

static int with_own_filter(const char *path)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_mknod, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = 4, .filter = f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0)
		return 1;
	return one(path, 4 * MiB);
}

/* @path opened as @how says (see the top of this file): the descriptor or -1. */
static int open_as(const char *how, const char *path)
{
	static const struct { const char *how; int flags; } hows[] = {
		{ "path", O_PATH }, { "rdonly", O_RDONLY }, { "wronly", O_WRONLY },
		{ "rdwr", O_RDWR }, { "posix", O_RDWR | O_CREAT }, { "create", O_RDWR | O_CREAT | O_TRUNC },
	};
	int r, w;

	if (!strcmp(how, "fifo")) {
		/* A reader for as long as the write end takes to open. */
		r = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		w = r < 0 ? -1 : open(path, O_WRONLY | O_CLOEXEC);
		if (r >= 0)
			close(r);
		return w;
	}
	for (size_t i = 0; i < sizeof(hows) / sizeof(hows[0]); i++)
		if (!strcmp(how, hows[i].how))
			return open(path, hows[i].flags | O_CLOEXEC, 0644);
	errno = EINVAL;
	return -1;
}

static int call(const char *how, const char *len, const char *path)
{
	int fd = open_as(how, path), err;

	if (fd < 0)
		return fail(1, path);
	if (!strcmp(how, "posix"))
		err = posix_fallocate(fd, 0, atoll(len));
	else
		err = fallocate(fd, 0, 0, atoll(len)) == 0 ? 0 : errno;
	printf("%d\n", err);
	return 0;
}

static int census(int fd, long long len, long long *unwritten, long long *holes);

static int big(const char *path, const char *len)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644), err;
	long long unwritten = -1, holes = -1;
	struct stat st = { 0 };

	if (fd < 0 || printf("calling %d\n", getpid()) < 0 || fflush(stdout))
		return fail(1, path);
	err = fallocate(fd, 0, 0, atoll(len)) == 0 ? 0 : errno;
	fstat(fd, &st);
	census(fd, st.st_size, &unwritten, &holes);
	printf("%d %lld %lld %lld\n", err, (long long)st.st_size, unwritten, holes);
	return 0;
}

struct own_table {
	const char *path;
	int fd;
};

/* In a thread of its own table: the file at the process's number. */
static void *own_table_call(void *arg)
{
	const struct own_table *o = arg;
	int y;

	if (unshare(CLONE_FILES) < 0)
		return (void *)1L;
	y = open(o->path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (y < 0 || dup3(y, o->fd, O_CLOEXEC) < 0 || close(y) < 0)
		return (void *)1L;
	return (void *)(long)(fallocate(o->fd, 0, 0, 16 * MiB) < 0);
}

static int table(const char *d, int rounds)
{
	for (int i = 0; i < rounds; i++) {
		char x[512], y[512];
		struct own_table o = { .path = y };
		struct stat sx, sy;
		void *ret = NULL;
		pthread_t t;

		snprintf(x, sizeof(x), "%s/x%d", d, i);
		snprintf(y, sizeof(y), "%s/y%d", d, i);
		o.fd = open(x, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (o.fd < 0 || pwrite(o.fd, "XXXXXXXX", 8, 0) != 8 ||
		    pthread_create(&t, NULL, own_table_call, &o) || pthread_join(t, &ret) || ret)
			return fail(1, "own table");
		if (stat(x, &sx) < 0 || stat(y, &sy) < 0)
			return fail(1, "stat");
		printf("%s\n", sx.st_size == 8 && sy.st_size == 16 * MiB ? "ok" : "wrong");
		close(o.fd);
	}
	return 0;
}

/* Unwritten and hole bytes of @fd's first @len bytes. */
static int census(int fd, long long len, long long *unwritten, long long *holes)
{
	struct { struct fiemap f; struct fiemap_extent e[256]; } m;
	long long at = 0;
	bool last = false;

	*unwritten = *holes = 0;
	while (at < len && !last) {
		memset(&m, 0, sizeof(m));
		m.f.fm_start = (unsigned long long)at;
		m.f.fm_length = (unsigned long long)(len - at);
		m.f.fm_flags = FIEMAP_FLAG_SYNC;
		m.f.fm_extent_count = 256;
		if (ioctl(fd, FS_IOC_FIEMAP, &m.f) < 0)
			return -1;
		last = !m.f.fm_mapped_extents;
		for (unsigned int i = 0; i < m.f.fm_mapped_extents; i++) {
			const struct fiemap_extent *e = &m.e[i];
			long long lo = (long long)e->fe_logical, hi = lo + (long long)e->fe_length;

			*holes += lo > at ? lo - at : 0;
			if (e->fe_flags & FIEMAP_EXTENT_UNWRITTEN)
				*unwritten += (hi < len ? hi : len) - (lo > at ? lo : at);
			at = hi;
			last = e->fe_flags & FIEMAP_EXTENT_LAST;
		}
	}
	*holes += at < len ? len - at : 0;
	return 0;
}

struct cancelled {
	int fd, ended;			/* ended: an eventfd, written as the thread ends */
	long long len;
	volatile int returned;
};

static void ended(void *arg)
{
	uint64_t one = 1;

	(void)!write(*(int *)arg, &one, sizeof(one));
}

static void *cancelled_call(void *arg)
{
	struct cancelled *c = arg;

	pthread_cleanup_push(ended, &c->ended);
	if (fallocate(c->fd, 0, 0, c->len) == 0)
		c->returned = 1;
	pthread_cleanup_pop(1);
	return NULL;
}

/* Cancel the thread once the call has begun to change the file (or not at
 * all if it ended first): its output says whether it returned, and what
 * the file was after. */
static int cancel_round(const char *path, long long len)
{
	struct cancelled c = { .len = len, .ended = eventfd(0, EFD_CLOEXEC) };
	struct pollfd p[2] = { { .fd = inotify_init1(IN_CLOEXEC), .events = POLLIN },
			       { .fd = c.ended, .events = POLLIN } };
	long long unwritten, holes;
	void *how = NULL;
	struct stat st;
	pthread_t t;

	c.fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (c.fd < 0 || p[0].fd < 0 || c.ended < 0 || inotify_add_watch(p[0].fd, path, IN_MODIFY) < 0 ||
	    pthread_create(&t, NULL, cancelled_call, &c) || poll(p, 2, -1) < 0 ||
	    ((p[0].revents & POLLIN) && pthread_cancel(t)) || pthread_join(t, &how) ||
	    fstat(c.fd, &st) < 0 || census(c.fd, len, &unwritten, &holes) < 0)
		return fail(1, "cancel");
	printf("returned %d cancelled %d size %lld unwritten %lld holes %lld\n", c.returned,
	       how == PTHREAD_CANCELED, (long long)st.st_size, unwritten, holes);
	fflush(stdout);
	close(c.fd);
	close(p[0].fd);
	close(c.ended);
	return unlink(path);
}

static int cancel(const char *d, int rounds, long long len)
{
	for (int i = 0; i < rounds && i < 26; i++) {
		char path[512];

		snprintf(path, sizeof(path), "%s/c%c", d, 'a' + i);
		if (cancel_round(path, len))
			return 1;
	}
	return 0;
}

static void *name_keep(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "prealloc-keep");
	pause();
	return NULL;
}

/* Holds a flock() on @path, as a process running the library would seem to. */
static int keep(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	pthread_t t;
	char b;

	if (fd < 0 || flock(fd, LOCK_EX) < 0 || pthread_create(&t, NULL, name_keep, NULL))
		return fail(1, "keep");
	printf("held\n");
	fflush(stdout);
	while (read(0, &b, 1) > 0)
		;
	return 0;
}

static int fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return fail(1, "/proc/self/fd");
	while ((e = readdir(d))) {
		char link[64], to[256];
		int fd = atoi(e->d_name);
		ssize_t l;

		if (e->d_name[0] == '.' || fd <= 2 || fd == dirfd(d))
			continue;
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		l = readlink(link, to, sizeof(to) - 1);
		to[l > 0 ? l : 0] = '\0';
		printf("%d %s\n", fd, to);
		n++;
	}
	closedir(d);
	if (!n)
		printf("none\n");
	return 0;
}

/* What sd_listen_fds() and sd_notify() check, by hand. */
static int activated(void)
{
	const char *pid = getenv("LISTEN_PID"), *n = getenv("LISTEN_FDS");
	const char *sock = getenv("NOTIFY_SOCKET");
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fds = n ? atoi(n) : 0, s;
	struct stat st;

	if (!pid || atoi(pid) != getpid())
		return printf("LISTEN_PID %s, not %d\n", pid ? pid : "unset", getpid()) < 0;
	for (int fd = 3; fd < 3 + fds; fd++)
		if (fstat(fd, &st) < 0 || !S_ISSOCK(st.st_mode))
			return printf("descriptor %d is not a socket\n", fd) < 0;
	if (fcntl(3 + fds, F_GETFD) >= 0)
		return printf("descriptor %d is open\n", 3 + fds) < 0;
	printf("listen %d\n", fds);
	if (!sock)
		return 0;
	strncpy(a.sun_path, sock, sizeof(a.sun_path) - 1);
	if (a.sun_path[0] == '@')
		a.sun_path[0] = '\0';
	s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0 || sendto(s, READY, strlen(READY), 0, (struct sockaddr *)&a,
			    (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(sock))) !=
			     (ssize_t)strlen(READY))
		return fail(1, "notify");
	close(s);
	return 0;
}

struct race {
	int fd, wfd;			/* the file; the writer's descriptor (O_DIRECT or not) */
	size_t rec;			/* record size */
	long long off[RECORDS];
	pthread_barrier_t go;
	int werr, ferr;
};

/* Record @i: its number in every byte, never zero. */
static void record(int i, unsigned char *buf, size_t len)
{
	for (size_t k = 0; k < len; k++)
		buf[k] = (unsigned char)(1 + ((size_t)i + k) % 251);
}

/* The records, spread over the range the call covers.  Buffered, a short
 * pause every 20 spreads them over about 100 ms, the time a conversion
 * takes, as direct writes spread by themselves, so most land while it runs
 * (whenever they land, none may be lost). */
static void *race_writer(void *arg)
{
	struct race *r = arg;
	unsigned char *buf = NULL;
	const struct timespec pause = { 0, 1000 * 1000 };

	if (posix_memalign((void **)&buf, 4096, r->rec))
		return NULL;
	pthread_barrier_wait(&r->go);
	for (int i = 0; i < RECORDS && !r->werr; i++) {
		record(i, buf, r->rec);
		if (pwrite(r->wfd, buf, r->rec, r->off[i]) != (ssize_t)r->rec)
			r->werr = errno ? errno : EIO;
		if (r->wfd == r->fd && i % 20 == 19)
			nanosleep(&pause, NULL);
	}
	free(buf);
	return NULL;
}

static void *race_caller(void *arg)
{
	struct race *r = arg;

	pthread_barrier_wait(&r->go);
	r->ferr = fallocate(r->fd, 0, 0, RACE_LEN) == 0 ? 0 : errno;
	return NULL;
}

/* Records not read back as written. */
static int race_lost(const struct race *r)
{
	unsigned char want[4096], got[4096];
	int lost = 0;

	for (int i = 0; i < RECORDS; i++) {
		record(i, want, r->rec);
		lost += pread(r->fd, got, r->rec, r->off[i]) != (ssize_t)r->rec ||
			memcmp(got, want, r->rec) != 0;
	}
	return lost;
}

static int race_run(const char *d, int run, bool direct)
{
	struct race r = { .rec = direct ? 4096 : 512 };
	unsigned int seed = (unsigned int)run + 1;
	long long slots = RACE_LEN / (long long)r.rec / RECORDS;
	char path[512];
	pthread_t w, c;
	int lost;

	snprintf(path, sizeof(path), "%s/race%d", d, run);
	r.fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	r.wfd = direct ? open(path, O_RDWR | O_DIRECT | O_CLOEXEC) : r.fd;
	if (r.fd < 0 || r.wfd < 0 || pthread_barrier_init(&r.go, NULL, 2))
		return -1;
	for (int i = 0; i < RECORDS; i++)
		r.off[i] = ((long long)i * slots + rand_r(&seed) % slots) * (long long)r.rec;
	if (pthread_create(&w, NULL, race_writer, &r) || pthread_create(&c, NULL, race_caller, &r) ||
	    pthread_join(w, NULL) || pthread_join(c, NULL) || r.werr) {
		errno = r.werr;
		return -1;
	}
	lost = race_lost(&r);
	printf("run %d: %d lost, fallocate %d\n", run, lost, r.ferr);
	if (direct)
		close(r.wfd);
	close(r.fd);
	pthread_barrier_destroy(&r.go);
	return lost;
}

static int race(const char *d, int runs, const char *how)
{
	int total = 0;

	if (strcmp(how, "buffered") && strcmp(how, "direct"))
		return 99;
	for (int i = 0; i < runs; i++) {
		int lost = race_run(d, i, !strcmp(how, "direct"));

		if (lost < 0)
			return fail(1, "race");
		total += lost;
	}
	printf("lost %d\n", total);
	return 0;
}

/* Each call's errno, then the file cut to what it holds. */
static int spec(const char *d, int n, long long len, long long keep)
{
	static char buf[64 << 10];

	if (keep > (long long)sizeof(buf))
		return 99;
	memset(buf, 'S', sizeof(buf));
	for (int i = 0; i < n; i++) {
		char path[512];
		int fd, err;

		snprintf(path, sizeof(path), "%s/spec%d", d, i);
		fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0)
			return fail(1, path);
		err = fallocate(fd, 0, 0, len) == 0 ? 0 : errno;
		if (pwrite(fd, buf, (size_t)keep, 0) != keep || ftruncate(fd, keep) < 0)
			return fail(1, path);
		printf("%d\n", err);
		close(fd);
	}
	return 0;
}

/* Each call's errno; the file unlinked as it was. */
static int spare(const char *d, int n, long long len)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/spare.tmp", d);
	for (int i = 0; i < n; i++) {
		int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644), err;

		if (fd < 0)
			return fail(1, path);
		err = fallocate(fd, 0, 0, len) == 0 ? 0 : errno;
		if (unlink(path) < 0)
			return fail(1, path);
		printf("%d\n", err);
		close(fd);
	}
	return 0;
}

/* -u UID, -f BYTES, -x: as the top of this file says. */
static int options(int *argc, char ***argv)
{
	int c;

	while ((c = getopt(*argc, *argv, "+u:f:x")) != -1) {
		struct rlimit rl;
		uid_t u;

		switch (c) {
		case 'u':
			u = (uid_t)atoi(optarg);
			/* Dumpable still, as a process started as the user is. */
			if (setgroups(0, NULL) || setresgid(u, u, u) || setresuid(u, u, u) ||
			    prctl(PR_SET_DUMPABLE, 1, 0, 0, 0))
				return fail(1, "-u");
			break;
		case 'f':
			rl.rlim_cur = rl.rlim_max = (rlim_t)atoll(optarg);
			if (setrlimit(RLIMIT_FSIZE, &rl) < 0)
				return fail(1, "-f");
			break;
		case 'x':
			signal(SIGXFSZ, SIG_IGN);
			break;
		default:
			return 99;
		}
	}
	*argc -= optind - 1;
	*argv += optind - 1;
	return 0;
}

int main(int argc, char **argv)
{
	int ret = options(&argc, &argv);
	char b;

	if (ret)
		return ret;
	if (argc == 3 && !strcmp(argv[1], "one"))
		return one(argv[2], 4 * MiB) ? 1 : 0;
	if (argc == 3 && !strcmp(argv[1], "signals"))
		return with_signals(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "filter"))
		return with_own_filter(argv[2]);
	if (argc == 2 && !strcmp(argv[1], "nnp"))
		return printf("%d\n", prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0)) < 0;
	if (argc == 3 && !strcmp(argv[1], "wait")) {
		if (printf("ready\n") < 0 || fflush(stdout) || read(0, &b, 1) != 1)
			return 1;
		printf("%d\n", one(argv[2], 4 * MiB));
		return 0;
	}
	if (argc == 5 && !strcmp(argv[1], "call"))
		return call(argv[2], argv[3], argv[4]);
	if (argc == 4 && !strcmp(argv[1], "big"))
		return big(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "table"))
		return table(argv[2], atoi(argv[3]));
	if (argc == 5 && !strcmp(argv[1], "cancel"))
		return cancel(argv[2], atoi(argv[3]), atoll(argv[4]));
	if (argc == 3 && !strcmp(argv[1], "keep"))
		return keep(argv[2]);
	if (argc == 2 && !strcmp(argv[1], "fds"))
		return fds();
	if (argc == 2 && !strcmp(argv[1], "activated"))
		return activated();
	if (argc == 5 && !strcmp(argv[1], "race"))
		return race(argv[2], atoi(argv[3]), argv[4]);
	if (argc == 6 && !strcmp(argv[1], "spec"))
		return spec(argv[2], atoi(argv[3]), atoll(argv[4]), atoll(argv[5]));
	if (argc == 5 && !strcmp(argv[1], "spare"))
		return spare(argv[2], atoi(argv[3]), atoll(argv[4]));
	if (argc != 3 || strcmp(argv[1], "all"))
		return 99;
	dir = argv[2];
	return all("/proc/self/exe");
}

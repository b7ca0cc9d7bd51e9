/* SPDX-License-Identifier: MIT */
/*
 * A program as databases are, for `prealloc exec` to run unchanged
 * (tests/fs/test-exec.c): built dynamically linked and static.
 *
 *   exec-target all DIR   every call below, in DIR
 *   exec-target one FILE  fallocate(FILE, 0, 0, 4 MiB): what an exec'd
 *                         child does
 *   exec-target signals FILE  the same 64 MiB under a 1 ms interval timer
 *                         whose handler counts (a signal during the call)
 *   exec-target filter FILE   its own seccomp filter first (mknod refused)
 *   exec-target nnp       prints prctl(PR_GET_NO_NEW_PRIVS)
 *   exec-target wait FILE says "ready", reads a byte from standard input,
 *                         then the 4 MiB call; prints its errno (0 for
 *                         success)
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
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#define MiB (1 << 20)

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
	struct sigaction sa = { .sa_handler = tick };
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

int main(int argc, char **argv)
{
	char b;

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
	if (argc != 3 || strcmp(argv[1], "all"))
		return 99;
	dir = argv[2];
	return all("/proc/self/exe");
}

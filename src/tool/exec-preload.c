/* SPDX-License-Identifier: MIT */
/*
 * The interposer of `prealloc exec` (libprealloc-exec.so, loaded with
 * LD_PRELOAD): fallocate(), posix_fallocate() and their 64-bit names, as a
 * dynamically linked program calls them through the C library.  It only
 * asks: a call `prealloc exec` wants (src/tool/exec-proto.h) is sent there
 * with its descriptor, and converted there, as the supervisor's are, with
 * the caller's own credentials and limits; the verdict says whether the
 * range is written (return 0) or the C library's own function is to make
 * the call as the program made it.  Every other call goes to the C library
 * at once, and so does every call when `prealloc exec` cannot be reached:
 * the interposer never widens what the program does.  Nothing of the
 * library runs in the program's process.
 */
#undef _FILE_OFFSET_BITS	/* define both names, each with its own type */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "exec-fdpass.h"
#include "exec-proto.h"

#define EXPORT __attribute__((visibility("default")))

static int (*real_fallocate64)(int, int, off64_t, off64_t);
static int (*real_posix_fallocate64)(int, off64_t, off64_t);
static struct sockaddr_un addr = { .sun_family = AF_UNIX };
static socklen_t addr_len;
static uint64_t min_len = UINT64_MAX;	/* until told: nothing is asked about */
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* A connection to `prealloc exec`, or -1. */
static int dial(void)
{
	int s, one = 1;

	if (!addr_len)
		return -1;
	s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	/* Each message carries this process's credentials, whenever
	 * `prealloc exec` accepts the connection (SO_PASSCRED of the
	 * receiver counts only from then on). */
	if (s >= 0 && (setsockopt(s, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) < 0 ||
		       connect(s, (const struct sockaddr *)&addr, addr_len) < 0)) {
		close(s);
		s = -1;
	}
	return s;
}

/* @m on @s, with @fd attached when not -1. */
static bool say(int s, const struct exec_message *m, int fd)
{
	return exec_send_fds(s, m, sizeof(*m), &fd, 1) == (ssize_t)sizeof(*m);
}

/* The answer of type @type on @s; false when none came. */
static bool hear(int s, uint32_t type, struct exec_message *m)
{
	ssize_t n;

	do
		n = recv(s, m, sizeof(*m), 0);
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)sizeof(*m) && m->size == sizeof(*m) && m->type == type;
}

static void init(void)
{
	const char *name = getenv(EXEC_ENV_SOCKET);
	struct exec_message m = { .size = sizeof(m), .type = EXEC_MSG_HELLO };
	size_t n = name ? strlen(name) : 0;
	int s;

	real_fallocate64 = (int (*)(int, int, off64_t, off64_t))dlsym(RTLD_NEXT, "fallocate64");
	real_posix_fallocate64 = (int (*)(int, off64_t, off64_t))dlsym(RTLD_NEXT,
									"posix_fallocate64");
	if (n < 2 || name[0] != '@' || n > sizeof(addr.sun_path))
		return;
	memcpy(addr.sun_path + 1, name + 1, n - 1);	/* sun_path[0] = '\0': abstract */
	addr_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n);
	s = dial();
	if (s >= 0 && say(s, &m, -1) && hear(s, EXEC_MSG_CONFIG, &m))
		min_len = m.min;
	if (s >= 0)
		close(s);
}

/* Before the program's main(): `prealloc exec` counts the processes the
 * interposer is loaded in. */
__attribute__((constructor)) static void early(void)
{
	int saved = errno;

	pthread_once(&once, init);
	errno = saved;
}

/* The library's own calls (a program linked with libprealloc) are its
 * steps: they reach the kernel as they are. */
static bool from_library(const void *caller)
{
	const char *base;
	Dl_info info;

	if (!dladdr(caller, &info) || !info.dli_fname)
		return false;
	base = strrchr(info.dli_fname, '/');
	return !strncmp(base ? base + 1 : info.dli_fname, "libprealloc.so", 14);
}

/*
 * Ask `prealloc exec` about fallocate(@fd, @mode, @off, @len): true when
 * the range is written.  The wait is no cancellation point (fallocate()
 * completes before a cancel acts): cancellation is held off across it and
 * acted on after, as an interposer of a cancellation point does.
 */
static bool converted(int fd, int mode, off64_t off, off64_t len)
{
	struct exec_message m = { .size = sizeof(m), .type = EXEC_MSG_CALL, .tid = gettid(),
				  .fd = fd, .mode = mode, .offset = (uint64_t)off,
				  .len = (uint64_t)len };
	int state, s;
	bool done;

	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &state);
	s = dial();
	done = s >= 0 && say(s, &m, fd) && hear(s, EXEC_MSG_VERDICT, &m) &&
	       m.verdict == EXEC_VERDICT_DONE;
	if (s >= 0)
		close(s);
	pthread_setcancelstate(state, NULL);
	pthread_testcancel();
	return done;
}

static bool wanted(int mode, off64_t len, const void *caller)
{
	pthread_once(&once, init);
	return exec_wanted(mode, (uint64_t)len, min_len) && !from_library(caller);
}

static int do_fallocate(int fd, int mode, off64_t off, off64_t len, const void *caller)
{
	int saved = errno;

	if (wanted(mode, len, caller) && converted(fd, mode, off, len)) {
		errno = saved;
		return 0;
	}
	errno = saved;
	if (!real_fallocate64) {
		errno = ENOSYS;
		return -1;
	}
	return real_fallocate64(fd, mode, off, len);
}

static int do_posix_fallocate(int fd, off64_t off, off64_t len, const void *caller)
{
	int saved = errno;

	if (wanted(0, len, caller) && converted(fd, 0, off, len)) {
		errno = saved;
		return 0;
	}
	errno = saved;
	return real_posix_fallocate64 ? real_posix_fallocate64(fd, off, len) : ENOSYS;
}

#define CALLER __builtin_return_address(0)

/*
 * The entry points carry libc's names in the symbol table only (an asm
 * label); in C they are named for what they are.
 */
#define INTERPOSES(sym) __asm__(#sym) EXPORT

int preload_fallocate(int fd, int mode, off_t off, off_t len) INTERPOSES(fallocate);
int preload_fallocate64(int fd, int mode, off64_t off, off64_t len) INTERPOSES(fallocate64);
int preload_posix_fallocate(int fd, off_t off, off_t len) INTERPOSES(posix_fallocate);
int preload_posix_fallocate64(int fd, off64_t off, off64_t len) INTERPOSES(posix_fallocate64);

int preload_fallocate(int fd, int mode, off_t off, off_t len)
{
	return do_fallocate(fd, mode, off, len, CALLER);
}

int preload_fallocate64(int fd, int mode, off64_t off, off64_t len)
{
	return do_fallocate(fd, mode, off, len, CALLER);
}

int preload_posix_fallocate(int fd, off_t off, off_t len)
{
	return do_posix_fallocate(fd, off, len, CALLER);
}

int preload_posix_fallocate64(int fd, off64_t off, off64_t len)
{
	return do_posix_fallocate(fd, off, len, CALLER);
}

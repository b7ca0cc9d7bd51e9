/* SPDX-License-Identifier: MIT */
/*
 * The kernel has the last word.  Under a captured sysfs tree that says the
 * file's device is an NVMe namespace that can unmap-zero, the planner picks
 * FALLOC_FL_WRITE_ZEROES; the real loop device refuses it, the call falls
 * back and still ends fully written, and the next call does not ask again.
 *
 * Where a seccomp profile refuses io_uring (Docker's default, containerd's
 * RuntimeDefault: EPERM; ENOSYS elsewhere), a forked child of a process
 * that used io_uring learns so: the call writes through Linux AIO, the
 * probe says why with the errno, and a forced uring is refused; with AIO
 * refused too, the writes go buffered.  Where the filesystem has no direct
 * I/O (ext4 data=journal: statx says so), the direct methods forced are
 * refused before anything changes.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <cmocka.h>
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#else
#define RUNNING_ON_VALGRIND 0
#endif

#include "prealloc.h"
#include "tfs.h"

#define M (1024ull * 1024)
#define WZ_BIT (1u << PREALLOC_METHOD_WRITE_ZEROES)

static struct tfs t;
static char tree[] = "/tmp/prealloc-tree-XXXXXX";

static void prealloc_and_check(const char *name, uint32_t want_refused)
{
	struct prealloc_report r = { .size = sizeof(r) };
	struct prealloc_census c = { .size = sizeof(c) };
	char path[256];
	int fd = open(tfs_path(&t, name, path, sizeof(path)), O_RDWR | O_CREAT | O_CLOEXEC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(prealloc_file_ex(fd, 100, 8 * M, NULL, &r), 0);
	assert_int_equal(r.refused, want_refused);
	assert_int_equal(r.method, PREALLOC_METHOD_URING);
	assert_int_equal(r.written, 1);
	assert_int_equal(prealloc_verify(fd, 0, 8 * M + 100, &c), 0);
	assert_int_equal(c.written_bytes, 8 * M + 100);
	close(fd);
}

static void kernel_refusal_falls_back_once(void **state)
{
	(void)state;
	prealloc_and_check("first", WZ_BIT);	/* planned, refused, fell back */
	prealloc_and_check("second", 0);	/* remembered: not tried again */
}

#ifdef __x86_64__
/* From now on the system calls @nr fail with @err in this process, as
 * under a seccomp profile. */
static int refuse(const int *nr, unsigned int n, int err)
{
	struct sock_filter f[16] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, (uint8_t)(n + 1)),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	};
	struct sock_fprog prog = { .len = (unsigned short)(n + 5), .filter = f };

	for (unsigned int i = 0; i < n; i++)
		f[3 + i] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)nr[i],
							(uint8_t)(n - i), 0);
	f[3 + n] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	f[4 + n] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
						SECCOMP_RET_ERRNO | (uint32_t)err);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0)
		return -errno;
	return 0;
}

static const int uring_calls[] = { __NR_io_uring_setup, __NR_io_uring_enter,
				   __NR_io_uring_register };
static const int both_calls[] = { __NR_io_uring_setup, __NR_io_uring_enter,
				  __NR_io_uring_register, __NR_io_setup, __NR_io_submit };

struct refusal_case {
	const int *calls;
	unsigned int ncalls;
	int err;
	unsigned int method;		/* what the call writes with */
	const char *fact, *why;		/* the probe's reason */
};

#define CHILD_NO_SECCOMP 254	/* a kernel without seccomp filters */
#define CHILD_CHECK(cond) do { if (!(cond)) return __LINE__; } while (0)

/* In the child: 0, or the line of the first check that failed. */
static int refused_child(const struct refusal_case *k)
{
	struct prealloc_options forced = { .size = sizeof(forced),
					   .method = PREALLOC_METHOD_URING };
	struct prealloc_report r = { .size = sizeof(r) };
	struct prealloc_census c = { .size = sizeof(c) };
	struct prealloc_probe *p;
	const char *why = NULL;
	char path[256];
	int fd;

	if (refuse(k->calls, k->ncalls, k->err))
		return CHILD_NO_SECCOMP;
	fd = open(tfs_path(&t, "refused", path, sizeof(path)),
		  O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	CHILD_CHECK(fd >= 0);
	CHILD_CHECK(prealloc_probe_new(fd, 0, 8 * M, NULL, &p) == 0);
	CHILD_CHECK(prealloc_probe_lookup(p, k->fact, NULL, &why) == PREALLOC_FACT_STRING);
	CHILD_CHECK(strstr(why, k->why));
	for (unsigned int i = 0; prealloc_probe_plan(p, i) >= 0; i++)
		CHILD_CHECK(prealloc_probe_plan(p, i) != PREALLOC_METHOD_URING);
	prealloc_probe_free(p);
	CHILD_CHECK(prealloc_file_ex(fd, 0, M, &forced, &r) == -EOPNOTSUPP);
	CHILD_CHECK(lseek(fd, 0, SEEK_END) == 0);
	for (uint64_t off = 0; off < 16 * M; off += 8 * M) {	/* the second remembers */
		CHILD_CHECK(prealloc_file_ex(fd, off, 8 * M, NULL, &r) == 0);
		CHILD_CHECK(r.method == k->method);
		CHILD_CHECK(r.bytes_by_method[k->method] == 8 * M);
	}
	CHILD_CHECK(prealloc_verify(fd, 0, 16 * M, &c) == 0 && c.written_bytes == 16 * M);
	close(fd);
	return 0;
}

static void run_refused(const struct refusal_case *k)
{
	char path[256];
	pid_t pid;
	int st;

	/* Valgrind's core exits at a seccomp filter's first denial. */
	if (RUNNING_ON_VALGRIND)
		skip();
	/* This process uses io_uring first: the child must learn anew. */
	prealloc_and_check("parent", 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(refused_child(k));
	assert_int_equal(waitpid(pid, &st, 0), pid);
	unlink(tfs_path(&t, "refused", path, sizeof(path)));
	unlink(tfs_path(&t, "parent", path, sizeof(path)));
	assert_true(WIFEXITED(st));
	if (WEXITSTATUS(st) == CHILD_NO_SECCOMP)
		skip();
	if (WEXITSTATUS(st))
		fail_msg("check at test-fallback.c:%d failed in the child", WEXITSTATUS(st));
}

static void seccomp_eperm_writes_aio(void **state)
{
	const struct refusal_case k = { uring_calls, 3, EPERM, PREALLOC_METHOD_AIO,
		"uring_refused", "io_uring_setup refused: EPERM (a seccomp profile?)" };

	(void)state;
	run_refused(&k);
}

static void seccomp_enosys_writes_aio(void **state)
{
	const struct refusal_case k = { uring_calls, 3, ENOSYS, PREALLOC_METHOD_AIO,
		"uring_refused",
		"io_uring_setup refused: ENOSYS (no io_uring in this kernel, "
		"or a seccomp profile)" };

	(void)state;
	run_refused(&k);
}

static void seccomp_no_aio_writes_buffered(void **state)
{
	const struct refusal_case k = { both_calls, 5, EPERM, PREALLOC_METHOD_BUFFERED,
		"aio_refused", "io_setup refused: EPERM (a seccomp profile?)" };

	(void)state;
	run_refused(&k);
}
#else
static void seccomp_eperm_writes_aio(void **state)
{
	(void)state;
	skip();
}
#define seccomp_enosys_writes_aio seccomp_eperm_writes_aio
#define seccomp_no_aio_writes_buffered seccomp_eperm_writes_aio
#endif

static void no_direct_io_refuses_direct_methods(void **state)
{
	static const unsigned int direct[] = { PREALLOC_METHOD_URING, PREALLOC_METHOD_AIO };
	struct prealloc_report r = { .size = sizeof(r) };
	char path[256];
	struct stat st;
	int fd;

	(void)state;
	assert_int_equal(umount2(t.dir, 0), 0);
	assert_int_equal(mount(t.dev, t.dir, "ext4", 0, "data=journal"), 0);
	fd = open(tfs_path(&t, "journalled", path, sizeof(path)), O_RDWR | O_CREAT | O_CLOEXEC,
		  0644);
	assert_true(fd >= 0);
	for (size_t i = 0; i < sizeof(direct) / sizeof(direct[0]); i++) {
		struct prealloc_options o = { .size = sizeof(o), .method = direct[i] };

		assert_int_equal(prealloc_file_ex(fd, 0, 4 * M, &o, &r), -EOPNOTSUPP);
		assert_int_equal(fstat(fd, &st), 0);
		assert_int_equal(st.st_size, 0);
		assert_int_equal(st.st_blocks, 0);
	}
	assert_int_equal(prealloc_file_ex(fd, 0, 4 * M, NULL, &r), 0);
	assert_int_equal(r.method, PREALLOC_METHOD_BUFFERED);
	close(fd);
	unlink(path);
	assert_int_equal(umount2(t.dir, 0), 0);
	assert_int_equal(mount(t.dev, t.dir, "ext4", 0, NULL), 0);
}

static int setup(void **state)
{
	char sys[256];

	(void)state;
	if (tfs_create_nvme(&t, 64, tree, sys, sizeof(sys)))
		return -1;
	return setenv("PREALLOC_SYSFS_ROOT", sys, 1);
}

static int teardown(void **state)
{
	(void)state;
	return tfs_destroy_nvme(&t, tree);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(kernel_refusal_falls_back_once),
		cmocka_unit_test(seccomp_eperm_writes_aio),
		cmocka_unit_test(seccomp_enosys_writes_aio),
		cmocka_unit_test(seccomp_no_aio_writes_buffered),
		cmocka_unit_test(no_direct_io_refuses_direct_methods),
	};

	tfs_enter_for("ext4");
	return cmocka_run_group_tests(tests, setup, teardown);
}

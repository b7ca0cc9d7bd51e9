/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stddef.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/io_uring.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tseccomp.h"

#if defined(__x86_64__)
#define TSEC_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__) && !defined(__AARCH64EB__)
#define TSEC_ARCH AUDIT_ARCH_AARCH64
#endif

/* pwritev2() flag (Linux 6.14), not in every libc's headers. */
#define TSEC_RWF_DONTCACHE 0x00000080

#ifdef TSEC_ARCH
/* A filter's head: another architecture's calls jump @to_allow ahead to
 * the allow; this one's go on with the call's number loaded. */
#define TSEC_HEAD(to_allow)								\
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),		\
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, TSEC_ARCH, 0, (to_allow)),			\
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr))

/* Install @f for every thread of this process (the library's kept
 * threads too: SECCOMP_FILTER_FLAG_TSYNC) and the threads and children
 * they start. */
static int install(struct sock_filter *f, unsigned short n)
{
	struct sock_fprog prog = { .len = n, .filter = f };

	long ret;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -errno;
	ret = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog);
	/* A positive answer: a thread that could not take the filter. */
	return ret < 0 ? -errno : ret > 0 ? -EBUSY : 0;
}
#endif

int tsec_refuse(int err, bool aio)
{
#ifdef TSEC_ARCH
	/* Jump offsets count from the next instruction: each refused call
	 * jumps over the ones after it, and AIO's two over the allow. */
	struct sock_filter f[] = {
		TSEC_HEAD(7),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_setup, 4, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_enter, 3, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_register, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, aio ? __NR_io_setup : __NR_io_uring_setup, 1, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, aio ? __NR_io_submit : __NR_io_uring_setup, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ((unsigned int)err & SECCOMP_RET_DATA)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct io_uring_params p = { 0 };
	int ret = install(f, sizeof(f) / sizeof(f[0]));

	if (ret)
		return ret;
	return syscall(__NR_io_uring_setup, 1, &p) < 0 && errno == err ? 0 : -EPROTO;
#else
	(void)err, (void)aio;
	return -ENOSYS;
#endif
}

int tsec_refuse_calls(const int *nr, unsigned int n, int err)
{
#ifdef TSEC_ARCH
	/* Head, one jump a call (to the refusal past the ones after it), the
	 * allow, the refusal. */
	struct sock_filter f[3 + 8 + 2] = { TSEC_HEAD(n + 1) };
	unsigned short k = 3;

	if (n > 8)
		return -EINVAL;
	for (unsigned int i = 0; i < n; i++)
		f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
						      (unsigned int)nr[i], (unsigned char)(n - i), 0);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
					      SECCOMP_RET_ERRNO | ((unsigned int)err & SECCOMP_RET_DATA));
	return install(f, k);
#else
	(void)nr, (void)n, (void)err;
	return -ENOSYS;
#endif
}

int tsec_refuse_ioctl(unsigned int cmd, int err)
{
#ifdef TSEC_ARCH
	/* The low word of ioctl()'s request (args[1]) on a little-endian
	 * machine. */
	struct sock_filter f[] = {
		TSEC_HEAD(5),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_ioctl, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[1])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, cmd, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ((unsigned int)err & SECCOMP_RET_DATA)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};

	return install(f, sizeof(f) / sizeof(f[0]));
#else
	(void)cmd, (void)err;
	return -ENOSYS;
#endif
}

int tsec_refuse_io_uring(int err)
{
	return tsec_refuse(err, false);
}

int tsec_refuse_io_submit(int err)
{
#ifdef TSEC_ARCH
	struct sock_filter f[] = {
		TSEC_HEAD(3),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_submit, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ((unsigned int)err & SECCOMP_RET_DATA)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};

	return install(f, sizeof(f) / sizeof(f[0]));
#else
	(void)err;
	return -ENOSYS;
#endif
}

int tsec_refuse_writeback(void)
{
#ifdef TSEC_ARCH
	/* The low word of pwritev2()'s flags (args[5]: fd, iov, cnt, pos_l,
	 * pos_h, flags) on a little-endian machine. */
	const unsigned int flags_lo = offsetof(struct seccomp_data, args[5]);
	struct sock_filter f[] = {
		TSEC_HEAD(7),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_sync_file_range, 4, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_pwritev2, 0, 4),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, flags_lo),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, TSEC_RWF_DONTCACHE, 0, 2),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EOPNOTSUPP),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	int ret = install(f, sizeof(f) / sizeof(f[0]));

	if (ret)
		return ret;
	return syscall(__NR_sync_file_range, -1, 0L, 0L, 0U) < 0 && errno == EPERM ? 0 : -EPROTO;
#else
	return -ENOSYS;
#endif
}

/* SPDX-License-Identifier: MIT */
/*
 * The interposer of `prealloc exec` (libprealloc-exec.so, loaded with
 * LD_PRELOAD): fallocate(), posix_fallocate() and their 64-bit names, as a
 * dynamically linked program calls them through the C library.  A mode-0
 * call the library can make written is made so (src/tool/exec-convert.c);
 * every other call, and every call the library fails, goes to the C
 * library's own function, so the program sees what it would have seen.
 * Programs that make the system call themselves (Go, static binaries,
 * syscall()) never come here: the supervisor takes those.
 */
#undef _FILE_OFFSET_BITS	/* define both names, each with its own type */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <unistd.h>

#include "exec-convert.h"

#define EXPORT __attribute__((visibility("default")))

static struct exec_cfg cfg;
static int (*real_fallocate64)(int, int, off64_t, off64_t);
static int (*real_posix_fallocate64)(int, off64_t, off64_t);
static uintptr_t lib_lo, lib_hi;	/* libprealloc's own code */
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* The library's code range, from the object that defines its entry point:
 * its own fallocate() calls (reservations, undo) must reach the kernel. */
static int find_lib(struct dl_phdr_info *info, size_t size, void *data)
{
	uintptr_t addr = (uintptr_t)data;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && addr >= lo &&
		    addr < lo + ph->p_memsz) {
			lib_lo = lo;
			lib_hi = lo + ph->p_memsz;
			return 1;
		}
	}
	return 0;
}

static void init(void)
{
	real_fallocate64 = (int (*)(int, int, off64_t, off64_t))dlsym(RTLD_NEXT, "fallocate64");
	real_posix_fallocate64 = (int (*)(int, off64_t, off64_t))dlsym(RTLD_NEXT,
									"posix_fallocate64");
	dl_iterate_phdr(find_lib, (void *)(uintptr_t)prealloc_file_ex);
	exec_cfg_from_env(&cfg);
}

/* Before the program's main(): the descriptors `prealloc exec` passed are
 * still its own then; a daemon closes every descriptor and opens its own
 * files in their place soon after. */
__attribute__((constructor)) static void early(void)
{
	pthread_once(&once, init);
}

/* Converted: 0.  Otherwise -1: make the real call. */
static int convert(int fd, int mode, off64_t off, off64_t len, uintptr_t caller)
{
	pthread_once(&once, init);
	if (caller >= lib_lo && caller < lib_hi)
		return -1;
	if (off < 0 || len <= 0)
		return -1;	/* the kernel's EINVAL, from the real call */
	return exec_convert(&cfg, fd, mode, (uint64_t)off, (uint64_t)len, 0, fd) ==
	       EXEC_CONVERTED ? 0 : -1;
}

static int do_fallocate(int fd, int mode, off64_t off, off64_t len, uintptr_t caller)
{
	int saved = errno;

	if (convert(fd, mode, off, len, caller) == 0) {
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

static int do_posix_fallocate(int fd, off64_t off, off64_t len, uintptr_t caller)
{
	int saved = errno;

	if (convert(fd, 0, off, len, caller) == 0) {
		errno = saved;
		return 0;
	}
	errno = saved;
	return real_posix_fallocate64 ? real_posix_fallocate64(fd, off, len) : ENOSYS;
}

#define CALLER ((uintptr_t)__builtin_return_address(0))

/*
 * The entry points carry libc's names in the symbol table only (an asm
 * label); in C they are named for what they are, so that no reader takes the
 * library's own fallocate() calls for calls into this module.
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

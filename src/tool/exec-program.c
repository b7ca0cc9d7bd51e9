/* SPDX-License-Identifier: MIT */
/* The program `prealloc exec` runs (src/tool/exec-program.h). */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "exec-program.h"

/* The ELF header of @fd, if it has one of this process's class and machine. */
static bool native_header(int fd, Elf64_Ehdr *eh)
{
	static Elf64_Ehdr self;
	static int known;	/* 1: read, -1: unreadable */

	if (!known) {
		int s = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);

		known = s >= 0 && pread(s, &self, sizeof(self), 0) == sizeof(self) ? 1 : -1;
		if (s >= 0)
			close(s);
	}
	return known > 0 && pread(fd, eh, sizeof(*eh), 0) == sizeof(*eh) &&
	       !memcmp(eh->e_ident, ELFMAG, SELFMAG) && eh->e_ident[EI_CLASS] == ELFCLASS64 &&
	       eh->e_ident[EI_CLASS] == self.e_ident[EI_CLASS] && eh->e_machine == self.e_machine;
}

bool exec_elf_native(int fd)
{
	Elf64_Ehdr eh;

	return native_header(fd, &eh);
}

/* A Go program names its build information in a section of its own. */
static bool go_sections(int fd, const Elf64_Ehdr *eh)
{
	Elf64_Shdr sh, strsh;
	char name[32];

	if (eh->e_shstrndx == SHN_UNDEF ||
	    pread(fd, &strsh, sizeof(strsh), (off_t)(eh->e_shoff + eh->e_shstrndx *
						     sizeof(sh))) != sizeof(strsh))
		return false;
	for (unsigned int i = 0; i < eh->e_shnum; i++) {
		if (pread(fd, &sh, sizeof(sh), (off_t)(eh->e_shoff + i * sizeof(sh))) != sizeof(sh) ||
		    pread(fd, name, sizeof(name), (off_t)(strsh.sh_offset + sh.sh_name)) <= 0)
			return false;
		name[sizeof(name) - 1] = '\0';
		if (!strcmp(name, ".go.buildinfo") || !strcmp(name, ".note.go.buildid"))
			return true;
	}
	return false;
}

static bool dynamically_linked(int fd, const Elf64_Ehdr *eh)
{
	Elf64_Phdr ph;

	if (eh->e_phentsize != sizeof(ph))
		return false;
	for (unsigned int i = 0; i < eh->e_phnum; i++)
		if (pread(fd, &ph, sizeof(ph), (off_t)(eh->e_phoff + i * sizeof(ph))) ==
		    sizeof(ph) && ph.p_type == PT_INTERP)
			return true;
	return false;
}

/*
 * Only a dynamically linked program of this machine that is not Go calls
 * fallocate() through the C library, where the interposer finds it; and
 * not a set-user-ID, set-group-ID or file-capability one, for which the
 * dynamic loader ignores LD_PRELOAD (secure mode).
 */
static bool preloadable(int fd, const struct stat *st)
{
	Elf64_Ehdr eh;

	return !(st->st_mode & (S_ISUID | S_ISGID)) &&
	       fgetxattr(fd, "security.capability", NULL, 0) < 0 && errno == ENODATA &&
	       native_header(fd, &eh) && dynamically_linked(fd, &eh) && !go_sections(fd, &eh);
}

/* @path, if it is an executable regular file: opened for reading where it
 * can be (to inspect it), else O_PATH.  The descriptor or -errno. */
static int open_executable(const char *path)
{
	int fd = open(path, O_PATH | O_CLOEXEC), rd, err = 0;
	char self[40];
	struct stat st;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		err = errno;
	else if (!S_ISREG(st.st_mode))
		err = EACCES;
	else if (faccessat(fd, "", X_OK, AT_EACCESS | AT_EMPTY_PATH) < 0)
		err = errno;
	if (err) {
		close(fd);
		return -err;
	}
	/* The same file, not its name again. */
	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	rd = open(self, O_RDONLY | O_CLOEXEC);
	if (rd < 0)
		return fd;
	close(fd);
	return rd;
}

static int open_on_path(const char *name, char *found, size_t len)
{
	const char *p = getenv("PATH");
	char def[256];
	int ret = -ENOENT, fd;

	if (!p)
		p = confstr(_CS_PATH, def, sizeof(def)) > 0 ? def : "/bin:/usr/bin";
	for (;;) {
		size_t n = strcspn(p, ":");

		/* An empty entry is the current directory, as for execvp(). */
		if (snprintf(found, len, "%.*s/%s", n ? (int)n : 1, n ? p : ".", name) < (int)len) {
			fd = open_executable(found);
			if (fd >= 0)
				return fd;
			if (fd == -EACCES)
				ret = fd;
		}
		if (!p[n])
			break;
		p += n + 1;
	}
	return ret;
}

int exec_program_open(const char *name, struct exec_program *p)
{
	char head[2];
	struct stat st;

	*p = (struct exec_program){ .fd = -1 };
	if (!*name)
		return -ENOENT;
	if (strchr(name, '/')) {
		snprintf(p->path, sizeof(p->path), "%s", name);
		p->fd = open_executable(name);
	} else {
		p->fd = open_on_path(name, p->path, sizeof(p->path));
	}
	if (p->fd < 0)
		return p->fd;
	p->script = pread(p->fd, head, 2, 0) == 2 && !memcmp(head, "#!", 2);
	p->preloadable = fstat(p->fd, &st) == 0 && preloadable(p->fd, &st);
	return 0;
}

void exec_program_run(const struct exec_program *p, char **argv)
{
	extern char **environ;

	/* A script's interpreter opens it again by /dev/fd/N: open across
	 * the exec, as fexecve() needs. */
	if (p->script)
		fcntl(p->fd, F_SETFD, 0);
	fexecve(p->fd, argv, environ);
	fprintf(stderr, "prealloc: %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

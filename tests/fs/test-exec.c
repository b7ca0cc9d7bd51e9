/* SPDX-License-Identifier: MIT */
/*
 * `prealloc exec` on programs as they ship (root; skip otherwise), on ext4:
 * tests/fs/exec-target.c built dynamically linked (the interposer, and
 * forced through the supervisor) and static, and tests/fs/exec-target.go
 * (the supervisor).
 *
 * What it converts: each program's mode-0 calls leave written extents with
 * the data before them kept, in its own threads, fork()ed children and
 * exec'd images, and the record lock it holds on the file stays its own;
 * its keep-size call keeps size 0, its punched hole stays a hole, its call
 * below --min-size stays unwritten; a call under a 1 ms interval timer
 * (SA_RESTART) returns 0; a program with its own seccomp filter, run by an unprivileged
 * user, or with io_uring refused, is converted; the supervisor sets
 * no_new_privs.
 *
 * What it never does beyond the program, each case against the same
 * program run stock, in both modes: a descriptor opened O_PATH or O_RDONLY
 * (root's file, a program run as nobody; the tool's user's own file) gets
 * EBADF and the file stays as it was, pidfd_getfd() allowed or refused to
 * the supervisor; no descriptor of the tool's reaches the program, the log
 * is 0600 and a symbolic link as --log is refused; RLIMIT_FSIZE gives
 * SIGXFSZ or EFBIG and leaves the file; ext4's reserved blocks stay out of
 * reach of a program without CAP_SYS_RESOURCE; a FIFO gets ESPIPE and
 * blocks nothing; a thread with a descriptor table of its own has its own
 * file converted, not the process's at the same number; a program root in
 * a user namespace of its own is converted with no capability.
 *
 * How it ends a call: a program killed (SIGKILL, SIGTERM) during a 1 GiB
 * call has it counted and named, the file written or as it was; the tool
 * killed during one leaves the program its answer after the last write;
 * threads cancelled during 1 GiB calls see them finish, each counted; a
 * flock() holder that looks like a converting process delays a call a
 * bounded time; the supervisor killed before a call answers it ENOSYS.
 *
 * What it keeps and what it wastes: zeros ordered against the program's
 * own writes (xfs with exchange-range), passed where nothing orders them
 * unless vouched for; a thread writing 2,000 records during another's
 * 64 MiB call loses none; a pattern that cuts what was converted for it is
 * learnt speculative after one conversion (--dry-run names it, --exclude
 * spares it), and spares unlinked unwritten teach nothing.
 *
 * How it fits: the tool finds its interposer beside itself, says so when it
 * cannot and uses the supervisor, and fails when the interposer was asked
 * for or loaded by no process; no PREALLOC_EXEC_ variable but the
 * interposer's socket reaches a program; socket activation and readiness
 * notification work as without it, but for what only the unit's main
 * process may say (MAINPID=), withheld; the binary inspected is the one run;
 * the tool stops before the program starts when it cannot watch signals;
 * the interposer alone changes nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "prealloc.h"
#include "tfs.h"
#include "tseccomp.h"

#define MiB (1ull << 20)
#define GiB (1ull << 30)
#define UID 4242
#define NOBODY "65534"

static struct tfs t;
static const char *tool, *target_dyn, *target_static, *target_go, *interposer;
/* A sanitizer build's interposer needs its runtime loaded first, which an
 * uninstrumented program does not do: the interposer is then not tried. */
static bool preload_ok;
static const char *const modes[] = { "seccomp", "preload" };

static void need_preload(void)
{
	if (!preload_ok)
		skip();
}

/* The modes to try: both, or the supervisor alone. */
static unsigned int n_modes(void)
{
	return preload_ok ? 2 : 1;
}

struct run {
	pid_t pid;			/* the process started: the tool, or the program */
	int status;			/* its exit status, or 128 + the signal */
	char out[16384], err[16384];
};

struct spawned {
	pid_t pid;
	int in, out, err;		/* our ends of its standard streams */
};

/* Start @argv with fresh standard streams and no other descriptor of ours;
 * @before runs in the child first (a seccomp filter, a user, ...). */
static void spawn(const char *const *argv, int (*before)(void), struct spawned *s)
{
	int i[2], o[2], e[2];

	assert_int_equal(pipe2(i, O_CLOEXEC), 0);
	assert_int_equal(pipe2(o, O_CLOEXEC), 0);
	assert_int_equal(pipe2(e, O_CLOEXEC), 0);
	s->pid = fork();
	assert_true(s->pid >= 0);
	if (s->pid == 0) {
		dup2(i[0], 0);
		dup2(o[1], 1);
		dup2(e[1], 2);
		close_range(3, ~0u, 0);
		if (before && before())
			_exit(126);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(i[0]);
	close(o[1]);
	close(e[1]);
	s->in = i[1];
	s->out = o[0];
	s->err = e[0];
}

/* Read @s's output to its end (every holder of its streams gone), then
 * reap it.  Its standard error is echoed for the test's log. */
static void collect(struct spawned *s, struct run *r)
{
	struct pollfd p[2] = { { .fd = s->out, .events = POLLIN }, { .fd = s->err, .events = POLLIN } };
	size_t got[2] = { strlen(r->out), strlen(r->err) };
	char *buf[2] = { r->out, r->err };
	int st;

	if (s->in >= 0)
		close(s->in);
	while (p[0].fd >= 0 || p[1].fd >= 0) {
		assert_true(poll(p, 2, -1) > 0);
		for (int k = 0; k < 2; k++) {
			ssize_t n;

			if (p[k].fd < 0 || !p[k].revents)
				continue;
			n = read(p[k].fd, buf[k] + got[k], sizeof(r->out) - 1 - got[k]);
			if (n <= 0) {
				close(p[k].fd);
				p[k].fd = -1;
				continue;
			}
			got[k] += (size_t)n;
			buf[k][got[k]] = '\0';
		}
	}
	assert_int_equal(waitpid(s->pid, &st, 0), s->pid);
	r->pid = s->pid;
	r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	if (r->err[0])
		fprintf(stderr, "%s", r->err);
}

static void run_argv(const char *const *argv, int (*before)(void), const char *in,
		     struct run *r)
{
	struct spawned s;

	memset(r, 0, sizeof(*r));
	spawn(argv, before, &s);
	if (in)
		assert_int_equal(write(s.in, in, strlen(in)), (ssize_t)strlen(in));
	collect(&s, r);
}

/* `prealloc exec ARGS...` (a summary on standard error), or the program
 * alone (stock). */
static void run_tool(struct run *r, int (*before)(void), const char *const *args)
{
	const char *argv[40] = { tool, "exec" };
	size_t n = 2;

	while (*args && n < 39)
		argv[n++] = *args++;
	run_argv(argv, before, NULL, r);
}

/*
 * Most cases are about what a conversion may do and how a call ends, on
 * ext4, which has no way to order a conversion against the program's
 * writes: they vouch for every file, as an operator does for a program
 * that never writes a range while it fallocate()s it (VOUCHED).  The
 * ordering has cases of its own, with the tool's defaults (EXEC_DEFAULTS).
 */
#define VOUCHED "--unordered", "*"
#define EXEC(r, before, ...) run_tool((r), (before), \
				      (const char *const[]){ VOUCHED, __VA_ARGS__, NULL })
#define EXEC_DEFAULTS(r, before, ...) run_tool((r), (before), \
					       (const char *const[]){ __VA_ARGS__, NULL })
#define STOCK(r, before, ...) run_argv((const char *const[]){ __VA_ARGS__, NULL }, (before), \
				       NULL, (r))

struct summary {
	unsigned long seen, converted, passed, fell_back, abandoned, interrupted;
};

static struct summary summary_of(const struct run *r)
{
	const char *l = strstr(r->err, " fallocate() calls seen");
	struct summary s;

	assert_non_null(l);
	while (l > r->err && l[-1] != '\n')
		l--;
	assert_int_equal(sscanf(l, "prealloc exec: %lu fallocate() calls seen, %lu converted (%*u "
				"bytes written), %lu passed through, %lu fell back, %lu abandoned, "
				"%lu interrupted", &s.seen, &s.converted, &s.passed, &s.fell_back,
				&s.abandoned, &s.interrupted), 6);
	return s;
}

static struct prealloc_census census(const char *path, uint64_t off, uint64_t len)
{
	struct prealloc_census c = { .size = sizeof(c) };
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(prealloc_verify(fd, off, len, &c), 0);
	close(fd);
	return c;
}

static void written(const char *path, uint64_t len)
{
	struct prealloc_census c = census(path, 0, len);

	print_message("  %s: written %llu of %llu\n", strrchr(path, '/') + 1,
		      (unsigned long long)c.written_bytes, (unsigned long long)len);
	assert_int_equal(c.written_bytes, len);
}

static uint64_t size_of(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return (uint64_t)st.st_size;
}

/* A new directory @name, open to all, in filesystem @fs. */
static void new_dir_in(const struct tfs *fs, const char *name, char *dir, size_t len)
{
	tfs_path(fs, name, dir, len);
	assert_int_equal(mkdir(dir, 0777), 0);
	assert_int_equal(chmod(dir, 0777), 0);
}

static void new_dir(const char *name, char *dir, size_t len)
{
	new_dir_in(&t, name, dir, len);
}

static void in_dir(const char *dir, const char *name, char *path, size_t len)
{
	assert_true((size_t)snprintf(path, len, "%s/%s", dir, name) < len);
}

/* A new directory @name for one test, in @dir, and the path of file "f"
 * in it, in @path. */
#define SCRATCH(name, dir, path)					\
	do {								\
		new_dir((name), (dir), sizeof(dir));			\
		in_dir((dir), "f", (path), sizeof(path));		\
	} while (0)

static void put_file(const char *path, const char *data, mode_t mode, uid_t uid)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, strlen(data)), (ssize_t)strlen(data));
	assert_int_equal(fchown(fd, uid, uid), 0);
	assert_int_equal(fchmod(fd, mode), 0);
	close(fd);
}

static int unprivileged(void)
{
	return setgroups(0, NULL) || setresgid(UID, UID, UID) || setresuid(UID, UID, UID);
}

static int no_io_uring(void)
{
	return tsec_refuse_io_uring(EPERM);
}

/* As Docker's default profile does without CAP_SYS_PTRACE. */
static int no_getfd(void)
{
	const int nr[] = { SYS_pidfd_getfd };

	return tsec_refuse_calls(nr, 1, EPERM);
}

static int unprivileged_no_getfd(void)
{
	return no_getfd() || unprivileged();
}

/* Everything `exec-target all` does, checked from outside: in @fs,
 * vouched for, or with the tool's defaults (ordered). */
static void whole_program_in(const struct tfs *fs, bool vouched, const char *target,
			     const char *mode, bool c_program)
{
	char dir[160], head[4] = { 0 }, path[200];
	struct run r;
	int fd;

	print_message("%s (%s, %s)\n", target, mode, vouched ? "vouched for" : "ordered");
	new_dir_in(fs, strrchr(target, '/') + 1, dir, sizeof(dir));
	if (vouched)
		EXEC(&r, NULL, "--quiet", "--mode", mode, "--", target, "all", dir);
	else
		EXEC_DEFAULTS(&r, NULL, "--quiet", "--mode", mode, "--", target, "all", dir);
	assert_int_equal(r.status, 0);
	in_dir(dir, "data", path, sizeof(path));
	written(path, 8 * MiB);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_int_equal(pread(fd, head, 4, 0), 4);
	assert_memory_equal(head, "DDDD", 4);
	close(fd);
	in_dir(dir, "keep", path, sizeof(path));
	assert_int_equal(size_of(path), 0);
	in_dir(dir, "hole", path, sizeof(path));
	assert_int_equal(census(path, 256 << 10, 256 << 10).hole_bytes, 256 << 10);
	in_dir(dir, "small", path, sizeof(path));
	assert_int_equal(census(path, 0, 64 << 10).unwritten_bytes, 64 << 10);
	in_dir(dir, "exec", path, sizeof(path));
	written(path, 4 * MiB);
	for (int i = 0; i < (c_program ? 3 : 4); i++) {
		static const char *const c_files[] = { "posix", "child", "thread" };
		char name[16];

		snprintf(name, sizeof(name), "thread%d", i);
		in_dir(dir, c_program ? c_files[i] : name, path, sizeof(path));
		written(path, c_program && i == 0 ? 8 * MiB : 4 * MiB);
	}
	tfs_rmtree(dir);
}

static void whole_program(const char *target, const char *mode, bool c_program)
{
	whole_program_in(&t, true, target, mode, c_program);
}

static void dynamic_program(void **state)
{
	(void)state;
	whole_program(target_dyn, "seccomp", true);
	need_preload();
	whole_program(target_dyn, "auto", true);
}

static void static_program(void **state)
{
	(void)state;
	whole_program(target_static, "auto", true);
}

static void go_program(void **state)
{
	(void)state;
	if (!target_go)
		skip();
	whole_program(target_go, "auto", false);
}

/* One `exec-target SUB FILE` in @mode: its exit status, its output in @r,
 * FILE's written bytes checked when it succeeded. */
static int one_call(const char *sub, const char *mode, struct run *r, int (*before)(void),
		    uint64_t len)
{
	char dir[160], path[200];

	SCRATCH(sub, dir, path);
	EXEC(r, before, "--quiet", "--mode", mode, "--", target_dyn, sub, path);
	if (r->status == 0)
		written(path, len);
	tfs_rmtree(dir);
	return r->status;
}

static void signals_during_call(void **state)
{
	struct run r;

	(void)state;
	for (unsigned int i = 0; i < n_modes(); i++) {
		assert_int_equal(one_call("signals", modes[i], &r, NULL, 64 * MiB), 0);
		assert_string_equal(r.out, "0 1\n");	/* returned 0, and the timer ran */
	}
}

static void own_seccomp_filter(void **state)
{
	struct run r;

	(void)state;
	for (unsigned int i = 0; i < n_modes(); i++)
		assert_int_equal(one_call("filter", modes[i], &r, NULL, 4 * MiB), 0);
}

static void no_new_privs(void **state)
{
	struct run r;

	(void)state;
	EXEC(&r, NULL, "--quiet", "--mode", "seccomp", "--", target_dyn, "nnp");
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "1\n");
	need_preload();
	EXEC(&r, NULL, "--quiet", "--mode", "preload", "--", target_dyn, "nnp");
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "0\n");
}

static void unprivileged_and_confined(void **state)
{
	int (*const confined[])(void) = { unprivileged, no_io_uring, unprivileged_no_getfd };
	struct run r;

	(void)state;
	for (unsigned int i = 0; i < n_modes(); i++)
		for (size_t k = 0; k < sizeof(confined) / sizeof(confined[0]); k++)
			assert_int_equal(one_call("filter", modes[i], &r, confined[k], 4 * MiB), 0);
}

/*
 * A descriptor that cannot write: O_PATH on root's 0600 file and O_RDONLY
 * on root's 0644 one, by a program that became nobody under a root tool;
 * O_PATH and O_RDONLY on the user's own 0644 file under a tool run as that
 * user.  Stock: EBADF.  Under exec, pidfd_getfd() allowed or refused (the
 * file then opened through /proc): EBADF, and the file stays 18 bytes.
 */
static void read_only_descriptors(void **state)
{
	static const char *const hows[] = { "path", "rdonly" };
	static const char data[] = "eighteen bytes ..\n";
	int (*const same_user[])(void) = { unprivileged, unprivileged_no_getfd };
	int (*const root[])(void) = { NULL, no_getfd };
	char dir[160], path[200];
	struct run r;

	(void)state;
	SCRATCH("ro", dir, path);
	for (int user = 0; user < 2; user++)
		for (int h = 0; h < 2; h++) {
			mode_t mode = user || h ? 0644 : 0600;

			put_file(path, data, mode, user ? UID : 0);
			if (user)
				STOCK(&r, unprivileged, target_dyn, "call", hows[h], "2097152", path);
			else
				STOCK(&r, NULL, target_dyn, "-u", NOBODY, "call", hows[h], "2097152",
				      path);
			assert_string_equal(r.out, "9\n");
			for (unsigned int m = 0; m < n_modes(); m++)
				for (int g = 0; g < 2; g++) {
					print_message("  %s, %s, %s, pidfd_getfd %s\n",
						      user ? "same user" : "root over nobody",
						      hows[h], modes[m], g ? "refused" : "allowed");
					if (user)
						EXEC(&r, same_user[g], "--mode", modes[m], "--",
						     target_dyn, "call", hows[h], "2097152", path);
					else
						EXEC(&r, root[g], "--mode", modes[m], "--", target_dyn,
						     "-u", NOBODY, "call", hows[h], "2097152", path);
					assert_int_equal(r.status, 0);
					assert_string_equal(r.out, "9\n");
					assert_int_equal(size_of(path), strlen(data));
				}
		}
	tfs_rmtree(dir);
}

/*
 * Nothing of the tool's reaches the program: a program that became nobody
 * has no descriptor above 2, the log is root's and 0600 (the tool writes
 * it, labelled with the caller's pid), and a symbolic link as --log is
 * refused before anything runs.
 */
static void nothing_inherited(void **state)
{
	char dir[160], log[200], f[200], link[200];
	struct stat st;
	struct run r;
	FILE *l;
	char line[1024];

	(void)state;
	new_dir("inherit", dir, sizeof(dir));
	in_dir(dir, "log", log, sizeof(log));
	in_dir(dir, "f", f, sizeof(f));
	for (unsigned int m = 0; m < n_modes(); m++) {
		EXEC(&r, NULL, "--log", log, "--mode", modes[m], "--", target_dyn, "-u", NOBODY,
		     "fds");
		assert_int_equal(r.status, 0);
		assert_string_equal(r.out, "none\n");
		EXEC(&r, NULL, "--quiet", "--log", log, "--mode", modes[m], "--", target_dyn, "-u",
		     NOBODY, "call", "create", "4194304", f);
		assert_string_equal(r.out, "0\n");
		written(f, 4 * MiB);
	}
	assert_int_equal(stat(log, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(st.st_uid, 0);
	l = fopen(log, "re");
	assert_non_null(l);
	for (unsigned int m = 0; m < n_modes(); m++) {
		assert_non_null(fgets(line, sizeof(line), l));
		assert_non_null(strstr(line, "\"outcome\":\"converted\""));
		assert_non_null(strstr(line, modes[m]));
		assert_non_null(strstr(line, "\"pid\":"));
	}
	assert_null(fgets(line, sizeof(line), l));
	fclose(l);
	put_file(f, "secret\n", 0600, 0);
	in_dir(dir, "link", link, sizeof(link));
	assert_int_equal(symlink(f, link), 0);
	EXEC(&r, NULL, "--log", link, "--", target_dyn, "nnp");
	assert_int_equal(r.status, 1);
	assert_string_equal(r.out, "");		/* never started */
	assert_non_null(strstr(r.err, "symbolic link"));
	assert_int_equal(size_of(f), 7);
	tfs_rmtree(dir);
}

/* `exec-target [-u nobody] ARGS...`, stock (@mode NULL) or under exec in
 * @mode. */
static void target_run(struct run *r, const char *mode, int (*before)(void), bool nobody,
		       const char *const *args)
{
	const char *argv[24] = { tool, "exec", VOUCHED, "--mode", mode, "--" };
	size_t n = mode ? 7 : 0;

	argv[n++] = target_dyn;
	if (nobody) {
		argv[n++] = "-u";
		argv[n++] = NOBODY;
	}
	while (*args && n < 23)
		argv[n++] = *args++;
	argv[n] = NULL;
	run_argv(argv, before, NULL, r);
}

/* `exec-target [-u nobody] [-x] -f 1M call rdwr 4M @path`. */
static void limited_call(struct run *r, const char *mode, int (*before)(void), bool nobody,
			 bool ignore, const char *path)
{
	const char *const args[] = { "-x", "-f", "1048576", "call", "rdwr", "4194304", path, NULL };

	target_run(r, mode, before, nobody, args + !ignore);
}

/* RLIMIT_FSIZE of 1 MiB and a 4 MiB call: SIGXFSZ, or EFBIG when the
 * program ignores it; the file stays empty, as stock: a program run as
 * nobody under a root tool, or the tool's own user, pidfd_getfd() allowed
 * or refused. */
static void file_size_limit(void **state)
{
	int (*const root[])(void) = { NULL, no_getfd };
	int (*const same_user[])(void) = { unprivileged, unprivileged_no_getfd };
	char dir[160], path[200];
	struct run r;

	(void)state;
	SCRATCH("fsize", dir, path);
	for (int user = 0; user < 2; user++)
		for (int m = -1; m < (int)n_modes(); m++)
			for (int g = 0; g < (m < 0 ? 1 : 2); g++) {
				int (*before)(void) = user ? same_user[g] : root[g];
				const char *mode = m < 0 ? NULL : modes[m];

				put_file(path, "", 0666, user ? UID : 0);
				limited_call(&r, mode, before, !user, false, path);
				assert_int_equal(r.status, 128 + SIGXFSZ);
				assert_int_equal(size_of(path), 0);
				limited_call(&r, mode, before, !user, true, path);
				assert_int_equal(r.status, 0);
				assert_string_equal(r.out, "27\n");	/* EFBIG */
				assert_int_equal(size_of(path), 0);
			}
	tfs_rmtree(dir);
}

/*
 * An ext4 with less room for users than for root (5% reserved): a call
 * between the two fails with ENOSPC for a program run as nobody under a
 * root tool, or as the tool's own user, stock and under exec (pidfd_getfd()
 * allowed or refused), and succeeds, written, for a root program.
 */
static void reserved_blocks(void **state)
{
	static const struct {
		const char *who;
		int (*before)(void);
		bool nobody, root;
	} cases[] = {
		{ "root", NULL, false, true },
		{ "nobody under root", NULL, true, false },
		{ "nobody under root, pidfd_getfd refused", no_getfd, true, false },
		{ "same user", unprivileged, false, false },
		{ "same user, pidfd_getfd refused", unprivileged_no_getfd, false, false },
	};
	struct tfs small = { 0 };
	char fill[200], path[200], len[32];
	struct statvfs v;
	uint64_t avail, reserved;
	struct run r;
	int fd;

	(void)state;
	assert_int_equal(tfs_create(&small, "ext4", 256, NULL), 0);
	assert_int_equal(chmod(small.dir, 0777), 0);
	tfs_path(&small, "fill", fill, sizeof(fill));
	tfs_path(&small, "f", path, sizeof(path));
	assert_int_equal(statvfs(small.dir, &v), 0);
	fd = open(fill, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	assert_int_equal(posix_fallocate(fd, 0, (off_t)(v.f_bavail * v.f_frsize - 8 * MiB)), 0);
	assert_int_equal(fsync(fd), 0);
	close(fd);
	assert_int_equal(statvfs(small.dir, &v), 0);
	avail = v.f_bavail * v.f_frsize;
	reserved = (v.f_bfree - v.f_bavail) * v.f_frsize;
	assert_true(reserved > 4 * MiB);
	snprintf(len, sizeof(len), "%llu", (unsigned long long)((avail + reserved / 2) & ~(MiB - 1)));
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++)
		for (int m = -1; m < (int)n_modes(); m++) {
			const char *const args[] = { "call", "create", len, path, NULL };

			print_message("  %s, %s\n", cases[k].who, m < 0 ? "stock" : modes[m]);
			target_run(&r, m < 0 ? NULL : modes[m], cases[k].before, cases[k].nobody,
				   args);
			assert_string_equal(r.out, cases[k].root ? "0\n" : "28\n");
			if (cases[k].root && m >= 0)
				written(path, strtoull(len, NULL, 10));
			assert_int_equal(unlink(path), 0);
		}
	tfs_destroy(&small);
}

static int no_interposer_env(void)
{
	return unsetenv("PREALLOC_EXEC_PRELOAD");
}

static int missing_interposer(void)
{
	return setenv("PREALLOC_EXEC_PRELOAD", "/nonexistent/libprealloc-exec.so", 1);
}

/*
 * The tool as built finds its interposer beside itself and converts a
 * dynamically linked program's posix_fallocate(); one it cannot load is
 * said, and the supervisor converts instead, or, asked for, fails before
 * the program runs; an interposer no process loaded fails the run.
 */
static void finds_its_interposer(void **state)
{
	char dir[160], path[200];
	struct run r;

	(void)state;
	need_preload();
	SCRATCH("found", dir, path);
	EXEC(&r, no_interposer_env, "--", target_dyn, "call", "posix", "4194304", path);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "0\n");
	assert_non_null(strstr(r.err, "the interposer was loaded in 1 process"));
	written(path, 4 * MiB);
	assert_int_equal(unlink(path), 0);
	EXEC(&r, missing_interposer, "--", target_dyn, "call", "posix", "4194304", path);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.err, "cannot be loaded"));
	assert_int_equal(summary_of(&r).converted, 1);
	written(path, 4 * MiB);
	assert_int_equal(unlink(path), 0);
	EXEC(&r, missing_interposer, "--mode", "preload", "--", target_dyn, "call", "posix",
	     "4194304", path);
	assert_int_equal(r.status, 1);
	assert_string_equal(r.out, "");
	assert_int_equal(access(path, F_OK), -1);
	EXEC(&r, NULL, "--mode", "preload", "--", target_static, "call", "posix", "4194304", path);
	assert_string_equal(r.out, "0\n");
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "loaded by none"));
	tfs_rmtree(dir);
}

/* The next IN_MODIFY of @name in the directory @in watches. */
static void modified(int in, const char *name)
{
	union {
		struct inotify_event e;
		char buf[sizeof(struct inotify_event) + 256];
	} ev;

	do
		assert_true(read(in, &ev, sizeof(ev)) > 0);
	while (!ev.e.len || strcmp(ev.e.name, name));
}

/*
 * fallocate(1 GiB) in @mode, and @sig sent once the call has begun to
 * change the file: to the program, or (@to_tool) to the tool itself.
 */
static void killed_during_call(const char *mode, int sig, bool to_tool, int (*before)(void))
{
	char dir[160], path[200], log[200], want[64];
	const char *argv[] = { tool, "exec", VOUCHED, "--log", log, "--mode", mode, "--", target_dyn,
			       "big", path, "1073741824", NULL };
	struct prealloc_census c;
	struct spawned s;
	struct run r = { 0 };
	int in, prog;

	print_message("  %s, %s to the %s%s\n", mode, strsignal(sig), to_tool ? "tool" : "program",
		      before ? ", same user, pidfd_getfd refused" : "");
	SCRATCH("killed", dir, path);
	in_dir(dir, "log", log, sizeof(log));
	in = inotify_init1(IN_CLOEXEC);
	assert_true(in >= 0 && inotify_add_watch(in, dir, IN_MODIFY) >= 0);
	spawn(argv, before, &s);
	assert_true(read(s.out, r.out, sizeof(r.out) - 1) > 0);
	assert_int_equal(sscanf(r.out, "calling %d", &prog), 1);
	modified(in, "f");
	close(in);
	assert_int_equal(kill(to_tool ? s.pid : prog, sig), 0);
	collect(&s, &r);
	if (to_tool) {
		/* The program's answer came after the last write of its call. */
		snprintf(want, sizeof(want), "0 %llu 0 0\n", (unsigned long long)GiB);
		if (!strstr(r.out, want))
			fail_msg("the program said %s; the tool: %s", r.out, r.err);
		written(path, GiB);
	} else {
		struct summary sum = summary_of(&r);

		assert_int_equal(r.status, 128 + sig);
		assert_int_equal(sum.seen, 1);
		assert_int_equal(sum.converted + sum.abandoned, 1);
		c = census(path, 0, GiB);
		if (sum.abandoned) {
			assert_non_null(strstr(r.err, "abandoned: "));
			assert_non_null(strstr(r.err, path));
			assert_int_equal(size_of(path), 0);
		} else {
			assert_int_equal(c.written_bytes, GiB);
		}
		assert_int_equal(tfs_sh("grep -q '\"outcome\":\"%s\".*' %s", sum.abandoned ?
					"abandoned" : "converted", log), 0);
	}
	tfs_rmtree(dir);
}

static void killed_in_the_middle(void **state)
{
	(void)state;
	for (unsigned int m = 0; m < n_modes(); m++) {
		killed_during_call(modes[m], SIGKILL, false, NULL);
		killed_during_call(modes[m], SIGTERM, false, NULL);
		killed_during_call(modes[m], SIGKILL, true, NULL);
		killed_during_call(modes[m], SIGKILL, false, unprivileged_no_getfd);
		killed_during_call(modes[m], SIGKILL, true, unprivileged_no_getfd);
	}
}

/*
 * The supervisor killed while the program waits on its standard input: the
 * program goes on, its call answered ENOSYS (the kernel's answer for a
 * filter whose listener is gone), never left hanging.
 */
static void supervisor_killed(void **state)
{
	char dir[160], path[200], out[16] = { 0 };
	const char *argv[] = { tool, "exec", VOUCHED, "--quiet", "--mode", "seccomp", "--",
			       target_dyn, "wait", path, NULL };
	struct spawned s;
	int st;

	(void)state;
	SCRATCH("supervisor", dir, path);
	spawn(argv, NULL, &s);
	/* The program runs, its filter installed: it waits on us. */
	assert_int_equal(read(s.out, out, 6), 6);
	assert_memory_equal(out, "ready\n", 6);
	memset(out, 0, sizeof(out));
	assert_int_equal(kill(s.pid, SIGKILL), 0);
	assert_int_equal(waitpid(s.pid, &st, 0), s.pid);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(write(s.in, "x", 1), 1);
	close(s.in);
	assert_true(read(s.out, out, sizeof(out) - 1) > 0);	/* the program's line */
	close(s.out);
	close(s.err);
	assert_string_equal(out, "38\n");	/* ENOSYS */
	tfs_rmtree(dir);
}

/* `exec-target table`: every round "ok", each thread's file written. */
static void own_table(const char *target, const char *mode, int (*before)(void), int rounds)
{
	char dir[160], path[200], n[16];
	struct run r;

	print_message("  %s, %s%s\n", strrchr(target, '/') + 1, mode ? mode : "stock",
		      before ? ", pidfd_getfd refused" : "");
	new_dir("table", dir, sizeof(dir));
	snprintf(n, sizeof(n), "%d", rounds);
	if (mode)
		EXEC(&r, before, "--quiet", "--mode", mode, "--", target, "table", dir, n);
	else
		STOCK(&r, before, target, "table", dir, n);
	assert_int_equal(r.status, 0);
	for (int i = 0; i < rounds; i++) {
		assert_int_equal(strncmp(r.out + 3 * i, "ok\n", 3), 0);
		snprintf(n, sizeof(n), "x%d", i);
		in_dir(dir, n, path, sizeof(path));
		assert_int_equal(size_of(path), 8);
		snprintf(n, sizeof(n), "y%d", i);
		in_dir(dir, n, path, sizeof(path));
		assert_int_equal(census(path, 0, 16 * MiB).written_bytes, mode ? 16 * MiB : 0);
	}
	tfs_rmtree(dir);
}

/* A thread with a descriptor table of its own: its file is converted, not
 * the process's at the same number; 20 of 20 for the static program. */
static void thread_own_table(void **state)
{
	(void)state;
	own_table(target_static, NULL, NULL, 2);
	own_table(target_static, "auto", NULL, 20);
	own_table(target_static, "auto", no_getfd, 4);
	own_table(target_dyn, "seccomp", no_getfd, 4);
	need_preload();
	own_table(target_dyn, "preload", NULL, 4);
}

/* Threads cancelled during 1 GiB calls: each call finishes (the file
 * 1 GiB, written under exec), each is counted. */
static void cancelled_threads(void **state)
{
	const int rounds = 3;
	char dir[160], n[16];
	struct run r;

	(void)state;
	new_dir("cancel", dir, sizeof(dir));
	snprintf(n, sizeof(n), "%d", rounds);
	for (int m = -1; m < (int)n_modes(); m++) {
		const char *l;

		if (m < 0)
			STOCK(&r, NULL, target_dyn, "cancel", dir, n, "1073741824");
		else
			EXEC(&r, NULL, "--mode", modes[m], "--", target_dyn, "cancel", dir, n,
			     "1073741824");
		l = r.out;
		assert_int_equal(r.status, 0);
		print_message("  %s:\n%s", m < 0 ? "stock" : modes[m], r.out);
		for (int i = 0; i < rounds; i++, l = strchr(l, '\n') + 1) {
			long long size, unwritten, holes;

			assert_int_equal(sscanf(l, "returned %*d cancelled %*d size %lld unwritten "
						"%lld holes %lld", &size, &unwritten, &holes), 3);
			assert_int_equal(size, GiB);
			assert_int_equal(holes, 0);
			if (m >= 0)
				assert_int_equal(unwritten, 0);
		}
		if (m >= 0) {
			assert_int_equal(summary_of(&r).seen, rounds);
			assert_int_equal(summary_of(&r).converted, rounds);
		}
	}
	tfs_rmtree(dir);
}

static int stale_variables(void)
{
	return setenv("PREALLOC_EXEC_TALLY", "3:1:1", 1) || setenv("PREALLOC_EXEC_MIN_SIZE", "1", 1);
}

/* `env` under the supervisor shows no PREALLOC_EXEC_ variable, not even
 * one the tool was given; under the interposer its socket alone. */
static void environment(void **state)
{
	struct run r;
	char *v;

	(void)state;
	EXEC(&r, stale_variables, "--quiet", "--mode", "seccomp", "--", "/usr/bin/env");
	assert_int_equal(r.status, 0);
	assert_null(strstr(r.out, "PREALLOC_EXEC_"));
	need_preload();
	EXEC(&r, stale_variables, "--quiet", "--mode", "preload", "--", "/usr/bin/env");
	assert_int_equal(r.status, 0);
	v = strstr(r.out, "PREALLOC_EXEC_");
	assert_non_null(v);
	assert_int_equal(strncmp(v, "PREALLOC_EXEC_SOCKET=@", 22), 0);
	assert_null(strstr(v + 1, "PREALLOC_EXEC_"));
}

/* A FIFO's write end with no reader: ESPIPE, as stock, and with
 * pidfd_getfd() refused nothing waits for a reader. */
static void fifo_descriptor(void **state)
{
	char dir[160], path[200];
	struct run r;

	(void)state;
	new_dir("fifo", dir, sizeof(dir));
	in_dir(dir, "p", path, sizeof(path));
	assert_int_equal(mkfifo(path, 0644), 0);
	STOCK(&r, NULL, target_dyn, "call", "fifo", "4194304", path);
	assert_string_equal(r.out, "29\n");
	for (unsigned int m = 0; m < n_modes(); m++)
		for (int g = 0; g < 2; g++) {
			EXEC(&r, g ? no_getfd : NULL, "--mode", modes[m], "--", target_dyn, "call",
			     "fifo", "4194304", path);
			assert_int_equal(r.status, 0);
			assert_string_equal(r.out, "29\n");
		}
	tfs_rmtree(dir);
}

/*
 * Another process holds a flock() on the file and has a thread named as
 * the library's keeper of files: a call waits for it a bounded time, then
 * is made as the program made it (unwritten, as stock).
 */
static void foreign_lock(void **state)
{
	char dir[160], path[200], held[8] = { 0 };
	const char *argv[] = { target_dyn, "keep", path, NULL };
	struct spawned k;
	struct run r = { 0 };

	(void)state;
	SCRATCH("lock", dir, path);
	put_file(path, "", 0644, 0);
	spawn(argv, NULL, &k);
	assert_int_equal(read(k.out, held, 5), 5);
	assert_string_equal(held, "held\n");
	for (unsigned int m = 0; m < n_modes(); m++) {
		EXEC(&r, NULL, "--mode", modes[m], "--", target_dyn, "call", "rdwr", "4194304", path);
		assert_int_equal(r.status, 0);
		assert_string_equal(r.out, "0\n");
		assert_int_equal(summary_of(&r).fell_back, 1);
		assert_non_null(strstr(r.err, "ETIMEDOUT"));
		assert_int_equal(census(path, 0, 4 * MiB).unwritten_bytes, 4 * MiB);
	}
	collect(&k, &r);
	tfs_rmtree(dir);
}

static int notify_sock = -1;
static char notify_name[64];

/* As a service manager starts a socket-activated unit: a listening socket
 * at descriptor 3, LISTEN_PID the pid it runs as, NOTIFY_SOCKET. */
static int activated(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int s = socket(AF_INET, SOCK_STREAM, 0);
	char pid[16];

	if (s != 3 || bind(s, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(s, 1) < 0)
		return -1;
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	return setenv("LISTEN_FDS", "1", 1) || setenv("LISTEN_PID", pid, 1) ||
	       setenv("NOTIFY_SOCKET", notify_name, 1);
}

/* The manager's socket: READY=1 from process @main. */
static void ready_from(pid_t main, const char *want)
{
	char msg[64] = { 0 }, cbuf[CMSG_SPACE(sizeof(struct ucred))];
	struct iovec iov = { .iov_base = msg, .iov_len = sizeof(msg) - 1 };
	struct msghdr h = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			    .msg_controllen = sizeof(cbuf) };
	struct ucred cr;

	assert_int_equal(recvmsg(notify_sock, &h, MSG_DONTWAIT), (ssize_t)strlen(want));
	assert_string_equal(msg, want);
	assert_non_null(CMSG_FIRSTHDR(&h));
	memcpy(&cr, CMSG_DATA(CMSG_FIRSTHDR(&h)), sizeof(cr));
	assert_int_equal(cr.pid, main);
}

static void socket_activation(void **state)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	socklen_t alen = sizeof(a);
	int one = 1;
	struct run r;

	(void)state;
	notify_sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	assert_true(notify_sock >= 0);
	assert_int_equal(setsockopt(notify_sock, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)), 0);
	assert_int_equal(bind(notify_sock, (struct sockaddr *)&a, sizeof(sa_family_t)), 0);
	assert_int_equal(getsockname(notify_sock, (struct sockaddr *)&a, &alen), 0);
	snprintf(notify_name, sizeof(notify_name), "@%.*s",
		 (int)(alen - offsetof(struct sockaddr_un, sun_path) - 1), a.sun_path + 1);
	STOCK(&r, activated, target_dyn, "activated");
	assert_string_equal(r.out, "listen 1\n");
	ready_from(r.pid, "READY=1\nMAINPID=1\n");
	for (unsigned int m = 0; m < n_modes(); m++) {
		EXEC(&r, activated, "--quiet", "--mode", modes[m], "--", target_dyn, "activated");
		assert_int_equal(r.status, 0);
		assert_string_equal(r.out, "listen 1\n");
		/* As the unit's main process: what it says of itself withheld. */
		ready_from(r.pid, "READY=1\n");
	}
	close(notify_sock);
}

static int no_signalfd(void)
{
	const int nr[] = { SYS_signalfd4 };

	return tsec_refuse_calls(nr, 1, EPERM);
}

/* signalfd() refused: the tool says so and the program never starts. */
static void signalfd_refused(void **state)
{
	char dir[160], path[200];
	struct run r;

	(void)state;
	SCRATCH("signalfd", dir, path);
	EXEC(&r, no_signalfd, "--mode", "seccomp", "--", target_dyn, "call", "create", "4194304",
	     path);
	assert_int_equal(r.status, 1);
	assert_int_equal(access(path, F_OK), -1);
	tfs_rmtree(dir);
}

static char run_dir[200], path_var[256];

static int from_run_dir(void)
{
	return chdir(run_dir) || setenv("PATH", path_var, 1);
}

/*
 * The binary inspected is the one run: with PATH ":DIR2" in DIR1 (the
 * empty entry the current directory, as for execvp()), DIR1/prog (static)
 * runs, not DIR2/prog (dynamic), and is converted; a script runs from the
 * file opened, its interpreter's program converted.
 */
static void inspected_is_run(void **state)
{
	char dir[160], dir2[200], path[200], script[200], body[512];
	struct run r;

	(void)state;
	new_dir("inspected", dir, sizeof(dir));
	in_dir(dir, "one", run_dir, sizeof(run_dir));
	in_dir(dir, "two", dir2, sizeof(dir2));
	in_dir(dir, "f", path, sizeof(path));
	assert_int_equal(tfs_sh("mkdir %s %s && cp %s %s/prog && cp %s %s/prog", run_dir, dir2,
				target_static, run_dir, target_dyn, dir2), 0);
	snprintf(path_var, sizeof(path_var), ":%s", dir2);
	EXEC(&r, from_run_dir, "--", "prog", "call", "create", "4194304", path);
	assert_int_equal(r.status, 0);
	written(path, 4 * MiB);
	assert_int_equal(unlink(path), 0);
	in_dir(dir, "run.sh", script, sizeof(script));
	snprintf(body, sizeof(body), "#!/bin/sh\nexec %s call create 4194304 %s\n", target_dyn,
		 path);
	put_file(script, body, 0755, 0);
	EXEC(&r, NULL, "--", script);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "0\n");
	written(path, 4 * MiB);
	tfs_rmtree(dir);
}

static int interposer_unreached(void)
{
	return setenv("LD_PRELOAD", interposer, 1) ||
	       setenv("PREALLOC_EXEC_SOCKET", "@prealloc-exec-nobody-listens", 1);
}

/* The interposer without `prealloc exec` to ask: every call is made as it
 * was (the range unwritten): it never widens what the program does. */
static void interposer_alone(void **state)
{
	char dir[160], path[200];
	struct run r;

	(void)state;
	need_preload();
	SCRATCH("alone", dir, path);
	STOCK(&r, interposer_unreached, target_dyn, "call", "create", "4194304", path);
	assert_string_equal(r.out, "0\n");
	assert_int_equal(census(path, 0, 4 * MiB).unwritten_bytes, 4 * MiB);
	tfs_rmtree(dir);
}

/* Can the library order a call's zeros against other writers on @fs?
 * Asked of a probe of a file there. */
static bool orders(const struct tfs *fs)
{
	struct prealloc_options o = { .size = sizeof(o), .flags = PREALLOC_CONCURRENT_WRITES };
	struct prealloc_probe *p = NULL;
	char path[200];
	int fd;
	bool ok;

	tfs_path(fs, "probe", path, sizeof(path));
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	ok = prealloc_probe_new(fd, 0, MiB, &o, &p) == 0 && prealloc_probe_plan(p, 0) >= 0;
	prealloc_probe_free(p);
	close(fd);
	assert_int_equal(unlink(path), 0);
	return ok;
}

/* An xfs of @mb MiB formatted for exchange-range, open to all, where the
 * library orders zeros on it; false (said) where this machine cannot. */
static bool xfs_exchange(struct tfs *fs, uint64_t mb)
{
	if (tfs_create_xfs_exchange(fs, mb) == 0 && orders(fs)) {
		assert_int_equal(chmod(fs->dir, 0777), 0);
		return true;
	}
	tfs_destroy(fs);
	print_message("  no xfs with exchange-range that orders zeros here: not tried\n");
	return false;
}

/* Bytes the loop device under @fs has written so far, @fs synced first. */
static uint64_t device_written(const struct tfs *fs)
{
	unsigned long long f[7] = { 0 };
	char stat_path[64];
	int dfd = open(fs->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	FILE *st;

	assert_true(dfd >= 0);
	assert_int_equal(syncfs(dfd), 0);
	close(dfd);
	snprintf(stat_path, sizeof(stat_path), "/sys/block/%s/stat", strrchr(fs->dev, '/') + 1);
	st = fopen(stat_path, "re");
	assert_non_null(st);
	assert_int_equal(fscanf(st, "%llu %llu %llu %llu %llu %llu %llu", &f[0], &f[1], &f[2],
				&f[3], &f[4], &f[5], &f[6]), 7);
	fclose(st);
	return f[6] * 512;
}

/* Whether the summary in @r has the line "prealloc exec:   @line". */
static bool said(const struct run *r, const char *line)
{
	char want[512];

	snprintf(want, sizeof(want), "prealloc exec:   %s\n", line);
	return strstr(r->err, want) != NULL;
}

/*
 * The tool's defaults order every conversion: on ext4, where nothing can
 * order them, a call passes as the program made it (unwritten), said per
 * reason; files the operator vouches for (--unordered) are converted
 * (written); --exclude leaves a file alone even then.  Both front ends.
 */
static void ordering_or_vouching(void **state)
{
	char dir[160], path[200], log[200], glob[200];
	struct run r;

	(void)state;
	SCRATCH("vouch", dir, path);
	in_dir(dir, "log", log, sizeof(log));
	snprintf(glob, sizeof(glob), "%s/*", dir);
	for (unsigned int m = 0; m < n_modes(); m++) {
		EXEC_DEFAULTS(&r, NULL, "--log", log, "--mode", modes[m], "--", target_dyn, "call",
			      "create", "4194304", path);
		assert_string_equal(r.out, "0\n");
		assert_int_equal(summary_of(&r).passed, 1);
		assert_true(said(&r, "1 passed through: no way to order the zeros here"));
		assert_int_equal(census(path, 0, 4 * MiB).unwritten_bytes, 4 * MiB);
		EXEC_DEFAULTS(&r, NULL, "--unordered", glob, "--mode", modes[m], "--", target_dyn,
			      "call", "create", "4194304", path);
		assert_int_equal(summary_of(&r).converted, 1);
		assert_true(said(&r, "1 converted unordered (--unordered)"));
		written(path, 4 * MiB);
		EXEC_DEFAULTS(&r, NULL, "--unordered", glob, "--exclude", "*/f", "--mode", modes[m],
			      "--", target_dyn, "call", "create", "4194304", path);
		assert_true(said(&r, "1 passed through: excluded"));
		assert_int_equal(census(path, 0, 4 * MiB).unwritten_bytes, 4 * MiB);
	}
	assert_int_equal(tfs_sh("grep -c '\"why\":\"no way to order the zeros here\"' %s | "
				"grep -qx %u", log, n_modes()), 0);
	tfs_rmtree(dir);
}

/* `exec-target all` under the tool's defaults, where they order the
 * zeros: every call written, as when vouched for.  A descriptor open for
 * writing only cannot be ordered (the exchange takes one open for reading
 * too): its call passes, unwritten, unless vouched for. */
/*
 * A program in a user namespace of its own, root there and nobody here:
 * what its capabilities allow there is nothing here.  On xfs with
 * exchange-range, its call on a file of nobody's in a directory of root's
 * passes, as nobody's does (the zeros' temporary file cannot be made
 * there), the file as the program made it.  Both front ends.
 */
static void own_user_namespace(void **state)
{
	char dir[160], path[200];
	struct tfs xe = { 0 };
	struct run r;

	(void)state;
	if (tfs_sh("setpriv --reuid=" NOBODY " --regid=" NOBODY " --clear-groups "
		   "unshare -U -r true") != 0)
		skip();		/* no user namespaces for nobody */
	if (!xfs_exchange(&xe, 1024))
		skip();
	tfs_path(&xe, "userns", dir, sizeof(dir));
	assert_int_equal(mkdir(dir, 0755), 0);
	in_dir(dir, "f", path, sizeof(path));
	for (unsigned int m = 0; m < n_modes(); m++) {
		put_file(path, "", 0644, 65534);
		EXEC_DEFAULTS(&r, NULL, "--mode", modes[m], "--", "setpriv", "--reuid=" NOBODY,
			      "--regid=" NOBODY, "--clear-groups", "unshare", "-U", "-r",
			      /* as root here lacks it, on some hosts */
			      "setpriv", "--bounding-set=-sys_resource", "fallocate", "-l",
			      "4194304", path);
		assert_int_equal(r.status, 0);
		assert_int_equal(summary_of(&r).converted, 0);
		assert_true(said(&r, "1 passed through: no way to order the zeros here"));
		assert_int_equal(census(path, 0, 4 * MiB).unwritten_bytes, 4 * MiB);
	}
	tfs_destroy(&xe);
}

static void ordered_program(void **state)
{
	char dir[160], path[200];
	struct tfs xe = { 0 };
	struct run r;

	(void)state;
	if (!xfs_exchange(&xe, 1024))
		skip();
	whole_program_in(&xe, false, target_dyn, "seccomp", true);
	if (preload_ok)
		whole_program_in(&xe, false, target_dyn, "auto", true);
	whole_program_in(&xe, false, target_static, "auto", true);
	new_dir_in(&xe, "wronly", dir, sizeof(dir));
	in_dir(dir, "f", path, sizeof(path));
	for (unsigned int m = 0; m < n_modes(); m++) {
		put_file(path, "", 0644, 0);
		EXEC_DEFAULTS(&r, NULL, "--mode", modes[m], "--", target_dyn, "call", "wronly",
			      "4194304", path);
		assert_string_equal(r.out, "0\n");
		assert_true(said(&r, "1 passed through: no way to order the zeros here"));
		assert_int_equal(census(path, 0, 4 * MiB).unwritten_bytes, 4 * MiB);
		put_file(path, "", 0644, 0);
		EXEC(&r, NULL, "--mode", modes[m], "--", target_dyn, "call", "wronly", "4194304",
		     path);
		assert_string_equal(r.out, "0\n");
		written(path, 4 * MiB);
	}
	tfs_destroy(&xe);
}

/* Runs of the race per front end: PREALLOC_TEST_RACE_RUNS, else 2 where
 * the conversion is ordered (it races the writer) and 1 where the call
 * passes before anything is done. */
static int race_runs(bool ordered)
{
	const char *v = getenv("PREALLOC_TEST_RACE_RUNS");

	return v && atoi(v) > 0 ? atoi(v) : ordered ? 2 : 1;
}

/* `exec-target race` in @fs, stock (@mode NULL), with the tool's defaults
 * or vouched for: the records it lost; the run in @r. */
static int race_once(const struct tfs *fs, const char *mode, bool vouched, const char *how,
		     int runs, struct run *r)
{
	char dir[160], n[16];
	const char *last;
	int lost = -1;

	new_dir_in(fs, "race", dir, sizeof(dir));
	snprintf(n, sizeof(n), "%d", runs);
	if (!mode)
		STOCK(r, NULL, target_dyn, "race", dir, n, how);
	else if (vouched)
		EXEC(r, NULL, "--mode", mode, "--", target_dyn, "race", dir, n, how);
	else
		EXEC_DEFAULTS(r, NULL, "--mode", mode, "--", target_dyn, "race", dir, n, how);
	assert_int_equal(r->status, 0);
	last = strstr(r->out, "\nlost ");
	assert_non_null(last);
	assert_int_equal(sscanf(last, "\nlost %d", &lost), 1);
	tfs_rmtree(dir);
	return lost;
}

/* The race on @fs: none lost stock nor under the tool's defaults, which
 * convert ordered where @fs can (or pass when the file kept changing) and
 * pass elsewhere; what converting unordered loses is printed. */
static void race_on(const struct tfs *fs, const char *name)
{
	static const char *const hows[] = { "buffered", "direct" };
	bool ordered = orders(fs);
	int runs = race_runs(ordered);
	struct run r;

	for (int h = 0; h < 2; h++) {
		assert_int_equal(race_once(fs, NULL, false, hows[h], 1, &r), 0);
		for (unsigned int m = 0; m < n_modes(); m++) {
			struct summary sum;
			char line[96];

			assert_int_equal(race_once(fs, modes[m], false, hows[h], runs, &r), 0);
			sum = summary_of(&r);
			print_message("  %s, %s, %s: 0 of %d records lost in %d run%s, %lu converted\n",
				      name, hows[h], modes[m], 2000 * runs, runs, runs > 1 ? "s" : "",
				      sum.converted);
			assert_int_equal(sum.seen, runs);
			snprintf(line, sizeof(line), "%lu passed through: %s", sum.passed,
				 ordered ? "the file kept changing" : "no way to order the zeros here");
			assert_int_equal(sum.converted + sum.passed, runs);
			assert_true(!sum.passed || said(&r, line));
			assert_true(ordered || !sum.converted);
		}
		print_message("  %s, %s, converted unordered: %d of 2000 records lost\n", name,
			      hows[h], race_once(fs, modes[n_modes() - 1], true, hows[h], 1, &r));
	}
}

/*
 * One thread writes 2,000 records at scattered offsets of a new file
 * while another calls fallocate(fd, 0, 0, 64 MiB), buffered and O_DIRECT,
 * on ext4, plain xfs and xfs with exchange-range: no record is lost under
 * the tool's defaults, in either front end, as none is stock.
 */
static void race_with_writer(void **state)
{
	struct tfs x = { 0 }, xe = { 0 };

	(void)state;
	race_on(&t, "ext4");
	assert_int_equal(tfs_create(&x, "xfs", 1536, NULL), 0);
	assert_int_equal(chmod(x.dir, 0777), 0);
	race_on(&x, orders(&x) ? "xfs (exchange-range by default)" : "xfs");
	tfs_destroy(&x);
	if (xfs_exchange(&xe, 1536)) {
		race_on(&xe, "xfs with exchange-range");
		tfs_destroy(&xe);
	}
}

/* `exec-target spec DIR 6 512M 16K` in @fs, under the tool with @opts
 * (NULL-terminated) in @mode: what the device wrote; the run in @r. */
static uint64_t speculative_run(const struct tfs *fs, const char *const *opts, const char *mode,
				struct run *r)
{
	const char *args[24];
	char dir[160], log[200];
	uint64_t before;
	size_t n = 0;

	new_dir_in(fs, "spec", dir, sizeof(dir));
	tfs_path(fs, "spec.log", log, sizeof(log));
	assert_true(unlink(log) == 0 || errno == ENOENT);
	while (*opts)
		args[n++] = *opts++;
	for (const char *const *a = (const char *const[]){ "--log", log, "--mode", mode, "--",
							   target_dyn, "spec", dir, "6",
							   "536870912", "16384", NULL }; *a; a++)
		args[n++] = *a;
	args[n] = NULL;
	before = device_written(fs);
	run_tool(r, NULL, args);
	assert_int_equal(r->status, 0);
	assert_string_equal(r->out, "0\n0\n0\n0\n0\n0\n");
	for (int i = 0; i < 6; i++) {
		char path[200], name[16];

		snprintf(name, sizeof(name), "spec%d", i);
		in_dir(dir, name, path, sizeof(path));
		assert_int_equal(size_of(path), 16384);
	}
	tfs_rmtree(dir);
	return device_written(fs) - before;
}

/* The run learnt "*" "/spec/spec*" speculative after its first conversion:
 * the summary names it with what was thrown away, the log says when, and
 * the device wrote less than two of the calls' 512 MiB. */
static void learnt(const struct tfs *fs, const char *const *opts, const char *mode)
{
	char log[200];
	struct run r;
	uint64_t wrote = speculative_run(fs, opts, mode, &r);

	print_message("  %s, %s: the device wrote %llu MiB\n", fs->type, mode,
		      (unsigned long long)(wrote >> 20));
	assert_true(wrote < 2 * 512 * MiB);
	assert_int_equal(summary_of(&r).converted, 1);
	assert_int_equal(summary_of(&r).passed, 5);
	assert_true(said(&r, "5 passed through: speculative"));
	assert_true(said(&r, "*/spec/spec*: 1 call converted, 536870912 bytes, 536854528 thrown away "
			     "by the program (cut off or unlinked within 60 s), 16384 kept; "
			     "speculative: 5 calls passed through since"));
	tfs_path(fs, "spec.log", log, sizeof(log));
	assert_int_equal(tfs_sh("grep -q '\"event\":\"speculative\",\"pattern\":\"\\*/spec/spec\\*\"' %s",
				log), 0);
}

/*
 * A program that fallocate()s 512 MiB of each of six new files and cuts
 * each to the 16 KiB it wrote (Prometheus' chunk files): under the tool's
 * defaults (xfs with exchange-range) and vouched for on ext4, the first
 * call is converted and the rest pass, learnt speculative; --dry-run
 * converts none, names the pattern, what converting would have written
 * and thrown away, and the --exclude that leaves it out; with that
 * --exclude nothing is converted.  Both front ends.
 */
static void speculative_preallocation(void **state)
{
	const char *const defaults[] = { NULL }, *const vouched[] = { VOUCHED, NULL };
	const char *const dry[] = { "--dry-run", NULL };
	const char *const excluded[] = { VOUCHED, "--exclude", "*/spec/spec*", NULL };
	struct tfs xe = { 0 };
	struct run r;

	(void)state;
	if (xfs_exchange(&xe, 1536)) {
		for (unsigned int m = 0; m < n_modes(); m++)
			learnt(&xe, defaults, modes[m]);
		tfs_destroy(&xe);
	}
	for (unsigned int m = 0; m < n_modes(); m++) {
		learnt(&t, vouched, modes[m]);
		assert_true(speculative_run(&t, dry, modes[m], &r) < 64 * MiB);
		assert_true(said(&r, "6 passed through: dry run"));
		assert_true(said(&r, "*/spec/spec*: 6 calls would have written 3221225472 bytes, "
				     "3221127168 thrown away by the program (cut off or unlinked "
				     "within 60 s), 98304 kept; 6 with no way to order the zeros "
				     "here"));
		assert_non_null(strstr(r.err, "--exclude '*/spec/spec*'\n"));
		assert_true(speculative_run(&t, excluded, modes[m], &r) < 64 * MiB);
		assert_true(said(&r, "6 passed through: excluded"));
	}
}

/*
 * A program that makes a spare file ahead, fallocate()s it and unlinks it
 * unwritten, three times (etcd's next WAL segment, removed when its WAL is
 * closed to be repaired): every call converted, the spares counted thrown
 * away but no pattern learnt speculative.  Vouched for, on ext4, both
 * front ends.
 */
static void spares_are_not_speculation(void **state)
{
	char dir[160], log[200];
	struct run r;

	(void)state;
	new_dir("spare", dir, sizeof(dir));
	tfs_path(&t, "spare.log", log, sizeof(log));
	for (unsigned int m = 0; m < n_modes(); m++) {
		assert_true(unlink(log) == 0 || errno == ENOENT);
		run_tool(&r, NULL, (const char *const[]){ VOUCHED, "--log", log, "--mode",
							 modes[m], "--", target_dyn, "spare",
							 dir, "3", "67108864", NULL });
		assert_int_equal(r.status, 0);
		assert_string_equal(r.out, "0\n0\n0\n");
		assert_int_equal(summary_of(&r).converted, 3);
		assert_true(said(&r, "*/spare/spare.tmp: 3 calls converted, 201326592 bytes, "
				     "201326592 thrown away by the program (cut off or unlinked "
				     "within 60 s), 0 kept; 201326592 of it in spares unlinked "
				     "unwritten"));
		assert_int_equal(tfs_sh("grep -q '\"event\":\"discarded\"' %s", log), 0);
		assert_int_not_equal(tfs_sh("grep -q '\"event\":\"speculative\"' %s", log), 0);
	}
}

static int group_setup(void **state)
{
	(void)state;
	return tfs_create(&t, "ext4", 2560, NULL) ? -1 : 0;
}

static int group_teardown(void **state)
{
	(void)state;
	tfs_destroy(&t);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(dynamic_program),
		cmocka_unit_test(static_program),
		cmocka_unit_test(go_program),
		cmocka_unit_test(signals_during_call),
		cmocka_unit_test(own_seccomp_filter),
		cmocka_unit_test(no_new_privs),
		cmocka_unit_test(unprivileged_and_confined),
		cmocka_unit_test(read_only_descriptors),
		cmocka_unit_test(nothing_inherited),
		cmocka_unit_test(file_size_limit),
		cmocka_unit_test(reserved_blocks),
		cmocka_unit_test(finds_its_interposer),
		cmocka_unit_test(killed_in_the_middle),
		cmocka_unit_test(supervisor_killed),
		cmocka_unit_test(thread_own_table),
		cmocka_unit_test(cancelled_threads),
		cmocka_unit_test(environment),
		cmocka_unit_test(fifo_descriptor),
		cmocka_unit_test(foreign_lock),
		cmocka_unit_test(socket_activation),
		cmocka_unit_test(signalfd_refused),
		cmocka_unit_test(inspected_is_run),
		cmocka_unit_test(interposer_alone),
		cmocka_unit_test(ordering_or_vouching),
		cmocka_unit_test(ordered_program),
		cmocka_unit_test(own_user_namespace),
		cmocka_unit_test(race_with_writer),
		cmocka_unit_test(speculative_preallocation),
		cmocka_unit_test(spares_are_not_speculation),
	};

	tool = getenv("PREALLOC_TOOL");
	target_dyn = getenv("EXEC_TARGET");
	target_static = getenv("EXEC_TARGET_STATIC");
	target_go = getenv("EXEC_TARGET_GO");
	interposer = getenv("EXEC_INTERPOSER");
	preload_ok = !getenv("EXEC_SANITIZE") || !strcmp(getenv("EXEC_SANITIZE"), "none");
	if (!tool || !target_dyn || !target_static || !interposer)
		return TFS_SKIP;
	if (target_go && !*target_go)
		target_go = NULL;
	tfs_enter();
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}

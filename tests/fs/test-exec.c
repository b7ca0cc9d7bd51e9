/* SPDX-License-Identifier: MIT */
/*
 * `prealloc exec` on programs as they ship (root; skip otherwise), on ext4:
 * tests/fs/exec-target.c built dynamically linked (the interposer, and
 * forced through the supervisor) and static, and tests/fs/exec-target.go
 * (the supervisor).  Each program's mode-0 calls leave written extents with
 * the data before them kept, in its own threads, fork()ed children and
 * exec'd images, and the record lock it holds on the file stays its own;
 * its keep-size call keeps size 0, its punched hole stays a hole, its call
 * below --min-size stays unwritten.  And: a call under a 1 ms interval
 * timer returns 0 (a signal never interrupts it); a program with its own
 * seccomp filter, and one run by an unprivileged user, and one with
 * io_uring refused, are converted; the supervisor sets no_new_privs; a
 * program whose supervisor was killed goes on, its calls answered ENOSYS.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "prealloc.h"
#include "tfs.h"
#include "tseccomp.h"

#define MiB (1ull << 20)
#define UID 4242

static struct tfs t;
static const char *tool, *target_dyn, *target_static, *target_go;
/* A sanitizer build's interposer needs its runtime loaded first, which an
 * uninstrumented program does not do: the interposer is then not tried. */
static bool preload_ok;

static void need_preload(void)
{
	if (!preload_ok)
		skip();
}

/*
 * Run the tool's exec with @args (NULL-terminated, after "exec"), standard
 * input from @in when not NULL, standard output into @out.  Its exit
 * status, or -1.  @before runs in the child first (a seccomp filter, a uid).
 */
static int run_exec(const char *const *args, const char *in, char *out, size_t len,
		    int (*before)(void))
{
	const char *argv[16] = { tool, "exec", "--quiet" };
	int o[2], i[2], st;
	size_t n = 3, got = 0;
	pid_t pid;
	ssize_t r;

	while (*args && n < 15)
		argv[n++] = *args++;
	argv[n] = NULL;
	if (pipe(o) < 0 || pipe(i) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(o[1], 1);
		dup2(i[0], 0);
		close(o[0]);
		close(i[1]);
		if (before && before())
			_exit(126);
		execv(tool, (char *const *)argv);
		_exit(127);
	}
	close(o[1]);
	close(i[0]);
	if (in)
		assert_int_equal(write(i[1], in, strlen(in)), (ssize_t)strlen(in));
	close(i[1]);
	while (got + 1 < len && (r = read(o[0], out + got, len - 1 - got)) > 0)
		got += (size_t)r;
	out[got] = '\0';
	close(o[0]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static struct prealloc_census census(const char *dir, const char *name, uint64_t off,
				     uint64_t len)
{
	struct prealloc_census c = { .size = sizeof(c) };
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(prealloc_verify(fd, off, len, &c), 0);
	close(fd);
	return c;
}

static void written(const char *dir, const char *name, uint64_t len)
{
	struct prealloc_census c = census(dir, name, 0, len);

	print_message("  %s: written %llu of %llu\n", name, (unsigned long long)c.written_bytes,
		      (unsigned long long)len);
	assert_int_equal(c.written_bytes, len);
}

static uint64_t size_of(const char *dir, const char *name)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_int_equal(stat(path, &st), 0);
	return (uint64_t)st.st_size;
}

static void new_dir(const char *name, char *dir, size_t len)
{
	tfs_path(&t, name, dir, len);
	assert_int_equal(mkdir(dir, 0777), 0);
	assert_int_equal(chmod(dir, 0777), 0);
}

/* Everything `exec-target all` does, checked from outside. */
static void whole_program(const char *target, const char *mode, bool c_program)
{
	const char *args[] = { "--mode", mode, "--", target, "all", NULL, NULL };
	char dir[160], out[256], head[4] = { 0 }, path[200];
	int fd;

	print_message("%s (%s)\n", target, mode);
	new_dir(strrchr(target, '/') + 1, dir, sizeof(dir));
	args[5] = dir;
	assert_int_equal(run_exec(args, NULL, out, sizeof(out), NULL), 0);
	written(dir, "data", 8 * MiB);
	snprintf(path, sizeof(path), "%s/data", dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_int_equal(pread(fd, head, 4, 0), 4);
	assert_memory_equal(head, "DDDD", 4);
	close(fd);
	assert_int_equal(size_of(dir, "keep"), 0);
	assert_int_equal(census(dir, "hole", 256 << 10, 256 << 10).hole_bytes, 256 << 10);
	assert_int_equal(census(dir, "small", 0, 64 << 10).unwritten_bytes, 64 << 10);
	written(dir, "exec", 4 * MiB);
	if (c_program) {
		written(dir, "posix", 8 * MiB);
		written(dir, "child", 4 * MiB);
		written(dir, "thread", 4 * MiB);
	} else {
		for (int i = 0; i < 4; i++) {
			char name[16];

			snprintf(name, sizeof(name), "thread%d", i);
			written(dir, name, 4 * MiB);
		}
	}
	tfs_rmtree(dir);
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

/* One `exec-target SUB FILE` in @mode; its output in @out, FILE written. */
static int one_call(const char *sub, const char *mode, const char *target, char *out,
		    size_t len, int (*before)(void), const char *in)
{
	const char *args[] = { "--mode", mode, "--", target, sub, NULL, NULL };
	char dir[160], path[200];
	int ret;

	new_dir(sub, dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/f", dir);
	args[5] = path;
	ret = run_exec(args, in, out, len, before);
	if (ret == 0 && strcmp(sub, "wait"))
		written(dir, "f", strcmp(sub, "signals") ? 4 * MiB : 64 * MiB);
	tfs_rmtree(dir);
	return ret;
}

static void signals_during_call(void **state)
{
	static const char *const modes[] = { "preload", "seccomp" };
	char out[64];

	(void)state;
	for (int i = preload_ok ? 0 : 1; i < 2; i++) {
		assert_int_equal(one_call("signals", modes[i], target_dyn, out, sizeof(out), NULL,
					  NULL), 0);
		assert_string_equal(out, "0 1\n");	/* returned 0, and the timer ran */
	}
}

static void own_seccomp_filter(void **state)
{
	char out[16];

	(void)state;
	assert_int_equal(one_call("filter", "seccomp", target_dyn, out, sizeof(out), NULL, NULL), 0);
	need_preload();
	assert_int_equal(one_call("filter", "preload", target_dyn, out, sizeof(out), NULL, NULL), 0);
}

static void no_new_privs(void **state)
{
	const char *seccomp[] = { "--mode", "seccomp", "--", target_dyn, "nnp", NULL };
	const char *preload[] = { "--mode", "preload", "--", target_dyn, "nnp", NULL };
	char out[16];

	(void)state;
	assert_int_equal(run_exec(seccomp, NULL, out, sizeof(out), NULL), 0);
	assert_string_equal(out, "1\n");
	need_preload();
	assert_int_equal(run_exec(preload, NULL, out, sizeof(out), NULL), 0);
	assert_string_equal(out, "0\n");
}

static int unprivileged(void)
{
	return setgroups(0, NULL) || setresgid(UID, UID, UID) || setresuid(UID, UID, UID);
}

static int no_io_uring(void)
{
	return tsec_refuse_io_uring(EPERM);
}

static void unprivileged_and_confined(void **state)
{
	char out[16];

	(void)state;
	assert_int_equal(one_call("filter", "seccomp", target_dyn, out, sizeof(out),
				  unprivileged, NULL), 0);
	assert_int_equal(one_call("filter", "seccomp", target_dyn, out, sizeof(out),
				  no_io_uring, NULL), 0);
	need_preload();
	assert_int_equal(one_call("filter", "preload", target_dyn, out, sizeof(out),
				  unprivileged, NULL), 0);
}

/*
 * The supervisor killed while the program waits on its standard input: the
 * program goes on, its call answered ENOSYS (the kernel's answer for a
 * filter whose listener is gone), never left hanging.
 */
static void supervisor_killed(void **state)
{
	char dir[160], path[200], out[16] = { 0 };
	int o[2], i[2], st;
	pid_t pid;

	(void)state;
	new_dir("killed", dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/f", dir);
	assert_int_equal(pipe2(o, O_CLOEXEC), 0);
	assert_int_equal(pipe2(i, O_CLOEXEC), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(o[1], 1);
		dup2(i[0], 0);
		execl(tool, tool, "exec", "--quiet", "--mode", "seccomp", "--", target_dyn, "wait",
		      path, (char *)NULL);
		_exit(127);
	}
	close(o[1]);
	close(i[0]);
	/* The program runs, its filter installed: it waits on us. */
	assert_int_equal(read(o[0], out, 6), 6);
	assert_memory_equal(out, "ready\n", 6);
	memset(out, 0, sizeof(out));
	assert_int_equal(kill(pid, SIGKILL), 0);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(write(i[1], "x", 1), 1);
	close(i[1]);
	assert_true(read(o[0], out, sizeof(out) - 1) > 0);	/* the program's line */
	close(o[0]);
	assert_string_equal(out, "38\n");	/* ENOSYS */
	tfs_rmtree(dir);
}

static int group_setup(void **state)
{
	(void)state;
	return tfs_create(&t, "ext4", 512, NULL) ? -1 : 0;
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
		cmocka_unit_test(supervisor_killed),
	};

	tool = getenv("PREALLOC_TOOL");
	target_dyn = getenv("EXEC_TARGET");
	target_static = getenv("EXEC_TARGET_STATIC");
	target_go = getenv("EXEC_TARGET_GO");
	preload_ok = !getenv("EXEC_SANITIZE") || !strcmp(getenv("EXEC_SANITIZE"), "none");
	if (!tool || !target_dyn || !target_static)
		return TFS_SKIP;
	if (target_go && !*target_go)
		target_go = NULL;
	tfs_enter();
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}

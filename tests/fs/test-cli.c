/* SPDX-License-Identifier: MIT */
/* The prealloc tool: exit codes, messages, JSON, on real files. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <grp.h>
#include <unistd.h>
#include <cmocka.h>

#include "tfs.h"

static char dir[] = "/var/tmp/prealloc-cli-XXXXXX";
static char out[8192], err[8192];
static const char *tool;

/* Where the tool's stdout and stderr go, and reading them back. */
static void out_paths(char *of, char *ef, size_t len)
{
	snprintf(of, len, "%s/.out", dir);
	snprintf(ef, len, "%s/.err", dir);
}

static void slurp(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, len - 1, f) : 0;

	buf[n] = 0;
	if (f)
		fclose(f);
}

/* Each of the NULL-terminated @needles is in @text, else fail at the
 * caller's @file:@line naming the missing one. */
static void has_all(const char *text, const char *const *needles, const char *file, int line)
{
	for (; *needles; needles++)
		if (!strstr(text, *needles)) {
			print_error("\"%s\" not in:\n%s\n", *needles, text);
			_fail(file, line);
		}
}

/* What the last run_tool() printed on stdout (stderr) holds every string. */
#define assert_out_has(...) has_all(out, (const char *const[]){ __VA_ARGS__, NULL }, \
				    __FILE__, __LINE__)
#define assert_err_has(...) has_all(err, (const char *const[]){ __VA_ARGS__, NULL }, \
				    __FILE__, __LINE__)

/* What the last run_tool() printed on stdout holds the string made from
 * the printf() format and arguments. */
#define assert_out_hasf(...) out_hasf(__FILE__, __LINE__, __VA_ARGS__)

__attribute__((format(printf, 3, 4)))
static void out_hasf(const char *file, int line, const char *fmt, ...)
{
	char needle[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(needle, sizeof(needle), fmt, ap);
	va_end(ap);
	has_all(out, (const char *const[]){ needle, NULL }, file, line);
}

/* Start the tool with @args (shell words, exec'd by the shell so the
 * child is the tool) as user @uid (root only), or as this process when @uid
 * is -1, its stdout and stderr into files (opened before the switch). */
static pid_t spawn_as(int uid, const char *args)
{
	char cmd[2048], of[160], ef[160];
	pid_t pid;

	out_paths(of, ef, sizeof(of));
	snprintf(cmd, sizeof(cmd), "exec '%s' %s </dev/null", tool, args);
	pid = fork();
	if (pid == 0) {
		int o = open(of, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		int e = open(ef, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

		if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0 ||
		    (uid >= 0 && (setgroups(0, NULL) || setgid((gid_t)uid) || setuid((uid_t)uid))))
			_exit(99);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(98);
	}
	return pid;
}

/* Wait for it; its exit status (-1 if it did not exit), output read back. */
static int wait_tool(pid_t pid)
{
	char of[160], ef[160];
	int st;

	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	out_paths(of, ef, sizeof(of));
	slurp(of, out, sizeof(out));
	slurp(ef, err, sizeof(err));
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Run the tool as spawn_as() starts it and wait for it. */
__attribute__((format(printf, 2, 3)))
static int run_as(int uid, const char *fmt, ...)
{
	char args[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	return wait_tool(spawn_as(uid, args));
}

#define run_tool(...) run_as(-1, __VA_ARGS__)

/* Skip unless user @uid can run the tool at all: a build tree under a home
 * only its owner may enter (root's 0700) is not the tool's fault. */
static void skip_unless_runs_as(int uid)
{
	int ret = run_as(uid, "--version");

	if (ret == 126 || ret == 127) {
		print_message("skipped: user %d cannot run %s (a directory above it is closed "
			      "to others?)\n", uid, tool);
		skip();
	}
}

/* Create (or open) @name in the test directory; its path in @path. */
static int new_file(const char *name, char *path, size_t len)
{
	int fd;

	snprintf(path, len, "%s/%s", dir, name);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	return fd;
}

static void run_and_verify(void **state)
{
	(void)state;
	assert_int_equal(run_tool("run --length 8M --offset 4K --json %s/f", dir), 0);
	assert_out_has("\"method\":\"", "\"bytes_zeroed\":8388608", "\"bytes_kept\":0",
		       "\"written\":true", "\"seconds\":");
	assert_int_equal(run_tool("verify --offset 4K --json %s/f", dir), 0);
	assert_out_has("\"written_bytes\":8388608", "\"unwritten_bytes\":0", "\"hole_bytes\":0",
		       "\"fully_written\":true");
	/* The first block was never part of the range: a hole. */
	assert_int_equal(run_tool("verify %s/f", dir), 1);
	assert_out_has("NOT fully written");
}

static void verify_sparse_fails(void **state)
{
	char path[160];
	int fd;

	(void)state;
	fd = new_file("sparse", path, sizeof(path));
	assert_int_equal(ftruncate(fd, 1 << 20), 0);
	close(fd);
	assert_int_equal(run_tool("verify --json %s", path), 1);
	assert_out_has("\"hole_bytes\":1048576", "\"fully_written\":false");
}

static void usage_errors(void **state)
{
	char qd[128];

	(void)state;
	assert_int_equal(run_tool("%s", ""), 2);
	assert_int_equal(run_tool("frobnicate %s/f", dir), 2);
	assert_int_equal(run_tool("run %s/f", dir), 2);			/* no length */
	assert_int_equal(run_tool("run --length 12Q %s/f", dir), 2);
	assert_int_equal(run_tool("run --length -5 %s/f", dir), 2);
	assert_int_equal(run_tool("run --length 0 %s/f", dir), 2);
	assert_int_equal(run_tool("run --length 99999999999999999999 %s/f", dir), 2);
	assert_int_equal(run_tool("run --length 1M --method dd %s/f", dir), 2);
	assert_int_equal(run_tool("run --length 1M --bogus %s/f", dir), 2);
	/* Bounds of the numeric options (queue depth 1..4096, the rest not 0). */
	assert_int_equal(run_tool("run --length 1M --queue-depth 4097 %s/f", dir), 2);
	assert_err_has("prealloc: bad queue depth '4097'");
	assert_int_equal(run_tool("run --length 1M --queue-depth 0 %s/f", dir), 2);
	assert_int_equal(run_tool("run --length 1M --request-size 0 %s/f", dir), 2);
	assert_err_has("prealloc: bad request size '0'");
	assert_int_equal(run_tool("run --length 1M --rate 0 %s/f", dir), 2);
	assert_err_has("prealloc: bad rate '0'");
	assert_int_equal(run_tool("probe --method dd %s", dir), 2);
	assert_err_has("prealloc: unknown method 'dd'", "Try 'prealloc probe --help'");
	assert_int_equal(run_tool("pool --segment-size 4M --count 4097 %s", dir), 2);
	assert_err_has("prealloc: bad count '4097'");
	assert_int_equal(run_tool("pool --segment-size 0 %s", dir), 2);
	assert_err_has("prealloc: bad segment size '0'", "Try 'prealloc pool --help'");
	assert_int_equal(run_tool("run --length 64K --queue-depth 4096 %s/qd", dir), 0);
	assert_int_equal(run_tool("verify --offset 4096 --length 0 %s/qd", dir), 2);
	assert_err_has("prealloc: bad length '0'");
	assert_int_equal(run_tool("verify --offset 4096 %s/qd", dir), 0);
	assert_out_has("written 60 KiB");
	snprintf(qd, sizeof(qd), "%s/qd", dir);
	assert_int_equal(unlink(qd), 0);
	assert_int_equal(run_tool("verify --length x %s/f", dir), 2);
	/* util-linux style: one line saying what is wrong, then a hint, no usage. */
	assert_err_has("prealloc: bad length 'x'",
		       "Try 'prealloc verify --help' for more information.");
	assert_null(strstr(err, "Usage"));
	assert_int_equal(run_tool("probe"), 2);
	assert_err_has("Try 'prealloc probe --help'");
	assert_int_equal(run_tool("frobnicate"), 2);
	assert_err_has("Try 'prealloc --help' for more information.");
}

/* Sizes as fallocate(1) reads them: K = KiB = 1024, KB = 1000. */
static void size_suffixes(void **state)
{
	static const struct {
		const char *arg;
		const char *bytes;
	} cases[] = {
		{ "4096", "\"length\":4096," },
		{ "4K", "\"length\":4096," },
		{ "4KiB", "\"length\":4096," },
		{ "4k", "\"length\":4096," },
		{ "4KB", "\"length\":4000," },
		{ "1MB", "\"length\":1000000," },
		{ "1MiB", "\"length\":1048576," },
		{ "2M", "\"length\":2097152," },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(run_tool("run --no-sync --json --length %s %s/sz%zu", cases[i].arg,
					  dir, i), 0);
		if (!strstr(out, cases[i].bytes))
			fail_msg("%s: %s", cases[i].arg, out);
	}
	assert_int_equal(run_tool("run --length 4Kb %s/szbad", dir), 2);
	assert_int_equal(run_tool("run --length 4iB %s/szbad", dir), 2);
}

/* "Not supported here" has its own exit code, apart from usage errors. */
static void not_supported_exit(void **state)
{
	(void)state;
	/* BLKZEROOUT is for block devices only: a forced zeroout on a file. */
	assert_int_equal(run_tool("run --length 1M --method zeroout %s/ns", dir), 3);
	assert_err_has("method zeroout is not possible here");
}

/* Text output is for people (binary units); JSON keeps exact bytes. */
static void human_sizes(void **state)
{
	(void)state;
	assert_int_equal(run_tool("run --no-sync --length 3M %s/hs", dir), 0);
	assert_out_has("3 MiB at 0 B");
	assert_int_equal(run_tool("verify %s/hs", dir), 0);
	assert_out_has("written 3 MiB");
}

/* Every command answers --help on stdout with exit 0. */
static void subcommand_help(void **state)
{
	static const char *const cmds[] = { "run", "verify", "probe" };

	(void)state;
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		assert_int_equal(run_tool("%s --help", cmds[i]), 0);
		assert_out_has("Usage:", cmds[i]);
		assert_string_equal(err, "");
	}
}

/* probe: text and JSON from the same facts, on a file of this machine. */
static void probe_file(void **state)
{
	char path[160];
	int fd;

	(void)state;
	fd = new_file("p", path, sizeof(path));
	close(fd);
	assert_int_equal(run_tool("probe --json %s", path), 0);
	assert_out_has("\"kind\":\"file\"", "\"zeroing_offloaded\":", "\"decided_by\":\"",
		       "\"atomic_write\":{\"unit_min\":", "\"plan\":{\"method\":\"",
		       "\"devices\":[");
	assert_null(strstr(out, "\"subject\""));	/* PATH itself was probed */
	assert_int_equal(run_tool("probe %s", path), 0);
	assert_out_has("zeroing offloaded: ", "\n  because ", "atomic_write: unit_min=");
}

/* Entries of directory @path but "." and "..", or -1. */
static int count_entries(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

/* probe DIR, and probe PATH where nothing is yet: what a new file there
 * gets, for the request asked, with nothing left behind and PATH not made. */
static void probe_new_file(void **state)
{
	struct tfs t = { 0 };
	char db[256], wal[300];
	int fd, n;

	(void)state;
	if (geteuid() != 0 || !tfs_supported("ext4"))
		skip();
	assert_int_equal(tfs_create(&t, "ext4", 64, NULL), 0);
	tfs_path(&t, "db", db, sizeof(db));
	assert_int_equal(mkdir(db, 0755), 0);
	snprintf(wal, sizeof(wal), "%s/wal-000000", db);
	fd = open(wal, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	close(fd);
	n = count_entries(db);
	assert_int_equal(n, 1);

	assert_int_equal(run_tool("probe %s", db), 0);
	assert_out_hasf("new file in %s: file on ext4\n", db);
	assert_out_has("\nplan: ", "\n  because ", "\nsteps:\n");
	assert_int_equal(run_tool("probe --json --offset 4K --length 64K %s", db), 0);
	assert_out_hasf("{\"path\":\"%s\",\"subject\":\"new file in %s\",\"kind\":\"file\",", db, db);
	assert_out_has("\"request\":{\"offset\":4096,\"length\":65536,", "\"plan\":{\"method\":\"");
	assert_int_equal(count_entries(db), n);

	snprintf(wal, sizeof(wal), "%s/wal-000001", db);
	assert_int_equal(run_tool("probe %s", wal), 0);
	assert_out_hasf("new file in %s: file on ext4\n", db);
	assert_out_has("\nplan: ");
	assert_int_equal(run_tool("probe --json %s", wal), 0);
	assert_out_hasf("{\"path\":\"%s\",\"subject\":\"new file in %s\",", wal, db);
	assert_int_equal(access(wal, F_OK), -1);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(count_entries(db), n);
	/* Only the last name may be missing. */
	assert_int_equal(run_tool("probe %s/nodir/wal", db), 1);
	assert_err_has("/nodir/wal: cannot open: No such file or directory");
	tfs_destroy(&t);
}

/* A file of @size bytes under @top, written with pwrite() ('w'),
 * fallocate()d ('u': unwritten) or sparse ('s'). */
static void tree_file(const char *top, const char *name, char how, off_t size)
{
	static char buf[1 << 16];
	char path[300];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", top, name);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	memset(buf, 'x', sizeof(buf));
	for (off_t off = 0; how == 'w' && off < size; off += (off_t)sizeof(buf))
		assert_int_equal(pwrite(fd, buf, sizeof(buf), off), sizeof(buf));
	if (how == 'u')
		assert_int_equal(fallocate(fd, 0, 0, size), 0);
	if (how == 's')
		assert_int_equal(ftruncate(fd, size), 0);
	close(fd);
}

/* The sum of the numbers following each @key in [@from, @to). */
static unsigned long long sum_of(const char *from, const char *to, const char *key)
{
	unsigned long long sum = 0;

	while ((from = strstr(from, key)) && from < to) {
		from += strlen(key);
		sum += strtoull(from, NULL, 10);
	}
	return sum;
}

/* verify --json DIR: each count of "total" is the sum over "files". */
static void totals_are_sums(void)
{
	static const char *const keys[] = {
		"\"length\":", "\"written_bytes\":", "\"unwritten_bytes\":", "\"hole_bytes\":",
	};
	const char *files = strstr(out, "\"files\":["), *total = strstr(out, "\"total\":{");

	assert_non_null(files);
	assert_non_null(total);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (sum_of(files, total, keys[i]) != sum_of(total, total + strlen(total), keys[i]))
			fail_msg("total %s is not the sum over the files:\n%s", keys[i], out);
}

/*
 * verify DIR: every regular file below, whole, and the total; a symlink and
 * another filesystem mounted inside are left out, a file the user cannot
 * open is listed and the walk goes on.  Exit 0 once every file is written.
 */
static void verify_tree(void **state)
{
	struct tfs t = { 0 };
	char top[256], sub[300], other[300], full[300], link[300];

	(void)state;
	if (geteuid() != 0 || !tfs_supported("ext4"))
		skip();
	skip_unless_runs_as(65534);
	assert_int_equal(tfs_create(&t, "ext4", 64, NULL), 0);
	tfs_path(&t, "tree", top, sizeof(top));
	snprintf(sub, sizeof(sub), "%s/sub", top);
	snprintf(other, sizeof(other), "%s/other", top);
	snprintf(full, sizeof(full), "%s/full", top);
	snprintf(link, sizeof(link), "%s/link", top);
	assert_int_equal(mkdir(top, 0755), 0);
	assert_int_equal(mkdir(sub, 0755), 0);
	assert_int_equal(mkdir(other, 0755), 0);
	tree_file(top, "full", 'w', 1 << 20);
	tree_file(top, "unw", 'u', 1 << 20);
	tree_file(top, "sub/sparse", 's', 1 << 20);
	tree_file(top, "empty", 's', 0);
	assert_int_equal(symlink("full", link), 0);
	assert_int_equal(mount("tmpfs", other, "tmpfs", 0, "size=1m"), 0);
	tree_file(other, "elsewhere", 's', 4096);

	assert_int_equal(run_tool("verify --json %s", top), 1);
	assert_out_hasf("{\"path\":\"%s/full\",\"offset\":0,\"length\":1048576,\"written_bytes\":"
			"1048576,\"unwritten_bytes\":0,\"hole_bytes\":0,", top);
	assert_out_hasf("{\"path\":\"%s/sub/sparse\",\"offset\":0,\"length\":1048576,"
			"\"written_bytes\":0,\"unwritten_bytes\":0,\"hole_bytes\":1048576,", top);
	assert_out_hasf("{\"path\":\"%s/unw\",\"offset\":0,\"length\":1048576,\"written_bytes\":0,"
			"\"unwritten_bytes\":1048576,\"hole_bytes\":0,", top);
	assert_out_has("\"total\":{\"files\":4,\"empty_files\":1,\"errors\":0,\"length\":3145728,"
		       "\"written_bytes\":1048576,\"unwritten_bytes\":1048576,\"hole_bytes\":1048576,",
		       "\"fully_written\":false}}");
	assert_null(strstr(out, "/link\""));
	assert_null(strstr(out, "/elsewhere\""));
	totals_are_sums();
	assert_int_equal(run_tool("verify %s", top), 1);
	assert_out_hasf("%s/unw: [0 B, 1 MiB): written 0 B, unwritten 1 MiB, holes 0 B", top);
	assert_out_has("\ntotal: 3 MiB in 4 files (1 empty, 0 errors): written 1 MiB, "
		       "unwritten 1 MiB, holes 1 MiB, shared 0 B: NOT fully written\n");

	/* Each file is counted whole: a range is refused. */
	assert_int_equal(run_tool("verify --offset 4K %s", top), 2);
	assert_err_has("prealloc: --offset does not apply to a directory");
	assert_int_equal(run_tool("verify --length 1M --json %s", top), 2);
	assert_err_has("prealloc: --length does not apply to a directory");
	assert_string_equal(out, "");

	assert_int_equal(run_tool("run --length 1M %s/unw", top), 0);
	assert_int_equal(run_tool("run --length 1M %s/sub/sparse", top), 0);
	assert_int_equal(run_tool("verify --json %s", top), 0);
	assert_out_has("\"total\":{\"files\":4,\"empty_files\":1,\"errors\":0,\"length\":3145728,"
		       "\"written_bytes\":3145728,\"unwritten_bytes\":0,\"hole_bytes\":0,",
		       "\"fully_written\":true}}");
	totals_are_sums();
	assert_int_equal(run_tool("verify %s", top), 0);
	assert_out_has("(1 empty, 0 errors): written 3 MiB, unwritten 0 B, holes 0 B, shared 0 B: "
		       "fully written\n");

	assert_int_equal(chmod(full, 0), 0);
	assert_int_equal(run_as(65534, "verify --json %s", top), 1);
	assert_out_hasf("{\"path\":\"%s/full\",\"error\":\"Permission denied\"}", top);
	assert_out_has("\"errors\":1,\"length\":2097152,\"written_bytes\":2097152,",
		       "\"fully_written\":false}}");
	assert_err_has("/full: Permission denied");
	assert_int_equal(umount(other), 0);
	tfs_destroy(&t);
}

static void operational_errors(void **state)
{
	(void)state;
	assert_int_equal(run_tool("run --length 1M %s/nodir/f", dir), 1);
	assert_err_has("prealloc: ", "/nodir/f: No such file or directory");
	assert_int_equal(run_tool("run --length 1M %s", dir), 1);	/* a directory */
	assert_err_has("prealloc: ");
	assert_int_equal(run_tool("run --length 8E %s/f", dir), 1);	/* too large */
	assert_err_has("too large");
}

static void out_of_space(void **state)
{
	struct tfs t;
	char path[256];
	struct stat st;

	(void)state;
	if (geteuid() != 0 || !tfs_supported("ext4"))
		skip();
	assert_int_equal(tfs_create(&t, "ext4", 64, NULL), 0);
	tfs_path(&t, "f", path, sizeof(path));
	assert_int_equal(run_tool("run --length 1G %s", path), 1);
	assert_err_has("out of space");
	/* The tool created the file: a failed run removes it again. */
	assert_int_equal(stat(path, &st), -1);
	assert_int_equal(errno, ENOENT);
	tfs_destroy(&t);
}

/*
 * SIGTERM cancels a run: exit 1, the report still printed (background bits
 * included), the file it created removed.  The signal goes once the call is
 * under way (the file has blocks: the handler is installed before the file
 * is created); at 64 KiB/s over 64 MiB it is still running then.
 */
static void signal_cancels(void **state)
{
	char args[512], path[256];
	siginfo_t ended = { 0 };
	struct stat st;
	pid_t pid;
	int tries = 0;

	(void)state;
	snprintf(path, sizeof(path), "%s/sig", dir);
	snprintf(args, sizeof(args), "run --background --rate 64K --json --length 64M %s", path);
	pid = spawn_as(-1, args);
	assert_true(pid > 0);
	/* Waiting for a state, bounded at a minute; a tool that ended fails. */
	while ((stat(path, &st) || !st.st_blocks) && ++tries < 60000 &&
	       !waitid(P_PID, (id_t)pid, &ended, WEXITED | WNOHANG | WNOWAIT) && !ended.si_pid)
		usleep(1000);
	assert_int_equal(ended.si_pid, 0);
	assert_int_equal(kill(pid, SIGTERM), 0);
	assert_int_equal(wait_tool(pid), 1);
	assert_out_has("\"error\":\"Operation canceled\"", "\"background\":[");
	assert_err_has("cancelled; the file is as it was");
	assert_int_equal(stat(path, &st), -1);
	assert_int_equal(errno, ENOENT);
}

static void version_and_help(void **state)
{
	(void)state;
	assert_int_equal(run_tool("--version"), 0);
	assert_out_has("prealloc ");
	assert_int_equal(run_tool("--help"), 0);
	assert_out_has("run", " 3  not supported here");
}

/* probe --json on this machine's loop device: the chain, the queue limits
 * (with the 6.17 unmap and 6.11 atomic-write ones), signatures, the verdict
 * and the fact that decided it. */
/* Options that do not apply are refused (exit 2, with the reason), never
 * ignored, and before anything is created or written. */
static void options_that_do_not_apply(void **state)
{
	struct tfs t = { 0 };
	char nf[160];

	(void)state;
	snprintf(nf, sizeof(nf), "%s/nf", dir);
	assert_int_equal(run_tool("run --force --length 1M %s", nf), 2);
	assert_err_has("prealloc: --force applies to block devices only");
	assert_int_equal(access(nf, F_OK), -1);
	assert_int_equal(run_tool("run --method buffered --queue-depth 4 --length 1M %s", nf), 2);
	assert_err_has("prealloc: --queue-depth tunes the uring and aio methods only");
	assert_int_equal(run_tool("run --method uring --request-size 1M --length 64K %s", nf), 0);
	assert_int_equal(run_tool("run --method aio --queue-depth 2 --length 64K %s", nf), 0);
	assert_int_equal(unlink(nf), 0);
	assert_int_equal(run_tool("pool --segment-size 1M --max-rate 1M %s", dir), 2);
	assert_err_has("prealloc: --rate applies only with --count");
	if (geteuid() != 0 || tfs_loop(&t, 16, false) < 0)
		skip();
	assert_int_equal(tfs_sh("printf SIGN | dd of=%s conv=notrunc status=none", t.dev), 0);
	assert_int_equal(run_tool("run --keep-size --zero-data --length 1M %s", t.dev), 2);
	assert_err_has("prealloc: --keep-size does not apply to a block device");
	assert_int_equal(tfs_sh("head -c 4 %s | grep -q SIGN", t.dev), 0);
	assert_int_equal(run_tool("probe --keep-size %s", t.dev), 2);
	tfs_destroy(&t);
}

/* util-linux's close_stdout: output that could not be written is a failure. */
static void stdout_write_error(void **state)
{
	char cmd[512], ef[160], of[160];

	(void)state;
	out_paths(of, ef, sizeof(of));
	snprintf(cmd, sizeof(cmd), "'%s' probe --json '%s' >/dev/full 2>'%s'", tool, tool, ef);
	assert_int_equal(WEXITSTATUS(system(cmd)), 1);
	slurp(ef, err, sizeof(err));
	assert_string_equal(err, "prealloc: write error: No space left on device\n");
	snprintf(cmd, sizeof(cmd), "'%s' --version >/dev/full 2>/dev/null", tool);
	assert_int_equal(WEXITSTATUS(system(cmd)), 1);
}

static void probe_loop_device(void **state)
{
	struct tfs t = { 0 };

	(void)state;
	if (geteuid() != 0)
		skip();
	skip_unless_runs_as(65534);
	if (tfs_loop(&t, 16, false) < 0)
		skip();
	assert_int_equal(run_tool("probe --json %s", t.dev), 0);
	assert_out_has("\"kind\":\"block-device\"", "\"role\":\"loop\"", "\"backing_file\":",
		       "\"signatures\":\"\"", "\"write_zeroes_unmap_max_hw_bytes\":",
		       "\"atomic_write_unit_max_bytes\":", "\"atomic_write\":{",
		       "\"decided_by\":\"", "\"plan\":{\"method\":\"zeroout\"");
	/* Text: a plain fact between groups (signatures) leaves no blank line. */
	assert_int_equal(run_tool("probe %s", t.dev), 0);
	assert_out_has("\n  signatures: none\n  request: ");
	assert_null(strstr(out, "\n\n"));

	/* A user without access to the device node still gets the facts;
	 * only what needs reading the device (signatures) is unknown. */
	assert_int_equal(run_as(65534, "probe --json %s", t.dev), 0);
	assert_out_has("\"role\":\"loop\"", "\"signatures\":null",
		       "\"plan\":{\"method\":\"zeroout\"");
	tfs_destroy(&t);
}

/* probe --json over a captured NVMe tree (PREALLOC_SYSFS_ROOT): the same
 * facts the probe always showed, plus the verdict, its fact and the limits. */
static void probe_captured_nvme(void **state)
{
	const char *scripts = getenv("PROBE_SCRIPTS");
	char path[160], tree[200], sys[220];
	struct stat st;
	int fd;

	(void)state;
	if (!scripts)
		skip();
	snprintf(tree, sizeof(tree), "%s/tree", dir);
	fd = new_file("nv", path, sizeof(path));
	assert_int_equal(fstat(fd, &st), 0);
	close(fd);
	assert_int_equal(tfs_sh("sh '%s/make-tree.sh' %u:%u '%s' >/dev/null", scripts,
				major(st.st_dev), minor(st.st_dev), tree), 0);
	snprintf(sys, sizeof(sys), "%s/sys", tree);
	setenv("PREALLOC_SYSFS_ROOT", sys, 1);
	assert_int_equal(run_tool("probe --json %s", path), 0);
	unsetenv("PREALLOC_SYSFS_ROOT");
	assert_out_has("\"role\":\"partition\"", "\"name\":\"nvme0n1\"", "\"transport\":\"nvme\"",
		       "\"write_zeroes_unmap_max_bytes\":1044480", "\"nvme\":{\"dlfeat\":null",
		       "\"write_zeroes_unmap\":true",
		       "\"evidence\":\"nvme0n1: queue/write_zeroes_unmap_max_bytes = 1044480\"",
		       "\"decided_by\":\"", "\"atomic_write_unit_max_bytes\":512",
		       "\"atomic_write\":{");
}

static int setup(void **state)
{
	(void)state;
	tool = getenv("PREALLOC_TOOL");
	return tool && mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return tfs_rmtree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(run_and_verify),
		cmocka_unit_test(verify_sparse_fails),
		cmocka_unit_test(usage_errors),
		cmocka_unit_test(operational_errors),
		cmocka_unit_test(out_of_space),
		cmocka_unit_test(signal_cancels),
		cmocka_unit_test(version_and_help),
		cmocka_unit_test(size_suffixes),
		cmocka_unit_test(not_supported_exit),
		cmocka_unit_test(human_sizes),
		cmocka_unit_test(subcommand_help),
		cmocka_unit_test(probe_file),
		cmocka_unit_test(probe_new_file),
		cmocka_unit_test(verify_tree),
		cmocka_unit_test(probe_loop_device),
		cmocka_unit_test(options_that_do_not_apply),
		cmocka_unit_test(stdout_write_error),
		cmocka_unit_test(probe_captured_nvme),
	};

	/* Root: a private mount namespace for the out-of-space filesystem. */
	if (geteuid() == 0)
		tfs_enter();
	return cmocka_run_group_tests(tests, setup, teardown);
}

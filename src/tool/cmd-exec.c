/* SPDX-License-Identifier: MIT */
/*
 * `prealloc exec`: run a program, unchanged, so that the fallocate() calls
 * it makes to give a file space (mode 0, at least --min-size bytes) leave
 * written extents: the interposer for a dynamically linked C program, the
 * seccomp supervisor for everything else (Go, static binaries, scripts:
 * whatever they start).  Either front end only hands the call here; each
 * is converted by a worker process with the caller's rights
 * (src/tool/exec-serve.c).  This process stays the program's parent: it
 * passes its signals on, reaps what it leaves, and ends with its exit
 * status and a summary.  Everything that can fail is set up before the
 * program starts; nothing of it but the interposer's socket address
 * reaches the program.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "cmd-exec.h"
#include "exec-fdpass.h"
#include "exec-listen.h"
#include "exec-program.h"
#include "exec-proto.h"
#include "exec-serve.h"
#include "exec-supervise.h"

#define INTERPOSER "libprealloc-exec.so"

enum exec_mode { MODE_AUTO, MODE_PRELOAD, MODE_SECCOMP };

/* A list of globs, each NUL-terminated, then "" (struct exec_cfg). */
struct globs {
	char *v;
	size_t len;
};

struct exec_opts {
	enum exec_mode mode;
	uint64_t min;
	struct globs paths, excluded, unordered;
	const char *log;
	bool quiet, dry_run;
};

/* Signals this process passes on to the program. */
static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2,
				 SIGWINCH, SIGCONT };

static void usage(void)
{
	fputs("Usage:\n"
	      " prealloc exec [options] [--] PROGRAM [ARGS...]\n"
	      "\nRun PROGRAM so that its fallocate() and posix_fallocate() calls that give a\n"
	      "regular file space (mode 0) leave written extents rather than unwritten ones,\n"
	      "by the library's cheapest method; its children and threads too.  Each such\n"
	      "call blocks until the range is zeroed, done with the caller's own rights and\n"
	      "limits.  Calls that cannot be converted so are made as they were: the program\n"
	      "sees what fallocate() would have returned.\n"
	      "The zeros are ordered against the program's own writes to the range:\n"
	      "where the filesystem offers no way to (ext4), the call is made as it was.\n"
	      "\nOptions:\n"
	      "     --min-size N   convert calls of at least N bytes (default 1M)\n"
	      "     --path GLOB    convert only files whose path matches GLOB (repeatable)\n"
	      "     --exclude GLOB never convert files whose path matches GLOB (repeatable)\n"
	      "     --unordered GLOB  convert these without ordering: PROGRAM never writes\n"
	      "                    a range while it fallocate()s it (repeatable)\n"
	      "     --dry-run      convert nothing; report per file pattern what converting\n"
	      "                    would write and what PROGRAM kept of it\n"
	      "     --log FILE     append one JSON line per call to FILE (not a symlink)\n"
	      "     --mode MODE    auto (default), preload (the interposer, for dynamically\n"
	      "                    linked C programs) or seccomp (the supervisor, for any)\n"
	      "     --quiet        no summary at the end\n"
	      " -h, --help         show this help\n"
	      "\nExit status: PROGRAM's, 128 + the signal that ended it, 127 when it cannot\n"
	      "be run, 1 when exec cannot start or the interposer was loaded by none of\n"
	      "PROGRAM's processes, 2 bad command line.\n", stdout);
}

/* @glob added to @g; false when out of memory. */
static bool add_glob(struct globs *g, const char *glob)
{
	size_t n = strlen(glob) + 1;
	char *p = realloc(g->v, g->len + n + 1);

	if (!p)
		return false;
	memcpy(p + g->len, glob, n);
	g->len += n;
	p[g->len] = '\0';
	g->v = p;
	return true;
}

static int parse(int argc, char **argv, struct exec_opts *o)
{
	/* Long options alone: their letters mean other things in run. */
	enum { OPT_MIN = 256, OPT_PATH, OPT_EXCLUDE, OPT_UNORDERED, OPT_DRY_RUN, OPT_LOG, OPT_MODE,
	       OPT_QUIET };
	static const struct option lopts[] = {
		{ "min-size", required_argument, NULL, OPT_MIN },
		{ "path", required_argument, NULL, OPT_PATH },
		{ "exclude", required_argument, NULL, OPT_EXCLUDE },
		{ "unordered", required_argument, NULL, OPT_UNORDERED },
		{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
		{ "log", required_argument, NULL, OPT_LOG },
		{ "mode", required_argument, NULL, OPT_MODE },
		{ "quiet", no_argument, NULL, OPT_QUIET },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct globs *g;
	int c;

	*o = (struct exec_opts){ .min = EXEC_DEFAULT_MIN };
	while ((c = getopt_long(argc, argv, "+h", lopts, NULL)) != -1) {
		switch (c) {
		case OPT_MIN:
			if (cli_size_arg("exec", "--min-size", optarg, 1, UINT64_MAX, &o->min))
				return 2;
			break;
		case OPT_PATH:
		case OPT_EXCLUDE:
		case OPT_UNORDERED:
			g = c == OPT_PATH ? &o->paths : c == OPT_EXCLUDE ? &o->excluded :
			    &o->unordered;
			if (!add_glob(g, optarg)) {
				fprintf(stderr, "prealloc: exec: %s\n", strerror(ENOMEM));
				return 1;
			}
			break;
		case OPT_DRY_RUN:
			o->dry_run = true;
			break;
		case OPT_LOG:
			o->log = optarg;
			break;
		case OPT_MODE:
			if (!strcmp(optarg, "auto"))
				o->mode = MODE_AUTO;
			else if (!strcmp(optarg, "preload"))
				o->mode = MODE_PRELOAD;
			else if (!strcmp(optarg, "seccomp"))
				o->mode = MODE_SECCOMP;
			else
				return cli_usage_error("exec", "unknown --mode '%s'", optarg);
			break;
		case OPT_QUIET:
			o->quiet = true;
			break;
		case 'h':
			usage();
			return -1;
		default:
			return cli_usage_error("exec", NULL);
		}
	}
	if (optind >= argc)
		return cli_usage_error("exec", "no program given");
	return 0;
}

/* The interposer at @path (made absolute: every process of the program
 * loads it, wherever it is), if the dynamic loader can put it in a program
 * like this one: an ELF object of this machine, its path free of the
 * separators LD_PRELOAD splits on. */
static bool loadable(char *path)
{
	char abs[PATH_MAX];
	int fd;
	bool ok;

	if (!realpath(path, abs) || strpbrk(abs, " :"))
		return false;
	strcpy(path, abs);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	ok = fd >= 0 && exec_elf_native(fd);
	if (fd >= 0)
		close(fd);
	return ok;
}

/*
 * The interposer: PREALLOC_EXEC_PRELOAD if set; else beside this program
 * (a build tree), where the install put it relative to this program (a
 * prefix moved elsewhere), where the install put it.  False when none can
 * be loaded.
 */
static bool find_interposer(char buf[PATH_MAX])
{
	const size_t len = PATH_MAX;
	const char *env = secure_getenv("PREALLOC_EXEC_PRELOAD");
	char exe[PATH_MAX], *slash;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (env)
		return snprintf(buf, len, "%s", env) < (int)len && loadable(buf);
	exe[n > 0 ? n : 0] = '\0';
	slash = strrchr(exe, '/');
	if (slash) {
		*slash = '\0';
		if (snprintf(buf, len, "%s/%s", exe, INTERPOSER) < (int)len && loadable(buf))
			return true;
		if (*PREALLOC_EXEC_PRELOAD_REL &&
		    snprintf(buf, len, "%s/%s/%s", exe, PREALLOC_EXEC_PRELOAD_REL, INTERPOSER) <
			    (int)len && loadable(buf))
			return true;
	}
	return snprintf(buf, len, "%s", PREALLOC_EXEC_PRELOAD) < (int)len && loadable(buf);
}

/* The log, for this process alone to write: never through a symbolic link,
 * created 0600, a regular file.  The descriptor, or -1 (said why). */
static int open_log(const char *path)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY |
			    O_CLOEXEC, 0600);
	struct stat st;

	if (fd < 0) {
		fprintf(stderr, "prealloc: %s: %s\n", path, errno == ELOOP ?
			"a symbolic link: refused as --log" : strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		fprintf(stderr, "prealloc: %s: not a regular file: refused as --log\n", path);
		close(fd);
		return -1;
	}
	return fd;
}

/* The listener's descriptor, across the socket from the program's process
 * (or the error it met, as a negative number in the message). */
static int send_listener(int sock, int fd)
{
	int err = fd < 0 ? fd : 0;

	return exec_send_fds(sock, &err, sizeof(err), &fd, 1) < 0 ? -errno : 0;
}

static int recv_listener(int sock)
{
	int err = -EPROTO, fd;
	ssize_t n = exec_recv_fds(sock, &err, sizeof(err), &fd, 1, NULL, 0);

	if (n == (ssize_t)sizeof(err) && !err && fd >= 0)
		return fd;
	if (fd >= 0)
		close(fd);
	return n == (ssize_t)sizeof(err) && err ? err : -EPROTO;
}

/* What the launch needs, set up before the program starts. */
struct launch {
	const struct exec_program *prog;
	char **argv;
	bool seccomp;
	uint64_t min;
	char preload[PATH_MAX];		/* the interposer, when not seccomp */
	char sock_name[64];		/* its socket, for EXEC_ENV_SOCKET */
	const char *notify_name;	/* ours, for NOTIFY_SOCKET, or NULL */
	int listen_fds;			/* LISTEN_FDS given to this process */
	sigset_t old;
	int sv[2];			/* the listener, from the program's process */
};

/* Descriptors 3 to 3 + LISTEN_FDS - 1, when the service manager passed
 * them to this process (systemd's socket activation): the program's. */
static int passed_fds(void)
{
	const char *pid = getenv("LISTEN_PID"), *fds = getenv("LISTEN_FDS");
	int n = fds ? atoi(fds) : 0;

	if (!pid || atol(pid) != (long)getpid() || n <= 0)
		return 0;
	for (int fd = 3; fd < 3 + n; fd++)
		if (fcntl(fd, F_GETFD) < 0)
			return 0;	/* not as described: not ours to touch */
	return n;
}

/* @name naming this process (its parent, seen from the program's) names
 * the program instead. */
static int pass_on(const char *name)
{
	const char *v = getenv(name);
	char pid[16];

	if (!v || atol(v) != (long)getppid())
		return 0;
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	return setenv(name, pid, 1);
}

/* In the program's process: its environment, as the service manager gave
 * it for the program, with nothing of ours but what the interposer needs. */
static int program_env(const struct launch *l)
{
	extern char **environ;
	const char *old = getenv("LD_PRELOAD");
	char name[128], *v = NULL;
	int ret = pass_on("LISTEN_PID") | pass_on("WATCHDOG_PID");

	for (;;) {
		char **e = environ;

		while (e && *e && strncmp(*e, "PREALLOC_EXEC_", 14))
			e++;
		if (!e || !*e)
			break;
		if (snprintf(name, sizeof(name), "%.*s", (int)strcspn(*e, "="), *e) >=
		    (int)sizeof(name) || unsetenv(name))
			return -1;
	}
	if (l->notify_name)
		ret |= setenv("NOTIFY_SOCKET", l->notify_name, 1);
	if (l->seccomp)
		return ret;
	if (asprintf(&v, "%s%s%s", l->preload, old && *old ? ":" : "", old ? old : "") < 0)
		return -1;
	ret |= setenv("LD_PRELOAD", v, 1) | setenv(EXEC_ENV_SOCKET, l->sock_name, 1);
	free(v);
	return ret;
}

/* In the child: become the program. */
__attribute__((noreturn)) static void run_program(const struct launch *l)
{
	sigprocmask(SIG_SETMASK, &l->old, NULL);
	if (program_env(l))
		_exit(127);
	if (l->seccomp) {
		int fd = exec_filter_install(l->min);

		if (send_listener(l->sv[1], fd) < 0 || fd < 0)
			_exit(127);
		close(fd);
	}
	exec_program_run(l->prog, l->argv);
}

/* Everything the program's start needs, before it starts: 0, or the exit
 * status (said why). */
static int prepare(struct launch *l, struct exec_server *s, struct exec_notify *notify)
{
	sigset_t set;

	sigemptyset(&set);
	for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		sigaddset(&set, forwarded[i]);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, &l->old);
	s->sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (s->sfd < 0)
		goto fail;
	if (!l->seccomp && (s->sock = exec_listen_open(l->sock_name, sizeof(l->sock_name))) < 0) {
		errno = -s->sock;
		goto fail;
	}
	if (l->seccomp && socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, l->sv) < 0)
		goto fail;
	if (exec_notify_open(notify) < 0)
		goto fail;
	l->notify_name = notify->sock >= 0 ? notify->name : NULL;
	/* Orphans of the program (a daemon's first parent exits) come to us. */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0)
		goto fail;
	return 0;
fail:
	fprintf(stderr, "prealloc: exec: %s\n", strerror(errno));
	return 1;
}

static int launch(struct launch *l, struct exec_server *s)
{
	s->program = fork();
	if (s->program == 0)
		run_program(l);
	if (s->program < 0) {
		fprintf(stderr, "prealloc: exec: %s\n", strerror(errno));
		return 1;
	}
	close(l->prog->fd);
	if (l->listen_fds)
		close_range(3, 3 + (unsigned int)l->listen_fds - 1, 0);
	if (l->seccomp) {
		close(l->sv[1]);
		s->listener = recv_listener(l->sv[0]);
		close(l->sv[0]);
		if (s->listener < 0)
			fprintf(stderr, "prealloc: exec: no seccomp supervisor: %s\n",
				strerror(-s->listener));
	}
	exec_serve(s);
	return 0;
}

static int exit_status(int st)
{
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The interposer when auto chose it and it can be loaded, or the
 * supervisor; false when preload was asked for and cannot be had. */
static bool choose(const struct exec_opts *o, const struct exec_program *p, struct launch *l)
{
	bool found;

	l->seccomp = o->mode == MODE_SECCOMP || (o->mode == MODE_AUTO && !p->preloadable);
	if (l->seccomp)
		return true;
	found = find_interposer(l->preload);
	if (!found && o->mode == MODE_PRELOAD) {
		fprintf(stderr, "prealloc: exec: the interposer (%s) cannot be loaded: "
			"use --mode seccomp\n", INTERPOSER);
		return false;
	}
	if (!found && !o->quiet)
		fprintf(stderr, "prealloc exec: the interposer (%s) cannot be loaded: "
			"the supervisor takes %s's calls\n", INTERPOSER, p->path);
	l->seccomp = !found;
	return true;
}

/* The program of @argv run under @o: prealloc exec's exit status. */
static int run(const struct exec_opts *o, char **argv)
{
	struct exec_cfg cfg = { .convert = prealloc_file_ex };
	struct exec_server s = { .cfg = &cfg, .listener = -1, .sock = -1, .sfd = -1,
				 .log_fd = -1, .watch = EXEC_WATCH_INIT };
	struct launch l = { .listen_fds = passed_fds(), .sv = { -1, -1 } };
	struct exec_notify notify;
	struct exec_program prog;
	int ret = exec_program_open(argv[0], &prog);

	if (ret) {
		fprintf(stderr, "prealloc: %s: %s\n", argv[0], strerror(-ret));
		return 127;
	}
	l.prog = &prog;
	l.argv = argv;
	l.min = cfg.min = o->min;
	cfg.paths = o->paths.v;
	cfg.excluded = o->excluded.v;
	cfg.unordered = o->unordered.v;
	cfg.dry_run = o->dry_run;
	if (!choose(o, &prog, &l) || (o->log && (s.log_fd = open_log(o->log)) < 0))
		return 1;
	s.watch.log_fd = s.log_fd;
	s.notify = &notify;
	ret = prepare(&l, &s, &notify);
	if (!ret)
		ret = launch(&l, &s);
	if (ret)
		return ret;
	if (!o->quiet)
		exec_tally_print(&s.tally, !l.seccomp, o->dry_run, STDERR_FILENO);
	exec_tally_free(&s.tally);
	ret = exit_status(s.status);
	if (!l.seccomp && !s.tally.loaded) {
		fprintf(stderr, "prealloc exec: the interposer was loaded by none of %s's "
			"processes: its calls ran unconverted\n", prog.path);
		return ret ? ret : 1;
	}
	return ret;
}

int cmd_exec(int argc, char **argv)
{
	struct exec_opts o;
	int ret = parse(argc, argv, &o);

	if (ret < 0)		/* --help */
		ret = 0;
	else if (!ret)
		ret = run(&o, argv + optind);
	free(o.paths.v);
	free(o.excluded.v);
	free(o.unordered.v);
	return ret;
}

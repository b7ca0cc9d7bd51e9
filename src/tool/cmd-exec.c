/* SPDX-License-Identifier: MIT */
/*
 * `prealloc exec`: run a program, unchanged, so that the fallocate() calls
 * it makes to give a file space (mode 0, at least --min-size bytes) leave
 * written extents: the interposer for a dynamically linked C program, the
 * seccomp supervisor for everything else (Go, static binaries, scripts:
 * whatever they start).  This process stays the program's parent: it
 * serves the supervisor's calls, passes its signals on, reaps what it
 * leaves, and ends with its exit status and a summary.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "exec-supervise.h"
#include "cmd-exec.h"

enum exec_mode { MODE_AUTO, MODE_PRELOAD, MODE_SECCOMP };

struct exec_opts {
	enum exec_mode mode;
	uint64_t min;
	char *paths;			/* globs, '\n'-separated */
	const char *log;
	bool quiet;
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
	      "call blocks until the range is zeroed.  Calls the library cannot convert are\n"
	      "made as they were: the program sees what fallocate() would have returned.\n"
	      "\nOptions:\n"
	      "     --min-size N   convert calls of at least N bytes (default 1M)\n"
	      "     --path GLOB    convert only files whose path matches GLOB (repeatable)\n"
	      "     --log FILE     append one JSON line per call to FILE\n"
	      "     --mode MODE    auto (default), preload (the interposer, for dynamically\n"
	      "                    linked C programs) or seccomp (the supervisor, for any)\n"
	      "     --quiet        no summary at the end\n"
	      " -h, --help         show this help\n"
	      "\nExit status: PROGRAM's, 128 + the signal that ended it, 127 when it cannot\n"
	      "be run, 2 bad command line.\n", stdout);
}

/* PROGRAM as execvp() would find it. */
static bool find_program(const char *prog, char *buf, size_t len)
{
	const char *path = getenv("PATH");

	if (strchr(prog, '/'))
		return snprintf(buf, len, "%s", prog) < (int)len;
	for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
		size_t n = strcspn(p, ":");

		if (snprintf(buf, len, "%.*s/%s", (int)n, p, prog) < (int)len &&
		    access(buf, X_OK) == 0)
			return true;
		p += n + (p[n] == ':');
	}
	return false;
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

/* Only a dynamically linked program that is not Go calls fallocate()
 * through the C library, where the interposer finds it. */
static enum exec_mode choose(const char *path)
{
	enum exec_mode m = MODE_SECCOMP;
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return m;
	if (pread(fd, &eh, sizeof(eh), 0) == sizeof(eh) && !memcmp(eh.e_ident, ELFMAG, SELFMAG) &&
	    eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_phentsize == sizeof(ph)) {
		for (unsigned int i = 0; i < eh.e_phnum; i++)
			if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + i * sizeof(ph))) ==
			    sizeof(ph) && ph.p_type == PT_INTERP)
				m = MODE_PRELOAD;
		if (m == MODE_PRELOAD && go_sections(fd, &eh))
			m = MODE_SECCOMP;
	}
	close(fd);
	return m;
}

static int parse(int argc, char **argv, struct exec_opts *o)
{
	/* Long options alone: their letters mean other things in run. */
	enum { OPT_MIN = 256, OPT_PATH, OPT_LOG, OPT_MODE, OPT_QUIET };
	static const struct option lopts[] = {
		{ "min-size", required_argument, NULL, OPT_MIN },
		{ "path", required_argument, NULL, OPT_PATH },
		{ "log", required_argument, NULL, OPT_LOG },
		{ "mode", required_argument, NULL, OPT_MODE },
		{ "quiet", no_argument, NULL, OPT_QUIET },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	size_t plen = 0;
	int c;

	*o = (struct exec_opts){ .min = EXEC_DEFAULT_MIN };
	while ((c = getopt_long(argc, argv, "+h", lopts, NULL)) != -1) {
		switch (c) {
		case OPT_MIN:
			if (cli_size_arg("exec", "--min-size", optarg, 1, UINT64_MAX, &o->min))
				return 2;
			break;
		case OPT_PATH:
			o->paths = realloc(o->paths, plen + strlen(optarg) + 2);
			if (!o->paths)
				return 1;
			plen += (size_t)sprintf(o->paths + plen, "%s%s", plen ? "\n" : "", optarg);
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

/* @name = "fd:dev:ino" of @fd (unset for -1): the interposer takes it only
 * while it is still that file. */
static int set_fd_env(const char *name, int fd)
{
	struct stat st;
	char v[64];

	if (fd < 0 || fstat(fd, &st) < 0)
		return unsetenv(name);
	snprintf(v, sizeof(v), "%d:%llu:%llu", fd, (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino);
	return setenv(name, v, 1);
}

/* The interposer's environment: its options, the tally and the log as
 * descriptors, and it first in LD_PRELOAD. */
static int set_env(const struct exec_opts *o, int tally_fd, int log_fd, bool preload)
{
	const char *lib = secure_getenv("PREALLOC_EXEC_PRELOAD");
	const char *old = getenv("LD_PRELOAD");
	char num[32], *v;
	int ret = 0;

	snprintf(num, sizeof(num), "%llu", (unsigned long long)o->min);
	ret |= setenv(EXEC_ENV_MIN, num, 1);
	ret |= set_fd_env(EXEC_ENV_TALLY, tally_fd);
	ret |= o->paths ? setenv(EXEC_ENV_PATHS, o->paths, 1) : unsetenv(EXEC_ENV_PATHS);
	ret |= set_fd_env(EXEC_ENV_LOG, log_fd);
	if (!preload)
		return ret;
	if (!lib)
		lib = PREALLOC_EXEC_PRELOAD;
	if (asprintf(&v, "%s%s%s", lib, old && *old ? ":" : "", old ? old : "") < 0)
		return -1;
	ret |= setenv("LD_PRELOAD", v, 1);
	free(v);
	return ret;
}

/* The listener's descriptor, across the socket from the program's process
 * (or the error it met, as a negative number in the message). */
static int send_listener(int sock, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	int err = fd < 0 ? fd : 0;
	struct iovec iov = { .iov_base = &err, .iov_len = sizeof(err) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (fd >= 0) {
		m.msg_control = cbuf;
		m.msg_controllen = sizeof(cbuf);
		CMSG_FIRSTHDR(&m)->cmsg_level = SOL_SOCKET;
		CMSG_FIRSTHDR(&m)->cmsg_type = SCM_RIGHTS;
		CMSG_FIRSTHDR(&m)->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(CMSG_FIRSTHDR(&m)), &fd, sizeof(int));
	}
	return sendmsg(sock, &m, MSG_NOSIGNAL) < 0 ? -errno : 0;
}

static int recv_listener(int sock)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	int err = -EPROTO, fd;
	struct iovec iov = { .iov_base = &err, .iov_len = sizeof(err) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			    .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c;

	if (recvmsg(sock, &m, MSG_CMSG_CLOEXEC) <= 0)
		return -EPROTO;
	c = CMSG_FIRSTHDR(&m);
	if (err || !c || c->cmsg_type != SCM_RIGHTS)
		return err ? err : -EPROTO;
	memcpy(&fd, CMSG_DATA(c), sizeof(fd));
	return fd;
}

/* In the child: become the program. */
static void run_program(char **argv, const sigset_t *old, bool seccomp, uint64_t min, int sock)
{
	sigprocmask(SIG_SETMASK, old, NULL);
	if (seccomp) {
		int fd = exec_filter_install(min);

		if (send_listener(sock, fd) < 0 || fd < 0)
			_exit(127);
		close(fd);
	}
	if (sock >= 0)
		close(sock);
	execvp(argv[0], argv);
	fprintf(stderr, "prealloc: %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

struct parent {
	int sfd;			/* signalfd */
	pid_t child;
	int status;
	bool reaped;
};

/* A signal for us: the program's end, a child to reap, or one to pass on. */
static int on_signal(void *data)
{
	struct parent *p = data;
	struct signalfd_siginfo si;
	int st;
	pid_t pid;

	if (read(p->sfd, &si, sizeof(si)) != sizeof(si))
		return 0;
	if (si.ssi_signo != SIGCHLD) {
		/* Not once it is reaped (its pid may be another's), nor what
		 * the terminal sent the whole process group already. */
		if (!p->reaped && si.ssi_code != SI_KERNEL)
			kill(p->child, (int)si.ssi_signo);
		return 0;
	}
	while ((pid = waitpid(-1, &st, WNOHANG)) > 0)
		if (pid == p->child) {
			p->status = st;
			p->reaped = true;
		}
	return p->reaped;
}

static int exit_status(int st)
{
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int cmd_exec(int argc, char **argv)
{
	struct parent p = { .child = -1 };
	struct exec_cfg cfg;
	char path[PATH_MAX];
	struct exec_opts o;
	sigset_t set, old;
	int ret, sv[2] = { -1, -1 }, tfd, lfd = -1, listener = -1;
	bool seccomp;

	ret = parse(argc, argv, &o);
	if (ret)
		return ret < 0 ? 0 : ret;
	argv += optind;
	if (!find_program(argv[0], path, sizeof(path))) {
		fprintf(stderr, "prealloc: %s: %s\n", argv[0], strerror(ENOENT));
		return 127;
	}
	seccomp = (o.mode == MODE_AUTO ? choose(path) : o.mode) == MODE_SECCOMP;
	/* The tally every process of the program counts into, and the log:
	 * inherited. */
	tfd = memfd_create("prealloc-exec-tally", seccomp ? MFD_CLOEXEC : 0);
	if (o.log && (lfd = open(o.log, O_WRONLY | O_APPEND | O_CREAT |
				 (seccomp ? O_CLOEXEC : 0), 0644)) < 0) {
		fprintf(stderr, "prealloc: %s: %s\n", o.log, strerror(errno));
		return 1;
	}
	if (tfd < 0 || ftruncate(tfd, sizeof(*cfg.tally)) < 0 || set_env(&o, tfd, lfd, !seccomp) ||
	    (seccomp && socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)) {
		fprintf(stderr, "prealloc: exec: %s\n", strerror(errno));
		return 1;
	}
	sigemptyset(&set);
	for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		sigaddset(&set, forwarded[i]);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, &old);
	p.sfd = signalfd(-1, &set, SFD_CLOEXEC);
	/* Orphans of the program (a daemon's first parent exits) come to us. */
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	p.child = fork();
	if (p.child == 0)
		run_program(argv, &old, seccomp, o.min, sv[1]);
	if (p.child < 0 || p.sfd < 0) {
		fprintf(stderr, "prealloc: exec: %s\n", strerror(errno));
		return 1;
	}
	if (seccomp) {
		close(sv[1]);
		listener = recv_listener(sv[0]);
		close(sv[0]);
		if (listener < 0)
			fprintf(stderr, "prealloc: exec: no seccomp supervisor: %s\n",
				strerror(-listener));
	}
	exec_cfg_from_env(&cfg);	/* the same options as the interposer's */
	exec_supervise(listener, &cfg, p.sfd, on_signal, &p);
	if (!o.quiet && cfg.tally)
		exec_tally_print(cfg.tally, STDERR_FILENO);
	free(o.paths);
	free(cfg.paths);
	return exit_status(p.status);
}

/* SPDX-License-Identifier: MIT */
/*
 * Power loss at every flush point (tests/vm/README.md, "Crash points"): runs
 * inside a QEMU guest.  The workload (crash-work.c) runs on a filesystem on a
 * dm-log-writes device over the data disk, whose queue must report a volatile
 * write cache; the log is then replayed, linearly, onto a scratch disk, and
 * at each crash point a throwaway dm-snapshot of the scratch disk is mounted
 * (journal recovery), checked against the oracle (crash-check.c) and fsck'd.
 *
 *   crash FS MODE [mutants]
 *
 * FS is ext4 or xfs; MODE quick (crash points at flush, FUA and mark
 * entries), full (every entry, the file calls repeated to FULL_ENTRIES) or
 * reorder (quick, and at each flush up to REORDER_BUDGET subsets of the
 * writes it made durable: reorder.h).  With
 * "mutants" the workload is recorded again with each durability step of the
 * library removed in turn (PREALLOC_CRASH_MUTANT, honoured by the
 * -DPA_MUTANTS build linked here only), replayed in quick mode, and each
 * must produce a violation.  Devices come from /init:
 * PA_VM_CDATA, PA_VM_CLOG, PA_VM_CSCRATCH, PA_VM_CCOW.
 * Exit 0 only with no violation, no fsck error and every required mutant
 * caught (run_mutants()).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "crash.h"
#include "logwrites.h"
#include "reorder.h"
#include "stacks.h"
#include "tcheck.h"

#define LW_NAME "crashlog"
#define SNAP_NAME "crashsnap"
#define REC_MNT "/mnt/rec"
#define CHK_MNT "/mnt/chk"
#define READY_MARK "ready"
/* Full mode repeats the file calls, each round on new files, until the log
 * holds this many entries after "ready": every one is a crash point there. */
#define FULL_ENTRIES 1500
/* Every file's bytes are read at every this many crash points and at the
 * last one (in between only those of calls not yet settled: crash-check.c). */
#define SWEEP_EVERY 16
#define HARNESS_TRIES 3
/* Subsets checked per flush: all of them up to 4 writes, a sample above. */
#define REORDER_BUDGET 14
#define REORDER_SEED 0x2545f4914f6cdd1dull

struct crash_run {
	const char *fs, *data, *log, *scratch, *cow;
	bool full, reorder;
	struct cw_oracle *oracle;	/* shared with the recording child */
	/* results */
	unsigned long entries, points, violations, fsck;
	uint64_t seed;		/* the subsets' draw (ro_subsets()) */
	/* flushes making 2+ writes durable: seen, subset states checked, too
	 * big to keep (reorder.h), the most writes one made durable */
	unsigned long groups, reordered, skipped, largest;
	unsigned long retries;	/* rounds done again for a harness failure */
};

static const char *dev_env(const char *var)
{
	const char *p = getenv(var);

	if (!p)
		fprintf(stderr, "crash: no %s in this guest\n", var);
	return p;
}

/* Run @argv with its output in /tmp/cmd.log, shown when it fails. */
static int run_cmd(const char *const *argv)
{
	int status, fd;
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (!pid) {
		fd = open("/tmp/cmd.log", O_WRONLY | O_CREAT | O_TRUNC, 0600);
		dup2(fd, 1);
		dup2(fd, 2);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	if (WIFEXITED(status) && !WEXITSTATUS(status))
		return 0;
	fprintf(stderr, "crash: %s failed (status 0x%x):\n", argv[0], status);
	system("cat /tmp/cmd.log >&2");
	return 1;
}

/* The kernel must see a volatile write cache, or nothing is ever flushed. */
static int check_write_cache(const char *dev)
{
	char path[128], buf[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/block/%s/queue/write_cache", strrchr(dev, '/') + 1);
	f = fopen(path, "re");
	if (!f || !fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	if (f)
		fclose(f);
	printf("crash: %s write_cache: %s", dev, buf[0] ? buf : "?\n");
	return strncmp(buf, "write back", 10) ? -EINVAL : 0;
}

static int zero_device(const char *dev)
{
	int fd = open(dev, O_RDWR | O_CLOEXEC), r = 0;
	uint64_t range[2] = { 0, 0 };

	if (fd < 0)
		return -errno;
	if (ioctl(fd, BLKGETSIZE64, &range[1]) < 0 || ioctl(fd, BLKZEROOUT, range) < 0)
		r = -errno;
	close(fd);
	return r;
}

static int mkfs(const char *fs, const char *dev)
{
	const char *ext4[] = { "mke2fs", "-q", "-F", "-t", "ext4", "-b", "4096", "-E",
			       "nodiscard,lazy_itable_init=0,lazy_journal_init=0", dev,
			       NULL };
	const char *xfs[] = { "mkfs.xfs", "-q", "-f", "-K", dev, NULL };

	return run_cmd(strcmp(fs, "xfs") ? ext4 : xfs);
}

static int fsck(const char *fs, const char *dev)
{
	const char *ext4[] = { "e2fsck", "-fn", dev, NULL };
	const char *xfs[] = { "xfs_repair", "-n", dev, NULL };

	return run_cmd(strcmp(fs, "xfs") ? ext4 : xfs);
}

/* Progress (marks, crash points), shared with the recording child: the
 * watchdog's. */
static volatile unsigned long *beat;

static int mark(const char *text)
{
	++*beat;
	return lw_mark(LW_NAME, text);
}

static uint64_t ready_entries;	/* logged when "ready" was */

static bool until_full(void)
{
	uint64_t n;

	if (lw_logged_entries(LW_NAME, &n)) {
		fprintf(stderr, "crash: the log target's status: no entry count\n");
		return false;
	}
	return n - ready_entries < FULL_ENTRIES;
}

/* The workload in a child, so each recording reads its mutant afresh. */
static int record_workload(struct crash_run *r, const char *mutant)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (!pid) {
		if (mutant)
			setenv("PREALLOC_CRASH_MUTANT", mutant, 1);
		int ret = cw_run(REC_MNT "/w", r->full ? until_full : NULL, mark, r->oracle);

		if (ret)
			fprintf(stderr, "crash: workload: %s\n", strerror(-ret));
		fflush(stdout);
		_exit(ret ? 1 : 0);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -EIO;
}

/* mkfs through the log, stale bytes in the free space, then the workload. */
static int record(struct crash_run *r, const char *mutant)
{
	char lw[64];
	int ret, ret2;

	ret = zero_device(r->data);
	if (!ret)
		ret = lw_create(LW_NAME, r->data, r->log, lw, sizeof(lw));
	if (ret)
		return ret;
	ret = mkfs(r->fs, lw) ? -EIO : 0;
	if (!ret && mount(lw, REC_MNT, r->fs, 0, NULL) < 0)
		ret = -errno;
	if (ret)
		goto out;
	ret = mkdir(REC_MNT "/w", 0755) < 0 ? -errno : tc_fill_stale(REC_MNT, 32u << 20);
	if (!ret)
		sync();
	if (!ret)
		ret = mark(READY_MARK);
	if (!ret)
		ret = lw_logged_entries(LW_NAME, &ready_entries);
	if (!ret)
		ret = record_workload(r, mutant);
	if (umount(REC_MNT) < 0 && !ret)
		ret = -errno;
	ret2 = lw_check_enabled(LW_NAME);
	if (ret2 == -EIO) {
		/* The log disk failed (the harness's): nothing recorded counts. */
		fprintf(stderr, "crash: the log-writes target says logging_disabled\n");
		ret = -EAGAIN;
	}
	ret = ret ? ret : ret2;
out:
	ret2 = vm_dm_remove(LW_NAME);	/* logs "dm-log-writes-end" */
	return ret ? ret : ret2;
}

/* A subset of a flush's group (reorder.h) to leave on the snapshot. */
struct subset {
	const struct ro_group *g;
	const struct lw_log *log;
	uint64_t mask;
};

/* Turn the snapshot @snap (the whole group applied) into @sub's state. */
static int write_subset(const char *snap, const struct subset *sub)
{
	int fd = open(snap, O_RDWR | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	ret = ro_write(sub->g, sub->log, sub->mask, fd);
	if (!ret && fsync(fd) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/*
 * One crash point: a throwaway snapshot of the scratch disk as it is now
 * (@last: the end of the log), or with only @sub of the last flush's group
 * (NULL: all of it).  A failure of the harness itself (the scratch disk,
 * making, writing or dropping the snapshot) ends the replay: it says
 * nothing about the library.
 */
static int crash_point(struct crash_run *r, int sfd, const struct cw_seen *seen, bool last,
		       const char *where, const struct subset *sub)
{
	char origin[16], cow[16], params[64], snap[64];
	struct vm_dm_target t;
	uint64_t size;
	int ret;

	if (fsync(sfd) < 0 || ioctl(sfd, BLKGETSIZE64, &size) < 0 ||
	    vm_devnum(r->scratch, origin, sizeof(origin)) || vm_devnum(r->cow, cow, sizeof(cow))) {
		ret = -errno;
		printf("crash: %s: harness: scratch disk: %s\n", where, strerror(-ret));
		return ret;
	}
	snprintf(params, sizeof(params), "%s %s N 8", origin, cow);
	t = (struct vm_dm_target){ 0, size / 512, "snapshot", params };
	ret = vm_dm_create(SNAP_NAME, &t, 1, snap, sizeof(snap));
	if (ret) {
		printf("crash: %s: harness: snapshot: %s\n", where, strerror(-ret));
		return ret;
	}
	if (sub && (ret = write_subset(snap, sub))) {
		printf("crash: %s: harness: writing the subset: %s\n", where, strerror(-ret));
		vm_dm_remove(SNAP_NAME);
		return ret;
	}
	++*beat;
	if (++r->points % 250 == 0)	/* long full runs show they are alive */
		printf("crash: %lu crash points, %lu violations so far\n", r->points, r->violations);
	if (mount(snap, CHK_MNT, r->fs, 0, strcmp(r->fs, "xfs") ? NULL : "nouuid") < 0) {
		printf("VIOLATION %s: mount: %s\n", where, strerror(errno));
		r->violations++;
	} else {
		bool sweep = last || sub || r->points % SWEEP_EVERY == 0;

		r->violations += (unsigned long)cw_check(CHK_MNT "/w", r->oracle, seen, sweep,
							 where);
		if (umount(CHK_MNT) < 0)
			printf("crash: %s: umount: %s\n", where, strerror(errno));
	}
	if (fsck(r->fs, snap)) {
		printf("FSCK %s: %s reports errors\n", where, r->fs);
		r->fsck++;
	}
	return vm_dm_remove(SNAP_NAME);
}

/*
 * Before flush entry @idx is applied: the states where only a subset of the
 * writes it makes durable (@g, all applied to the scratch disk) had reached
 * the media, the marks as they are (@seen).
 */
static int reorder_points(struct crash_run *r, int sfd, const struct lw_log *log,
			  const struct ro_group *g, const struct cw_seen *seen, uint64_t idx)
{
	uint64_t masks[REORDER_BUDGET];
	char where[128];
	int n, ret = 0;

	if (g->total < 2)
		return 0;
	r->groups++;
	if ((unsigned long)g->total > r->largest)
		r->largest = (unsigned long)g->total;
	if (g->overflow) {
		r->skipped++;
		return 0;
	}
	n = ro_subsets(g->n, masks, REORDER_BUDGET, &r->seed);
	for (int i = 0; i < n && !ret; i++) {
		struct subset sub = { g, log, masks[i] };

		snprintf(where, sizeof(where), "entry %llu flush, kept 0x%llx of its %d writes",
			 (unsigned long long)idx, (unsigned long long)masks[i], g->n);
		ret = crash_point(r, sfd, seen, false, where, &sub);
		r->reordered++;
	}
	return ret;
}

/* Write @text to the /proc file @path; errors only reported. */
static void proc_write(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0 || write(fd, text, strlen(text)) < 0)
		fprintf(stderr, "crash: %s: %s\n", path, strerror(errno));
	if (fd >= 0)
		close(fd);
}

/*
 * A guest that stops making progress (a task blocked in the kernel) says
 * why only through the kernel: after WATCHDOG_S without a mark or a crash
 * point, print the blocked tasks' stacks on the console.
 */
#define WATCHDOG_S 150

static void watchdog(void)
{
	pid_t parent = getpid();
	unsigned long last = 0;
	char level[8];
	int quiet = 0;
	FILE *f;

	if (fork())
		return;
	while (getppid() == parent) {
		sleep(10);
		quiet = *beat == last ? quiet + 10 : 0;
		last = *beat;
		if (quiet != WATCHDOG_S)
			continue;
		printf("crash: no progress for %d s: blocked tasks follow\n", WATCHDOG_S);
		fflush(stdout);
		/* The stacks are KERN_INFO: the console's level is raised for them. */
		f = fopen("/proc/sys/kernel/printk", "re");
		if (!f || fscanf(f, "%7s", level) != 1)
			strcpy(level, "4");
		if (f)
			fclose(f);
		proc_write("/proc/sys/kernel/printk", "7");
		proc_write("/proc/sysrq-trigger", "w");
		proc_write("/proc/sys/kernel/printk", level);
	}
	_exit(0);
}

/* Follow the marks: "ready" arms the checks, B<i>/A<i> bracket call i. */
static void note_mark(const char *m, struct cw_seen *seen, bool *armed, bool *end)
{
	int i;

	if (!strcmp(m, READY_MARK))
		*armed = true;
	else if (!strcmp(m, "dm-log-writes-end"))
		*end = true;
	else if ((m[0] == 'B' || m[0] == 'A') && sscanf(m + 1, "%d", &i) == 1 && i >= 0 &&
		 i < CW_MAX_CALLS)
		(m[0] == 'B' ? seen->before : seen->after)[i] = true;
}

/* Apply @e, keeping the group of a flush to come up to date (reorder.h). */
static int replay_entry(struct crash_run *r, int sfd, const struct lw_log *log,
			const struct lw_entry *e, struct ro_group *g, const struct cw_seen *seen,
			bool armed)
{
	int ret = 0;

	if (r->reorder && armed && ro_plain(e)) {
		ret = ro_add(g, e, log->super.sectorsize, sfd);
	} else if (r->reorder && armed) {
		if (e->flags & LW_FLUSH)
			ret = reorder_points(r, sfd, log, g, seen, log->next - 1);
		ro_reset(g);
	}
	return ret ? ret : lw_apply(log, e, sfd);
}

static int replay(struct crash_run *r)
{
	struct cw_seen seen = { 0 };
	bool armed = false, end = false;
	struct ro_group *g = calloc(1, sizeof(*g));
	struct lw_log log;
	struct lw_entry e;
	char where[128];
	int sfd, ret;

	r->seed = REORDER_SEED;
	ret = g ? zero_device(r->scratch) : -ENOMEM;
	if (!ret)
		ret = lw_open(&log, r->log);
	if (ret) {
		free(g);
		return ret;
	}
	sfd = open(r->scratch, O_RDWR | O_CLOEXEC);
	if (sfd < 0) {
		ret = -errno;
		goto out;
	}
	while (!(ret = lw_next(&log, &e))) {
		ret = replay_entry(r, sfd, &log, &e, g, &seen, armed);
		if (ret)
			break;
		r->entries++;
		if (e.flags & LW_MARK)
			note_mark(e.mark, &seen, &armed, &end);
		if (!armed || (!r->full && !(e.flags & (LW_FLUSH | LW_FUA | LW_MARK))))
			continue;
		snprintf(where, sizeof(where), "entry %llu%s%s%s%s", (unsigned long long)log.next - 1,
			 e.flags & LW_FLUSH ? " flush" : "", e.flags & LW_FUA ? " fua" : "",
			 e.flags & LW_MARK ? " mark " : "", e.mark);
		ret = crash_point(r, sfd, &seen, end, where, NULL);
		if (ret)
			break;
	}
	close(sfd);
out:
	lw_close(&log);
	ro_reset(g);
	free(g);
	if (ret < 0)
		return ret;
	if (!end) {
		fprintf(stderr, "crash: the log does not end with dm-log-writes-end\n");
		return -EIO;
	}
	return 0;
}

/*
 * Record and replay; 0 when the harness itself worked.  A failure of the
 * harness (the log disk's writes, creating or removing a snapshot, the
 * scratch disk) says nothing about the library: the round is tried at most
 * HARNESS_TRIES times in all, unless it had already found something.
 */
static int round_trip(struct crash_run *r, const char *mutant)
{
	struct timespec t0, t1;
	bool harness;
	int ret;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int tries = 1;; tries++) {
		r->entries = r->points = r->violations = r->fsck = 0;
		r->groups = r->reordered = r->skipped = r->largest = 0;
		ret = record(r, mutant);
		harness = ret == -EAGAIN;
		if (!ret) {
			ret = replay(r);
			harness = ret < 0 && !r->violations && !r->fsck;
		}
		if (!harness || tries == HARNESS_TRIES)
			break;
		r->retries++;
		fprintf(stderr, "crash: harness failure (%s): recording again\n", strerror(-ret));
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (ret)
		fprintf(stderr, "crash: %s%s: %s\n", mutant ? "mutant " : "", mutant ? mutant : "",
			strerror(-ret));
	else
		printf("crash: %s%s: %lu entries, %lu crash points, %lu violations, %lu fsck "
		       "errors, %ld s\n", mutant ? "mutant " : "run", mutant ? mutant : "",
		       r->entries, r->points, r->violations, r->fsck, (long)(t1.tv_sec - t0.tv_sec));
	if (!ret && r->reorder)
		printf("crash: %lu flushes made 2 or more writes durable (at most %lu), %lu "
		       "subset states checked, %lu groups over %d writes or %u MiB not reordered\n",
		       r->groups, r->largest, r->reordered, r->skipped, RO_MAX, RO_MAX_BYTES >> 20);
	return ret;
}

/*
 * Each mutant must be caught (a violation or an fsck error).  pool-sync only
 * shows in the pool's second life (crash-pool.c), whose segments stay dirty
 * in the page cache until the data sync the mutant drops: with O_DIRECT the
 * data is on the device before the rename, and the directory fsync() after
 * it commits the journal with a cache flush that makes the data and its
 * extent conversion durable anyway.
 */
static int run_mutants(struct crash_run *r, int *caught, int *missed)
{
	static const char *const mutants[] = { "data-sync", "pool-sync", "dir-sync" };
	const int n = (int)(sizeof(mutants) / sizeof(mutants[0]));
	bool full = r->full, reorder = r->reorder;

	r->full = r->reorder = false;	/* the flush, FUA and mark points are where they show */
	*caught = *missed = 0;
	for (int i = 0; i < n; i++) {
		if (!round_trip(r, mutants[i]) && (r->violations || r->fsck)) {
			(*caught)++;
			continue;
		}
		printf("crash: mutant %s NOT caught\n", mutants[i]);
		(*missed)++;
	}
	r->full = full;
	r->reorder = reorder;
	return n;
}

static int setup(struct crash_run *r, int argc, char **argv)
{
	if (argc < 3 || (strcmp(argv[1], "ext4") && strcmp(argv[1], "xfs")) ||
	    (strcmp(argv[2], "quick") && strcmp(argv[2], "full") && strcmp(argv[2], "reorder"))) {
		fprintf(stderr, "usage: crash ext4|xfs quick|full|reorder [mutants]\n");
		return 2;
	}
	r->fs = argv[1];
	r->full = !strcmp(argv[2], "full");
	r->reorder = !strcmp(argv[2], "reorder");
	r->data = dev_env("PA_VM_CDATA");
	r->log = dev_env("PA_VM_CLOG");
	r->scratch = dev_env("PA_VM_CSCRATCH");
	r->cow = dev_env("PA_VM_CCOW");
	if (!r->data || !r->log || !r->scratch || !r->cow)
		return 77;
	if (check_write_cache(r->data)) {
		fprintf(stderr, "crash: no volatile write cache on %s: no flush points\n", r->data);
		return 1;
	}
	r->oracle = mmap(NULL, sizeof(*r->oracle), PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	beat = mmap(NULL, sizeof(*beat), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (r->oracle == MAP_FAILED || beat == MAP_FAILED ||
	    (mkdir(REC_MNT, 0755) && errno != EEXIST) || (mkdir(CHK_MNT, 0755) && errno != EEXIST))
		return 99;
	watchdog();
	return 0;
}

int main(int argc, char **argv)
{
	struct crash_run r = { 0 };
	int ret, caught = 0, missed = 0, nmut = 0;
	char kernel[64] = "?";
	FILE *f;

	setvbuf(stdout, NULL, _IOLBF, 0);	/* before setup() forks the watchdog */
	ret = setup(&r, argc, argv);
	if (ret)
		return ret;
	f = fopen("/proc/sys/kernel/osrelease", "re");
	if (f && fscanf(f, "%63s", kernel) != 1)
		strcpy(kernel, "?");
	if (f)
		fclose(f);
	if (round_trip(&r, NULL))
		return 1;
	unsigned long entries = r.entries, points = r.points, violations = r.violations,
		      fsck_errors = r.fsck, reordered = r.reordered;

	if (argc > 3 && !strcmp(argv[3], "mutants"))
		nmut = run_mutants(&r, &caught, &missed);
	printf("kernel=%s fs=%s mode=%s entries=%lu crash_points=%lu violations=%lu fsck=%lu "
	       "mutants=%d/%d harness_retries=%lu", kernel, r.fs,
	       r.full ? "full" : r.reorder ? "reorder" : "quick", entries, points, violations,
	       fsck_errors, caught, nmut, r.retries);
	if (r.reorder)
		printf(" subset_states=%lu", reordered);
	printf("\n");
	return violations || fsck_errors || missed || (nmut && !caught) ? 1 : 0;
}

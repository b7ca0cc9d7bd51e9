/* SPDX-License-Identifier: MIT */
/*
 * Model-based operation streams (root; skip otherwise).  One file per
 * filesystem takes a random stream of writes, truncates, punched holes,
 * fallocate()s (keep-size or not), reflinks and prealloc calls with random
 * flags, methods and ranges, and injected failures: cancelling at a random
 * progress call, forced methods the target refuses, requests that cannot
 * fit (ENOSPC before anything) and a filesystem filled up part way through
 * (ENOSPC in the middle).  A shadow image holds the expected bytes and size.
 * The process also holds POSIX record locks on the file, taken and released
 * at random through the stream, as SQLite and InnoDB hold theirs.
 * After every prealloc call the test checks:
 *   - the process's record locks, seen from another process, granule by
 *     granule, and the descriptor's status flags and offset: as before;
 *   - the bytes and the size (success: data kept or zeroed as asked, zeros
 *     elsewhere; failure: as before, except data a zero-data call zeroed);
 *   - allocation in whole blocks outside the range: unchanged on failure,
 *     nothing lost on success; on failure the range's whole blocks are
 *     allocated exactly as before;
 *   - the report: on success its byte counts add up to the range and
 *     `written` agrees with FIEMAP; on failure it counts at least the data
 *     bytes that were zeroed.
 *
 *   PREALLOC_MODEL_SEED=N   seed (default: random, always printed)
 *   PREALLOC_MODEL_STEPS=N  operations per filesystem (default 160)
 *   PREALLOC_MODEL_FS=xfs   one filesystem type only
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>

#include "prealloc.h"
#include "tassert.h"
#include "tcheck.h"
#include "tfs.h"

#define KiB (1ull << 10)
#define MiB (1ull << 20)
#define SPAN (8 * MiB)		/* the file lives in [0, SPAN) ... */
#define CAP (SPAN + 4 * MiB)	/* ... prealloc ranges may reach past it */
#define FAR (1ull << 40)
#define DEFAULT_STEPS 160
#define LOCK_GRAIN (64 * KiB)	/* the process's record locks, in [0, SPAN) */
#define LOCK_GRAINS ((int)(SPAN / LOCK_GRAIN))
#define OFFSET 4321		/* the descriptor's offset, never moved */
#define PA_MIN_U(a, b) ((a) < (b) ? (a) : (b))
#define PA_MAX_U(a, b) ((a) > (b) ? (a) : (b))
#define PA_ROUND_DOWN_U(x, a) ((x) / (a) * (a))
#define PA_ROUND_UP_U(x, a) (((x) + (a) - 1) / (a) * (a))

static uint64_t pick(struct tc_rng *r, uint64_t lo, uint64_t hi, uint64_t bs)
{
	uint64_t v = lo + tc_below(r, hi - lo + 1);
	unsigned int k = (unsigned int)tc_below(r, 10);

	if (k < 4)
		v = v / bs * bs;
	else if (k < 5)
		v = v / 512 * 512;
	return v < lo ? lo : v;
}

struct model {
	struct tc_rng r;
	const char *type;
	const struct tfs *t;
	int fd, src;		/* the file; a reflink source */
	uint64_t bs;
	bool reflink, cow;
	bool no_fallocate;	/* indirect-block ext4: writes allocate as they go */
	uint8_t *img;		/* expected bytes of [0, size) */
	uint64_t size;
	uint32_t tag;
	unsigned int step;
	unsigned int calls;
	unsigned int failed[4];	/* -ECANCELED, -EOPNOTSUPP, -ENOSPC, -ENOSPC part way */
	char locks[LOCK_GRAINS];	/* the process's locks: 0, 'r' or 'w' */
	int flags;		/* the descriptor's status flags */
	char log[160];		/* the current operation, for failure messages */
};

/* A failed check ends this filesystem's stream, saying where it was. */
#define expect_step(m, cond, ...) do {							\
	if (!expect_msg(cond, __VA_ARGS__)) {						\
		fprintf(stderr, "  %s step %u: %s\n", (m)->type, (m)->step, (m)->log);	\
		return -1;								\
	}										\
} while (0)

static uint64_t allocated(int fd, uint64_t off, uint64_t end)
{
	struct prealloc_census c = { .size = sizeof(c) };

	if (end <= off)
		return 0;
	if (prealloc_verify(fd, off, end - off, &c))
		return UINT64_MAX;
	return c.written_bytes + c.unwritten_bytes + c.unknown_bytes;
}

static int check_bytes(struct model *m)
{
	uint8_t *got = malloc(m->size + 1);
	struct stat st;
	int64_t n;

	expect_step(m, got, "out of memory");
	expect_step(m, fstat(m->fd, &st) == 0 && (uint64_t)st.st_size == m->size,
	      "size %" PRIu64 ", model %" PRIu64, (uint64_t)st.st_size, m->size);
	n = tc_read(m->fd, got, m->size);
	for (uint64_t i = 0; n == (int64_t)m->size && i < m->size; i++)
		if (got[i] != m->img[i]) {
			n = -1 - (int64_t)i;
			break;
		}
	free(got);
	expect_step(m, n == (int64_t)m->size, "bytes differ at %" PRId64, -1 - n);
	return 0;
}

/* --- plain operations on the file, mirrored in the model ------------------- */

static void set_size(struct model *m, uint64_t size)
{
	if (size > m->size)
		memset(m->img + m->size, 0, size - m->size);
	m->size = size;
}

static int op_write(struct model *m)
{
	uint64_t off = pick(&m->r, 0, SPAN - 1, m->bs);
	uint64_t len = pick(&m->r, 1, PA_MIN_U(256 * KiB, SPAN - off), m->bs);

	snprintf(m->log, sizeof(m->log), "write [%" PRIu64 ", +%" PRIu64 ")", off, len);
	if (off + len > m->size)
		set_size(m, off + len);
	return tc_write_pattern(m->fd, m->img, ++m->tag, off, len);
}

static int op_truncate(struct model *m)
{
	uint64_t size = pick(&m->r, 0, SPAN, m->bs);

	snprintf(m->log, sizeof(m->log), "truncate %" PRIu64, size);
	set_size(m, size);
	return ftruncate(m->fd, (off_t)size) < 0 ? -errno : 0;
}

static int op_punch(struct model *m)
{
	uint64_t off = pick(&m->r, 0, SPAN - 1, m->bs);
	uint64_t len = pick(&m->r, 1, PA_MIN_U(1 * MiB, SPAN - off), m->bs);

	snprintf(m->log, sizeof(m->log), "punch [%" PRIu64 ", +%" PRIu64 ")", off, len);
	if (off < m->size)
		memset(m->img + off, 0, PA_MIN_U(len, m->size - off));
	return fallocate(m->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off,
			 (off_t)len) < 0 ? -errno : 0;
}

static int op_fallocate(struct model *m)
{
	uint64_t off = pick(&m->r, 0, CAP - 1, m->bs);
	uint64_t len = pick(&m->r, 1, PA_MIN_U(1 * MiB, CAP - off), m->bs);
	bool keep = tc_below(&m->r, 2) || off + len > SPAN;

	snprintf(m->log, sizeof(m->log), "fallocate%s [%" PRIu64 ", +%" PRIu64 ")",
		 keep ? " keep-size" : "", off, len);
	if (fallocate(m->fd, keep ? FALLOC_FL_KEEP_SIZE : 0, (off_t)off, (off_t)len) < 0)
		return errno == EOPNOTSUPP && m->no_fallocate ? 0 : -errno;
	if (!keep && off + len > m->size)
		set_size(m, off + len);
	return 0;
}

static int op_reflink(struct model *m)
{
	uint64_t soff = PA_ROUND_DOWN_U(tc_below(&m->r, SPAN), m->bs);
	uint64_t doff = PA_ROUND_DOWN_U(tc_below(&m->r, SPAN), m->bs);
	uint64_t len = PA_ROUND_DOWN_U(pick(&m->r, m->bs, 512 * KiB, m->bs), m->bs);
	struct file_clone_range fcr;

	len = PA_MIN_U(len, PA_MIN_U(SPAN - soff, SPAN - doff));
	snprintf(m->log, sizeof(m->log), "reflink [%" PRIu64 ", +%" PRIu64 ") to %" PRIu64,
		 soff, len, doff);
	if (!len)
		return 0;
	fcr = (struct file_clone_range){ .src_fd = m->src, .src_offset = soff,
					 .src_length = len, .dest_offset = doff };
	if (ioctl(m->fd, FICLONERANGE, &fcr) < 0)
		return -errno;
	if (doff + len > m->size)
		set_size(m, doff + len);
	tc_pattern(m->img + doff, 1000, soff, len);
	return 0;
}

/* --- prealloc with injected failures --------------------------------------- */

enum fault { F_NONE, F_CANCEL, F_TOO_BIG, F_FILL };

struct inject {
	enum fault fault;
	unsigned int at;	/* progress call that cancels or fills */
	unsigned int calls;
	const char *dir;
	int filler;
};

/* Fill the filesystem: fallocate() what statfs calls free, in halves. */
static void fill_up(struct inject *in)
{
	char path[128];
	struct statfs s;
	uint64_t pos = 0;

	snprintf(path, sizeof(path), "%s/filler", in->dir);
	in->filler = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (in->filler < 0 || fstatfs(in->filler, &s) < 0)
		return;
	bool falloc = true;

	for (uint64_t n = (uint64_t)s.f_bavail * s.f_bsize; n >= 64 * KiB && falloc;) {
		if (fallocate(in->filler, 0, (off_t)pos, (off_t)n) == 0)
			pos += n;
		else if (errno == EOPNOTSUPP)
			falloc = false;
		else
			n /= 2;
	}
	/* Without fallocate(): writes, which reserve their blocks at once. */
	for (uint64_t n = 1 * MiB; !falloc && n >= 4 * KiB;) {
		static const uint8_t ones[1 * MiB] = { 1 };
		ssize_t w = pwrite(in->filler, ones, n, (off_t)pos);

		if (w > 0)
			pos += (uint64_t)w;
		else
			n /= 2;
	}
}

static int progress(uint64_t done, uint64_t total, void *data)
{
	struct inject *in = data;

	(void)done;
	(void)total;
	if (++in->calls != in->at)
		return 0;
	if (in->fault == F_FILL)
		fill_up(in);
	return in->fault == F_CANCEL;
}

/* Success: the range reads its data (or zeros), the size is as promised. */
static void apply_success(struct model *m, uint64_t off, uint64_t end, unsigned int flags)
{
	uint64_t new_size = flags & PREALLOC_KEEP_SIZE ? m->size : PA_MAX_U(m->size, end);

	set_size(m, new_size);
	if (flags & PREALLOC_ZERO_DATA && off < m->size)
		memset(m->img + off, 0, PA_MIN_U(end, m->size) - off);
}

/* Failure: every byte of the range is as before, or zero (zero-data).
 * The model takes what the file holds; returns the data bytes zeroed. */
static int64_t take_failure(struct model *m, uint64_t off, uint64_t end, unsigned int flags)
{
	uint64_t e = PA_MIN_U(end, m->size), zeroed = 0;
	uint8_t *got;

	if (off >= e)
		return 0;
	got = malloc(e - off);
	if (!got || pread(m->fd, got, e - off, (off_t)off) != (ssize_t)(e - off)) {
		free(got);
		return -1;
	}
	for (uint64_t i = 0; i < e - off; i++) {
		if (got[i] == m->img[off + i])
			continue;
		if (got[i] != 0 || !(flags & PREALLOC_ZERO_DATA)) {
			fprintf(stderr, "%s step %u: %s: byte %" PRIu64 " is %#x, was %#x\n",
				m->type, m->step, m->log, off + i, got[i], m->img[off + i]);
			free(got);
			return -1;
		}
		zeroed++;
	}
	memcpy(m->img + off, got, e - off);
	free(got);
	return (int64_t)zeroed;
}

static int check_report(struct model *m, uint64_t off, uint64_t len,
			const struct prealloc_report *r)
{
	struct prealloc_census c = { .size = sizeof(c) };
	bool fiemap_written;

	expect_step(m, r->bytes_zeroed + r->bytes_kept + r->bytes_reserved == len,
	      "report: zeroed %" PRIu64 " + kept %" PRIu64 " + reserved %" PRIu64 " != %" PRIu64,
	      r->bytes_zeroed, r->bytes_kept, r->bytes_reserved, len);
	expect_step(m, prealloc_verify(m->fd, off, len, &c) == 0, "verify failed");
	fiemap_written = c.written_bytes == len && c.shared_bytes == 0 && !m->cow;
	expect_step(m, r->written == fiemap_written,
	      "report written=%u cow=%u zeroed %" PRIu64 " kept %" PRIu64 " reserved %" PRIu64
	      ", FIEMAP: written %" PRIu64 " unwritten %" PRIu64 " holes %" PRIu64 " shared %"
	      PRIu64 ", size %" PRIu64, r->written, r->cow, r->bytes_zeroed, r->bytes_kept,
	      r->bytes_reserved, c.written_bytes, c.unwritten_bytes, c.hole_bytes,
	      c.shared_bytes, m->size);
	return 0;
}

/* Take or release a record lock over random granules. */
static int op_lock(struct model *m)
{
	static const short types[] = { F_RDLCK, F_WRLCK, F_UNLCK };
	uint64_t a = tc_below(&m->r, LOCK_GRAINS), b = a + 1 + tc_below(&m->r, LOCK_GRAINS - a);
	short type = types[tc_below(&m->r, 3)];
	struct flock f = { .l_type = type, .l_whence = SEEK_SET, .l_start = (off_t)(a * LOCK_GRAIN),
			   .l_len = (off_t)((b - a) * LOCK_GRAIN) };

	snprintf(m->log, sizeof(m->log), "lock granules [%" PRIu64 ", %" PRIu64 ") %s", a, b,
		 type == F_RDLCK ? "read" : type == F_WRLCK ? "write" : "release");
	if (fcntl(m->fd, F_SETLK, &f) < 0)
		return -errno;
	memset(m->locks + a, type == F_RDLCK ? 'r' : type == F_WRLCK ? 'w' : 0, b - a);
	return 0;
}

/* The first granule whose lock another process sees otherwise than the
 * model says, run in a child of the model's process (pid @owner). */
static int first_lock_mismatch(const char *path, const char *locks, pid_t owner)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	for (int i = 0; i < LOCK_GRAINS; i++) {
		struct flock f = { .l_type = F_WRLCK, .l_whence = SEEK_SET,
				   .l_start = (off_t)((uint64_t)i * LOCK_GRAIN),
				   .l_len = LOCK_GRAIN };
		char seen;

		if (fcntl(fd, F_GETLK, &f) < 0)
			return i;
		seen = f.l_type == F_UNLCK ? 0 : f.l_pid != owner ? '?' : f.l_type == F_RDLCK ? 'r' : 'w';
		if (seen != locks[i])
			return i;
	}
	return -1;
}

/* The process's locks, flags and offset are as the model says. */
static int check_owned(struct model *m)
{
	char path[128];
	int status;
	pid_t pid;

	expect_step(m, fcntl(m->fd, F_GETFL) == m->flags, "status flags changed");
	expect_step(m, lseek(m->fd, 0, SEEK_CUR) == OFFSET, "offset moved");
	tfs_path(m->t, "f", path, sizeof(path));
	pid = fork();
	if (pid == 0)
		_exit(first_lock_mismatch(path, m->locks, getppid()) + 1);
	expect_step(m, pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status),
		    "no lock checker");
	expect_step(m, WEXITSTATUS(status) == 0, "lock of granule %d lost or changed (model: %c)",
		    WEXITSTATUS(status) - 1,
		    m->locks[WEXITSTATUS(status) - 1] ? m->locks[WEXITSTATUS(status) - 1] : '-');
	return 0;
}

static int op_prealloc(struct model *m)
{
	static const unsigned int methods[] = {
		PREALLOC_METHOD_AUTO, PREALLOC_METHOD_AUTO, PREALLOC_METHOD_AUTO,
		PREALLOC_METHOD_WRITE_ZEROES, PREALLOC_METHOD_ZEROOUT, PREALLOC_METHOD_URING,
		PREALLOC_METHOD_BUFFERED, PREALLOC_METHOD_ALLOCATE, PREALLOC_METHOD_AIO,
	};
	struct inject in = { .dir = m->t->dir, .filler = -1 };
	struct prealloc_options o = { .size = sizeof(o), .progress = progress, .progress_data = &in,
				      .request_bytes = 64 * KiB << tc_below(&m->r, 5) };
	struct prealloc_report r = { .size = sizeof(r) };
	uint64_t off = pick(&m->r, 0, CAP - 1, m->bs);
	uint64_t len = pick(&m->r, 1, PA_MIN_U(4 * MiB, CAP - off), m->bs);
	uint64_t lo, hi, out_lo, out_hi, in_blocks, old_size;
	unsigned int k = (unsigned int)tc_below(&m->r, 10);
	int ret;

	o.flags = (unsigned int)tc_below(&m->r, 8);	/* KEEP_SIZE, ZERO_DATA, NO_SYNC */
	o.method = methods[tc_below(&m->r, sizeof(methods) / sizeof(methods[0]))];
	in.fault = k < 3 ? F_CANCEL : k < 4 ? F_TOO_BIG : k < 5 ? F_FILL : F_NONE;
	in.at = 1 + (unsigned int)tc_below(&m->r, tc_below(&m->r, 2) ? 3 : 12);
	if (in.fault == F_TOO_BIG) {
		off = SPAN + (uint64_t)tc_below(&m->r, MiB);
		len = tc_free_bytes(m->t->dir) + 64 * MiB;
	}
	snprintf(m->log, sizeof(m->log), "prealloc [%" PRIu64 ", +%" PRIu64 ") flags %#x %s%s",
		 off, len, o.flags, prealloc_method_name(o.method),
		 in.fault == F_CANCEL ? " cancel" : in.fault == F_TOO_BIG ? " too big" :
		 in.fault == F_FILL ? " fill" : "");
	if (fsync(m->fd) < 0)
		return -errno;
	/* Whole blocks around the range, and inside it. */
	lo = PA_ROUND_UP_U(off, m->bs);
	hi = PA_ROUND_DOWN_U(off + len, m->bs);
	out_lo = allocated(m->fd, 0, PA_ROUND_DOWN_U(off, m->bs));
	out_hi = allocated(m->fd, PA_ROUND_UP_U(off + len, m->bs), FAR);
	in_blocks = allocated(m->fd, lo, hi);

	ret = prealloc_file_ex(m->fd, off, len, &o, &r);
	m->calls++;
	if (check_owned(m))
		return -1;
	if (in.filler >= 0) {
		char path[128];

		close(in.filler);
		snprintf(path, sizeof(path), "%s/filler", m->t->dir);
		unlink(path);
	}
	if (ret == 0) {
		uint64_t now_lo = allocated(m->fd, 0, PA_ROUND_DOWN_U(off, m->bs));
		uint64_t now_hi = allocated(m->fd, PA_ROUND_UP_U(off + len, m->bs), FAR);
		bool grew;

		expect_step(m, in.fault != F_TOO_BIG, "a request larger than free space succeeded");
		old_size = m->size;
		apply_success(m, off, off + len, o.flags);
		if (check_bytes(m) || check_report(m, off, len, &r))
			return -1;
		/* fallocate() past EOF (keep-size too) makes btrfs write zeros
		 * into the rest of the old last block, allocating it. */
		grew = off + len > old_size && old_size % m->bs;

		expect_step(m, (now_lo == out_lo || (grew && now_lo == out_lo + m->bs)) &&
		      now_hi >= out_hi,
		      "allocation outside the range: %" PRIu64 "+%" PRIu64 ", was %" PRIu64
		      "+%" PRIu64, now_lo, now_hi, out_lo, out_hi);
		return 0;
	}
	expect_step(m, ret == -ECANCELED || ret == -EOPNOTSUPP || ret == -ENOSPC,
	      "unexpected error %d", ret);
	m->failed[ret == -ECANCELED ? 0 : ret == -EOPNOTSUPP ? 1 : in.fault == F_FILL ? 3 : 2]++;
	expect_step(m, ret != -ECANCELED || in.fault == F_CANCEL, "cancelled by nobody");
	/* Without fallocate() nothing can be reserved beyond EOF: refused. */
	expect_step(m, ret != -EOPNOTSUPP || o.method != PREALLOC_METHOD_AUTO ||
	      (m->no_fallocate && (o.flags & PREALLOC_KEEP_SIZE) && off + len > m->size),
	      "auto refused");
	{
		int64_t zeroed = take_failure(m, off, off + len, o.flags);
		uint64_t now_lo, now_hi, now_in;

		if (zeroed < 0 || check_bytes(m))
			return -1;
		expect_step(m, r.bytes_zeroed >= (uint64_t)zeroed,
		      "report counts %" PRIu64 " bytes zeroed, %" PRId64 " data bytes are zero",
		      r.bytes_zeroed, zeroed);
		if (fsync(m->fd) < 0)
			return -errno;
		now_lo = allocated(m->fd, 0, PA_ROUND_DOWN_U(off, m->bs));
		now_hi = allocated(m->fd, PA_ROUND_UP_U(off + len, m->bs), FAR);
		now_in = allocated(m->fd, lo, hi);
		expect_step(m, now_lo == out_lo && now_hi == out_hi && now_in == in_blocks,
		      "allocation after failure %d: before %" PRIu64 "+%" PRIu64 ", now %" PRIu64
		      "+%" PRIu64 "; inside %" PRIu64 ", was %" PRIu64, ret, out_lo, out_hi,
		      now_lo, now_hi, now_in, in_blocks);
	}
	return 0;
}

static int step(struct model *m)
{
	unsigned int k = (unsigned int)tc_below(&m->r, 22);
	int ret;

	if (k >= 20)
		ret = op_lock(m);
	else if (k < 5)
		ret = op_write(m);
	else if (k < 6)
		ret = op_truncate(m);
	else if (k < 8)
		ret = op_punch(m);
	else if (k < 10)
		ret = op_fallocate(m);
	else if (k < 11 && m->reflink)
		ret = op_reflink(m);
	else
		return op_prealloc(m);
	if (ret) {
		fprintf(stderr, "%s step %u: %s: %s\n", m->type, m->step, m->log, strerror(-ret));
		return -1;
	}
	return 0;
}

/* xfs: no speculative preallocation beyond EOF, whose trimming (on any
 * close of the file) would look like allocation the library freed. */
static int mount_for_model(struct tfs *t)
{
	if (strcmp(t->type, "xfs"))
		return 0;
	if (umount2(t->dir, 0) < 0 || mount(t->dev, t->dir, "xfs", 0, "allocsize=4096") < 0)
		return -errno;
	return 0;
}

static int run_fs(const char *type, const char *mkfs, uint64_t mb, uint64_t seed,
		  unsigned int steps)
{
	struct model m = { .r = { seed }, .type = type, .fd = -1, .src = -1 };
	struct tfs t;
	struct statfs s;
	char path[128];
	int ret = -1;

	if (tfs_create(&t, type, mb, mkfs) ||
	    mount_for_model(&t)) {
		fprintf(stderr, "%s: cannot create the filesystem\n", type);
		tfs_destroy(&t);
		return -1;
	}
	m.t = &t;
	m.img = calloc(1, CAP);
	m.fd = open(tfs_path(&t, "f", path, sizeof(path)), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	m.src = open(tfs_path(&t, "src", path, sizeof(path)), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (!m.img || m.fd < 0 || m.src < 0 || fstatfs(m.fd, &s) < 0 ||
	    tc_write_pattern(m.src, NULL, 1000, 0, SPAN) || fsync(m.src) < 0)
		goto out;
	m.bs = (uint64_t)s.f_bsize;
	m.flags = fcntl(m.fd, F_GETFL);
	if (lseek(m.fd, OFFSET, SEEK_SET) != OFFSET)
		goto out;
	m.cow = strcmp(type, "btrfs") == 0;
	m.no_fallocate = fallocate(m.fd, FALLOC_FL_KEEP_SIZE, 0, 1) < 0 && errno == EOPNOTSUPP;
	{
		struct file_clone_range fcr = { .src_fd = m.src, .src_length = m.bs };

		m.reflink = ioctl(m.fd, FICLONERANGE, &fcr) == 0;
		if (m.reflink && ftruncate(m.fd, 0) < 0)
			goto out;
	}
	for (m.step = 0; m.step < steps; m.step++)
		if (step(&m))
			goto out;
	printf("%s%s%s: %u steps, %u prealloc calls, failed as injected: %u cancelled, %u refused, "
	       "%u ENOSPC before, %u part way; block %" PRIu64 ", reflink %s\n", type, mkfs ? " " : "", mkfs ? mkfs : "",
	       steps, m.calls, m.failed[0], m.failed[1], m.failed[2], m.failed[3], m.bs,
	       m.reflink ? "yes" : "no");
	ret = 0;
out:
	if (ret)
		fprintf(stderr, "%s%s%s: FAILED (this filesystem's stream: seed %" PRIu64 ")\n",
			type, mkfs ? " " : "", mkfs ? mkfs : "", seed);
	if (m.fd >= 0)
		close(m.fd);
	if (m.src >= 0)
		close(m.src);
	free(m.img);
	tfs_destroy(&t);
	return ret;
}

int main(void)
{
	/* ext4 on 256 MiB gets 1 KiB blocks by default; 4 KiB too, and
	 * indirect-block files (no fallocate: ENOSPC comes from the writes). */
	static const struct { const char *type, *mkfs; uint64_t mb; } fss[] = {
		{ "ext4", NULL, 256 }, { "ext4", "-b 4096", 256 },
		{ "ext4", "-b 4096 -O ^extent,^64bit", 64 }, { "xfs", NULL, 320 },
		{ "btrfs", NULL, 256 },
	};
	const char *env_seed = getenv("PREALLOC_MODEL_SEED");
	const char *env_steps = getenv("PREALLOC_MODEL_STEPS");
	const char *only = getenv("PREALLOC_MODEL_FS");
	unsigned int steps = env_steps ? (unsigned int)strtoul(env_steps, NULL, 0) : DEFAULT_STEPS;
	uint64_t seed;
	int failed = 0, ran = 0;

	if (env_seed)
		seed = strtoull(env_seed, NULL, 0);
	else if (getrandom(&seed, sizeof(seed), 0) != sizeof(seed))
		seed = 1;
	printf("seed %" PRIu64 " (PREALLOC_MODEL_SEED=%" PRIu64 " repeats this run)\n", seed, seed);
	fflush(stdout);
	tfs_enter();
	for (size_t i = 0; i < sizeof(fss) / sizeof(fss[0]); i++) {
		if ((only && strcmp(only, fss[i].type)) || !tfs_supported(fss[i].type))
			continue;
		ran++;
		/* Each filesystem's stream is seed + its index here. */
		failed += run_fs(fss[i].type, fss[i].mkfs, fss[i].mb, seed + i, steps) != 0;
	}
	return failed ? 1 : ran ? 0 : TFS_SKIP;
}

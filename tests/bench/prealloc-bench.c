/* SPDX-License-Identifier: MIT */
/*
 * prealloc-bench: one measurement per invocation, one JSON line on stdout.
 * The driver (run-bench.py) alternates contenders and takes medians.
 *
 *   prealloc-bench prep [--qd N] [--req SIZE] METHOD SIZE FILE
 *	create FILE afresh and make SIZE bytes of it "ready" with METHOD:
 *	auto and the library's forced methods (prealloc_file_ex()),
 *	pg-zeros (PostgreSQL pg_pwrite_zeros + fdatasync), posix-fallocate,
 *	fallocate (mode 0; not written, for reference), pwritev-threads (the
 *	prototype the aio method was measured against: fallocate(), then 4
 *	threads writing 4 MiB O_DIRECT zero requests, fdatasync).
 *   prealloc-bench frag [--data SIZE] [--every SIZE] METHOD SIZE FILE
 *	create FILE of SIZE bytes holding DATA bytes of data at the start of
 *	every EVERY bytes (holes between, synced), then time making all of it
 *	ready with METHOD (auto or a forced library method): a fragmented file.
 *   prealloc-bench overwrite [--mode rand|seq] [--ops N] [--rounds R] FILE...
 *	4 KiB O_DIRECT overwrites, N per file: rand = distinct random blocks,
 *	fdatasync after each; seq = O_DSYNC sequential from offset 0.  The
 *	files take turns in R rounds (the order rotating) so that the noise of
 *	a shared machine falls on all of them alike.
 *   prealloc-bench probe [-r ROUNDS] [-i ITERS] FILE
 *	pa_caps_cache_get() for FILE's device: after invalidating the cache and cached.
 *   prealloc-bench census FILE
 *	percentage of FILE in written extents (FIEMAP), independently of the
 *	library.
 *   prealloc-bench exec --bytes SIZE -- CMD [ARG...]
 *	run CMD (dd, fio) and report wall time and its CPU (wait4 rusage).
 *
 * Wall time is CLOCK_MONOTONIC; CPU is user+sys of this process (all its
 * threads, io_uring workers included) or of the child.  Kernel threads that
 * serve the I/O (loop workers, kworkers) are charged to nobody.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <linux/fiemap.h>
#include <linux/fs.h>

#include "prealloc.h"
#include "probes/caps.h"
#include "src/call/context.h"
#include "record.h"

#define BLK		4096u
#define PG_BLCKSZ	8192u
#define PG_IOV_MAX	32u		/* PostgreSQL: Min(IOV_MAX, 32) */

struct cpu_mark {
	uint64_t wall_ns;
	uint64_t user_us;
	uint64_t sys_us;
};

struct prep_args {
	uint32_t qd;
	uint64_t req;
	struct prealloc_report rep;	/* filled by the library contenders */
	bool lib;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t tv_us(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * 1000000u + (uint64_t)tv->tv_usec;
}

static void mark_rusage(struct cpu_mark *m, const struct rusage *ru)
{
	m->user_us = tv_us(&ru->ru_utime);
	m->sys_us = tv_us(&ru->ru_stime);
}

static void mark_self(struct cpu_mark *m)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	mark_rusage(m, &ru);
	m->wall_ns = now_ns();
}

/* Print "prealloc-bench: WHAT: strerror(errno)"; returns 1. */
static int fail(const char *what)
{
	fprintf(stderr, "prealloc-bench: %s: %s\n", what, strerror(errno));
	return 1;
}

static int parse_size(const char *s, uint64_t *ret)
{
	static const char suffix[] = "KMGT";
	const char *p;
	char *end;
	uint64_t v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -EINVAL;
	if (*end) {
		p = strchr(suffix, toupper((unsigned char)*end));
		if (!p || !*p || end[1])
			return -EINVAL;
		v <<= 10 * (p - suffix + 1);
	}
	*ret = v;
	return 0;
}

static void *filled_buffer(size_t len, int fill)
{
	void *buf = aligned_alloc(BLK, len);

	if (buf)
		memset(buf, fill, len);
	return buf;
}

/* Report throughput and CPU of [a, b] over @bytes as JSON members. */
static void put_cost(struct json_object *j, uint64_t bytes, const struct cpu_mark *a,
		      const struct cpu_mark *b)
{
	double sec = (double)(b->wall_ns - a->wall_ns) / 1e9;
	double cpu = (double)(b->user_us - a->user_us + b->sys_us - a->sys_us) / 1e6;
	double gib = (double)bytes / (double)(1u << 30);

	record_u64(j, "bytes", bytes);
	record_double(j, "seconds", sec);
	record_double(j, "cpu_user", (double)(b->user_us - a->user_us) / 1e6);
	record_double(j, "cpu_sys", (double)(b->sys_us - a->sys_us) / 1e6);
	record_double(j, "mib_s", sec > 0 ? (double)bytes / (1 << 20) / sec : 0);
	record_double(j, "cpu_s_per_gib", gib > 0 ? cpu / gib : 0);
}

/* ---- contenders for "prep" ---------------------------------------------- */

static int prep_library(int fd, uint64_t size, int method, struct prep_args *a)
{
	struct prealloc_options o = {
		.size = sizeof(o),
		.method = (uint32_t)method,
		.queue_depth = a->qd,
		.request_bytes = a->req,
	};

	a->lib = true;
	a->rep.size = sizeof(a->rep);
	return prealloc_file_ex(fd, 0, size, &o, &a->rep);
}

/* PostgreSQL pg_pwrite_zeros(): one aligned 8 KiB zero block repeated in up
 * to PG_IOV_MAX iovecs per pwritev, buffered; the caller then fsyncs. */
static int prep_pg_zeros(int fd, uint64_t size)
{
	struct iovec iov[PG_IOV_MAX];
	uint64_t off = 0;
	void *zero;
	ssize_t n;
	unsigned int i, cnt;

	zero = filled_buffer(PG_BLCKSZ, 0);
	if (!zero)
		return -ENOMEM;
	while (off < size) {
		for (cnt = 0; cnt < PG_IOV_MAX && off + (uint64_t)cnt * PG_BLCKSZ < size; cnt++) {
			iov[cnt].iov_base = zero;
			iov[cnt].iov_len = PG_BLCKSZ;
		}
		i = cnt - 1;	/* last iovec may be short */
		if (off + (uint64_t)cnt * PG_BLCKSZ > size)
			iov[i].iov_len = (size_t)(size - off - (uint64_t)i * PG_BLCKSZ);
		n = pwritev(fd, iov, (int)cnt, (off_t)off);
		if (n <= 0) {
			free(zero);
			return n < 0 ? -errno : -EIO;
		}
		off += (uint64_t)n;	/* a short write restarts from there */
	}
	free(zero);
	return fdatasync(fd) ? -errno : 0;
}

static int prep_posix_fallocate(int fd, uint64_t size)
{
	int ret = posix_fallocate(fd, 0, (off_t)size);

	if (ret)
		return -ret;
	return fdatasync(fd) ? -errno : 0;
}

static int prep_fallocate(int fd, uint64_t size)
{
	if (fallocate(fd, 0, 0, (off_t)size))
		return -errno;
	return fdatasync(fd) ? -errno : 0;
}

#define PW_THREADS	4
#define PW_REQ		(4u << 20)

struct pw_job {
	int fd;
	uint64_t size;
	const void *buf;
	uint64_t next;			/* the next request's offset, shared */
	int err;
};

static void *pw_worker(void *arg)
{
	struct pw_job *j = arg;
	uint64_t off;

	while ((off = __atomic_fetch_add(&j->next, PW_REQ, __ATOMIC_RELAXED)) < j->size) {
		size_t len = j->size - off < PW_REQ ? (size_t)(j->size - off) : PW_REQ;
		struct iovec iov = { (void *)j->buf, len };
		ssize_t w = pwritev(j->fd, &iov, 1, (off_t)off);

		if (w != (ssize_t)len) {
			__atomic_store_n(&j->err, w < 0 ? -errno : -EIO, __ATOMIC_RELAXED);
			break;
		}
	}
	return NULL;
}

/* The aio method's rival: a few threads doing O_DIRECT pwritev() of zeros. */
static int prep_pwritev_threads(int fd, uint64_t size, const char *path)
{
	struct pw_job j = { .size = size };
	pthread_t t[PW_THREADS];
	void *buf;
	int n = 0;

	if (fallocate(fd, 0, 0, (off_t)size))
		return -errno;
	j.fd = open(path, O_WRONLY | O_DIRECT | O_CLOEXEC);
	buf = mmap(NULL, PW_REQ, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (j.fd < 0 || buf == MAP_FAILED)
		return -errno;
	/* As the library's buffer (src/exec/direct_writer.c): pages of its own. */
	madvise(buf, PW_REQ, MADV_HUGEPAGE);
	memset(buf, 0, PW_REQ);
	j.buf = buf;
	while (n < PW_THREADS && !pthread_create(&t[n], NULL, pw_worker, &j))
		n++;
	while (n--)
		pthread_join(t[n], NULL);
	munmap(buf, PW_REQ);
	if (!j.err && fdatasync(j.fd))
		j.err = -errno;
	close(j.fd);
	return j.err;
}

/* The contenders that are not the library's methods, by name; any other
 * name is a method of prealloc_method_from_name(). */
static int prep_pg_zeros_arm(int fd, uint64_t size, const char *path)
{
	(void)path;
	return prep_pg_zeros(fd, size);
}

static int prep_posix_fallocate_arm(int fd, uint64_t size, const char *path)
{
	(void)path;
	return prep_posix_fallocate(fd, size);
}

static int prep_fallocate_arm(int fd, uint64_t size, const char *path)
{
	(void)path;
	return prep_fallocate(fd, size);
}

static const struct prep_arm {
	const char *name;
	int (*prep)(int fd, uint64_t size, const char *path);
} prep_arms[] = {
	{ "pwritev-threads", prep_pwritev_threads },
	{ "pg-zeros", prep_pg_zeros_arm },
	{ "posix-fallocate", prep_posix_fallocate_arm },
	{ "fallocate", prep_fallocate_arm },
};

static int prep_dispatch(const char *method, int fd, uint64_t size, struct prep_args *a,
			 const char *path)
{
	int m;

	for (size_t i = 0; i < sizeof(prep_arms) / sizeof(prep_arms[0]); i++)
		if (!strcmp(method, prep_arms[i].name))
			return prep_arms[i].prep(fd, size, path);
	m = prealloc_method_from_name(method);
	if (m < 0)
		return -EINVAL;
	return prep_library(fd, size, m, a);
}

/* Bytes of [0, size) in written extents, by FIEMAP (independent of the
 * library's own prealloc_verify()), and the number of extents.  -errno when
 * FIEMAP is not available. */
static int64_t written_bytes(int fd, uint64_t size, uint64_t *ret_extents)
{
	enum { NEXT = 64 };
	struct fiemap *fm = calloc(1, sizeof(*fm) + NEXT * sizeof(struct fiemap_extent));
	const struct fiemap_extent *e;
	uint64_t start = 0, end;
	int64_t written = 0;
	unsigned int i;

	*ret_extents = 0;
	if (!fm)
		return -ENOMEM;
	while (start < size) {
		*fm = (struct fiemap){ .fm_start = start, .fm_length = size - start,
				       .fm_flags = FIEMAP_FLAG_SYNC, .fm_extent_count = NEXT };
		if (ioctl(fd, FS_IOC_FIEMAP, fm) < 0) {
			written = -errno;
			break;
		}
		if (!fm->fm_mapped_extents)
			break;
		*ret_extents += fm->fm_mapped_extents;
		for (i = 0; i < fm->fm_mapped_extents; i++) {
			e = &fm->fm_extents[i];
			end = e->fe_logical + e->fe_length < size ? e->fe_logical + e->fe_length : size;
			if (!(e->fe_flags & FIEMAP_EXTENT_UNWRITTEN) && end > e->fe_logical)
				written += (int64_t)(end - e->fe_logical);
			start = end;
		}
		if (e->fe_flags & FIEMAP_EXTENT_LAST)
			break;
	}
	free(fm);
	return written;
}

static void put_census(struct json_object *j, int fd, uint64_t size)
{
	uint64_t extents;
	int64_t w = written_bytes(fd, size, &extents);

	if (w < 0) {
		record_str(j, "written_pct", NULL);
		return;
	}
	record_double(j, "written_pct", 100.0 * (double)w / (double)size);
	record_u64(j, "extents", extents);
}

static void put_report(struct json_object *j, const struct prep_args *a)
{
	if (!a->lib)
		return;
	record_str(j, "used", prealloc_method_name(a->rep.method));
	record_bool(j, "written", a->rep.written);
	record_u64(j, "lib_elapsed_ns", a->rep.elapsed_ns);
}

/* The members every preparation reports after its own: outcome, cost,
 * the library's report, the census; then the line ends. */
static void put_outcome(struct json_object *j, int ret, uint64_t size, const struct cpu_mark *t0,
			 const struct cpu_mark *t1, const struct prep_args *a, int fd)
{
	record_i64(j, "error", -ret);
	record_str(j, "error_str", ret ? strerror(-ret) : NULL);
	put_cost(j, size, t0, t1);
	put_report(j, a);
	put_census(j, fd, size);
	record_print(j);
}

static int cmd_prep(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "qd", required_argument, NULL, 'q' },
		{ "req", required_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	struct prep_args a = { 0 };
	struct cpu_mark t0, t1;
	const char *method, *path;
	uint64_t size, v;
	struct json_object *j;
	int c, fd, ret;

	while ((c = getopt_long(argc, argv, "", lopts, NULL)) != -1) {
		if ((c != 'q' && c != 'r') || parse_size(optarg, &v))
			return 2;
		if (c == 'q')
			a.qd = (uint32_t)v;
		else
			a.req = v;
	}
	if (argc - optind != 3 || parse_size(argv[optind + 1], &size) || !size)
		return 2;
	method = argv[optind];
	path = argv[optind + 2];

	if (unlink(path) && errno != ENOENT)
		return fail(path);
	mark_self(&t0);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return fail(path);
	ret = prep_dispatch(method, fd, size, &a, path);
	mark_self(&t1);

	j = json_object_new_object();
	record_str(j, "op", "prep");
	record_str(j, "method", method);
	record_u64(j, "qd", a.qd);
	record_u64(j, "req", a.req);
	put_outcome(j, ret, size, &t0, &t1, &a, fd);
	close(fd);
	return ret ? 1 : 0;
}

/* ---- a fragmented file ------------------------------------------------- */

static int write_layout(int fd, uint64_t size, uint64_t data, uint64_t every)
{
	void *buf = filled_buffer(data, 'D');
	int ret = 0;

	if (!buf)
		return -ENOMEM;
	for (uint64_t off = 0; off < size && !ret; off += every)
		if (pwrite(fd, buf, data, (off_t)off) != (ssize_t)data)
			ret = -EIO;
	free(buf);
	if (!ret && (ftruncate(fd, (off_t)size) || fsync(fd)))
		ret = -errno;
	return ret;
}

static int cmd_frag(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "data", required_argument, NULL, 'd' },
		{ "every", required_argument, NULL, 'e' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t size, v, data = 4096, every = 8192;
	struct prep_args a = { 0 };
	struct cpu_mark t0, t1;
	const char *path;
	struct json_object *j;
	int c, fd, m, ret;

	while ((c = getopt_long(argc, argv, "", lopts, NULL)) != -1) {
		if ((c != 'd' && c != 'e') || parse_size(optarg, &v) || !v)
			return 2;
		if (c == 'd')
			data = v;
		else
			every = v;
	}
	if (argc - optind != 3 || parse_size(argv[optind + 1], &size) || !size ||
	    data >= every)
		return 2;
	m = prealloc_method_from_name(argv[optind]);
	path = argv[optind + 2];
	if (m < 0 || (unlink(path) && errno != ENOENT))
		return 2;
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return fail(path);
	ret = write_layout(fd, size, data, every);
	mark_self(&t0);
	if (!ret)
		ret = prep_library(fd, size, m, &a);
	mark_self(&t1);

	j = json_object_new_object();
	record_str(j, "op", "frag");
	record_str(j, "method", argv[optind]);
	record_u64(j, "data", data);
	record_u64(j, "every", every);
	put_outcome(j, ret, size, &t0, &t1, &a, fd);
	close(fd);
	unlink(path);
	return ret ? 1 : 0;
}

/* ---- what the database gets afterwards ---------------------------------- */

static uint64_t xorshift64(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* The first @n blocks of a random permutation of [0, nblocks). */
static uint32_t *random_blocks(uint64_t nblocks, uint64_t n, uint64_t seed)
{
	uint32_t *perm = malloc(nblocks * sizeof(*perm));
	uint64_t i, k;
	uint32_t t;

	if (!perm)
		return NULL;
	for (i = 0; i < nblocks; i++)
		perm[i] = (uint32_t)i;
	for (i = 0; i < n; i++) {
		k = i + xorshift64(&seed) % (nblocks - i);
		t = perm[i];
		perm[i] = perm[k];
		perm[k] = t;
	}
	return perm;
}

struct ow_args {
	bool seq;
	uint64_t ops;		/* per file */
	unsigned int rounds;
	uint64_t seed;
};

/* One file of the overwrite test; files take turns so that the machine's
 * drifting speed is shared by all contenders alike. */
struct ow_file {
	const char *path;
	int fd;
	uint32_t *perm;		/* rand: the order of the blocks */
	uint64_t done;
	uint64_t ns;
	int err;
};

static int ow_open(struct ow_file *f, struct ow_args *a)
{
	struct stat st;
	uint64_t nblocks;

	f->fd = open(f->path, O_RDWR | O_DIRECT | O_CLOEXEC | (a->seq ? O_DSYNC : 0));
	if (f->fd < 0 || fstat(f->fd, &st)) {
		int err = errno;

		fail(f->path);
		return -err;
	}
	nblocks = (uint64_t)st.st_size / BLK;
	if (a->ops > nblocks)
		a->ops = nblocks;
	if (a->seq)
		return 0;
	f->perm = random_blocks(nblocks, a->ops, a->seed);
	return f->perm ? 0 : -ENOMEM;
}

/* @n more writes to @f, each durable; stops at the first error. */
static void ow_batch(struct ow_file *f, bool seq, uint64_t *buf, uint64_t n)
{
	uint64_t t0 = now_ns(), end = f->done + n, blk;

	for (; !f->err && f->done < end; f->done++) {
		blk = seq ? f->done : f->perm[f->done];
		buf[0] = f->done;	/* a page that changes, like a database's */
		if (pwrite(f->fd, buf, BLK, (off_t)(blk * BLK)) != BLK)
			f->err = errno ? errno : EIO;
		else if (!seq && fdatasync(f->fd))
			f->err = errno;
	}
	f->ns += now_ns() - t0;
}

static void put_ow_file(struct json_object *files, const struct ow_file *f)
{
	struct json_object *j = json_object_new_object();

	json_object_array_add(files, j);
	record_str(j, "path", f->path);
	record_i64(j, "error", f->err);
	record_u64(j, "ops", f->done);
	record_double(j, "seconds", (double)f->ns / 1e9);
	record_double(j, "iops", f->ns ? (double)f->done * 1e9 / (double)f->ns : 0);
}

static int ow_run(struct ow_file *files, size_t nf, const struct ow_args *a)
{
	uint64_t *buf = filled_buffer(BLK, 0xa5), per, n;
	unsigned int r;
	size_t k;

	if (!buf)
		return -ENOMEM;
	per = (a->ops + a->rounds - 1) / a->rounds;
	for (r = 0; r < a->rounds; r++) {
		for (k = 0; k < nf; k++) {
			struct ow_file *f = &files[(k + r) % nf];

			n = a->ops - f->done < per ? a->ops - f->done : per;
			ow_batch(f, a->seq, buf, n);
		}
	}
	free(buf);
	return 0;
}

static int cmd_overwrite(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "ops", required_argument, NULL, 'o' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "seed", required_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 },
	};
	struct ow_args a = { .ops = 2000, .rounds = 10, .seed = 0x9e3779b97f4a7c15ull };
	struct ow_file *files;
	struct json_object *j, *arr;
	size_t nf, k;
	int c, ret = 0;

	while ((c = getopt_long(argc, argv, "", lopts, NULL)) != -1) {
		if (c == 'm')
			a.seq = !strcmp(optarg, "seq");
		else if (c == 'o')
			a.ops = strtoull(optarg, NULL, 10);
		else if (c == 'r')
			a.rounds = (unsigned int)strtoul(optarg, NULL, 10);
		else if (c == 'S')
			a.seed = strtoull(optarg, NULL, 0) | 1;
		else
			return 2;
	}
	if (optind >= argc || !a.rounds || !a.ops)
		return 2;
	nf = (size_t)(argc - optind);
	files = calloc(nf, sizeof(*files));
	if (!files)
		return 1;
	for (k = 0; k < nf && !ret; k++) {
		files[k].path = argv[optind + (int)k];
		files[k].fd = -1;
		ret = ow_open(&files[k], &a);
	}
	if (!ret)
		ret = ow_run(files, nf, &a);

	j = json_object_new_object();
	record_str(j, "op", "overwrite");
	record_str(j, "mode", a.seq ? "seq" : "rand");
	record_i64(j, "error", -ret);
	record_u64(j, "rounds", a.rounds);
	json_object_object_add(j, "files", arr = json_object_new_array());
	for (k = 0; k < nf; k++) {
		put_ow_file(arr, &files[k]);
		free(files[k].perm);
		if (files[k].fd >= 0)
			close(files[k].fd);
	}
	record_print(j);
	free(files);
	return ret ? 1 : 0;
}

/* ---- probe cost --------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t median(uint64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	return v[n / 2];
}

/* Time one pa_caps_cache_get()/pa_caps_put() on the default context; 0 on failure. */
static uint64_t time_probe(dev_t dev, int *ret_err)
{
	const struct pa_caps *caps;
	uint64_t t0 = now_ns(), t;
	int ret = pa_caps_cache_get(&pa_ctx(NULL)->caps, dev, &caps);

	t = now_ns() - t0;
	if (ret < 0) {
		*ret_err = ret;
		return 0;
	}
	pa_caps_put(caps);
	return t;
}

static int cmd_probe(int argc, char **argv)
{
	unsigned long rounds = 20, iters = 1000, i;
	uint64_t *first, *cached, cold;
	struct stat st;
	struct json_object *j;
	int c, err = 0;

	while ((c = getopt(argc, argv, "r:i:")) != -1) {
		if (c == 'r')
			rounds = strtoul(optarg, NULL, 10);
		else if (c == 'i')
			iters = strtoul(optarg, NULL, 10);
		else
			return 2;
	}
	if (argc - optind != 1 || stat(argv[optind], &st) || !rounds || !iters)
		return 2;
	first = calloc(rounds, sizeof(*first));
	cached = calloc(iters, sizeof(*cached));
	if (!first || !cached)
		return 1;
	pa_caps_cache_invalidate(&pa_ctx(NULL)->caps, 0);
	cold = time_probe(st.st_dev, &err);
	for (i = 0; i < rounds; i++) {
		pa_caps_cache_invalidate(&pa_ctx(NULL)->caps, 0);
		first[i] = time_probe(st.st_dev, &err);
	}
	for (i = 0; i < iters; i++)
		cached[i] = time_probe(st.st_dev, &err);

	j = json_object_new_object();
	record_str(j, "op", "probe");
	record_i64(j, "error", -err);
	record_double(j, "cold_us", (double)cold / 1e3);
	record_double(j, "first_us", (double)median(first, rounds) / 1e3);
	record_double(j, "cached_us", (double)median(cached, iters) / 1e3);
	record_print(j);
	free(first);
	free(cached);
	return err ? 1 : 0;
}

static int cmd_census(int argc, char **argv)
{
	struct stat st;
	struct json_object *j;
	int fd;

	if (argc != 2)
		return 2;
	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st))
		return fail(argv[1]);
	j = json_object_new_object();
	record_str(j, "op", "census");
	record_u64(j, "bytes", (uint64_t)st.st_size);
	put_census(j, fd, (uint64_t)st.st_size);
	record_print(j);
	close(fd);
	return 0;
}

/* ---- external contenders ------------------------------------------------ */

static int cmd_exec(int argc, char **argv)
{
	struct cpu_mark t0 = { 0 }, t1;
	struct rusage ru;
	uint64_t bytes = 0;
	struct json_object *j;
	int status;
	pid_t pid;

	if (argc < 5 || strcmp(argv[1], "--bytes") || parse_size(argv[2], &bytes) ||
	    strcmp(argv[3], "--"))
		return 2;
	t0.wall_ns = now_ns();
	pid = fork();
	if (pid < 0)
		return fail("fork");
	if (pid == 0) {
		dup2(STDERR_FILENO, STDOUT_FILENO);	/* our stdout is JSON only */
		execvp(argv[4], argv + 4);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) < 0)
		return fail("wait4");
	t1.wall_ns = now_ns();
	mark_rusage(&t1, &ru);

	j = json_object_new_object();
	record_str(j, "op", "exec");
	record_str(j, "method", argv[4]);
	record_i64(j, "error", WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	put_cost(j, bytes, &t0, &t1);
	record_print(j);
	return status ? 1 : 0;
}

static const char usage[] =
	"usage: prealloc-bench prep [--qd N] [--req SIZE] METHOD SIZE FILE\n"
	"       prealloc-bench frag [--data SIZE] [--every SIZE] METHOD SIZE FILE\n"
	"       prealloc-bench overwrite [--mode rand|seq] [--ops N] [--rounds R] FILE...\n"
	"       prealloc-bench probe [-r ROUNDS] [-i ITERS] FILE\n"
	"       prealloc-bench census FILE\n"
	"       prealloc-bench exec --bytes SIZE -- CMD [ARG...]\n"
	"METHOD: auto write-zeroes zeroout uring aio buffered allocate\n"
	"        pg-zeros posix-fallocate fallocate pwritev-threads\n";

static const struct command {
	const char *name;
	int (*run)(int argc, char **argv);
} commands[] = {
	{ "prep", cmd_prep },
	{ "frag", cmd_frag },
	{ "overwrite", cmd_overwrite },
	{ "probe", cmd_probe },
	{ "census", cmd_census },
	{ "exec", cmd_exec },
};

int main(int argc, char **argv)
{
	int ret = 2;

	for (size_t i = 0; argc >= 2 && i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name)) {
			ret = commands[i].run(argc - 1, argv + 1);
			break;
		}
	if (ret == 2)
		fputs(usage, stderr);
	return ret;
}

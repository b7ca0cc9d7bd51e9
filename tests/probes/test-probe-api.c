/* SPDX-License-Identifier: MIT */
/*
 * The public probe API over captured sysfs trees (a context's sysfs root):
 * the zeroing verdict and the fact deciding it, the plan, the facts of the
 * target and of each device, bad arguments, contexts and their flush, and
 * unprivileged callers.  Uses <prealloc.h> only.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "prealloc.h"
#include "tfs.h"

#define GIB (1ull << 30)

static char tmpdir[] = "/var/tmp/probe-api-XXXXXX";
static char file[128], nvme_root[160], scsi_root[160];
static int fd = -1;
static bool on_ext4;

#define sh(...) assert_int_equal(tfs_sh(__VA_ARGS__), 0)

/* A probe of the test file for @len bytes at 0 under @ctx (NULL: default). */
static struct prealloc_probe *probe(struct prealloc_ctx *ctx, uint64_t len, uint32_t method)
{
	struct prealloc_options o = { .size = sizeof(o), .method = method, .ctx = ctx };
	struct prealloc_probe *p = NULL;

	assert_int_equal(prealloc_probe_new(fd, 0, len, &o, &p), 0);
	assert_non_null(p);
	return p;
}

static struct prealloc_ctx *ctx_at(const char *root)
{
	struct prealloc_ctx *ctx = NULL;

	assert_int_equal(prealloc_ctx_new(root, 0, &ctx), 0);
	return ctx;
}

static void bad_arguments(void **state)
{
	struct prealloc_options o = { .size = sizeof(o) };
	struct prealloc_probe *p = NULL;
	struct prealloc_ctx *ctx = NULL;
	int dir;

	(void)state;
	assert_int_equal(prealloc_probe_new(fd, 0, 1, NULL, NULL), -EINVAL);
	assert_int_equal(prealloc_probe_new(-1, 0, 1, NULL, &p), -EBADF);
	o.flags = 1u << 30;
	assert_int_equal(prealloc_probe_new(fd, 0, 1, &o, &p), -EINVAL);
	o.flags = 0;
	o.method = 999;
	assert_int_equal(prealloc_probe_new(fd, 0, 1, &o, &p), -EINVAL);
	o.method = 0;
	o.size = 4;
	assert_int_equal(prealloc_probe_new(fd, 0, 1, &o, &p), -EINVAL);
	assert_int_equal(prealloc_probe_new(fd, UINT64_MAX, 2, NULL, &p), -EFBIG);
	dir = open(tmpdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_int_equal(prealloc_probe_new(dir, 0, 1, NULL, &p), -EISDIR);
	close(dir);
	assert_null(p);

	assert_int_equal(prealloc_probe_zeroing_offloaded(NULL, NULL), -EINVAL);
	assert_int_equal(prealloc_probe_plan(NULL, 0), -EINVAL);
	assert_null(prealloc_probe_plan_reason(NULL));
	assert_int_equal(prealloc_probe_fact(NULL, 0, NULL, NULL, NULL), -EINVAL);
	assert_int_equal(prealloc_probe_lookup(NULL, "kind", NULL, NULL), -EINVAL);
	assert_int_equal(prealloc_probe_device_count(NULL), -EINVAL);
	assert_int_equal(prealloc_probe_device_fact(NULL, 0, 0, NULL, NULL, NULL), -EINVAL);
	assert_int_equal(prealloc_probe_device_lookup(NULL, 0, "name", NULL, NULL), -EINVAL);
	prealloc_probe_free(NULL);

	assert_int_equal(prealloc_ctx_new(NULL, 0, NULL), -EINVAL);
	assert_int_equal(prealloc_ctx_new("", 0, &ctx), -EINVAL);
	assert_int_equal(prealloc_ctx_new(NULL, 1, &ctx), -EINVAL);
	assert_null(ctx);
	assert_null(prealloc_ctx_ref(NULL));
	assert_null(prealloc_ctx_unref(NULL));
	assert_int_equal(prealloc_ctx_flush(NULL), 0);
}

/* Names are unique and facts of one group are adjacent (renderers rely on it). */
static void check_grouping(const struct prealloc_probe *p, int dev)
{
	char seen[64][32];
	unsigned int nseen = 0;
	char last[32] = "";
	const char *name;

	for (unsigned int i = 0;; i++) {
		int t = dev < 0 ? prealloc_probe_fact(p, i, &name, NULL, NULL) :
				  prealloc_probe_device_fact(p, (unsigned int)dev, i, &name, NULL, NULL);
		const char *dot;
		char g[32];

		if (t == -ENOENT)
			break;
		assert_true(t >= PREALLOC_FACT_NULL && t <= PREALLOC_FACT_STRING);
		dot = strchr(name, '.');
		snprintf(g, sizeof(g), "%.*s", dot ? (int)(dot - name) : (int)strlen(name), name);
		if (strcmp(g, last)) {
			for (unsigned int k = 0; k < nseen; k++)
				if (!strcmp(seen[k], g))
					fail_msg("group %s split (at %s)", g, name);
			assert_true(nseen < 64);
			snprintf(seen[nseen++], sizeof(seen[0]), "%s", g);
			snprintf(last, sizeof(last), "%s", g);
		}
	}
}

static void nvme_offloaded(void **state)
{
	struct prealloc_ctx *ctx = ctx_at(nvme_root);
	struct prealloc_probe *p;
	const char *why = NULL, *s = NULL;
	uint64_t v = 0;

	(void)state;
	if (!on_ext4)
		skip();
	p = probe(ctx, GIB, PREALLOC_METHOD_AUTO);
	/* The device can; whether the filesystem takes the flag is the
	 * kernel's to say, and nothing asked it yet in this context. */
	assert_int_equal(prealloc_probe_zeroing_offloaded(p, &why), PREALLOC_UNKNOWN);
	assert_non_null(strstr(why, "not asked yet: would try; nvme0n1: "
				    "queue/write_zeroes_unmap_max_bytes = 1044480 (Linux "));
	assert_int_equal(prealloc_probe_lookup(p, "write_zeroes_asked", NULL, &s),
			 PREALLOC_FACT_STRING);
	assert_string_equal(s, "not asked");
	assert_int_equal(prealloc_probe_lookup(p, "write_zeroes", NULL, &s), PREALLOC_FACT_STRING);
	assert_string_equal(s, "would-try");
	assert_int_equal(prealloc_probe_lookup(p, "kernel_release", NULL, &s), PREALLOC_FACT_STRING);
	assert_true(strlen(s) > 0);
	assert_int_equal(prealloc_probe_plan(p, 0), PREALLOC_METHOD_WRITE_ZEROES);
	assert_int_equal(prealloc_probe_plan(p, 1), PREALLOC_METHOD_URING);
	assert_int_equal(prealloc_probe_plan(p, 2), PREALLOC_METHOD_AIO);
	assert_int_equal(prealloc_probe_plan(p, 3), PREALLOC_METHOD_BUFFERED);
	assert_int_equal(prealloc_probe_plan(p, 4), -ENOENT);
	assert_non_null(strstr(prealloc_probe_plan_reason(p), "zero by unmapping"));

	assert_int_equal(prealloc_probe_lookup(p, "kind", NULL, &s), PREALLOC_FACT_STRING);
	assert_string_equal(s, "file");
	assert_int_equal(prealloc_probe_lookup(p, "filesystem", NULL, &s), PREALLOC_FACT_STRING);
	assert_string_equal(s, "ext4");
	assert_int_equal(prealloc_probe_lookup(p, "cow", &v, NULL), PREALLOC_FACT_BOOL);
	assert_int_equal(v, 0);
	assert_int_equal(prealloc_probe_lookup(p, "sysfs_root", NULL, &s), PREALLOC_FACT_STRING);
	assert_string_equal(s, nvme_root);
	assert_int_equal(prealloc_probe_lookup(p, "zeroing_offloaded", &v, NULL), PREALLOC_FACT_NULL);
	assert_int_equal(prealloc_probe_lookup(p, "plan.method", NULL, &s), PREALLOC_FACT_STRING);
	assert_string_equal(s, "write-zeroes");
	assert_int_equal(prealloc_probe_lookup(p, "request.length", &v, NULL), PREALLOC_FACT_BYTES);
	assert_int_equal(v, GIB);
	/* Atomic-write limits are always there, known or not. */
	assert_true(prealloc_probe_lookup(p, "atomic_write.unit_max", NULL, NULL) >= 0);
	assert_true(prealloc_probe_lookup(p, "dio.offset_align", NULL, NULL) >= 0);
	assert_int_equal(prealloc_probe_lookup(p, "no.such.fact", NULL, NULL), -ENOENT);
	assert_int_equal(prealloc_probe_lookup(p, NULL, NULL, NULL), -EINVAL);
	assert_int_equal(prealloc_probe_fact(p, 100000, NULL, NULL, NULL), -ENOENT);

	/* The chain: partition nvme0n1p1 above namespace nvme0n1. */
	assert_int_equal(prealloc_probe_device_count(p), 2);
	assert_int_equal(prealloc_probe_device_lookup(p, 0, "role", NULL, &s), PREALLOC_FACT_STRING);
	assert_string_equal(s, "partition");
	assert_int_equal(prealloc_probe_device_lookup(p, 0, "start_bytes", &v, NULL), PREALLOC_FACT_BYTES);
	assert_int_equal(v, 2048 * 512);
	assert_int_equal(prealloc_probe_device_lookup(p, 1, "name", NULL, &s), PREALLOC_FACT_STRING);
	assert_string_equal(s, "nvme0n1");
	assert_int_equal(prealloc_probe_device_lookup(p, 1, "above", NULL, &s), PREALLOC_FACT_STRING);
	assert_string_equal(s, "nvme0n1p1");
	assert_int_equal(prealloc_probe_device_lookup(p, 1, "transport", NULL, &s), PREALLOC_FACT_STRING);
	assert_string_equal(s, "nvme");
	assert_int_equal(prealloc_probe_device_lookup(p, 1, "queue.write_zeroes_unmap_max_bytes",
						      &v, NULL), PREALLOC_FACT_BYTES);
	assert_int_equal(v, 1044480);
	assert_int_equal(prealloc_probe_device_lookup(p, 1, "queue.rotational", &v, NULL),
			 PREALLOC_FACT_BOOL);
	assert_true(prealloc_probe_device_lookup(p, 1, "queue.atomic_write_unit_max_bytes",
						 NULL, NULL) >= 0);
	/* A captured tree has no device node to ask: unknown, with the reason. */
	assert_int_equal(prealloc_probe_device_lookup(p, 1, "nvme.dlfeat", NULL, NULL),
			 PREALLOC_FACT_NULL);
	assert_int_equal(prealloc_probe_device_lookup(p, 1, "nvme.unknown", NULL, &s),
			 PREALLOC_FACT_STRING);
	assert_true(strlen(s) > 0);
	assert_int_equal(prealloc_probe_device_lookup(p, 2, "name", NULL, NULL), -ENXIO);
	assert_int_equal(prealloc_probe_device_fact(p, 2, 0, NULL, NULL, NULL), -ENXIO);
	check_grouping(p, -1);
	check_grouping(p, 0);
	check_grouping(p, 1);
	prealloc_probe_free(p);
	prealloc_ctx_unref(ctx);
}

/* The verdict is the plan's: a device that can unmap-zero does not zero a
 * request the call writes another way (a forced method, no whole block). */
static void verdict_follows_steps(void **state)
{
	struct prealloc_ctx *ctx = ctx_at(nvme_root);
	struct prealloc_probe *p;
	uint32_t action = 0, method = 0;
	const char *why = NULL;

	(void)state;
	if (!on_ext4)
		skip();
	p = probe(ctx, 1 << 20, PREALLOC_METHOD_AUTO);
	assert_int_equal(prealloc_probe_zeroing_offloaded(p, NULL), PREALLOC_UNKNOWN);
	assert_int_equal(prealloc_probe_step(p, 0, &action, &method, NULL, NULL), 0);
	assert_int_equal(action, PREALLOC_ACTION_ZERO);
	assert_int_equal(method, PREALLOC_METHOD_WRITE_ZEROES);
	prealloc_probe_free(p);
	p = probe(ctx, 1 << 20, PREALLOC_METHOD_URING);
	assert_int_equal(prealloc_probe_zeroing_offloaded(p, &why), PREALLOC_NO);
	assert_non_null(strstr(why, "forced"));
	prealloc_probe_free(p);
	p = probe(ctx, 1, PREALLOC_METHOD_AUTO);
	assert_int_equal(prealloc_probe_zeroing_offloaded(p, &why), PREALLOC_NO);
	assert_non_null(strstr(why, "no whole block"));
	prealloc_probe_free(p);
	prealloc_ctx_unref(ctx);
}

static void scsi_facts(void **state)
{
	struct prealloc_ctx *ctx = ctx_at(scsi_root);
	struct prealloc_probe *p = probe(ctx, GIB, PREALLOC_METHOD_AUTO);
	const char *s;
	uint64_t v;

	(void)state;
	assert_int_equal(prealloc_probe_device_count(p), 1);
	assert_int_equal(prealloc_probe_device_lookup(p, 0, "scsi.lbp.lbprz", &v, NULL),
			 PREALLOC_FACT_NUMBER);
	assert_int_equal(v, 1);
	assert_int_equal(prealloc_probe_device_lookup(p, 0, "scsi.lbp.lbpws", &v, NULL),
			 PREALLOC_FACT_BOOL);
	assert_int_equal(v, 1);
	assert_int_equal(prealloc_probe_device_lookup(p, 0, "scsi.block_limits.max_write_same_len",
						      &v, NULL), PREALLOC_FACT_NUMBER);
	assert_int_equal(v, 65535);
	assert_int_equal(prealloc_probe_device_lookup(p, 0, "scsi.kernel_zeroing_mode", NULL, &s),
			 PREALLOC_FACT_STRING);
	assert_string_equal(s, "writesame_16_unmap");
	check_grouping(p, 0);
	prealloc_probe_free(p);
	prealloc_ctx_unref(ctx);
}

static void no_request_no_plan(void **state)
{
	struct prealloc_ctx *ctx = ctx_at(nvme_root);
	struct prealloc_probe *p = probe(ctx, 0, PREALLOC_METHOD_AUTO);

	(void)state;
	assert_int_equal(prealloc_probe_plan(p, 0), -ENODATA);
	assert_null(prealloc_probe_plan_reason(p));
	assert_int_equal(prealloc_probe_lookup(p, "plan.method", NULL, NULL), -ENOENT);
	/* The verdict needs no request. */
	assert_true(prealloc_probe_zeroing_offloaded(p, NULL) >= 0);
	prealloc_probe_free(p);

	/* A forced method that cannot apply: the plan says so, the probe works. */
	p = probe(ctx, GIB, PREALLOC_METHOD_ZEROOUT);
	assert_int_equal(prealloc_probe_plan(p, 0), -EOPNOTSUPP);
	assert_int_equal(prealloc_probe_lookup(p, "plan.error", NULL, NULL), PREALLOC_FACT_STRING);
	prealloc_probe_free(p);
	prealloc_ctx_unref(ctx);
}

/* The fact that says no is the device attribute, and a flush makes the
 * context see a changed device; a probe keeps its context alive. */
static void verdict_no_and_flush(void **state)
{
	struct prealloc_ctx *ctx = ctx_at(nvme_root);
	struct prealloc_probe *p, *held;
	const char *why;

	(void)state;
	if (!on_ext4)
		skip();
	held = probe(ctx, GIB, PREALLOC_METHOD_AUTO);
	assert_int_equal(prealloc_probe_zeroing_offloaded(held, NULL), PREALLOC_UNKNOWN);
	sh("cd '%s' && for f in devices/virtual/nvme-subsystem/nvme-subsys0/nvme0n1/queue/"
	   "write_zeroes_unmap_max*bytes; do echo 0 > $f; done", nvme_root);
	/* Cached: the mount table did not change. */
	p = probe(ctx, GIB, PREALLOC_METHOD_AUTO);
	assert_int_equal(prealloc_probe_zeroing_offloaded(p, NULL), PREALLOC_UNKNOWN);
	prealloc_probe_free(p);
	assert_int_equal(prealloc_ctx_flush(ctx), 0);
	p = probe(ctx, GIB, PREALLOC_METHOD_AUTO);
	assert_int_equal(prealloc_probe_zeroing_offloaded(p, &why), PREALLOC_NO);
	assert_string_equal(why, "nvme0n1: queue/write_zeroes_unmap_max_hw_bytes = 0");
	assert_int_equal(prealloc_probe_plan(p, 0), PREALLOC_METHOD_URING);
	prealloc_probe_free(p);
	/* The held probe keeps what it saw, and the context, past our unref. */
	assert_non_null(prealloc_ctx_unref(prealloc_ctx_ref(ctx)));
	assert_ptr_equal(prealloc_ctx_unref(ctx), ctx);	/* our last; the probe's remains */
	assert_int_equal(prealloc_probe_zeroing_offloaded(held, NULL), PREALLOC_UNKNOWN);
	prealloc_probe_free(held);
	sh("cd '%s' && for f in devices/virtual/nvme-subsystem/nvme-subsys0/nvme0n1/queue/"
	   "write_zeroes_unmap_max*bytes; do echo 1044480 > $f; done", nvme_root);
}

/* A call asks the kernel; the probe then says what it answered for this
 * filesystem (here the real device under the captured tree decides: a
 * loop device refuses, a disk that can unmap-zero takes it), and a flush
 * forgets it. */
static void asked_the_kernel(void **state)
{
	struct prealloc_ctx *ctx = ctx_at(nvme_root);
	struct prealloc_options o = { .size = sizeof(o), .ctx = ctx };
	struct prealloc_report r = { .size = sizeof(r) };
	struct prealloc_probe *p;
	char path[160];
	const char *why, *s;
	int f, want;

	(void)state;
	if (!on_ext4)
		skip();
	snprintf(path, sizeof(path), "%s/asked", tmpdir);
	f = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	assert_true(f >= 0);
	assert_int_equal(prealloc_file_ex(f, 0, 1 << 20, &o, &r), 0);
	close(f);
	unlink(path);
	want = r.refused & (1u << PREALLOC_METHOD_WRITE_ZEROES) ? PREALLOC_NO : PREALLOC_YES;
	assert_true(want == PREALLOC_NO || r.bytes_by_method[PREALLOC_METHOD_WRITE_ZEROES]);
	p = probe(ctx, GIB, PREALLOC_METHOD_AUTO);
	assert_int_equal(prealloc_probe_zeroing_offloaded(p, &why), want);
	assert_non_null(strstr(why, want == PREALLOC_NO ?
			       "asked the kernel: refused: this filesystem" :
			       "asked the kernel: works here"));
	assert_int_equal(prealloc_probe_lookup(p, "write_zeroes_asked", NULL, &s),
			 PREALLOC_FACT_STRING);
	assert_string_equal(s, want == PREALLOC_NO ? "refused" : "works");
	/* The probe's verdict is the report's, in the same words. */
	assert_int_equal(prealloc_probe_lookup(p, "write_zeroes", NULL, &s), PREALLOC_FACT_STRING);
	assert_string_equal(s, prealloc_write_zeroes_name(r.write_zeroes));
	assert_int_equal(prealloc_probe_plan(p, 0), want == PREALLOC_NO ? PREALLOC_METHOD_URING :
			 PREALLOC_METHOD_WRITE_ZEROES);
	prealloc_probe_free(p);
	assert_int_equal(prealloc_ctx_flush(ctx), 0);
	p = probe(ctx, GIB, PREALLOC_METHOD_AUTO);
	assert_int_equal(prealloc_probe_zeroing_offloaded(p, NULL), PREALLOC_UNKNOWN);
	prealloc_probe_free(p);
	prealloc_ctx_unref(ctx);
}

/* No sysfs entry for the device: unknown, with the reason, never a failure. */
static void no_sysfs_unknown(void **state)
{
	char empty[160];
	struct prealloc_ctx *ctx;
	struct prealloc_probe *p;
	const char *why;

	(void)state;
	if (!on_ext4)
		skip();
	snprintf(empty, sizeof(empty), "%s/empty", tmpdir);
	assert_int_equal(mkdir(empty, 0755), 0);
	ctx = ctx_at(empty);
	p = probe(ctx, GIB, PREALLOC_METHOD_AUTO);
	assert_int_equal(prealloc_probe_zeroing_offloaded(p, &why), PREALLOC_UNKNOWN);
	assert_non_null(strstr(why, "not found under"));
	assert_int_equal(prealloc_probe_device_count(p), 0);
	assert_int_equal(prealloc_probe_lookup(p, "zeroing_offloaded", NULL, NULL), PREALLOC_FACT_NULL);
	prealloc_probe_free(p);
	prealloc_ctx_unref(ctx);
}

/* Unprivileged callers probe the real machine without failing. */
static void unprivileged(void **state)
{
	int status;
	pid_t pid;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct prealloc_probe *p;
		int r;

		if (getuid() == 0 && setuid(65534) < 0)
			_exit(10);
		unsetenv("PREALLOC_SYSFS_ROOT");
		if (prealloc_probe_new(fd, 0, GIB, NULL, &p) != 0)
			_exit(11);
		r = prealloc_probe_zeroing_offloaded(p, NULL);
		if (r < 0 || r > PREALLOC_UNKNOWN || prealloc_probe_plan(p, 0) < 0)
			_exit(12);
		prealloc_probe_free(p);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static int setup(void **state)
{
	const char *scripts = getenv("PROBE_SCRIPTS"), *fx = getenv("PROBE_FIXTURES");
	struct prealloc_probe *p;
	const char *fs = NULL;
	struct stat st;

	(void)state;
	if (!scripts || !fx || !mkdtemp(tmpdir))
		return -1;
	chmod(tmpdir, 0755);
	snprintf(file, sizeof(file), "%s/f", tmpdir);
	fd = open(file, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || fstat(fd, &st) < 0)
		return -1;
	/* The file's device number as a partition of an unmap-capable namespace. */
	snprintf(nvme_root, sizeof(nvme_root), "%s/nvme/sys", tmpdir);
	sh("sh '%s/make-tree.sh' %u:%u '%s/nvme' >/dev/null", scripts, major(st.st_dev),
	   minor(st.st_dev), tmpdir);
	/* ... and as the scsi_debug disk (LBPRZ=1, LBPWS=1) of another tree. */
	snprintf(scsi_root, sizeof(scsi_root), "%s/scsi/sys", tmpdir);
	sh("mkdir -p '%s/scsi' && tar -C '%s/scsi' -xJf '%s/sysfs/scsi-debug-lbprz1-6.18.tar.xz' && "
	   "cd '%s/dev/block' && t=$(readlink 8:0) && rm -f %u:%u && ln -s \"$t\" %u:%u", tmpdir,
	   tmpdir, fx, scsi_root, major(st.st_dev), minor(st.st_dev), major(st.st_dev),
	   minor(st.st_dev));
	/* FALLOC_FL_WRITE_ZEROES verdicts on files need ext4. */
	if (prealloc_probe_new(fd, 0, 0, NULL, &p) == 0) {
		on_ext4 = prealloc_probe_lookup(p, "filesystem", NULL, &fs) == PREALLOC_FACT_STRING &&
			  !strcmp(fs, "ext4");
		prealloc_probe_free(p);
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	if (fd >= 0)
		close(fd);
	return tfs_rmtree(tmpdir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(bad_arguments),
		cmocka_unit_test(nvme_offloaded),
		cmocka_unit_test(verdict_follows_steps),
		cmocka_unit_test(scsi_facts),
		cmocka_unit_test(no_request_no_plan),
		cmocka_unit_test(verdict_no_and_flush),
		cmocka_unit_test(asked_the_kernel),
		cmocka_unit_test(no_sysfs_unknown),
		cmocka_unit_test(unprivileged),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}

/* SPDX-License-Identifier: MIT */
/*
 * The context owns the environment: every sysfs reader reads the context's
 * root (here a captured tree that says the file's device is an NVMe
 * partition), and what the library decides reaches the context's log hook,
 * never stdout or stderr.  The tree's files are ours to change: the test
 * moves the device's I/O counters as another writer would.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <cmocka.h>

#include "prealloc.h"
#include "tfs.h"

#define M (1024ull * 1024)
#define WZ_BIT (1u << PREALLOC_METHOD_WRITE_ZEROES)

static struct tfs t;
static char tree[] = "/tmp/prealloc-env-XXXXXX";
static char sys[128], devdir[192];

/* What the hook received. */
struct heard {
	pthread_mutex_t lock;
	unsigned int calls, after_unset;
	bool unset;			/* set once prealloc_ctx_set_log_fn(NULL) returned */
	int min_priority;		/* most urgent seen */
	bool where;			/* file, line and function were given */
	char text[4096];		/* every message, concatenated */
};

__attribute__((format(printf, 6, 0)))
static void hook(void *data, int priority, const char *file, int line, const char *fn,
		 const char *format, va_list args)
{
	struct heard *h = data;
	char msg[512];

	vsnprintf(msg, sizeof(msg), format, args);
	pthread_mutex_lock(&h->lock);
	h->calls++;
	h->after_unset += h->unset;
	if (h->calls == 1 || priority < h->min_priority)
		h->min_priority = priority;
	h->where = file && line > 0 && fn;
	if (strlen(h->text) + strlen(msg) < sizeof(h->text))
		strcat(h->text, msg);
	pthread_mutex_unlock(&h->lock);
}

static void heard_init(struct heard *h)
{
	memset(h, 0, sizeof(*h));
	pthread_mutex_init(&h->lock, NULL);
}

static struct prealloc_ctx *tree_ctx(struct heard *h)
{
	struct prealloc_ctx *ctx;

	assert_int_equal(prealloc_ctx_new(sys, 0, &ctx), 0);
	if (h)
		assert_int_equal(prealloc_ctx_set_log_fn(ctx, hook, h), 0);
	return ctx;
}

static int new_file(const char *name)
{
	char path[256];
	int fd = open(tfs_path(&t, name, path, sizeof(path)), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC,
		      0644);

	assert_true(fd >= 0);
	return fd;
}

static int run(struct prealloc_ctx *ctx, const char *name, uint64_t len, uint32_t flags,
	       struct prealloc_report *r)
{
	struct prealloc_options o = { .size = sizeof(o), .flags = flags, .ctx = ctx };
	int fd = new_file(name), ret;

	*r = (struct prealloc_report){ .size = sizeof(*r) };
	ret = prealloc_file_ex(fd, 0, len, &o, r);
	close(fd);
	return ret;
}

/* The refused method reaches the hook with its reason, from a known place. */
static void refusal_is_logged(void **state)
{
	struct prealloc_report r;
	struct heard h;
	struct prealloc_ctx *ctx;

	(void)state;
	heard_init(&h);
	ctx = tree_ctx(&h);
	assert_int_equal(run(ctx, "refused", 4 * M, 0, &r), 0);
	assert_int_equal(r.refused, WZ_BIT);
	assert_non_null(strstr(h.text, "write-zeroes refused by the filesystem on this kernel"));
	assert_int_equal(h.min_priority, LOG_NOTICE);
	assert_true(h.where);
	/* LOG_DEBUG adds what the context remembers; LOG_WARNING drops both. */
	assert_int_equal(prealloc_ctx_flush(ctx), 0);
	assert_int_equal(prealloc_ctx_set_log_priority(ctx, LOG_DEBUG), 0);
	assert_int_equal(run(ctx, "refused", 4 * M, 0, &r), 0);
	assert_non_null(strstr(h.text, "refused on device"));
	assert_non_null(strstr(h.text, "not asked there again"));
	assert_int_equal(prealloc_ctx_flush(ctx), 0);
	assert_int_equal(prealloc_ctx_set_log_priority(ctx, LOG_WARNING), 0);
	h.calls = 0;
	assert_int_equal(run(ctx, "refused", 4 * M, 0, &r), 0);
	assert_int_equal(r.refused, WZ_BIT);
	assert_int_equal(h.calls, 0);
	prealloc_ctx_unref(ctx);
	pthread_mutex_destroy(&h.lock);
}

/* Another writer, as the device's counters show it: the sysfs `stat` of
 * the context's tree gains 1000 reads at every progress report. */
static int other_writer(uint64_t done, uint64_t total, void *data)
{
	static uint64_t reads;
	FILE *f = fopen(data, "we");

	(void)done;
	(void)total;
	if (!f)
		return 0;
	reads += 1000;
	fprintf(f, "%llu 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n", (unsigned long long)reads);
	fclose(f);
	return 0;
}

/* The pacer reads the context's tree and logs its adaptations.  The cap
 * makes the call last at least 16 MiB / 32 MiB/s: many pacing windows. */
static void adaptations_are_logged(void **state)
{
	char stat[256];
	struct prealloc_options o = { .size = sizeof(o), .flags = PREALLOC_BACKGROUND,
				      .max_rate = 32 * M, .progress = other_writer,
				      .progress_data = stat };
	struct prealloc_report r = { .size = sizeof(r) };
	struct heard h;
	int fd;

	(void)state;
	snprintf(stat, sizeof(stat), "%s/stat", devdir);
	other_writer(0, 0, stat);
	heard_init(&h);
	o.ctx = tree_ctx(&h);
	fd = new_file("background");
	assert_int_equal(prealloc_file_ex(fd, 0, 16 * M, &o, &r), 0);
	close(fd);
	assert_true(r.background & PREALLOC_BG_ADAPTED);
	assert_non_null(strstr(h.text, "background: others use the device, rate lowered to"));
	prealloc_ctx_unref(o.ctx);
	pthread_mutex_destroy(&h.lock);
}

struct worker {
	struct prealloc_ctx *ctx;
	struct heard *h;
	int bad;
};

/* Calls that log (a refusal each: the context forgets it every time). */
static void *logging_calls(void *arg)
{
	struct worker *w = arg;
	struct prealloc_report r;

	for (int i = 0; i < 40; i++) {
		w->bad |= run(w->ctx, "threads", 1 * M, 0, &r) != 0;
		prealloc_ctx_flush(w->ctx);
	}
	return NULL;
}

/* Unset while another thread logs: once it returns, the hook is not called. */
static void never_called_after_unset(void **state)
{
	struct heard h;
	struct worker w = { .h = &h };
	pthread_t th;

	(void)state;
	heard_init(&h);
	w.ctx = tree_ctx(&h);
	assert_int_equal(pthread_create(&th, NULL, logging_calls, &w), 0);
	for (unsigned int n = 0; !n; sched_yield()) {
		pthread_mutex_lock(&h.lock);
		n = h.calls;
		pthread_mutex_unlock(&h.lock);
	}
	assert_int_equal(prealloc_ctx_set_log_fn(w.ctx, NULL, NULL), 0);
	pthread_mutex_lock(&h.lock);
	h.unset = true;
	pthread_mutex_unlock(&h.lock);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(w.bad, 0);
	assert_int_equal(h.after_unset, 0);
	prealloc_ctx_unref(w.ctx);
	pthread_mutex_destroy(&h.lock);
}

/* Without a hook nothing is printed; the default context takes none. */
static void silent_by_default(void **state)
{
	struct prealloc_report r;
	struct prealloc_ctx *ctx = tree_ctx(NULL);
	char out[] = "/tmp/prealloc-env-out-XXXXXX";
	int o = mkstemp(out), saved[2] = { dup(1), dup(2) };
	struct stat st;

	(void)state;
	assert_true(o >= 0 && saved[0] >= 0 && saved[1] >= 0);
	fflush(stdout);
	assert_int_equal(dup2(o, 1), 1);
	assert_int_equal(dup2(o, 2), 2);
	assert_int_equal(run(ctx, "silent", 4 * M, PREALLOC_BACKGROUND, &r), 0);
	dup2(saved[0], 1);
	dup2(saved[1], 2);
	close(saved[0]);
	close(saved[1]);
	assert_int_equal(r.refused, WZ_BIT);
	assert_int_equal(fstat(o, &st), 0);
	close(o);
	unlink(out);
	assert_int_equal(st.st_size, 0);
	assert_int_equal(prealloc_ctx_set_log_fn(NULL, hook, NULL), -EINVAL);
	assert_int_equal(prealloc_ctx_set_log_priority(NULL, LOG_INFO), -EINVAL);
	assert_int_equal(prealloc_ctx_set_log_priority(ctx, LOG_DEBUG + 1), -EINVAL);
	assert_int_equal(prealloc_ctx_set_log_priority(ctx, -1), -EINVAL);
	prealloc_ctx_unref(ctx);
}

/* The free-space check reads ext4's reserve from the context's tree: a
 * reserve larger than the filesystem fails fast, the file untouched, and
 * the log says why. */
static void space_check_reads_context_root(void **state)
{
	struct prealloc_report r;
	struct heard h;
	struct prealloc_ctx *ctx;
	char path[256];
	struct stat st;

	(void)state;
	heard_init(&h);
	ctx = tree_ctx(&h);
	assert_int_equal(tfs_sh("mkdir -p '%s/fs/ext4/nvme0n1p1' && "
				"echo 1000000000 > '%s/fs/ext4/nvme0n1p1/reserved_clusters'", sys, sys), 0);
	assert_int_equal(run(ctx, "reserved", 1 * M, 0, &r), -ENOSPC);
	assert_non_null(strstr(h.text, "free-space check: "));
	assert_int_equal(stat(tfs_path(&t, "reserved", path, sizeof(path)), &st), 0);
	assert_int_equal(st.st_size, 0);
	assert_int_equal(st.st_blocks, 0);
	assert_int_equal(tfs_sh("rm -r '%s/fs'", sys), 0);
	assert_int_equal(run(ctx, "reserved", 1 * M, 0, &r), 0);
	prealloc_ctx_unref(ctx);
	pthread_mutex_destroy(&h.lock);
}

static int setup(void **state)
{
	struct stat st;

	(void)state;
	if (tfs_create_nvme(&t, 64, tree, sys, sizeof(sys)) || stat(t.dir, &st) < 0)
		return -1;
	snprintf(devdir, sizeof(devdir), "%s/dev/block/%u:%u", sys, major(st.st_dev),
		 minor(st.st_dev));
	/* Only the context names the tree: nothing may read it through the environment. */
	return unsetenv("PREALLOC_SYSFS_ROOT");
}

static int teardown(void **state)
{
	(void)state;
	return tfs_destroy_nvme(&t, tree);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(refusal_is_logged),
		cmocka_unit_test(adaptations_are_logged),
		cmocka_unit_test(never_called_after_unset),
		cmocka_unit_test(silent_by_default),
		cmocka_unit_test(space_check_reads_context_root),
	};

	tfs_enter_for("ext4");
	return cmocka_run_group_tests(tests, setup, teardown);
}

/* SPDX-License-Identifier: MIT */
/*
 * Every device fact, in order, with its type and value, of a probe over the
 * captured NVMe and SCSI trees with the device commands answered from
 * fixture bytes, and without them: compared with
 * tests/probes/expected/facts-*.out, so a change of a fact's name, type,
 * value or place shows as a diff.  The device number
 * of the test file is masked.  Also the table reader (probes/facts.c) on a
 * struct of its own.  After an intended change, rewrite the files with
 *   meson test -C build test-probe-facts --test-args=--regen
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <cmocka.h>

#include "config.h"
#include "fake-io.h"
#include "probes/facts.h"
#include "prealloc.h"
#include "tfs.h"

static char tmpdir[] = "/var/tmp/probe-facts-XXXXXX";
static int fd = -1;
static bool regen;

#define sh(...) assert_int_equal(tfs_sh(__VA_ARGS__), 0)

/* One line per device fact: "name type value". */
static void dump(FILE *out, const struct prealloc_probe *p)
{
	static const char *const types[] = { "null", "bool", "number", "bytes", "flags", "string" };
	int ndev = prealloc_probe_device_count(p);

	for (int d = 0; d < ndev; d++) {
		const char *name, *s;
		uint64_t v;
		int t;

		fprintf(out, "device %d\n", d);
		for (unsigned int i = 0;
		     (t = prealloc_probe_device_fact(p, (unsigned int)d, i, &name, &v, &s)) >= 0; i++) {
			if (!strcmp(name, "dev"))
				fprintf(out, "%s %s MAJ:MIN\n", name, types[t]);
			else if (t == PREALLOC_FACT_STRING)
				fprintf(out, "%s %s %s\n", name, types[t], s);
			else
				fprintf(out, "%s %s %llu\n", name, types[t], (unsigned long long)v);
		}
	}
}

/* Probe under @root and compare (or rewrite) expected/@name. */
static void check(const char *root, const char *name)
{
	const char *dir = getenv("PROBE_EXPECTED");
	struct prealloc_ctx *ctx = NULL;
	struct prealloc_options o = { .size = sizeof(o) };
	struct prealloc_probe *p = NULL;
	char got[256];
	FILE *f;

	assert_non_null(dir);
	assert_int_equal(prealloc_ctx_new(root, 0, &ctx), 0);
	o.ctx = ctx;
	assert_int_equal(prealloc_probe_new(fd, 0, 1 << 20, &o, &p), 0);
	snprintf(got, sizeof(got), "%s/%s", tmpdir, name);
	f = fopen(got, "w");
	assert_non_null(f);
	dump(f, p);
	assert_int_equal(fclose(f), 0);
	prealloc_probe_free(p);
	prealloc_ctx_unref(ctx);
	if (regen)
		sh("cp '%s' '%s/%s'", got, dir, name);
	else
		sh("diff -u '%s/%s' '%s' >&2", dir, name, got);
}

static void nvme_facts(void **state)
{
	struct pa_nvme_io io = { fake_identify, (void *)"nvme-loop-over-scsi-debug-6.18" };
	char root[160];
	struct stat st;

	(void)state;
	if (!HAVE_LIBNVME)
		skip();
	assert_int_equal(fstat(fd, &st), 0);
	snprintf(root, sizeof(root), "%s/nvme/sys", tmpdir);
	sh("sh '%s/make-tree.sh' %u:%u '%s/nvme' >/dev/null", getenv("PROBE_SCRIPTS"),
	   major(st.st_dev), minor(st.st_dev), tmpdir);
	pa_probe_set_io(PA_TRANSPORT_NVME, &io);
	check(root, "facts-nvme.out");
	pa_probe_set_io(PA_TRANSPORT_NVME, NULL);
	/* No device node to ask: the unknown parts and the reason. */
	check(root, "facts-nvme-unknown.out");
}

static void scsi_facts(void **state)
{
	struct pa_scsi_io io = { fake_vpd, fake_rc16, (void *)"scsi/scsi-debug-lbprz1-6.18-readcap16.bin" };
	char root[160];
	struct stat st;

	(void)state;
	assert_int_equal(fstat(fd, &st), 0);
	snprintf(root, sizeof(root), "%s/scsi/sys", tmpdir);
	sh("mkdir -p '%s/scsi' && tar -C '%s/scsi' -xJf '%s/sysfs/scsi-debug-lbprz1-6.18.tar.xz' && "
	   "cd '%s/dev/block' && t=$(readlink 8:0) && rm -f %u:%u && ln -s \"$t\" %u:%u", tmpdir,
	   tmpdir, getenv("PROBE_FIXTURES"), root, major(st.st_dev), minor(st.st_dev),
	   major(st.st_dev), minor(st.st_dev));
	pa_probe_set_io(PA_TRANSPORT_SCSI, &io);
	check(root, "facts-scsi.out");
	pa_probe_set_io(PA_TRANSPORT_SCSI, NULL);
	check(root, "facts-scsi-unknown.out");
}

/* The table reader itself, on a struct of its own: each field kind, a group
 * not learnt with one standing null fact, and one with each fact null. */
struct sample {
	bool have_a, have_b;
	uint16_t u16;
	bool flag;
	int mode;
	uint8_t kind;
	char text[8], chars[8];
};

static const char *sample_label(int v)
{
	return v == 1 ? "one" : NULL;
}

#define S_NUM(n, t, m) PA_FACT_NUM(struct sample, n, PREALLOC_FACT_##t, m)

static const struct pa_fact_def sample_a[] = {
	S_NUM("u16", NUMBER, u16),
	S_NUM("flag", BOOL, flag),
	PA_FACT_LABEL(struct sample, "mode", mode, sample_label),
	PA_FACT_LABEL(struct sample, "kind", kind, sample_label),
	PA_FACT_TEXT(struct sample, "text", text),
	PA_FACT_CHARS(struct sample, "chars", chars),
};

static const struct pa_fact_def sample_b[] = {
	S_NUM("x", BYTES, u16),
	S_NUM("y", BYTES, u16),
};

static const struct pa_fact_group sample_groups[] = {
	{ "a", (long)offsetof(struct sample, have_a), "a", sample_a, 6 },
	{ "b", (long)offsetof(struct sample, have_b), "b", sample_b, 2 },
	{ "c", (long)offsetof(struct sample, have_b), NULL, sample_b, 2 },
	{ "d", PA_FACTS_ALWAYS, NULL, sample_b, 1 },
};

static void sample_fact(void *arg, const char *prefix, const char *name, int type,
			uint64_t num, const char *str)
{
	char *out = arg;
	size_t n = strlen(out);

	snprintf(out + n, 512 - n, "%s%s%s=%d:%llu:%s ", prefix ? prefix : "", prefix ? "." : "",
		 name, type, (unsigned long long)num, str ? str : "-");
}

static void table_reader(void **state)
{
	struct sample x = { .have_a = true, .u16 = 513, .flag = true, .mode = -1, .kind = 1,
			    .text = "", .chars = "" };
	char out[512] = "";

	(void)state;
	pa_facts_emit(sample_groups, 4, &x, sample_fact, out);
	assert_string_equal(out, "a.u16=2:513:- a.flag=1:1:- a.mode=0:0:- a.kind=5:0:one "
			    "a.text=0:0:- a.chars=5:0: b=0:0:- c.x=0:0:- c.y=0:0:- d.x=3:513:- ");
}

static int setup(void **state)
{
	char file[128];

	(void)state;
	if (!getenv("PROBE_SCRIPTS") || !getenv("PROBE_FIXTURES") || !mkdtemp(tmpdir))
		return -1;
	snprintf(file, sizeof(file), "%s/f", tmpdir);
	fd = open(file, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	return fd < 0 ? -1 : 0;
}

static int teardown(void **state)
{
	(void)state;
	if (fd >= 0)
		close(fd);
	return tfs_rmtree(tmpdir);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(table_reader),
		cmocka_unit_test(nvme_facts),
		cmocka_unit_test(scsi_facts),
	};

	regen = argc > 1 && !strcmp(argv[1], "--regen");
	return cmocka_run_group_tests(tests, setup, teardown);
}

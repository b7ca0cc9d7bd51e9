/* SPDX-License-Identifier: MIT */
/*
 * Golden output of the prealloc tool (util-linux's tests/expected/ habit):
 * each case below runs one shell line in a fresh ext4 filesystem on a loop
 * device, and its standard output, standard error and exit status, masked by
 * tests/fs/expected/filter.sed, must equal tests/fs/expected/<case>.out.
 * Cases run in order and build on each other (run makes r1, verify reads it).  The
 * probe cases read the captured NVMe tree (tests/probes/make-tree.sh) in
 * place of /sys, so the device chain is the same on every machine.
 *
 * After an intended change of the output, regenerate the files and review
 * the diff:
 *   meson test -C build test-cli-golden --test-args=--regen && git diff tests/fs/expected
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "tassert.h"
#include "tfs.h"

struct golden {
	const char *name;	/* tests/fs/expected/<name>.out */
	const char *line;	/* sh -c; $DEV: a loop device without a filesystem */
};

#define PROBE "PREALLOC_SYSFS_ROOT=sys/sys prealloc probe --offset 0 --length 1M"

static const struct golden cases[] = {
	{ "probe-text", "touch f && " PROBE " f" },
	{ "probe-json", PROBE " --json f" },
	{ "probe-forced", PROBE " --method buffered --keep-size f" },
	{ "probe-stdout-full", PROBE " --json f >/dev/full" },
	{ "probe-keep-size-blockdev", "prealloc probe --keep-size $DEV" },
	{ "run-text", "prealloc run --length 1M r1" },
	{ "run-json", "prealloc run --json --offset 1M --length 1M r1" },
	{ "run-buffered", "prealloc run --method buffered --offset 4K --length 96K r2" },
	{ "run-buffered-json", "prealloc run --json --method buffered --length 8K r2" },
	{ "run-force-file", "prealloc run --force --length 1M r3" },
	{ "run-keep-size-blockdev", "prealloc run --keep-size --zero-data --length 1M $DEV" },
	{ "run-enospc", "prealloc run --length 1G r4" },
	/* probe plans the range run makes with the same options: from 0. */
	{ "probe-same-range", "head -c 20000 /dev/zero >d && prealloc probe --length 4M d | "
			      "sed -n '/^steps:/,/^facts:/p'" },
	{ "run-same-range", "prealloc run --length 4M d" },
	{ "verify-text", "prealloc verify r1" },
	{ "verify-json", "prealloc verify --json r1" },
	{ "verify-sparse", "truncate -s 1M s && prealloc verify s" },
	{ "verify-sparse-json", "prealloc verify --json --offset 4K --length 8K s" },
	{ "pool-text", "mkdir wal && prealloc pool --segment-size 1M --count 2 wal" },
	{ "pool-json", "prealloc pool --json --segment-size 1M wal" },
	{ "pool-max-rate-inspect", "prealloc pool --segment-size 1M --max-rate 1M wal" },
	{ "pool-rate-inspect", "prealloc pool --segment-size 1M -R 1M wal" },
};

static const char *expected_dir;
static char tool_dir[256];
static char work[96];		/* the harness's files, beside the cases' */

/* Run case @g in @dir; its masked output lands in @got.  0 or -1. */
static int run_case(const struct golden *g, const char *dir, const char *dev, const char *got)
{
	return tfs_sh("cd '%s' && (PATH='%s':\"$PATH\" DEV='%s' sh -c '%s' >'%s/out' 2>'%s/err'; "
		      "echo \"[exit $?]\" >'%s/rc') && "
		      "{ cat '%s/out'; if [ -s '%s/err' ]; then echo '[stderr]'; cat '%s/err'; fi; "
		      "cat '%s/rc'; } | sed -E -f '%s/filter.sed' >'%s'",
		      dir, tool_dir, dev, g->line, work, work, work, work, work, work, work,
		      expected_dir, got);
}

/* Compare (or with @regen, rewrite) each case; the number that differ. */
static int run_cases(const char *dir, const char *dev, int regen)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *name = cases[i].name;
		char got[160];

		snprintf(got, sizeof(got), "%s/%s.out", work, name);
		if (!expect_msg(run_case(&cases[i], dir, dev, got) == 0, "%s did not run", name))
			continue;
		if (regen)
			expect_msg(tfs_sh("cp '%s' '%s/%s.out'", got, expected_dir, name) == 0,
				   "%s: expected/%s.out not rewritten", name, name);
		else
			expect_msg(tfs_sh("diff -u '%s/%s.out' '%s' >&2", expected_dir, name, got) == 0,
				   "%s: the output differs from expected/%s.out", name, name);
	}
	return (int)tassert_failures;
}

int main(int argc, char **argv)
{
	const char *tool = getenv("PREALLOC_TOOL"), *scripts = getenv("PROBE_SCRIPTS");
	struct tfs fs = { 0 }, blk = { 0 };
	int regen = argc > 1 && !strcmp(argv[1], "--regen"), bad = -1;
	char *slash;
	struct stat st;

	expected_dir = getenv("GOLDEN_EXPECTED");
	if (!tool || !scripts || !expected_dir || !(slash = strrchr(tool, '/')))
		return 1;
	snprintf(tool_dir, sizeof(tool_dir), "%.*s", (int)(slash - tool), tool);
	tfs_enter_for("ext4");
	if (tfs_create(&fs, "ext4", 64, NULL) < 0 || tfs_loop(&blk, 16, false) < 0 ||
	    stat(fs.dir, &st) < 0)
		goto out;
	snprintf(work, sizeof(work), "%s/.golden", fs.dir);
	if (tfs_sh("mkdir '%s' && sh '%s/make-tree.sh' %u:%u '%s/sys' >/dev/null", work, scripts,
		   major(st.st_dev), minor(st.st_dev), fs.dir) < 0)
		goto out;
	bad = run_cases(fs.dir, blk.dev, regen);
	if (bad)
		fprintf(stderr, "%d case(s) differ; after an intended change: meson test -C build "
			"test-cli-golden --test-args=--regen\n", bad);
out:
	tfs_destroy(&blk);
	tfs_destroy(&fs);
	return bad ? 1 : 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * The filesystem table (src/fs/): each magic finds its entry, anything else
 * the unknown default, and each fact the library acts on is held by exactly
 * the filesystems listed here.
 */
#include <linux/magic.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "src/fs/fs.h"
#include "tassert.h"

/* A fact, and the names of every filesystem that has it. */
static const struct {
	const char *fact;
	size_t off;
	const char *who;
} facts[] = {
#define FACT(f, who) { #f, offsetof(struct pa_fs, f), who }
	FACT(overlay, " overlay "),
	FACT(mem_backed, " tmpfs ramfs hugetlbfs "),
	FACT(no_write, " hugetlbfs "),
	FACT(seek_data_written, " tmpfs ramfs "),
	FACT(ext_inode_flags, " ext4 "),
	FACT(marks_prealloc, " xfs "),
	FACT(realtime, " xfs "),
	FACT(always_cow_knob, " xfs "),
	FACT(reserved_clusters, " ext4 "),
	FACT(frees_late, " xfs "),
	FACT(statfs_at_commit, " btrfs "),
	FACT(flock_record_lock, " nfs cifs smbfs "),
	FACT(subvol_dev, " btrfs bcachefs overlay "),
	FACT(commit_range, " xfs "),
#undef FACT
};

static bool has(const struct pa_fs *fs, size_t off)
{
	return *(const bool *)((const char *)fs + off);
}

/* Is @name a word of the space-delimited list @who? */
static bool listed(const char *who, const char *name)
{
	char word[32];

	snprintf(word, sizeof(word), " %s ", name);
	return strstr(who, word) != NULL;
}

static void every_magic_finds_its_entry(void **state)
{
	(void)state;
	for (size_t i = 0; pa_fs_table[i]; i++) {
		const struct pa_fs *fs = pa_fs_table[i];

		assert_non_null(fs->name);
		assert_int_not_equal(fs->magic[0], 0);
		for (size_t m = 0; m < PA_FS_MAGICS && fs->magic[m]; m++) {
			/* As a 64-bit statfs and a sign-extending 32-bit one give it. */
			int64_t ext = (int32_t)fs->magic[m];

			assert_ptr_equal(pa_fs_of(fs->magic[m]), fs);
			assert_ptr_equal(pa_fs_of((uint64_t)ext), fs);
			assert_string_equal(pa_fs_name(fs->magic[m]), fs->name);
		}
	}
}

static void kernel_magics(void **state)
{
	static const struct {
		uint64_t magic;
		const char *name;
	} known[] = {
		{ EXT4_SUPER_MAGIC, "ext4" }, { XFS_SUPER_MAGIC, "xfs" },
		{ BTRFS_SUPER_MAGIC, "btrfs" }, { TMPFS_MAGIC, "tmpfs" },
		{ RAMFS_MAGIC, "ramfs" }, { HUGETLBFS_MAGIC, "hugetlbfs" },
		{ F2FS_SUPER_MAGIC, "f2fs" }, { NFS_SUPER_MAGIC, "nfs" },
		{ FUSE_SUPER_MAGIC, "fuse" }, { OVERLAYFS_SUPER_MAGIC, "overlay" },
		{ SMB_SUPER_MAGIC, "smbfs" }, { 0xFF534D42u, "cifs" },
		{ 0xFE534D42u, "cifs" }, { 0x2fc12fc1, "zfs" }, { 0xca451a4e, "bcachefs" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		assert_string_equal(pa_fs_name(known[i].magic), known[i].name);
}

static void unknown_gives_the_default(void **state)
{
	const struct pa_fs *u = &pa_fs_unknown;

	(void)state;
	assert_ptr_equal(pa_fs_of(0), u);		/* a block device */
	assert_ptr_equal(pa_fs_of(0x12345678), u);
	assert_ptr_equal(pa_fs_of(0x100000000ull), u);
	assert_ptr_equal(pa_fs_lookup(-1), u);
	assert_null(pa_fs_name(0x12345678));
	assert_null(u->name);
	assert_int_equal(u->magic[0], 0);
	assert_int_equal(u->cow, PA_FS_COW_NEVER);
	for (size_t f = 0; f < sizeof(facts) / sizeof(facts[0]); f++)
		assert_false(has(u, facts[f].off));
	for (size_t i = 0; pa_fs_table[i]; i++)
		assert_ptr_not_equal(pa_fs_table[i], u);
}

static void no_two_entries_share_a_magic_or_name(void **state)
{
	(void)state;
	for (size_t i = 0; pa_fs_table[i]; i++) {
		const struct pa_fs *a = pa_fs_table[i];

		for (size_t j = i + 1; pa_fs_table[j]; j++) {
			const struct pa_fs *b = pa_fs_table[j];

			assert_string_not_equal(a->name, b->name);
			for (size_t m = 0; m < PA_FS_MAGICS && a->magic[m]; m++)
				for (size_t n = 0; n < PA_FS_MAGICS && b->magic[n]; n++)
					assert_int_not_equal(a->magic[m], b->magic[n]);
		}
	}
}

static void each_fact_has_exactly_its_filesystems(void **state)
{
	(void)state;
	for (size_t f = 0; f < sizeof(facts) / sizeof(facts[0]); f++) {
		for (size_t i = 0; pa_fs_table[i]; i++) {
			const struct pa_fs *fs = pa_fs_table[i];

			bool want = listed(facts[f].who, fs->name);

			assert_msg(has(fs, facts[f].off) == want, "%s: %s should be %s",
				   fs->name, facts[f].fact, want ? "set" : "clear");
		}
	}
}

static void copy_on_write(void **state)
{
	(void)state;
	for (size_t i = 0; pa_fs_table[i]; i++) {
		const struct pa_fs *fs = pa_fs_table[i];
		enum pa_fs_cow want = PA_FS_COW_NEVER;

		if (listed(" zfs bcachefs ", fs->name))
			want = PA_FS_COW_ALWAYS;
		else if (listed(" btrfs ", fs->name))
			want = PA_FS_COW_UNLESS_NOCOW;
		assert_msg(fs->cow == want, "%s: cow %d, want %d", fs->name, fs->cow, want);
	}
}

/* What the library does on the filesystems it is tested on, said plainly. */
static void main_filesystems(void **state)
{
	const struct pa_fs *ext4 = pa_fs_of(EXT4_SUPER_MAGIC), *xfs = pa_fs_of(XFS_SUPER_MAGIC);
	const struct pa_fs *btrfs = pa_fs_of(BTRFS_SUPER_MAGIC), *tmpfs = pa_fs_of(TMPFS_MAGIC);
	const struct pa_fs *nfs = pa_fs_of(NFS_SUPER_MAGIC);

	(void)state;
	assert_ptr_equal(ext4, &pa_fs_ext4);
	assert_true(ext4->ext_inode_flags && ext4->reserved_clusters);
	assert_false(ext4->marks_prealloc || ext4->frees_late || ext4->statfs_at_commit);
	assert_ptr_equal(xfs, &pa_fs_xfs);
	assert_true(xfs->marks_prealloc && xfs->realtime && xfs->always_cow_knob &&
		    xfs->frees_late);
	assert_int_equal(xfs->cow, PA_FS_COW_NEVER);
	assert_ptr_equal(btrfs, &pa_fs_btrfs);
	assert_int_equal(btrfs->cow, PA_FS_COW_UNLESS_NOCOW);
	assert_true(btrfs->statfs_at_commit);
	assert_ptr_equal(tmpfs, &pa_fs_tmpfs);
	assert_true(tmpfs->mem_backed && tmpfs->seek_data_written);
	assert_false(tmpfs->no_write);
	assert_ptr_equal(nfs, &pa_fs_nfs);
	assert_true(nfs->flock_record_lock);
	assert_false(nfs->mem_backed);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_magic_finds_its_entry),
		cmocka_unit_test(kernel_magics),
		cmocka_unit_test(unknown_gives_the_default),
		cmocka_unit_test(no_two_entries_share_a_magic_or_name),
		cmocka_unit_test(each_fact_has_exactly_its_filesystems),
		cmocka_unit_test(copy_on_write),
		cmocka_unit_test(main_filesystems),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

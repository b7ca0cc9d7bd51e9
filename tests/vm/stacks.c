/* SPDX-License-Identifier: MIT */
/*
 * Block-device stacks for the test guests, built with the kernel's ioctls so
 * the initramfs needs no sfdisk, dmsetup or mdadm (and their libraries).
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <linux/dm-ioctl.h>
#include <linux/loop.h>
#include <linux/major.h>
#include <linux/raid/md_p.h>
#include <linux/raid/md_u.h>

#include "stacks.h"

/* /dev/@name for @dev; made here if devtmpfs has not (it normally has). */
static int node(const char *name, dev_t dev, char *path, size_t n)
{
	if ((size_t)snprintf(path, n, "/dev/%s", name) >= n)
		return -ENAMETOOLONG;
	if (mknod(path, S_IFBLK | 0600, dev) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

/* ioctl(@req, @arg) on @path opened for it. */
static int ioctl_on(const char *path, unsigned long req, void *arg)
{
	int fd = open(path, O_RDWR | O_CLOEXEC), r = 0;

	if (fd < 0)
		return -errno;
	if (ioctl(fd, req, arg) < 0)
		r = -errno;
	close(fd);
	return r;
}

int vm_devnum(const char *path, char *buf, size_t n)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return -errno;
	if (!S_ISBLK(st.st_mode))
		return -ENOTBLK;
	snprintf(buf, n, "%u:%u", major(st.st_rdev), minor(st.st_rdev));
	return 0;
}

/* ------------------------------------------------------------ GPT */

#define GPT_ENTRIES 128
#define GPT_ENTRY_SIZE 128
#define GPT_HEADER_SIZE 92

static uint32_t crc32_le(const uint8_t *p, size_t n)
{
	uint32_t c = 0xffffffffu;

	while (n--) {
		c ^= *p++;
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0xedb88320u & -(c & 1));
	}
	return ~c;
}

static void put16(uint8_t *p, uint16_t v) { v = htole16(v); memcpy(p, &v, 2); }
static void put32(uint8_t *p, uint32_t v) { v = htole32(v); memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { v = htole64(v); memcpy(p, &v, 8); }

/* Header at @self pointing at the other copy and at entries from @entries. */
static void gpt_header(uint8_t *h, uint64_t self, uint64_t other, uint64_t first, uint64_t last,
		       uint64_t entries, uint32_t entries_crc)
{
	static const uint8_t disk_guid[16] = { 0x70, 0x72, 0x65, 0x61, 0x6c, 0x6c, 0x6f, 0x63,
					       0x86, 0x56, 0x4d, 0x2d, 0x73, 0x74, 0x61, 0x6b };

	memcpy(h, "EFI PART", 8);
	put32(h + 8, 0x00010000);
	put32(h + 12, GPT_HEADER_SIZE);
	put64(h + 24, self);
	put64(h + 32, other);
	put64(h + 40, first);
	put64(h + 48, last);
	memcpy(h + 56, disk_guid, 16);
	put64(h + 72, entries);
	put32(h + 80, GPT_ENTRIES);
	put32(h + 84, GPT_ENTRY_SIZE);
	put32(h + 88, entries_crc);
	put32(h + 16, crc32_le(h, GPT_HEADER_SIZE));
}

static int pwrite_all(int fd, const void *buf, size_t len, uint64_t off)
{
	ssize_t w = pwrite(fd, buf, len, (off_t)off);

	return w == (ssize_t)len ? 0 : w < 0 ? -errno : -EIO;
}

/*
 * Protective MBR, primary header and entries at the start, backup entries
 * and header at the end, as UEFI 2.x lays them out (what the kernel's
 * block/partitions/efi.c checks: signature, CRCs, my_lba, usable range).
 */
static int gpt_write(int fd, uint32_t lbs, uint64_t nlb, uint64_t first_lba, uint64_t last_lba)
{
	static const uint8_t linux_fs[16] = { 0xaf, 0x3d, 0xc6, 0x0f, 0x83, 0x84, 0x72, 0x47,
					      0x8e, 0x79, 0x3d, 0x69, 0xd8, 0x47, 0x7d, 0xe4 };
	const size_t esz = GPT_ENTRIES * GPT_ENTRY_SIZE;
	const uint64_t elb = esz / lbs;
	uint8_t *mbr = calloc(1, lbs), *hdr = calloc(1, lbs), *ent = calloc(1, esz);
	uint32_t ecrc;
	int r = -ENOMEM;

	if (!mbr || !hdr || !ent)
		goto out;
	r = -ERANGE;
	if (first_lba < 2 + elb || last_lba > nlb - 2 - elb || first_lba > last_lba)
		goto out;
	mbr[446 + 1] = 0x00; mbr[446 + 2] = 0x02;	/* CHS 0/0/2 */
	mbr[446 + 4] = 0xee;
	memset(mbr + 446 + 5, 0xff, 3);
	put32(mbr + 446 + 8, 1);
	put32(mbr + 446 + 12, nlb - 1 > 0xffffffffu ? 0xffffffffu : (uint32_t)(nlb - 1));
	mbr[510] = 0x55;
	mbr[511] = 0xaa;

	memcpy(ent, linux_fs, 16);
	memcpy(ent + 16, "prealloc-vm-p1\x01\x02", 16);	/* unique partition GUID */
	put64(ent + 32, first_lba);
	put64(ent + 40, last_lba);
	for (int i = 0; i < 4; i++)
		put16(ent + 56 + 2 * i, (uint16_t)"data"[i]);
	ecrc = crc32_le(ent, esz);

	r = pwrite_all(fd, mbr, lbs, 0);
	gpt_header(hdr, 1, nlb - 1, 2 + elb, nlb - 2 - elb, 2, ecrc);
	if (!r)
		r = pwrite_all(fd, hdr, lbs, lbs);
	if (!r)
		r = pwrite_all(fd, ent, esz, 2ull * lbs);
	memset(hdr, 0, lbs);
	gpt_header(hdr, nlb - 1, 1, 2 + elb, nlb - 2 - elb, nlb - 1 - elb, ecrc);
	if (!r)
		r = pwrite_all(fd, ent, esz, (nlb - 1 - elb) * lbs);
	if (!r)
		r = pwrite_all(fd, hdr, lbs, (nlb - 1) * lbs);
	if (!r && fsync(fd) < 0)
		r = -errno;
out:
	free(mbr);
	free(hdr);
	free(ent);
	return r;
}

static int reread_partitions(int fd)
{
	return ioctl(fd, BLKRRPART) < 0 ? -errno : 0;
}

int vm_gpt_partition(const char *disk, uint64_t start, uint64_t len, char *part, size_t n)
{
	const char *base = strrchr(disk, '/') + 1;
	char name[64], sys[128], num[32];
	unsigned int ma, mi;
	uint64_t size;
	int lbs, fd, r;
	FILE *f;

	fd = open(disk, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, BLKSSZGET, &lbs) < 0 || ioctl(fd, BLKGETSIZE64, &size) < 0) {
		r = -errno;
		goto out;
	}
	r = -EINVAL;
	if (lbs <= 0 || start % (unsigned int)lbs || len % (unsigned int)lbs || !len)
		goto out;
	r = gpt_write(fd, (uint32_t)lbs, size / (unsigned int)lbs, start / (unsigned int)lbs,
		      (start + len) / (unsigned int)lbs - 1);
	if (!r)
		r = reread_partitions(fd);
	if (r)
		goto out;
	/* sdb -> sdb1, nvme0n1 -> nvme0n1p1 (block/partitions/core.c). */
	snprintf(name, sizeof(name), "%s%s1", base,
		 base[strlen(base) - 1] >= '0' && base[strlen(base) - 1] <= '9' ? "p" : "");
	snprintf(sys, sizeof(sys), "/sys/class/block/%s/dev", name);
	f = fopen(sys, "re");
	if (!f) {
		r = -errno;
		goto out;
	}
	r = fgets(num, sizeof(num), f) && sscanf(num, "%u:%u", &ma, &mi) == 2 ? 0 : -EIO;
	fclose(f);
	if (!r)
		r = node(name, makedev(ma, mi), part, n);
out:
	close(fd);
	return r;
}

int vm_gpt_erase(const char *disk)
{
	uint64_t size;
	uint8_t *z;
	int fd, r = 0, lbs;

	fd = open(disk, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	z = calloc(1, 64 * 1024);
	if (!z)
		r = -ENOMEM;
	else if (ioctl(fd, BLKSSZGET, &lbs) < 0 || ioctl(fd, BLKGETSIZE64, &size) < 0)
		r = -errno;
	/* Enough for MBR, header and entries with any block size up to 4 KiB. */
	if (!r)
		r = pwrite_all(fd, z, 64 * 1024, 0);
	if (!r)
		r = pwrite_all(fd, z, 64 * 1024, size - 64 * 1024);
	if (!r && fsync(fd) < 0)
		r = -errno;
	if (!r)
		r = reread_partitions(fd);
	free(z);
	close(fd);
	return r;
}

/* ------------------------------------------------------------ device-mapper */

union dm_buf {
	struct dm_ioctl io;
	uint64_t align;
	char bytes[16384];
};

static void dm_init(union dm_buf *b, const char *name)
{
	memset(b, 0, sizeof(*b));
	b->io.version[0] = DM_VERSION_MAJOR;
	b->io.version[1] = 0;
	b->io.version[2] = 0;
	b->io.data_size = sizeof(*b);
	b->io.data_start = sizeof(b->io);
	snprintf(b->io.name, sizeof(b->io.name), "%s", name);
}

static int dm_call(unsigned long cmd, union dm_buf *b)
{
	return ioctl_on("/dev/mapper/control", cmd, b);
}

/* Targets as struct dm_target_spec + NUL-terminated parameters, 8-aligned. */
static int dm_table(union dm_buf *b, const struct vm_dm_target *t, size_t nt)
{
	size_t off = b->io.data_start;

	for (size_t i = 0; i < nt; i++) {
		struct dm_target_spec *s = (struct dm_target_spec *)(b->bytes + off);
		size_t plen = strlen(t[i].params) + 1;
		size_t next = (sizeof(*s) + plen + 7) & ~(size_t)7;

		if (off + next > sizeof(*b))
			return -E2BIG;
		s->sector_start = t[i].start;
		s->length = t[i].len;
		snprintf(s->target_type, sizeof(s->target_type), "%s", t[i].type);
		memcpy(s + 1, t[i].params, plen);
		s->next = (uint32_t)next;
		off += next;
	}
	b->io.target_count = (uint32_t)nt;
	return 0;
}

int vm_dm_create(const char *name, const struct vm_dm_target *t, size_t nt, char *path, size_t n)
{
	static union dm_buf b;
	char kname[32];
	dev_t dev;
	int r;

	dm_init(&b, name);
	r = dm_call(DM_DEV_CREATE, &b);
	if (r)
		return r;
	dev = (dev_t)b.io.dev;
	dm_init(&b, name);
	r = dm_table(&b, t, nt);
	if (!r)
		r = dm_call(DM_TABLE_LOAD, &b);
	if (!r) {
		dm_init(&b, name);	/* no DM_SUSPEND_FLAG: resume, i.e. activate */
		r = dm_call(DM_DEV_SUSPEND, &b);
	}
	if (r) {
		vm_dm_remove(name);
		return r;
	}
	snprintf(kname, sizeof(kname), "dm-%u", minor(dev));
	return node(kname, dev, path, n);
}

int vm_dm_remove(const char *name)
{
	static union dm_buf b;

	dm_init(&b, name);
	return dm_call(DM_DEV_REMOVE, &b);
}

int vm_dm_message(const char *name, const char *msg)
{
	static union dm_buf b;
	struct dm_target_msg *m;

	dm_init(&b, name);
	m = (struct dm_target_msg *)(b.bytes + b.io.data_start);
	if (b.io.data_start + sizeof(*m) + strlen(msg) + 1 > sizeof(b))
		return -E2BIG;
	m->sector = 0;
	strcpy(m->message, msg);
	return dm_call(DM_TARGET_MSG, &b);
}

int vm_dm_status(const char *name, char *buf, size_t n)
{
	static union dm_buf b;
	const struct dm_target_spec *s;
	int r;

	dm_init(&b, name);
	r = dm_call(DM_TABLE_STATUS, &b);
	if (r)
		return r;
	if (!b.io.target_count || (b.io.flags & DM_BUFFER_FULL_FLAG))
		return -EIO;
	s = (const struct dm_target_spec *)(b.bytes + b.io.data_start);
	snprintf(buf, n, "%s", (const char *)(s + 1));
	return 0;
}

/* ------------------------------------------------------------ md */

static int blk_size_kib(const char *path, uint64_t *kib)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), r = 0;
	uint64_t size = 0;

	if (fd < 0)
		return -errno;
	if (ioctl(fd, BLKGETSIZE64, &size) < 0)
		r = -errno;
	close(fd);
	*kib = size / 1024;
	return r;
}

int vm_md_create(const char *name, int level, const char *const *devs, size_t ndevs,
		 unsigned int chunk_kib, char *path, size_t n)
{
	mdu_array_info_t a = { 0 };
	uint64_t kib = UINT64_MAX, k = 0;
	struct stat st;
	int fd, r = 0;
	FILE *f;

	for (size_t i = 0; i < ndevs && !r; i++) {
		r = blk_size_kib(devs[i], &k);
		if (k < kib)
			kib = k;
	}
	if (r)
		return r;
	/* A new, empty array: /sys/block/<name> and /dev/<name>. */
	f = fopen("/sys/module/md_mod/parameters/new_array", "we");
	if (!f)
		return -errno;
	if (fputs(name, f) < 0 || fclose(f) != 0)
		return -EIO;
	snprintf(path, n, "/dev/%s", name);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		r = -errno;
		goto out;
	}
	a.level = level;
	a.size = (int)(kib - kib % chunk_kib);		/* per device */
	a.nr_disks = a.raid_disks = a.active_disks = a.working_disks = (int)ndevs;
	a.md_minor = (int)minor(st.st_rdev);
	a.not_persistent = 1;
	a.state = 1 << MD_SB_CLEAN;			/* in sync: no resync */
	a.chunk_size = (int)chunk_kib * 1024;
	if (ioctl(fd, SET_ARRAY_INFO, &a) < 0) {
		r = -errno;
		goto out;
	}
	for (size_t i = 0; i < ndevs; i++) {
		mdu_disk_info_t d = { 0 };

		if (stat(devs[i], &st) < 0) {
			r = -errno;
			goto out;
		}
		d.number = d.raid_disk = (int)i;
		d.state = (1 << MD_DISK_SYNC) | (1 << MD_DISK_ACTIVE);
		d.major = (int)major(st.st_rdev);
		d.minor = (int)minor(st.st_rdev);
		if (ioctl(fd, ADD_NEW_DISK, &d) < 0) {
			r = -errno;
			goto out;
		}
	}
	if (ioctl(fd, RUN_ARRAY, NULL) < 0)
		r = -errno;
out:
	if (r)
		ioctl(fd, STOP_ARRAY, NULL);
	close(fd);
	return r;
}

int vm_md_stop(const char *path)
{
	return ioctl_on(path, STOP_ARRAY, NULL);
}

/* ------------------------------------------------------------ loop */

int vm_loop_attach(const char *file, char *path, size_t n)
{
	struct loop_config c = { 0 };
	int ctl, nr, fd, lfd, r = 0;

	ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	if (ctl < 0)
		return -errno;
	nr = ioctl(ctl, LOOP_CTL_GET_FREE);
	r = nr < 0 ? -errno : 0;
	close(ctl);
	if (r)
		return r;
	snprintf(path, n, "/dev/loop%d", nr);
	fd = open(file, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	lfd = open(path, O_RDWR | O_CLOEXEC);
	if (lfd < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	c.fd = (uint32_t)fd;
	if (ioctl(lfd, LOOP_CONFIGURE, &c) < 0)
		r = -errno;
	close(lfd);
	close(fd);
	return r;
}

int vm_loop_detach(const char *path)
{
	return ioctl_on(path, LOOP_CLR_FD, NULL);
}

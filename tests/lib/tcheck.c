/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>

#include "tcheck.h"

uint64_t tc_mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

uint64_t tc_rnd(struct tc_rng *r)
{
	r->s += 0x9e3779b97f4a7c15ull;
	return tc_mix(r->s);
}

uint64_t tc_below(struct tc_rng *r, uint64_t n)
{
	return n ? tc_rnd(r) % n : 0;
}

uint8_t tc_pattern_byte(uint32_t tag, uint64_t off)
{
	uint8_t b = (uint8_t)(tc_mix(((uint64_t)tag << 40) ^ (off >> 3)) >> (8 * (off & 7)));

	return b == 0 || b == TC_STALE ? 0x5c : b;
}

void tc_pattern(uint8_t *buf, uint32_t tag, uint64_t off, size_t len)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = tc_pattern_byte(tag, off + i);
}

int tc_write_pattern(int fd, uint8_t *shadow, uint32_t tag, uint64_t off, uint64_t len)
{
	uint8_t *buf = malloc(len ? len : 1);
	uint64_t done = 0;
	int ret = 0;

	if (!buf)
		return -ENOMEM;
	tc_pattern(buf, tag, off, len);
	while (done < len) {
		ssize_t w = pwrite(fd, buf + done, len - done, (off_t)(off + done));

		if (w <= 0) {
			ret = w < 0 ? -errno : -EIO;
			break;
		}
		done += (uint64_t)w;
	}
	if (!ret && shadow)
		memcpy(shadow + off, buf, len);
	free(buf);
	return ret;
}

int64_t tc_read(int fd, uint8_t *buf, uint64_t len)
{
	uint64_t done = 0;

	while (done < len) {
		ssize_t r = pread(fd, buf + done, len - done, (off_t)done);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			break;
		done += (uint64_t)r;
	}
	return (int64_t)done;
}

int64_t tc_compare(int fd, const uint8_t *expect, uint64_t len)
{
	uint8_t *buf = malloc(len ? len : 1);
	int64_t n, bad = -1;

	if (!buf)
		return 0;
	n = tc_read(fd, buf, len);
	if (n < 0)
		n = 0;
	for (uint64_t i = 0; i < (uint64_t)n && bad < 0; i++)
		if (buf[i] != expect[i])
			bad = (int64_t)i;
	if (bad < 0 && (uint64_t)n < len)
		bad = n;
	free(buf);
	return bad;
}

int tc_snap_take(int fd, struct tc_snap *s)
{
	struct stat st;
	int64_t n;

	memset(s, 0, sizeof(*s));
	if (fstat(fd, &st) < 0)
		return -errno;
	s->size = (uint64_t)st.st_size;
	s->data = malloc(s->size ? s->size : 1);
	if (!s->data)
		return -ENOMEM;
	n = tc_read(fd, s->data, s->size);
	if (n < 0)
		return (int)n;
	return (uint64_t)n == s->size ? 0 : -EIO;
}

int64_t tc_snap_diff(int fd, const struct tc_snap *s)
{
	struct stat st;
	int64_t bad;

	if (fstat(fd, &st) < 0)
		return -errno;
	if ((uint64_t)st.st_size != s->size)
		return INT64_MAX;
	bad = tc_compare(fd, s->data, s->size);
	return bad < 0 ? 0 : bad + 1;
}

void tc_snap_free(struct tc_snap *s)
{
	free(s->data);
	memset(s, 0, sizeof(*s));
}

int tc_fill_stale(const char *dir, uint64_t max_bytes)
{
	uint64_t total = 0;
	char path[256];
	size_t bs = 1 << 20;
	uint8_t *buf = malloc(bs);
	int fd, ret = 0;

	if (!buf)
		return -ENOMEM;
	memset(buf, TC_STALE, bs);
	snprintf(path, sizeof(path), "%s/.stale-fill", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		free(buf);
		return -errno;
	}
	while (!max_bytes || total < max_bytes) {
		ssize_t w = write(fd, buf, bs);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == ENOSPC || errno == EDQUOT || errno == EFBIG))
			break;
		if (w < 0) {
			ret = -errno;
			break;
		}
		total += (uint64_t)w;
		if ((size_t)w < bs)
			bs = 4096;	/* nearly full: take the last blocks too */
	}
	/* Written back before the unlink, so the blocks really hold it. */
	if (fsync(fd) < 0 && !ret && errno != ENOSPC)
		ret = -errno;
	close(fd);
	unlink(path);
	sync();
	free(buf);
	return ret;
}

int64_t tc_find_stale(const uint8_t *buf, uint64_t len)
{
	uint64_t run = 0;

	for (uint64_t i = 0; i < len; i++) {
		run = buf[i] == TC_STALE ? run + 1 : 0;
		if (run == 16)
			return (int64_t)(i - 15);
	}
	return -1;
}

uint64_t tc_free_bytes(const char *dir)
{
	struct statfs s;

	if (statfs(dir, &s) < 0)
		return 0;
	return (uint64_t)s.f_bfree * (uint64_t)s.f_bsize;
}

int tc_before_take(struct tc_before *b, int fd, const char *dir)
{
	int ret;

	if (syncfs(fd) < 0)
		return -errno;
	ret = tc_snap_take(fd, &b->snap);
	b->dir = dir;
	b->free = tc_free_bytes(dir);
	return ret;
}

int tc_lock_holder(const char *path, int64_t start, int64_t len)
{
	int p[2], status, who = -2;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0 || (pid = fork()) < 0)
		return -2;
	if (pid == 0) {
		struct flock f = { .l_type = F_WRLCK, .l_whence = SEEK_SET,
				   .l_start = (off_t)start, .l_len = (off_t)len };
		int fd = open(path, O_RDONLY | O_CLOEXEC);

		if (fd < 0 || fcntl(fd, F_GETLK, &f) < 0)
			_exit(1);
		who = f.l_type == F_UNLCK ? 0 : f.l_pid;
		_exit(write(p[1], &who, sizeof(who)) == sizeof(who) ? 0 : 1);
	}
	close(p[1]);
	if (read(p[0], &who, sizeof(who)) != sizeof(who))
		who = -2;
	close(p[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		who = -2;
	return who;
}

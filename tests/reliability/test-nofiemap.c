/* SPDX-License-Identifier: MIT */
/*
 * A filesystem without FIEMAP (root; skip otherwise): a minimal FUSE server,
 * speaking the kernel protocol over /dev/fuse, serves one file from memory
 * and implements neither FIEMAP, lseek nor fallocate, like fuse2fs.  The
 * library then sees only SEEK_DATA, which calls everything inside EOF data,
 * unwritten extents included: the report and the census must say the state
 * of those bytes is unknown, never "written".
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/fuse.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include "prealloc.h"
#include "tassert.h"
#include "tcheck.h"
#include "tfs.h"

#define MiB (1ull << 20)
#define CAP (8 * MiB)
#define MAX_WRITE (128u << 10)
#define NODE_FILE 2
#define PA_MIN_U(a, b) ((a) < (b) ? (a) : (b))

static uint8_t *data;	/* the one file, "f" */
static uint64_t size;

static void reply(int fd, uint64_t unique, int err, const void *p, size_t n)
{
	struct fuse_out_header oh = { .len = (uint32_t)(sizeof(oh) + (err ? 0 : n)),
				      .error = err, .unique = unique };
	struct iovec iov[2] = { { &oh, sizeof(oh) }, { (void *)p, err ? 0 : n } };

	if (writev(fd, iov, 2) < 0 && errno != ENOENT)	/* ENOENT: interrupted */
		_exit(3);
}

static void attr(uint64_t node, struct fuse_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->ino = node;
	a->blksize = 4096;
	if (node == FUSE_ROOT_ID) {
		a->mode = S_IFDIR | 0755;
		a->nlink = 2;
	} else {
		a->mode = S_IFREG | 0644;
		a->nlink = 1;
		a->size = size;
		a->blocks = (size + 511) / 512;
	}
}

static void resize(uint64_t n)
{
	if (n > size)
		memset(data + size, 0, n - size);
	size = n;
}

/* Answer one request. */
static void handle(int fd, struct fuse_in_header *ih)
{
	void *in = ih + 1;

	switch (ih->opcode) {
	case FUSE_INIT: {
		struct fuse_init_out o = { .major = FUSE_KERNEL_VERSION, .minor = 31,
					   .max_readahead = ((struct fuse_init_in *)in)->max_readahead,
					   .max_write = MAX_WRITE, .time_gran = 1 };

		reply(fd, ih->unique, 0, &o, sizeof(o));
		break;
	}
	case FUSE_LOOKUP: {
		struct fuse_entry_out o = { .nodeid = NODE_FILE };

		if (ih->nodeid != FUSE_ROOT_ID || strcmp(in, "f")) {
			reply(fd, ih->unique, -ENOENT, NULL, 0);
			break;
		}
		attr(NODE_FILE, &o.attr);
		reply(fd, ih->unique, 0, &o, sizeof(o));
		break;
	}
	case FUSE_SETATTR:
		if (((struct fuse_setattr_in *)in)->valid & FATTR_SIZE) {
			if (((struct fuse_setattr_in *)in)->size > CAP) {
				reply(fd, ih->unique, -EFBIG, NULL, 0);
				break;
			}
			resize(((struct fuse_setattr_in *)in)->size);
		}
		/* fall through */
	case FUSE_GETATTR: {
		struct fuse_attr_out o = { 0 };

		attr(ih->nodeid, &o.attr);
		reply(fd, ih->unique, 0, &o, sizeof(o));
		break;
	}
	case FUSE_OPEN:
	case FUSE_OPENDIR: {
		struct fuse_open_out o = { .fh = 1 };

		reply(fd, ih->unique, 0, &o, sizeof(o));
		break;
	}
	case FUSE_READ: {
		struct fuse_read_in *r = in;
		uint64_t n = r->offset < size ? PA_MIN_U(r->size, size - r->offset) : 0;

		reply(fd, ih->unique, 0, data + (n ? r->offset : 0), n);
		break;
	}
	case FUSE_WRITE: {
		struct fuse_write_in *w = in;
		struct fuse_write_out o = { .size = w->size };

		if (w->offset + w->size > CAP) {
			reply(fd, ih->unique, -EFBIG, NULL, 0);
			break;
		}
		if (w->offset + w->size > size)
			resize(w->offset + w->size);
		memcpy(data + w->offset, w + 1, w->size);
		reply(fd, ih->unique, 0, &o, sizeof(o));
		break;
	}
	case FUSE_STATFS: {
		struct fuse_statfs_out o = { .st = { .blocks = 1u << 20, .bfree = 1u << 19,
						     .bavail = 1u << 19, .bsize = 4096,
						     .frsize = 4096, .namelen = 255 } };

		reply(fd, ih->unique, 0, &o, sizeof(o));
		break;
	}
	case FUSE_FLUSH:
	case FUSE_RELEASE:
	case FUSE_RELEASEDIR:
	case FUSE_FSYNC:
	case FUSE_DESTROY:
		reply(fd, ih->unique, 0, NULL, 0);
		break;
	case FUSE_FORGET:
	case FUSE_BATCH_FORGET:
	case FUSE_INTERRUPT:
		break;
	default:	/* FIEMAP (ioctl), lseek, fallocate, xattrs, ... */
		reply(fd, ih->unique, -ENOSYS, NULL, 0);
	}
}

static void serve(int fd)
{
	size_t cap = MAX_WRITE + 64 * 1024;
	void *buf = malloc(cap);

	data = calloc(1, CAP);
	if (!buf || !data)
		_exit(2);
	for (;;) {
		ssize_t n = read(fd, buf, cap);

		if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == ENOENT))
			continue;
		if (n < (ssize_t)sizeof(struct fuse_in_header))
			_exit(0);	/* ENODEV: unmounted */
		handle(fd, buf);
	}
}

int main(void)
{
	struct prealloc_report r = { .size = sizeof(r) };
	struct prealloc_census c = { .size = sizeof(c) };
	char dir[] = "/tmp/prealloc-fuse-XXXXXX", opts[128], path[160], cmd[400];
	const char *tool = getenv("PREALLOC_TOOL");
	int fuse, fd = -1, ret = 0, st;
	pid_t pid;

	tfs_enter();
	fuse = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (fuse < 0 || !mkdtemp(dir)) {
		printf("no /dev/fuse: skip\n");
		return TFS_SKIP;
	}
	snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=0,group_id=0", fuse);
	if (mount("prealloc-test", dir, "fuse", MS_NOSUID | MS_NODEV, opts) < 0) {
		printf("cannot mount fuse (%s): skip\n", strerror(errno));
		rmdir(dir);
		return TFS_SKIP;
	}
	pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		serve(fuse);
	}
	close(fuse);
	snprintf(path, sizeof(path), "%s/f", dir);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (!expect_msg(fd >= 0, "open %s: %s", path, strerror(errno)))
		goto out;
	/* 5000 bytes of data, then an extended size, which a filesystem with
	 * extents could back with unwritten extents: SEEK_DATA says data. */
	if (!expect_msg(!tc_write_pattern(fd, NULL, 1, 0, 5000) && ftruncate(fd, 300000) == 0,
			"cannot write the file"))
		goto out;
	ret = prealloc_file_ex(fd, 0, 1 * MiB, NULL, &r);
	if (!expect_msg(ret == 0, "prealloc_file_ex: %s", strerror(-ret)))
		goto out;
	printf("report: written %u kept %" PRIu64 " unknown %" PRIu64 " zeroed %" PRIu64 "\n",
	       r.written, r.bytes_kept, r.bytes_unknown, r.bytes_zeroed);
	if (!expect_msg(!r.written && r.bytes_unknown == r.bytes_kept && r.bytes_kept >= 300000,
			"the report claims a written state nobody can know"))
		goto out;
	if (!expect_msg(prealloc_verify(fd, 0, 1 * MiB, &c) == 0, "prealloc_verify failed"))
		goto out;
	printf("census: written %" PRIu64 " unknown %" PRIu64 " holes %" PRIu64 " fiemap %u\n",
	       c.written_bytes, c.unknown_bytes, c.hole_bytes, c.fiemap);
	if (!expect_msg(!c.fiemap && c.unknown_bytes == 1 * MiB && !c.written_bytes,
			"the census claims a written state nobody can know"))
		goto out;
	if (tool) {
		snprintf(cmd, sizeof(cmd), "%s verify %s >/dev/null 2>&1", tool, path);
		st = system(cmd);
		expect_msg(WIFEXITED(st) && WEXITSTATUS(st) == 1, "prealloc verify says fully written");
	}
out:
	if (fd >= 0)
		close(fd);
	umount2(dir, MNT_DETACH);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	rmdir(dir);
	return tassert_failures ? 1 : 0;
}

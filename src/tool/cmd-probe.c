/* SPDX-License-Identifier: MIT */
/*
 * `prealloc probe`: the storage under PATH, whether zeroing is offloaded, and
 * the plan for a request, with their reasons; for a directory, or a PATH not
 * made yet, those of a new file in the directory.  The facts come from the
 * library's probe (prealloc_probe_new()) and are rendered twice, as text and
 * as JSON, by the same walk over them: a fact added to the library shows up
 * here without a change.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <prealloc.h>

#include "cli.h"

/* Without --length (which run requires): plan for 1 MiB from --offset. */
#define DEFAULT_LEN (1u << 20)

static void usage(void)
{
	fputs("Usage:\n"
	      " prealloc probe [options] PATH|DIR\n"
	      "\nDescribe the storage under PATH (a file or a block device): filesystem,\n"
	      "device chain with each device's limits and NVMe/SCSI facts, whether zeroing\n"
	      "is offloaded to the device and which fact decided it, direct-I/O alignment,\n"
	      "atomic-write limits, and the plan for a request with its reason.  Nothing\n"
	      "is written.  The options mean what they mean to 'prealloc run': the plan\n"
	      "is the one run would follow with the same options.  For a directory, or a\n"
	      "PATH that does not exist yet, the answer is for a new file in the directory\n"
	      "(an anonymous file, probed and closed: nothing is left behind).\n"
	      "\nOptions:\n"
	      " -o, --offset N    first byte of the range (default 0)\n"
	      " -l, --length N    length of the range (default 1 MiB)\n"
	      " -k, --keep-size   plan with PREALLOC_KEEP_SIZE\n"
	      " -z, --zero-data   plan with PREALLOC_ZERO_DATA (implied for block devices)\n"
	      " -m, --method M    plan with a forced method\n"
	      " -j, --json        print the facts as JSON (exact bytes)\n"
	      " -h, --help        show this help\n"
	      "\nPREALLOC_SYSFS_ROOT=DIR reads device facts from a captured sysfs tree.\n", stdout);
}

/* ---- one fact's value, two renderings ---- */

struct fact {
	const char *name;
	int type;
	uint64_t num;
	const char *str;
};

static struct json_object *fact_json(const struct fact *f)
{
	switch (f->type) {
	case PREALLOC_FACT_NULL:
		return NULL;
	case PREALLOC_FACT_BOOL:
		return json_object_new_boolean(f->num != 0);
	case PREALLOC_FACT_STRING:
		return json_object_new_string(f->str);
	default:	/* numbers, bytes, flags, and types newer than this tool */
		return f->str ? json_object_new_string(f->str) : json_object_new_uint64(f->num);
	}
}

static const char *fact_text(const struct fact *f, char *buf, size_t len)
{
	switch (f->type) {
	case PREALLOC_FACT_NULL:
		return "-";	/* not known, or not applicable */
	case PREALLOC_FACT_BOOL:
		return f->num ? "yes" : "no";
	case PREALLOC_FACT_STRING:
		return f->str[0] ? f->str : "none";
	case PREALLOC_FACT_BYTES:
		return cli_human_size(f->num, buf, len);
	case PREALLOC_FACT_FLAGS:
		snprintf(buf, len, "0x%02llx", (unsigned long long)f->num);
		return buf;
	default:
		if (f->str)
			return f->str;
		snprintf(buf, len, "%llu", (unsigned long long)f->num);
		return buf;
	}
}

/* ---- walking facts ---- */

typedef int (*fact_fn)(const struct prealloc_probe *p, unsigned int dev, unsigned int i,
		       struct fact *f);

static int target_fact(const struct prealloc_probe *p, unsigned int dev, unsigned int i,
		       struct fact *f)
{
	(void)dev;
	f->type = prealloc_probe_fact(p, i, &f->name, &f->num, &f->str);
	return f->type;
}

static int device_fact(const struct prealloc_probe *p, unsigned int dev, unsigned int i,
		       struct fact *f)
{
	f->type = prealloc_probe_device_fact(p, dev, i, &f->name, &f->num, &f->str);
	return f->type;
}

/* Put @val at the dotted path @name under @root ("a.b" -> {"a":{"b":val}}). */
static void json_put(struct json_object *root, const char *name, struct json_object *val)
{
	char key[64];
	const char *dot;
	struct json_object *child;

	while ((dot = strchr(name, '.'))) {
		snprintf(key, sizeof(key), "%.*s", (int)(dot - name), name);
		if (!json_object_object_get_ex(root, key, &child) ||
		    !json_object_is_type(child, json_type_object)) {
			child = json_object_new_object();
			json_object_object_add(root, key, child);
		}
		root = child;
		name = dot + 1;
	}
	json_object_object_add(root, name, val);
}

static struct json_object *facts_json(const struct prealloc_probe *p, unsigned int dev,
				      fact_fn get, struct json_object *o)
{
	struct fact f;

	for (unsigned int i = 0; get(p, dev, i, &f) >= 0; i++)
		json_put(o, f.name, fact_json(&f));
	return o;
}

/*
 * Text: "name: value" per line; facts sharing a group ("queue.x", "queue.y")
 * on one wrapped line "queue: x=... y=...".
 */
static void facts_text(const struct prealloc_probe *p, unsigned int dev, fact_fn get, int indent)
{
	char group[32] = "", buf[48];
	struct fact f;
	int col = 0;

	for (unsigned int i = 0; get(p, dev, i, &f) >= 0; i++) {
		const char *dot = strchr(f.name, '.'), *v = fact_text(&f, buf, sizeof(buf));
		int glen = dot ? (int)(dot - f.name) : 0;
		int w;

		if (!dot) {
			printf("%s%*s%s: %s\n", group[0] ? "\n" : "", indent, "", f.name, v);
			group[0] = 0;
			col = 0;	/* the next group starts on a fresh line */
			continue;
		}
		if (strncmp(group, f.name, (size_t)glen) || group[glen]) {
			snprintf(group, sizeof(group), "%.*s", glen, f.name);
			printf("%s%*s%s:", col ? "\n" : "", indent, "", group);
			col = indent + glen + 1;
		}
		w = (int)(strlen(dot + 1) + strlen(v) + 2);
		if (col + w > 100) {
			printf("\n%*s", indent + 4, "");
			col = indent + 4;
		}
		printf(" %s=%s", dot + 1, v);
		col += w;
	}
	if (group[0])
		printf("\n");
}

/* ---- the plan's steps: what `prealloc run` does, step by step ---- */

struct step {
	uint32_t action, method;
	uint64_t off, len;
};

static int get_step(const struct prealloc_probe *p, unsigned int i, struct step *s)
{
	return prealloc_probe_step(p, i, &s->action, &s->method, &s->off, &s->len);
}

/* "steps" (action, method, offset, length) and, in run's shape, the bytes
 * each method covers. */
static void steps_json(const struct prealloc_probe *p, struct json_object *o)
{
	uint64_t bytes[PREALLOC_METHOD_SLOTS] = { 0 };
	struct json_object *steps = json_object_new_array(), *by = json_object_new_object();
	struct step s;

	for (unsigned int i = 0; get_step(p, i, &s) == 0; i++) {
		struct json_object *j = json_object_new_object();

		json_object_object_add(j, "action",
				       json_object_new_string(prealloc_action_name(s.action)));
		json_object_object_add(j, "method", s.method ?
				       json_object_new_string(prealloc_method_name(s.method)) : NULL);
		json_object_object_add(j, "offset", json_object_new_uint64(s.off));
		json_object_object_add(j, "length", json_object_new_uint64(s.len));
		json_object_array_add(steps, j);
		if (s.action == PREALLOC_ACTION_ZERO || s.action == PREALLOC_ACTION_WRITE_EDGES)
			bytes[s.method] += s.len;
	}
	for (unsigned int m = 1; m < PREALLOC_METHOD_SLOTS; m++)
		if (prealloc_method_name(m))
			json_object_object_add(by, prealloc_method_name(m),
					       json_object_new_uint64(bytes[m]));
	json_object_object_add(o, "steps", steps);
	json_object_object_add(o, "bytes_by_method", by);
}

static void steps_text(const struct prealloc_probe *p)
{
	char buf[48];
	struct step s;
	int r;

	for (unsigned int i = 0; (r = get_step(p, i, &s)) == 0; i++) {
		const char *a = prealloc_action_name(s.action);

		if (!i)
			puts("steps:");
		if (s.action == PREALLOC_ACTION_SYNC)
			printf("  %s\n", a);
		else
			printf("  %-12s %-13s %llu+%llu (%s)\n", a, prealloc_method_name(s.method),
			       (unsigned long long)s.off, (unsigned long long)s.len,
			       cli_human_size(s.len, buf, sizeof(buf)));
	}
	if (r != -ENOENT && r != -ENODATA && r != prealloc_probe_plan(p, 0))
		printf("steps: none (%s)\n", strerror(-r));
}

/* ---- output ---- */

/* @subject: NULL for PATH itself, else what was probed in its place. */
static void print_json(const char *path, const char *subject, const struct prealloc_probe *p)
{
	struct json_object *o = json_object_new_object(), *devs = json_object_new_array();
	int n = prealloc_probe_device_count(p);

	json_object_object_add(o, "path", json_object_new_string(path));
	if (subject)
		json_object_object_add(o, "subject", json_object_new_string(subject));
	facts_json(p, 0, target_fact, o);
	steps_json(p, o);
	for (int d = 0; d < n; d++)
		json_object_array_add(devs, facts_json(p, (unsigned int)d, device_fact,
						       json_object_new_object()));
	json_object_object_add(o, "devices", devs);
	cli_json_print(o);
}

static void print_text(const char *subject, const struct prealloc_probe *p)
{
	static const char *const answers[] = { "no", "yes", "unknown" };
	int n = prealloc_probe_device_count(p), m;
	const char *why = NULL;
	int off = prealloc_probe_zeroing_offloaded(p, &why);

	const char *kind = NULL, *fs = NULL;

	if (prealloc_probe_lookup(p, "kind", NULL, &kind) < 0)
		kind = NULL;
	if (prealloc_probe_lookup(p, "filesystem", NULL, &fs) < 0)
		fs = NULL;
	printf("%s: %s%s%s\n", subject, kind ? kind : "?", fs ? " on " : "", fs ? fs : "");
	printf("zeroing offloaded: %s (%s)\n", off >= 0 && off < 3 ? answers[off] : "?", why);
	m = prealloc_probe_plan(p, 0);
	if (m >= 0) {
		uint64_t reserve = 0;

		printf("plan: %s", prealloc_method_name(m));
		for (unsigned int i = 1; (m = prealloc_probe_plan(p, i)) >= 0; i++)
			printf(", else %s", prealloc_method_name(m));
		if (prealloc_probe_lookup(p, "plan.reserve", &reserve, NULL) < 0)
			reserve = 0;
		printf("%s\n  because %s\n", reserve ? " (after reserving with fallocate)" : "",
		       prealloc_probe_plan_reason(p));
	} else {
		const char *why_not = prealloc_probe_plan_reason(p);

		printf("plan: none (%s)\n", strerror(-m));
		if (why_not)
			printf("  because %s\n", why_not);
	}
	steps_text(p);
	printf("facts:\n");
	facts_text(p, 0, target_fact, 2);
	for (int d = 0; d < n; d++) {
		printf("device %d:\n", d);
		facts_text(p, (unsigned int)d, device_fact, 2);
	}
}

/* ---- the command ---- */

struct probe_args {
	uint64_t offset, length;
	bool json;
	bool seen[128];			/* short options given */
	struct prealloc_options o;
};

static const char sopts[] = CLI_REQUEST_SHORT "jh";
static const struct option lopts[] = {
	CLI_REQUEST_LONG,
	{ "json", no_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ 0 }
};

/* Options that do not apply to the target, refused rather than ignored. */
static const struct cli_rule rules[] = {
	{ 'k', CLI_ON_BLKDEV, "does not apply to a block device: its size is fixed" },
};

static int parse_probe(int argc, char **argv, struct probe_args *a)
{
	int c, err = 0;

	a->o.size = sizeof(a->o);
	a->length = DEFAULT_LEN;
	while (!err && (c = getopt_long(argc, argv, sopts, lopts, NULL)) != -1) {
		a->seen[c & 127] = true;
		switch (c) {
		case 'j': a->json = true; break;
		case 'h': usage(); return -1;
		default:
			err = cli_request_opt("probe", c, optarg, &a->offset, &a->length, &a->o);
			if (err < 0)
				return cli_usage_error("probe", "bad option");
		}
	}
	if (err)
		return err;
	if (optind != argc - 1)
		return cli_usage_error("probe", "expected one PATH");
	return 0;
}

/* PATH itself; without read permission (a device node, as a user) a path
 * descriptor is enough to probe: what needs reading (signatures) is then
 * unknown. */
static int open_path(const char *path, int flags)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | flags);

	if (fd < 0 && (errno == EACCES || errno == EPERM))
		fd = open(path, O_PATH | O_CLOEXEC | flags);
	return fd;
}

/* The directory a new file at @path would go in, its name in @dir: when
 * nothing is at @path (not even a dangling symlink, which run would follow
 * elsewhere).  A descriptor, or -1 with errno ENOENT. */
static int open_parent(const char *path, char *dir, size_t len)
{
	char copy[PATH_MAX];
	struct stat st;
	int fd;

	if (lstat(path, &st) == 0 || errno != ENOENT || strlen(path) >= sizeof(copy))
		goto none;
	strcpy(copy, path);
	snprintf(dir, len, "%s", dirname(copy));
	fd = open_path(dir, O_DIRECTORY);
	if (fd >= 0)
		return fd;
	dir[0] = 0;
none:
	errno = ENOENT;
	return -1;
}

/* O_TMPFILE's stand-in: a hidden name in @dfd, unlinked at once.  A
 * descriptor, or -1 with errno set. */
static int open_hidden(int dfd)
{
	char name[64];
	int fd = -1, err;

	for (unsigned int i = 0; fd < 0 && i < 100; i++) {
		snprintf(name, sizeof(name), ".prealloc-probe.%ld.%u", (long)getpid(), i);
		fd = openat(dfd, name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST)
			return -1;
	}
	if (fd >= 0 && unlinkat(dfd, name, 0) < 0) {
		err = errno;
		close(fd);
		errno = err;
		return -1;
	}
	return fd;
}

/* What a new file in directory @dfd gets is learnt on one that no name
 * reaches, so nothing is left behind.  Closes @dfd; a descriptor, or -1
 * with errno set. */
static int open_new_file(int dfd)
{
	int fd = openat(dfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600), err;

	/* No O_TMPFILE: EOPNOTSUPP from the filesystem, EISDIR from old kernels. */
	if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR))
		fd = open_hidden(dfd);
	err = errno;
	close(dfd);
	errno = err;
	return fd;
}

int cmd_probe(int argc, char **argv)
{
	struct probe_args a = { 0 };
	struct prealloc_probe *p;
	char dir[PATH_MAX] = "", subject[PATH_MAX + 16];
	const char *path;
	struct stat st;
	int fd, r;

	r = parse_probe(argc, argv, &a);
	if (r)
		return r < 0 ? 0 : r;
	path = argv[optind];
	fd = open_path(path, 0);
	if (fd < 0 && errno == ENOENT)
		fd = open_parent(path, dir, sizeof(dir));
	if (fd < 0 || fstat(fd, &st) < 0) {
		cli_fail(path, errno, "cannot open");
		if (fd >= 0)
			close(fd);
		return EXIT_OPERATIONAL;
	}
	r = cli_check_rules("probe", lopts, rules, sizeof(rules) / sizeof(rules[0]), a.seen,
			    S_ISBLK(st.st_mode) ? CLI_ON_BLKDEV : 0);
	if (r) {
		close(fd);
		return r;
	}
	if (S_ISDIR(st.st_mode)) {
		if (!dir[0])
			snprintf(dir, sizeof(dir), "%s", path);
		fd = open_new_file(fd);
		if (fd < 0) {
			cli_fail(path, errno, "cannot create a new file in %s to probe", dir);
			return EXIT_OPERATIONAL;
		}
	}
	if (S_ISBLK(st.st_mode))
		a.o.flags |= PREALLOC_ZERO_DATA;	/* block devices are only ever zeroed */
	r = prealloc_probe_new(fd, a.offset, a.length, &a.o, &p);
	close(fd);
	if (r < 0) {
		cli_fail(path, -r, "cannot probe");
		return cli_exit_code(-r);
	}
	snprintf(subject, sizeof(subject), "new file in %s", dir);
	if (a.json)
		print_json(path, dir[0] ? subject : NULL, p);
	else
		print_text(dir[0] ? subject : path, p);
	prealloc_probe_free(p);
	return 0;
}

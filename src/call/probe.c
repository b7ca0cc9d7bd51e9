/* SPDX-License-Identifier: MIT */
/*
 * The public probe: a snapshot of what the engine knows about a target, as
 * named facts (libblkid's lookup_value shape) plus typed accessors for the
 * zeroing verdict and the plan.  Everything comes from the engine's own
 * target resolution, capabilities record and planner: the probe describes
 * what prealloc_file_ex() would do, never a second opinion.
 */
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <unistd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "probes/blkid.h"
#include "probes/chain.h"
#include "probes/facts.h"
#include "probes/registry.h"
#include "base/internal.h"
#include "src/call/call.h"
#include "src/call/context.h"
#include "src/call/target.h"
#include "src/exec/ops.h"
#include "src/file/reopen.h"
#include "src/file/statx.h"
#include "src/fs/fs.h"
#include "src/call/probe_plan.h"
#include "src/plan/steps.h"

/* Facts per list: a device has about 70 (queue, NVMe, SCSI). */
#define FACTS_MAX 128

struct fact {
	char name[48];
	uint8_t type;			/* enum prealloc_fact_type */
	uint64_t num;
	const char *str;		/* NULL, a string the probe holds, or buf */
	char buf[32];
};

struct facts {
	struct fact *v;
	unsigned int n;
};

struct prealloc_probe {
	struct prealloc_ctx *ctx;	/* our reference; NULL: the default context */
	struct pa_target t;		/* holds the capabilities record */
	bool request;
	struct pa_plan plan;
	int plan_err;			/* -ENODATA without a request */
	struct pa_steps steps;		/* what the call would run first */
	int steps_err;
	int offloaded;			/* enum prealloc_answer */
	const char *decided_by;
	char why[320];			/* decided_by when the probe composes it */
	char kernel[65];		/* uname release: whose answers the probe reports */
	char sigs[128];
	char fallbacks[64];
	char refusal[PA_METHOD_COUNT][160];	/* why this process cannot use a method */
	struct facts target;
	unsigned int ndev;
	struct facts *dev;
};

/* ---- building fact lists ---- */

/* A new fact "@group.@name" (or "@name"); NULL when the list is full. */
static struct fact *add(struct facts *f, const char *group, const char *name, uint8_t type)
{
	struct fact *x;

	if (f->n >= FACTS_MAX)
		return NULL;
	x = &f->v[f->n++];
	snprintf(x->name, sizeof(x->name), "%s%s%s", group ? group : "", group ? "." : "", name);
	x->type = type;
	return x;
}

static void num(struct facts *f, const char *group, const char *name, uint8_t type, uint64_t v)
{
	struct fact *x = add(f, group, name, type);

	if (x)
		x->num = type == PREALLOC_FACT_BOOL ? !!v : v;
}

static void str(struct facts *f, const char *group, const char *name, const char *s)
{
	struct fact *x = add(f, group, name, s ? PREALLOC_FACT_STRING : PREALLOC_FACT_NULL);

	if (x)
		x->str = s;
}

static void null(struct facts *f, const char *group, const char *name)
{
	add(f, group, name, PREALLOC_FACT_NULL);
}

/* A short string formatted into the fact itself. */
__attribute__((format(printf, 4, 5)))
static void strf(struct facts *f, const char *group, const char *name, const char *fmt, ...)
{
	struct fact *x = add(f, group, name, PREALLOC_FACT_STRING);
	va_list ap;

	if (!x)
		return;
	va_start(ap, fmt);
	vsnprintf(x->buf, sizeof(x->buf), fmt, ap);
	va_end(ap);
	x->str = x->buf;
}

static const char *nonempty(const char *s)
{
	return s && s[0] ? s : NULL;
}

/* ---- device facts ---- */

/* Queue attributes are byte counts unless listed here. */
static const uint8_t queue_type[PA_Q_NR] = {
	[PA_Q_ROTATIONAL] = PREALLOC_FACT_BOOL,
	[PA_Q_DAX] = PREALLOC_FACT_BOOL,
	[PA_Q_ZONED] = PREALLOC_FACT_STRING,
};

static void queue_facts(struct facts *f, const struct pa_device *d)
{
	for (int i = 0; i < PA_Q_NR; i++) {
		const char *name = pa_queue_attr_names[i];
		uint8_t type = queue_type[i] ? queue_type[i] : PREALLOC_FACT_BYTES;

		if (d->queue[i] == PA_Q_ABSENT)
			null(f, "queue", name);
		else if (type == PREALLOC_FACT_STRING)
			str(f, "queue", name, pa_zoned_name(d->queue[i]));
		else
			num(f, "queue", name, type, d->queue[i]);
	}
}

/* pa_fact_fn: one fact of a table (a transport's, statx's) into the list @arg. */
static void table_fact(void *arg, const char *prefix, const char *name, int type, uint64_t v,
		       const char *s)
{
	struct fact *x = add(arg, prefix, name, (uint8_t)type);

	if (x) {
		x->num = v;
		x->str = s;
	}
}

static void transport_facts(struct facts *f, const struct pa_device *d)
{
	const struct pa_prober *p = pa_prober_of(d->transport);

	if (p)
		pa_facts_emit(p->facts, p->nfacts, d, table_fact, f);
}

static void device_facts(struct facts *f, const struct pa_caps *c, const struct pa_device *d)
{
	str(f, NULL, "name", d->name);
	strf(f, NULL, "dev", "%u:%u", major(d->dev), minor(d->dev));
	str(f, NULL, "role", pa_role_name(d->role));
	str(f, NULL, "above", d->parent >= 0 ? c->devices[d->parent].name : NULL);
	num(f, NULL, "size_bytes", PREALLOC_FACT_BYTES, d->size_sectors * 512);
	if (d->role == PA_ROLE_PARTITION)
		num(f, NULL, "start_bytes", PREALLOC_FACT_BYTES, d->part_start * 512);
	if (d->role == PA_ROLE_LOOP) {
		str(f, NULL, "backing_file", nonempty(d->backing_file));
		if (d->loop_dio < 0)
			null(f, NULL, "direct_io");
		else
			num(f, NULL, "direct_io", PREALLOC_FACT_BOOL, (uint64_t)d->loop_dio);
	}
	if (d->role == PA_ROLE_DM)
		str(f, NULL, "dm_name", d->dm_name);
	if (d->role == PA_ROLE_MD)
		str(f, NULL, "md_level", d->md_level);
	str(f, NULL, "transport", pa_transport_name(d->transport));
	queue_facts(f, d);
	transport_facts(f, d);
}

/* ---- the verdict ---- */

/* Do the steps hold one with @action (and @method, unless 0)? */
static bool steps_have(const struct prealloc_probe *p, unsigned int action, unsigned int method)
{
	if (p->steps_err)
		return false;
	for (size_t i = 0; i < p->steps.n; i++)
		if (p->steps.v[i].action == action && (!method || p->steps.v[i].method == method))
			return true;
	return false;
}

/* How the answer for a file is known: from the kernel, asked earlier in
 * this context (it took the flag or refused it), or not asked yet. */
static const char *asked(const struct pa_plan_input *in)
{
	if (in->write_zeroes_works)
		return "works";
	if (in->write_zeroes_refused)
		return "refused";
	return "not asked";
}

/* What the device chain and the kernel's answers say about zeroing
 * through FALLOC_FL_WRITE_ZEROES, and which fact says so. */
static void device_verdict(struct prealloc_probe *p)
{
	const struct pa_plan_input *in = &p->t.in;
	const struct pa_caps *c = p->t.caps;
	bool file = in->target == PA_TARGET_FILE;
	enum prealloc_write_zeroes v = pa_plan_write_zeroes(in);
	const char *why = pa_wz_sentence(in, v);

	p->offloaded = PREALLOC_NO;
	if (file && in->cow) {
		p->decided_by = "copy-on-write file: space is reserved, never zeroed in place";
	} else if (file && in->mem_backed) {
		p->decided_by = "memory-backed filesystem: allocated pages need no zeroing";
	} else if (!c && !major(p->t.dev)) {
		/* An anonymous device number: NFS, FUSE and the like. */
		p->decided_by = "no block device under this file: FALLOC_FL_WRITE_ZEROES not tried";
	} else if (!c) {
		p->offloaded = PREALLOC_UNKNOWN;
		snprintf(p->why, sizeof(p->why), "device %u:%u not found under %s: not tried",
			 major(p->t.dev), minor(p->t.dev), pa_caps_cache_root(&pa_ctx(p->ctx)->caps));
		p->decided_by = p->why;
	} else if (!pa_wz_tried(v)) {
		/* The device's own fact when it is the device (or kernel) that says no. */
		if (v == PREALLOC_WZ_NO_KERNEL || in->write_zeroes_unmap == PREALLOC_NO) {
			p->decided_by = c->evidence;
		} else if (in->write_zeroes_refused) {
			snprintf(p->why, sizeof(p->why), "%s (Linux %s)", why, p->kernel);
			p->decided_by = p->why;
		} else {
			p->decided_by = why;
		}
	} else if (!file && !in->write_zeroes_works) {
		/* A block device's answer is its queue attribute. */
		p->offloaded = in->write_zeroes_unmap == PREALLOC_YES ? PREALLOC_YES : PREALLOC_UNKNOWN;
		p->decided_by = c->evidence;
	} else {
		p->offloaded = v == PREALLOC_WZ_USED ? PREALLOC_YES : PREALLOC_UNKNOWN;
		snprintf(p->why, sizeof(p->why), "%s; %s (Linux %s)", why, c->evidence, p->kernel);
		p->decided_by = p->why;
	}
}

/* With a request the answer is the steps': the device zeroes only what
 * they give to write-zeroes (the planner's inline-data and forced-method
 * rules, a range too small for a whole block). */
static void decide_offload(struct prealloc_probe *p)
{
	device_verdict(p);
	if (!p->request || p->steps_err || !p->t.caps || p->offloaded == PREALLOC_NO ||
	    steps_have(p, PREALLOC_ACTION_ZERO, PREALLOC_METHOD_WRITE_ZEROES))
		return;
	p->offloaded = PREALLOC_NO;
	if (p->plan.methods[0] != PREALLOC_METHOD_WRITE_ZEROES)
		p->decided_by = p->plan.reason;
	else
		p->decided_by = "no whole block to zero: the range is written buffered";
}

/* ---- target facts ---- */

static void answer_fact(struct facts *f, const char *name, int answer)
{
	if (answer == PREALLOC_UNKNOWN)
		null(f, NULL, name);
	else
		num(f, NULL, name, PREALLOC_FACT_BOOL, answer == PREALLOC_YES);
}

#define LIMIT(name, type, member) \
	PA_FACT_NUM(struct pa_statx_limits, name, PREALLOC_FACT_##type, member)

static const struct pa_fact_def dio_facts[] = {
	LIMIT("offset_align", BYTES, dio_offset_align),
	LIMIT("mem_align", BYTES, dio_mem_align),
};

static const struct pa_fact_def atomic_facts[] = {
	LIMIT("unit_min", BYTES, atomic_unit_min),
	LIMIT("unit_max", BYTES, atomic_unit_max),
	LIMIT("segments_max", NUMBER, atomic_segments_max),
	LIMIT("unit_max_opt", BYTES, atomic_unit_max_opt),
};

/* statx's answers; each fact null when the kernel did not answer. */
static const struct pa_fact_group limits_groups[] = {
	{ "dio", (long)offsetof(struct pa_statx_limits, have_dio), NULL, dio_facts,
	  PA_ARRAY_SIZE(dio_facts) },
	{ "atomic_write", (long)offsetof(struct pa_statx_limits, have_atomic), NULL, atomic_facts,
	  PA_ARRAY_SIZE(atomic_facts) },
};

static void limits_facts(struct facts *f, int fd)
{
	struct pa_statx_limits l;

	if (pa_statx_limits(fd, &l) < 0)
		l = (struct pa_statx_limits){ 0 };	/* unknown */
	pa_facts_emit(limits_groups, PA_ARRAY_SIZE(limits_groups), &l, table_fact, f);
}

static void plan_facts(struct prealloc_probe *p, uint64_t off, uint64_t len)
{
	struct facts *f = &p->target;
	size_t used = 0;

	num(f, "request", "offset", PREALLOC_FACT_BYTES, off);
	num(f, "request", "length", PREALLOC_FACT_BYTES, len);
	num(f, "request", "flags", PREALLOC_FACT_FLAGS, p->t.in.flags);
	if (p->plan_err) {
		null(f, "plan", "method");
		str(f, "plan", "error", strerror(-p->plan_err));
		if (p->plan.reason)
			str(f, "plan", "reason", p->plan.reason);
		return;
	}
	for (unsigned int i = 1; i < p->plan.n && used < sizeof(p->fallbacks); i++)
		used += (size_t)snprintf(p->fallbacks + used, sizeof(p->fallbacks) - used, "%s%s",
					 i > 1 ? "," : "", prealloc_method_name(p->plan.methods[i]));
	str(f, "plan", "method", prealloc_method_name(p->plan.methods[0]));
	str(f, "plan", "fallbacks", p->fallbacks);
	num(f, "plan", "reserve", PREALLOC_FACT_BOOL, steps_have(p, PREALLOC_ACTION_RESERVE, 0));
	str(f, "plan", "reason", p->plan.reason);
}

/* "uring_refused", "aio_refused": why this process cannot use a method
 * that seccomp, a sysctl or the kernel may deny it; null when it can. */
static void refusal_facts(struct prealloc_probe *p)
{
	char name[32];

	for (unsigned int m = 0; m < PA_METHOD_COUNT; m++) {
		const struct pa_method_ops *ops = pa_method_ops(m);

		if (!ops || !ops->usable)
			continue;
		snprintf(name, sizeof(name), "%s_refused", prealloc_method_name(m));
		if (ops->usable(pa_ctx_log(p->ctx), p->refusal[m], sizeof(p->refusal[m])))
			str(&p->target, NULL, name, p->refusal[m]);
		else
			null(&p->target, NULL, name);
	}
}

static int read_signatures(int rfd, void *arg)
{
	struct prealloc_probe *p = arg;

	return rfd < 0 ? rfd : pa_blkid_signatures_fd(rfd, p->sigs, sizeof(p->sigs));
}

static void target_facts(struct prealloc_probe *p, int fd, uint64_t off, uint64_t len)
{
	const struct pa_caps *c = p->t.caps;
	struct facts *f = &p->target;
	bool bdev = p->t.in.target == PA_TARGET_BLOCKDEV;
	const char *fs = pa_fs_name(p->t.fs_type);

	str(f, NULL, "kind", bdev ? "block-device" : "file");
	if (bdev)
		null(f, NULL, "filesystem");
	else if (fs)
		str(f, NULL, "filesystem", fs);
	else
		strf(f, NULL, "filesystem", "0x%llx", (unsigned long long)p->t.fs_type);
	num(f, NULL, "cow", PREALLOC_FACT_BOOL, p->t.in.cow);
	str(f, NULL, "sysfs_root", pa_caps_cache_root(&pa_ctx(p->ctx)->caps));
	answer_fact(f, "zeroing_offloaded", p->offloaded);
	str(f, NULL, "decided_by", p->decided_by);
	answer_fact(f, "write_zeroes_unmap", c ? c->write_zeroes_unmap : PREALLOC_UNKNOWN);
	str(f, NULL, "evidence", c ? c->evidence : "no block device under this file");
	num(f, NULL, "kernel_write_zeroes", PREALLOC_FACT_BOOL, c && c->kernel_write_zeroes);
	num(f, NULL, "write_zeroes_refused", PREALLOC_FACT_BOOL, p->t.in.write_zeroes_refused);
	refusal_facts(p);
	str(f, NULL, "write_zeroes_asked", asked(&p->t.in));
	/* The verdict a call's report would start from, in its words. */
	str(f, NULL, "write_zeroes", pa_wz_verdict(p->request ? p->plan.write_zeroes :
						   pa_plan_write_zeroes(&p->t.in))->name);
	str(f, NULL, "kernel_release", p->kernel);
	limits_facts(f, fd);
	if (bdev) {
		/* A fresh open file description: the caller's offset stays put. */
		if (pa_with_reopened(fd, NULL, O_RDONLY | O_NONBLOCK, read_signatures, p) >= 0)
			str(f, NULL, "signatures", p->sigs);
		else
			null(f, NULL, "signatures");
	}
	if (p->request)
		plan_facts(p, off, len);
}

/* ---- life cycle ---- */

static int alloc_facts(struct facts *f)
{
	f->v = calloc(FACTS_MAX, sizeof(*f->v));
	return f->v ? 0 : -ENOMEM;
}

static int build_devices(struct prealloc_probe *p)
{
	const struct pa_caps *c = p->t.caps;

	if (!c || !c->ndevices)
		return 0;
	p->dev = calloc(c->ndevices, sizeof(*p->dev));
	if (!p->dev)
		return -ENOMEM;
	for (size_t i = 0; i < c->ndevices; i++) {
		if (alloc_facts(&p->dev[i]) < 0)
			return -ENOMEM;
		p->ndev++;
		device_facts(&p->dev[i], c, &c->devices[i]);
	}
	return 0;
}

PA_EXPORT int prealloc_probe_new(int fd, uint64_t offset, uint64_t len,
				 const struct prealloc_options *opts,
				 struct prealloc_probe **ret_probe)
{
	struct prealloc_options o;
	struct prealloc_probe *p;
	int r;

	if (!ret_probe)
		return -EINVAL;
	r = pa_options_load(opts, 0, &o);
	if (!r && len)
		r = pa_check_range(offset, len);
	if (r)
		return r;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->ctx = prealloc_ctx_ref(o.ctx);
	p->request = len > 0;
	pa_kernel_release(p->kernel, sizeof(p->kernel));
	pa_ctx_revalidate(p->ctx);
	r = pa_target_open(p->ctx, fd, offset, len, o.flags, o.method, &p->t);
	if (r < 0)
		goto fail;
	p->plan_err = p->request ? pa_plan(&p->t.in, &p->plan) : -ENODATA;
	p->steps_err = p->request ? pa_probe_steps(&p->t, fd, &p->plan, p->plan_err, offset, len,
						   &p->steps) : -ENODATA;
	decide_offload(p);
	r = alloc_facts(&p->target);
	if (!r)
		r = build_devices(p);
	if (r < 0)
		goto fail;
	target_facts(p, fd, offset, len);
	*ret_probe = p;
	return 0;
fail:
	prealloc_probe_free(p);
	return r;
}

PA_EXPORT void prealloc_probe_free(struct prealloc_probe *p)
{
	if (!p)
		return;
	for (unsigned int i = 0; i < p->ndev; i++)
		free(p->dev[i].v);
	free(p->dev);
	free(p->target.v);
	pa_steps_free(&p->steps);
	pa_target_close(&p->t);
	prealloc_ctx_unref(p->ctx);
	free(p);
}

/* ---- accessors ---- */

PA_EXPORT int prealloc_probe_zeroing_offloaded(const struct prealloc_probe *p,
					       const char **ret_decided_by)
{
	if (!p)
		return -EINVAL;
	if (ret_decided_by)
		*ret_decided_by = p->decided_by;
	return p->offloaded;
}

PA_EXPORT int prealloc_probe_plan(const struct prealloc_probe *p, unsigned int index)
{
	if (!p)
		return -EINVAL;
	if (p->plan_err)
		return p->plan_err;
	return index < p->plan.n ? p->plan.methods[index] : -ENOENT;
}

PA_EXPORT const char *prealloc_probe_plan_reason(const struct prealloc_probe *p)
{
	return p ? p->plan.reason : NULL;
}

PA_EXPORT int prealloc_probe_step(const struct prealloc_probe *p, unsigned int index,
				  uint32_t *ret_action, uint32_t *ret_method,
				  uint64_t *ret_offset, uint64_t *ret_length)
{
	const struct pa_step *s;

	if (!p)
		return -EINVAL;
	if (p->steps_err)
		return p->steps_err;
	if (index >= p->steps.n)
		return -ENOENT;
	s = &p->steps.v[index];
	if (ret_action)
		*ret_action = s->action;
	if (ret_method)
		*ret_method = s->method;
	if (ret_offset)
		*ret_offset = s->start;
	if (ret_length)
		*ret_length = s->len;
	return 0;
}

static int get(const struct fact *x, const char **ret_name, uint64_t *ret_number,
	       const char **ret_string)
{
	if (ret_name)
		*ret_name = x->name;
	if (ret_number)
		*ret_number = x->type == PREALLOC_FACT_STRING ? 0 : x->num;
	if (ret_string)
		*ret_string = x->type == PREALLOC_FACT_STRING ? x->str : NULL;
	return x->type;
}

static int by_index(const struct facts *f, unsigned int index, const char **ret_name,
		    uint64_t *ret_number, const char **ret_string)
{
	return index < f->n ? get(&f->v[index], ret_name, ret_number, ret_string) : -ENOENT;
}

static int by_name(const struct facts *f, const char *name, uint64_t *ret_number,
		   const char **ret_string)
{
	if (!name)
		return -EINVAL;
	for (unsigned int i = 0; i < f->n; i++)
		if (!strcmp(f->v[i].name, name))
			return get(&f->v[i], NULL, ret_number, ret_string);
	return -ENOENT;
}

PA_EXPORT int prealloc_probe_fact(const struct prealloc_probe *p, unsigned int index,
				  const char **ret_name, uint64_t *ret_number,
				  const char **ret_string)
{
	return p ? by_index(&p->target, index, ret_name, ret_number, ret_string) : -EINVAL;
}

PA_EXPORT int prealloc_probe_lookup(const struct prealloc_probe *p, const char *name,
				    uint64_t *ret_number, const char **ret_string)
{
	return p ? by_name(&p->target, name, ret_number, ret_string) : -EINVAL;
}

PA_EXPORT int prealloc_probe_device_count(const struct prealloc_probe *p)
{
	return p ? (int)p->ndev : -EINVAL;
}

PA_EXPORT int prealloc_probe_device_fact(const struct prealloc_probe *p, unsigned int device,
					 unsigned int index, const char **ret_name,
					 uint64_t *ret_number, const char **ret_string)
{
	if (!p)
		return -EINVAL;
	if (device >= p->ndev)
		return -ENXIO;
	return by_index(&p->dev[device], index, ret_name, ret_number, ret_string);
}

PA_EXPORT int prealloc_probe_device_lookup(const struct prealloc_probe *p, unsigned int device,
					   const char *name, uint64_t *ret_number,
					   const char **ret_string)
{
	if (!p)
		return -EINVAL;
	if (device >= p->ndev)
		return -ENXIO;
	return by_name(&p->dev[device], name, ret_number, ret_string);
}

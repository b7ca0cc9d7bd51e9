/* SPDX-License-Identifier: MIT */
/*
 * NVMe probe: Identify through libnvme on the namespace block device, decoded
 * by probes/nvme_decode.c.  Every failure (no privilege, NVMe status, no
 * device node) becomes an "unknown" with its reason, never an error.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "probes/facts.h"
#include "probes/nvme.h"
#include "probes/registry.h"
#include "base/util.h"

#if HAVE_LIBNVME
#include <libnvme.h>

/* Convert libnvme's "status > 0 or -1 with errno" to "status > 0 or -errno". */
static int nvme_ret(int r)
{
	return r < 0 ? -errno : r;
}

static int libnvme_identify(int fd, enum pa_nvme_identify what, uint32_t *nsid, void *buf)
{
	switch (what) {
	case PA_NVME_ID_NS:
		if (nvme_get_nsid(fd, nsid) < 0)
			return -errno;
		return nvme_ret(nvme_identify_ns(fd, *nsid, buf));
	case PA_NVME_ID_CTRL:
		return nvme_ret(nvme_identify_ctrl(fd, buf));
	case PA_NVME_ID_NVM_CTRL:
		return nvme_ret(nvme_nvm_identify_ctrl(fd, buf));
	}
	return -EINVAL;
}
#endif

/* The real device: ask libnvme. */
static int real_identify(void *ctx, int fd, enum pa_nvme_identify what, uint32_t *nsid,
			 void *buf)
{
	(void)ctx;
#if HAVE_LIBNVME
	return libnvme_identify(fd, what, nsid, buf);
#else
	(void)fd; (void)what; (void)nsid; (void)buf;
	return -ENOSYS;
#endif
}

static const struct pa_nvme_io real_io = { .identify = real_identify };

/* struct pa_prober.probe: Identify Namespace, Controller and NVM Controller. */
static void nvme_probe(const char *sysdir, struct pa_device *d, int fd)
{
	struct pa_nvme_info *ret = &d->nvme;
	uint8_t buf[PA_NVME_IDENTIFY_SIZE];	/* on the stack: no per-thread TLS cost */
	const struct pa_nvme_io *io = pa_probe_io(PA_TRANSPORT_NVME, &real_io, fd);
	char *why = ret->reason;
	size_t wl = sizeof(ret->reason);
	int r;

	(void)sysdir;
	memset(ret, 0, sizeof(*ret));
	if (!io) {
		pa_probe_query_ok(why, wl, "Identify", fd);	/* why there is no node */
		return;
	}
	r = io->identify(io->ctx, fd, PA_NVME_ID_NS, &ret->nsid, buf);
	if (r == 0)
		r = pa_nvme_decode_id_ns(buf, sizeof(buf), &ret->ns);
	ret->have_ns = pa_probe_query_ok(why, wl, "Identify Namespace", r);
	ret->unmap_zeroes = ret->have_ns && pa_nvme_unmap_zeroes(&ret->ns);

	r = io->identify(io->ctx, fd, PA_NVME_ID_CTRL, NULL, buf);
	if (r == 0)
		r = pa_nvme_decode_id_ctrl(buf, sizeof(buf), &ret->ctrl);
	ret->have_ctrl = pa_probe_query_ok(why, wl, "Identify Controller", r);

	r = io->identify(io->ctx, fd, PA_NVME_ID_NVM_CTRL, NULL, buf);
	if (r == 0)
		r = pa_nvme_decode_nvm_id_ctrl(buf, sizeof(buf), &ret->nvm);
	ret->have_nvm = pa_probe_query_ok(why, wl, "NVM Identify Controller", r);
}

static bool nvme_match(const char *sysdir, const char *name)
{
	(void)sysdir;
	return !strncmp(name, "nvme", 4);
}

/* struct pa_prober.hint: what DLFEAT says when the kernel cannot tell. */
static bool nvme_hint(const struct pa_device *d, char *buf, size_t len)
{
	if (!d->nvme.have_ns)
		return false;
	snprintf(buf, len, "; %s: DLFEAT 0x%02x %s", d->name, d->nvme.ns.dlfeat,
		 d->nvme.unmap_zeroes ? "would allow it" : "would not allow it");
	return true;
}

/* Facts named as their fields, per part of struct pa_nvme_info. */
#define NVME(m, t) PA_FACT_OF(struct pa_device, nvme, m, t)
#define NS(m, t) PA_FACT_OF(struct pa_device, nvme.ns, m, t)
#define CTL(m, t) PA_FACT_OF(struct pa_device, nvme.ctrl, m, t)
#define NVM(m, t) PA_FACT_OF(struct pa_device, nvme.nvm, m, t)

/* Identify Namespace, a line per topic: DLFEAT and its bits, the I/O
 * boundaries. */
static const struct pa_fact_def ns_facts[] = {
	NVME(nsid, NUMBER),
	NS(dlfeat, FLAGS), NS(read_back, NUMBER), NS(deac, BOOL), NS(guard_crc, BOOL),
	NS(noiob, NUMBER), NS(npwg, NUMBER), NS(npdg, NUMBER), NS(npda, NUMBER),
	NS(lba_size, BYTES),
	NVME(unmap_zeroes, BOOL),
};

/* Identify Controller, likewise: the device, then ONCS and its bits. */
static const struct pa_fact_def ctrl_facts[] = {
	CTL(vid, FLAGS), PA_FACT_CHARS(struct pa_device, "model", nvme.ctrl.model),
	CTL(mdts, NUMBER),
	CTL(oncs, FLAGS), CTL(dsm, BOOL), CTL(write_zeroes, BOOL),
	CTL(wz_dealloc_limit, BOOL), CTL(ns_zeroes, BOOL),
};

static const struct pa_fact_def nvm_facts[] = {
	NVM(wzsl, NUMBER), NVM(wzdsl, NUMBER),
};

static const struct pa_fact_def why_facts[] = {
	PA_FACT_TEXT(struct pa_device, "unknown", nvme.reason),
};

#define LEARNT(flag) (long)offsetof(struct pa_device, nvme.flag)

/* One group per Identify, each a single null fact when it failed. */
static const struct pa_fact_group nvme_facts[] = {
	{ "nvme", LEARNT(have_ns), "nvme.dlfeat", ns_facts, PA_ARRAY_SIZE(ns_facts) },
	{ "nvme", LEARNT(have_ctrl), "nvme.oncs", ctrl_facts, PA_ARRAY_SIZE(ctrl_facts) },
	{ "nvme", LEARNT(have_nvm), "nvme.wzsl", nvm_facts, PA_ARRAY_SIZE(nvm_facts) },
	{ "nvme", PA_FACTS_ALWAYS, NULL, why_facts, PA_ARRAY_SIZE(why_facts) },
};

const struct pa_prober pa_nvme_prober = {
	.name = "nvme",
	.transport = PA_TRANSPORT_NVME,
	.match = nvme_match,
	.probe = nvme_probe,
	.hint = nvme_hint,
	.facts = nvme_facts,
	.nfacts = PA_ARRAY_SIZE(nvme_facts),
};

/* SPDX-License-Identifier: MIT */
/*
 * Pure decoders for NVMe Identify data, through libnvme's wire structs and
 * names (nvme/types.h, nvme/util.h).  No I/O: tested over captured bytes and
 * fuzzed.  A build without libnvme decodes nothing (-ENOSYS): it cannot
 * fetch Identify data either.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "config.h"
#include "probes/nvme.h"
#include "base/util.h"

#if HAVE_LIBNVME
#include <nvme/types.h>
#include <nvme/util.h>

/* ONCS bits newer than libnvme 1.3's enum nvme_id_ctrl_oncs. */
#define PA_NVME_ONCS_WZDSL	(1 << 11)	/* WZDSL of the NVM Identify Controller is valid */
#define PA_NVME_ONCS_NSZS	(1 << 12)	/* Namespace Zeroes */

_Static_assert(sizeof(struct nvme_id_ns) == PA_NVME_IDENTIFY_SIZE, "Identify Namespace size");
_Static_assert(sizeof(struct nvme_id_ctrl) == PA_NVME_IDENTIFY_SIZE, "Identify Controller size");
_Static_assert(sizeof(struct nvme_id_ctrl_nvm) == PA_NVME_IDENTIFY_SIZE,
	       "NVM Identify Controller size");

int pa_nvme_decode_id_ns(const void *buf, size_t len, struct pa_nvme_ns *ret)
{
	struct nvme_id_ns id;	/* a copy: @buf need not be aligned */
	struct pa_nvme_ns ns = { 0 };
	__u8 fmt;
	unsigned int lbads;

	if (!buf || len < sizeof(id))
		return -EINVAL;
	memcpy(&id, buf, sizeof(id));
	nvme_id_ns_flbas_to_lbaf_inuse(id.flbas, &fmt);
	if (fmt > id.nlbaf)	/* NLBAF is 0's based */
		return -EBADMSG;
	lbads = id.lbaf[fmt].ds;
	if (lbads < 9 || lbads > 31)
		return -EBADMSG;
	ns.lba_size = 1u << lbads;
	ns.nsfeat = id.nsfeat;
	ns.dlfeat = id.dlfeat;
	ns.read_back = id.dlfeat & NVME_NS_DLFEAT_RB;
	ns.deac = id.dlfeat & NVME_NS_DLFEAT_WRITE_ZEROES;
	ns.guard_crc = id.dlfeat & NVME_NS_DLFEAT_CRC_GUARD;
	ns.noiob = le16toh(id.noiob);
	ns.npwg = le16toh(id.npwg);
	ns.npdg = le16toh(id.npdg);
	ns.npda = le16toh(id.npda);
	*ret = ns;
	return 0;
}

/* Identify strings are ASCII padded with spaces (some devices pad with NULs). */
static int copy_ascii(char *dst, const char *src, size_t n)
{
	size_t i, end = 0;

	for (i = 0; i < n; i++) {
		if (src[i] == 0)
			break;
		if (src[i] < 0x20 || src[i] > 0x7e)
			return -EBADMSG;
		if (src[i] != ' ')
			end = i + 1;
	}
	for (; i < n; i++)
		if (src[i] != 0 && src[i] != ' ')
			return -EBADMSG;
	memcpy(dst, src, end);
	dst[end] = 0;
	return 0;
}

int pa_nvme_decode_id_ctrl(const void *buf, size_t len, struct pa_nvme_ctrl *ret)
{
	struct nvme_id_ctrl id;
	struct pa_nvme_ctrl c = { 0 };

	_Static_assert(sizeof(c.model) > sizeof(id.mn), "model holds MN and a NUL");
	if (!buf || len < sizeof(id))
		return -EINVAL;
	memcpy(&id, buf, sizeof(id));
	if (copy_ascii(c.model, id.mn, sizeof(id.mn)) < 0)
		return -EBADMSG;
	c.vid = le16toh(id.vid);
	c.mdts = id.mdts;
	c.oncs = le16toh(id.oncs);
	c.dsm = c.oncs & NVME_CTRL_ONCS_DSM;
	c.write_zeroes = c.oncs & NVME_CTRL_ONCS_WRITE_ZEROES;
	c.wz_dealloc_limit = c.oncs & PA_NVME_ONCS_WZDSL;
	c.ns_zeroes = c.oncs & PA_NVME_ONCS_NSZS;
	*ret = c;
	return 0;
}

int pa_nvme_decode_nvm_id_ctrl(const void *buf, size_t len, struct pa_nvme_nvm_ctrl *ret)
{
	struct nvme_id_ctrl_nvm id;

	if (!buf || len < sizeof(id))
		return -EINVAL;
	memcpy(&id, buf, sizeof(id));
	ret->wzsl = id.wzsl;
	/* WZDSL, byte 17 (NVM Command Set 1.1), is reserved space in libnvme 1.3. */
	ret->wzdsl = id.rsvd16[17 - offsetof(struct nvme_id_ctrl_nvm, rsvd16)];
	return 0;
}

#else	/* !HAVE_LIBNVME */

int pa_nvme_decode_id_ns(const void *buf, size_t len, struct pa_nvme_ns *ret)
{
	(void)buf; (void)len; (void)ret;
	return -ENOSYS;
}

int pa_nvme_decode_id_ctrl(const void *buf, size_t len, struct pa_nvme_ctrl *ret)
{
	(void)buf; (void)len; (void)ret;
	return -ENOSYS;
}

int pa_nvme_decode_nvm_id_ctrl(const void *buf, size_t len, struct pa_nvme_nvm_ctrl *ret)
{
	(void)buf; (void)len; (void)ret;
	return -ENOSYS;
}

#endif

bool pa_nvme_unmap_zeroes(const struct pa_nvme_ns *ns)
{
	/* drivers/nvme/host/core.c: (dlfeat & 7) == 1 && (dlfeat & NVME_NS_DEAC) */
	return ns->read_back == 1 && ns->deac;
}

static uint64_t pages_limit(unsigned int shift)
{
	/* 2^shift pages of 4 KiB; beyond 2^63 bytes means "no practical limit". */
	return shift + 12 >= 64 ? UINT64_MAX : 1ull << (shift + 12);
}

uint64_t pa_nvme_write_zeroes_limit(const struct pa_nvme_ctrl *c,
				    const struct pa_nvme_nvm_ctrl *nvm, bool have_nvm)
{
	if (!c->write_zeroes)
		return 0;
	if (have_nvm && nvm->wzsl)
		return pages_limit(nvm->wzsl);
	return c->mdts ? pages_limit(c->mdts) : UINT64_MAX;
}

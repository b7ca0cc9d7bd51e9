/* SPDX-License-Identifier: MIT */
/*
 * Pure decoders for NVMe Identify data (NVM Express Base 2.0 and NVM Command
 * Set 1.0 layouts).  No I/O: tested over captured bytes and fuzzed.
 */
#include <errno.h>
#include <string.h>

#include "nvme.h"

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

int pa_nvme_decode_id_ns(const void *buf, size_t len, struct pa_nvme_ns *ret)
{
	const uint8_t *b = buf;
	struct pa_nvme_ns ns = { 0 };
	unsigned int fmt, lbads;

	if (!b || len < PA_NVME_IDENTIFY_SIZE)
		return -EINVAL;
	/* FLBAS bits 3:0 and 6:5 index the LBA format table at byte 128. */
	fmt = (b[26] & 0xf) | ((b[26] >> 5 & 3) << 4);
	if (fmt > b[25])
		return -EBADMSG;
	lbads = b[128 + 4 * fmt + 2];
	if (lbads < 9 || lbads > 31)
		return -EBADMSG;
	ns.lba_size = 1u << lbads;
	ns.nsfeat = b[24];
	ns.dlfeat = b[33];
	ns.read_back = b[33] & 7;
	ns.deac = b[33] & (1 << 3);
	ns.guard_crc = b[33] & (1 << 4);
	ns.noiob = le16(b + 46);
	ns.npwg = le16(b + 64);
	ns.npdg = le16(b + 68);
	ns.npda = le16(b + 70);
	*ret = ns;
	return 0;
}

/* Identify strings are ASCII padded with spaces (some devices pad with NULs). */
static int copy_ascii(char *dst, const uint8_t *src, size_t n)
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
	const uint8_t *b = buf;
	struct pa_nvme_ctrl c = { 0 };

	if (!b || len < PA_NVME_IDENTIFY_SIZE)
		return -EINVAL;
	if (copy_ascii(c.model, b + 24, 40) < 0)
		return -EBADMSG;
	c.vid = le16(b);
	c.mdts = b[77];
	c.oncs = le16(b + 520);
	c.dsm = c.oncs & (1 << 2);
	c.write_zeroes = c.oncs & (1 << 3);
	c.wz_dealloc_limit = c.oncs & (1 << 11);
	c.ns_zeroes = c.oncs & (1 << 12);
	*ret = c;
	return 0;
}

int pa_nvme_decode_nvm_id_ctrl(const void *buf, size_t len, struct pa_nvme_nvm_ctrl *ret)
{
	const uint8_t *b = buf;

	if (!b || len < PA_NVME_IDENTIFY_SIZE)
		return -EINVAL;
	ret->wzsl = b[1];
	ret->wzdsl = b[17];
	return 0;
}

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

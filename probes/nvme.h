/* SPDX-License-Identifier: MIT */
/*
 * NVMe Identify data: pure decoders (probes/nvme_decode.c) and the probe that
 * fetches the bytes through libnvme (probes/nvme.c).
 */
#ifndef PREALLOC_NVME_H
#define PREALLOC_NVME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define PA_NVME_IDENTIFY_SIZE 4096

/* Identify Namespace (CNS 00h). */
struct pa_nvme_ns {
	uint8_t nsfeat;
	uint8_t dlfeat;
	uint8_t read_back;	/* DLFEAT 2:0: 0 not reported, 1 zeroes, 2 0xFF */
	bool deac;		/* DLFEAT bit 3: Deallocate bit in Write Zeroes */
	bool guard_crc;		/* DLFEAT bit 4 */
	uint16_t noiob;		/* logical blocks; 0 = not reported */
	uint16_t npwg;		/* 0's based; valid when nsfeat bit 4 */
	uint16_t npdg;		/* 0's based */
	uint16_t npda;		/* 0's based */
	uint32_t lba_size;	/* bytes, of the format in use */
};

/* Identify Controller (CNS 01h). */
struct pa_nvme_ctrl {
	uint16_t vid;
	uint8_t mdts;		/* 2^mdts * CAP.MPSMIN pages; 0 = no limit */
	uint16_t oncs;
	bool dsm;		/* ONCS bit 2 */
	bool write_zeroes;	/* ONCS bit 3 */
	bool wz_dealloc_limit;	/* ONCS bit 11: WZDSL is valid */
	bool ns_zeroes;		/* ONCS bit 12 */
	char model[41];
};

/* NVM command set Identify Controller (CNS 06h, CSI 0). */
struct pa_nvme_nvm_ctrl {
	uint8_t wzsl;		/* Write Zeroes size limit, 2^n min pages; 0 = MDTS */
	uint8_t wzdsl;		/* same, with Deallocate */
};

/* Each returns 0, or -EINVAL (too short) / -EBADMSG (inconsistent). */
int pa_nvme_decode_id_ns(const void *buf, size_t len, struct pa_nvme_ns *ret);
int pa_nvme_decode_id_ctrl(const void *buf, size_t len, struct pa_nvme_ctrl *ret);
int pa_nvme_decode_nvm_id_ctrl(const void *buf, size_t len, struct pa_nvme_nvm_ctrl *ret);

/* Does the Linux driver enable unmap zeroing for this namespace?  It does
 * iff deallocated blocks read as zeroes and Write Zeroes may deallocate. */
bool pa_nvme_unmap_zeroes(const struct pa_nvme_ns *ns);

/*
 * Largest Write Zeroes in bytes the controller allows, assuming
 * CAP.MPSMIN = 4 KiB: 0 when unsupported, UINT64_MAX when unlimited.
 */
uint64_t pa_nvme_write_zeroes_limit(const struct pa_nvme_ctrl *c,
				    const struct pa_nvme_nvm_ctrl *nvm, bool have_nvm);

/* What the probe learnt; each part may be unknown with a reason. */
struct pa_nvme_info {
	bool have_ns, have_ctrl, have_nvm;
	uint32_t nsid;
	struct pa_nvme_ns ns;
	bool unmap_zeroes;	/* pa_nvme_unmap_zeroes(&ns), when have_ns */
	struct pa_nvme_ctrl ctrl;
	struct pa_nvme_nvm_ctrl nvm;
	char reason[96];	/* why something is unknown, "" if all known */
};

enum pa_nvme_identify {
	PA_NVME_ID_NS,
	PA_NVME_ID_CTRL,
	PA_NVME_ID_NVM_CTRL,
};

/*
 * Device I/O on the namespace's block device node @fd (pa_probe_io(); test
 * builds substitute fixture bytes).  @identify fills @buf
 * (PA_NVME_IDENTIFY_SIZE bytes) and returns 0, -errno, or an NVMe status > 0.
 * It sets *nsid for PA_NVME_ID_NS.
 */
struct pa_nvme_io {
	int (*identify)(void *ctx, int fd, enum pa_nvme_identify what, uint32_t *nsid,
			void *buf);
	void *ctx;
};

#endif

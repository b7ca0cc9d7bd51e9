/* SPDX-License-Identifier: MIT */
/* libFuzzer target: pa_nvme_decode_id_ns() over arbitrary bytes. */
#include <stdint.h>
#include <string.h>

#include "probes/nvme.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pa_nvme_ns out;

	memset(&out, 0, sizeof(out));
	if (pa_nvme_decode_id_ns(data, size, &out) == 0) {
		/* Invariants of a successful decode. */
		if (out.read_back != (out.dlfeat & 7) || out.lba_size < 512)
			__builtin_trap();
		(void)pa_nvme_unmap_zeroes(&out);
	}
	return 0;
}

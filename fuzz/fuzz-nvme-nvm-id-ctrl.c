/* SPDX-License-Identifier: MIT */
/* libFuzzer target: pa_nvme_decode_nvm_id_ctrl() over arbitrary bytes. */
#include <stdint.h>
#include <string.h>

#include "probes/nvme.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pa_nvme_nvm_ctrl out;

	memset(&out, 0, sizeof(out));
	if (pa_nvme_decode_nvm_id_ctrl(data, size, &out) == 0) {
		/* Invariants of a successful decode. */
		if (size < 4096 || out.wzsl != data[1])
			__builtin_trap();
	}
	return 0;
}

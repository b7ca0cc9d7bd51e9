/* SPDX-License-Identifier: MIT */
/* libFuzzer target: pa_nvme_decode_id_ctrl() over arbitrary bytes. */
#include <stdint.h>
#include <string.h>

#include "probes/nvme.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pa_nvme_ctrl out;

	memset(&out, 0, sizeof(out));
	if (pa_nvme_decode_id_ctrl(data, size, &out) == 0) {
		/* Invariants of a successful decode. */
		if (strlen(out.model) > 40 || out.write_zeroes != !!(out.oncs & 8))
			__builtin_trap();
		(void)pa_nvme_write_zeroes_limit(&out, NULL, false);
	}
	return 0;
}

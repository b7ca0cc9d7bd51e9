/* SPDX-License-Identifier: MIT */
/* libFuzzer target: pa_scsi_decode_rc16() over arbitrary bytes. */
#include <stdint.h>
#include <string.h>

#include "probes/scsi.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pa_scsi_rc16 out;

	memset(&out, 0, sizeof(out));
	if (pa_scsi_decode_rc16(data, size, &out) == 0) {
		/* Invariants of a successful decode. */
		if (out.block_len < 256 || out.block_len > (1u << 20))
			__builtin_trap();
	}
	return 0;
}

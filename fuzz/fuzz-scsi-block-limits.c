/* SPDX-License-Identifier: MIT */
/* libFuzzer target: pa_scsi_decode_block_limits() over arbitrary bytes. */
#include <stdint.h>
#include <string.h>

#include "probes/scsi.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pa_scsi_block_limits out;

	memset(&out, 0, sizeof(out));
	if (pa_scsi_decode_block_limits(data, size, &out) == 0) {
		/* Invariants of a successful decode. */
		if (size < 4 || data[1] != 0xb0)
			__builtin_trap();
		(void)pa_scsi_zeroing_mode(NULL, &out, NULL);
	}
	return 0;
}

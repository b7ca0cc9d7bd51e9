/* SPDX-License-Identifier: MIT */
/* libFuzzer target: pa_scsi_decode_lbp() over arbitrary bytes. */
#include <stdint.h>
#include <string.h>

#include "probes/scsi.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pa_scsi_lbp out;

	memset(&out, 0, sizeof(out));
	if (pa_scsi_decode_lbp(data, size, &out) == 0) {
		/* Invariants of a successful decode. */
		if (out.lbprz > 7 || out.prov_type > 7)
			__builtin_trap();
		(void)pa_scsi_zeroing_mode(&out, NULL, NULL);
	}
	return 0;
}

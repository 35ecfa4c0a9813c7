// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz-replay: a log image (compact encoding, see fuzz-common.h) through the
 * constructor's superblock check and ressd_replay(), checked against the
 * invariants of the index and an independent model of recovery.
 */
#include "fuzz-common.h"

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct fz_image im;
	struct fz_report rep;

	if (!fz_image_expand(data, size, &im))
		return 0;
	fz_replay_check(&im, &rep);
	fz_image_free(&im);
	return 0;
}

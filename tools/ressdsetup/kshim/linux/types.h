/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kshim: the few kernel headers tools/ftlsim/ftlsim-model.c (the cost model
 * of dm-ftlsim) includes, for user space, so that ressdsetup compiles that
 * file unchanged (see Makefile).  Only what the model uses is here; the
 * types are those of ressd-types.h.
 *
 * The uapi's <linux/types.h> comes first (__u32, __le64: ressd-types.h,
 * which devprobe.c includes with this directory on its path, needs them).
 */
#ifndef RESSD_KSHIM_TYPES_H
#define RESSD_KSHIM_TYPES_H

#include_next <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int64_t s64;

#define U32_MAX		UINT32_MAX

#endif

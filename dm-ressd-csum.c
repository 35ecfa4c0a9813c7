// SPDX-License-Identifier: GPL-2.0-only
/*
 * Which code computes dm-ressd's crc32c.
 *
 * Every logged block, record trailer and superblock carries a crc32c
 * (dm-ressd-format.h), and a small write's is taken on its way to the log.
 * The crypto API offers crc32c from more than one driver: the one of
 * highest priority (on x86 crc32c-intel, the crc32 instruction) and the
 * table-driven crc32c-generic.  Priority is not speed everywhere: under
 * software emulation the crc32 instruction is computed bit by bit, several
 * times slower than the table.  So, as raid6 and xor choose their routines,
 * the module times each driver on a 4 KiB block when it loads, after
 * checking it against a known value, and keeps the fastest; the kernel's
 * choice stays unless another is faster by an eighth.  All compute the same
 * function, so a log written with one is read with any other.
 *
 * The parameter csum_driver names the driver in use; given at load, it
 * forces one (a driver that does not load or fails the check fails the
 * module's load).
 */
#include <crypto/hash.h>
#include <linux/device-mapper.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "compat.h"
#include "dm-ressd.h"

#define DM_MSG_PREFIX "ressd"

static struct crypto_shash *ressd_csum_tfm;
static char csum_driver[CRYPTO_MAX_ALG_NAME];
module_param_string(csum_driver, csum_driver, sizeof(csum_driver), 0444);
MODULE_PARM_DESC(csum_driver,
		 "crc32c driver in use (at load: the one to use; default: the fastest)");
MODULE_SOFTDEP("pre: crc32c");

/* The candidates: the kernel's choice first, then the drivers by name. */
static const char *const ressd_csum_names[] = {
	"crc32c", "crc32c-generic",
#ifdef CONFIG_X86
	"crc32c-intel",
#endif
};

static u32 ressd_csum_tfm_update(struct crypto_shash *tfm, u32 crc,
				 const void *data, unsigned int len)
{
	SHASH_DESC_ON_STACK(desc, tfm);
	u32 *ctx = (u32 *)shash_desc_ctx(desc);

	desc->tfm = tfm;
	*ctx = crc;
	/* crc32c's update cannot fail (lib/libcrc32c.c relies on it too). */
	WARN_ON_ONCE(crypto_shash_update(desc, data, len));
	crc = *ctx;
	barrier_data(ctx);
	return crc;
}

u32 ressd_crc32c_update(u32 crc, const void *data, unsigned int len)
{
	return ressd_csum_tfm_update(ressd_csum_tfm, crc, data, len);
}
EXPORT_SYMBOL_IF_KUNIT(ressd_crc32c_update);

unsigned int ressd_csum_pick(const u64 *ns, unsigned int n)
{
	unsigned int i, best = 0;

	for (i = 1; i < n; i++) {
		if (ns[i] == U64_MAX)
			continue;
		if (ns[best] == U64_MAX ||
		    ns[i] + ns[i] / 8 < ns[best])
			best = i;
	}
	return best;
}
EXPORT_SYMBOL_IF_KUNIT(ressd_csum_pick);

/*
 * The driver @name, checked: crc32c over "123456789" (the standard check
 * value 0xe3069283, in the kernel's form without the final inversion) and
 * over a 4 KiB block in two uneven pieces against the whole.  @buf is a
 * 4 KiB scratch block.
 */
struct crypto_shash *ressd_csum_get(const char *name, u8 *buf)
{
	struct crypto_shash *tfm = crypto_alloc_shash(name, 0, 0);
	unsigned int i;
	u32 whole;

	if (IS_ERR(tfm))
		return tfm;
	if (crypto_shash_descsize(tfm) != sizeof(u32) ||
	    ressd_csum_tfm_update(tfm, ~0U, "123456789", 9) != ~0xe3069283U)
		goto bad;
	for (i = 0; i < RESSD_BLOCK_SIZE; i++)
		buf[i] = (u8)(i * 131 + (i >> 7));
	whole = ressd_csum_tfm_update(tfm, 0x5a5a5a5a, buf, RESSD_BLOCK_SIZE);
	if (ressd_csum_tfm_update(tfm, ressd_csum_tfm_update(tfm, 0x5a5a5a5a, buf, 1357),
				  buf + 1357, RESSD_BLOCK_SIZE - 1357) != whole)
		goto bad;
	return tfm;
bad:
	crypto_free_shash(tfm);
	return ERR_PTR(-EBADMSG);
}
EXPORT_SYMBOL_IF_KUNIT(ressd_csum_get);

/* Nanoseconds a 4 KiB block costs @tfm: the best of a few timed rounds. */
static u64 ressd_csum_time(struct crypto_shash *tfm, const u8 *buf)
{
	u64 best = U64_MAX;
	unsigned int round, i;
	u32 crc = 0;

	for (round = 0; round < 4; round++) {
		u64 t = ktime_get_ns();

		for (i = 0; i < 8; i++)
			crc = ressd_csum_tfm_update(tfm, crc, buf, RESSD_BLOCK_SIZE);
		t = ktime_get_ns() - t;
		if (round)	/* the first warms the caches */
			best = min(best, t / 8);
	}
	barrier_data(&crc);
	return best;
}

int __init ressd_csum_init(void)
{
	struct crypto_shash *tfm[ARRAY_SIZE(ressd_csum_names)] = {};
	u64 ns[ARRAY_SIZE(ressd_csum_names)];
	unsigned int i, j, n = 0, best;
	u8 *buf = kmalloc(RESSD_BLOCK_SIZE, GFP_KERNEL);

	if (!buf)
		return -ENOMEM;
	if (csum_driver[0]) {
		tfm[0] = ressd_csum_get(csum_driver, buf);
		if (IS_ERR(tfm[0])) {
			DMERR("csum_driver %s: %s", csum_driver,
			      PTR_ERR(tfm[0]) == -EBADMSG ?
			      "does not compute crc32c" : "cannot be loaded");
			kfree(buf);
			return PTR_ERR(tfm[0]);
		}
		ns[0] = ressd_csum_time(tfm[0], buf);
		n = 1;
	}
	for (i = 0; !csum_driver[0] && i < ARRAY_SIZE(ressd_csum_names); i++) {
		struct crypto_shash *t = ressd_csum_get(ressd_csum_names[i], buf);

		if (IS_ERR(t))
			continue;
		for (j = 0; j < n; j++)	/* "crc32c" is one of the others */
			if (!strcmp(crypto_shash_driver_name(tfm[j]),
				    crypto_shash_driver_name(t)))
				break;
		if (j < n) {
			crypto_free_shash(t);
			continue;
		}
		tfm[n] = t;
		ns[n++] = ressd_csum_time(t, buf);
	}
	kfree(buf);
	if (!n) {
		DMERR("no crc32c driver works");
		return -ENOENT;
	}
	best = ressd_csum_pick(ns, n);
	for (i = 0; i < n; i++) {
		DMINFO("crc32c by %s: %llu ns a 4 KiB block%s",
		       crypto_shash_driver_name(tfm[i]), ns[i],
		       i == best ? " (in use)" : "");
		if (i != best)
			crypto_free_shash(tfm[i]);
	}
	ressd_csum_tfm = tfm[best];
	strscpy(csum_driver, crypto_shash_driver_name(ressd_csum_tfm),
		sizeof(csum_driver));
	return 0;
}

void ressd_csum_exit(void)
{
	crypto_free_shash(ressd_csum_tfm);
	ressd_csum_tfm = NULL;
}

const char *ressd_csum_driver(void)
{
	return csum_driver;
}
EXPORT_SYMBOL_IF_KUNIT(ressd_csum_driver);

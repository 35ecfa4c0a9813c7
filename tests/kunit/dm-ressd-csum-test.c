// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite dm_ressd_csum: which code computes crc32c (dm-ressd-csum.c).
 * The choice among timings; every crc32c driver of the kernel under test
 * against a bitwise crc32c on random data, lengths and seeds (a log written
 * by one is read by any other); the driver in use is one of them; drivers
 * that do not compute crc32c (registered here) are refused.
 */
#include <crypto/internal/hash.h>
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/slab.h>

#include "dm-ressd.h"

static void ressd_csum_test_pick(struct kunit *test)
{
	const u64 none = U64_MAX;
	u64 a[] = { 100, 90 }, b[] = { 100, 87 }, c[] = { none, 50 },
	    d[] = { 100, none, 30 }, e[] = { 100, 50, 40 }, f[] = { 100, 50, 45 },
	    g[] = { none, none };

	KUNIT_EXPECT_EQ(test, ressd_csum_pick(a, 1), 0U);
	/* The kernel's choice stays unless another is an eighth faster. */
	KUNIT_EXPECT_EQ(test, ressd_csum_pick(a, 2), 0U);
	KUNIT_EXPECT_EQ(test, ressd_csum_pick(b, 2), 1U);
	KUNIT_EXPECT_EQ(test, ressd_csum_pick(c, 2), 1U);
	KUNIT_EXPECT_EQ(test, ressd_csum_pick(d, 3), 2U);
	KUNIT_EXPECT_EQ(test, ressd_csum_pick(e, 3), 2U);
	KUNIT_EXPECT_EQ(test, ressd_csum_pick(f, 3), 1U);
	KUNIT_EXPECT_EQ(test, ressd_csum_pick(g, 2), 0U);
}

/* crc32c bit by bit, the kernel's form (seed in, no final inversion). */
static u32 ref_crc32c(u32 crc, const u8 *p, size_t len)
{
	unsigned int k;

	while (len--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0x82f63b78U & -(crc & 1));
	}
	return crc;
}

static void ressd_csum_test_drivers(struct kunit *test)
{
	static const char *const names[] = {
		"crc32c", "crc32c-generic", "crc32c-intel",
	};
	u8 *buf = kunit_kmalloc(test, 2 * RESSD_BLOCK_SIZE, GFP_KERNEL);
	bool in_use_seen = false;
	unsigned int i, round, found = 0;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_NE(test, ressd_csum_driver()[0], '\0');
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		struct crypto_shash *tfm = ressd_csum_get(names[i], buf);

		if (IS_ERR(tfm)) {
			/* Not in this kernel; any other error is a failure. */
			KUNIT_EXPECT_EQ_MSG(test, PTR_ERR(tfm), -ENOENT, "%s", names[i]);
			continue;
		}
		found++;
		if (!strcmp(crypto_shash_driver_name(tfm), ressd_csum_driver()))
			in_use_seen = true;
		for (round = 0; round < 64; round++) {
			u32 len = get_random_u32() % (RESSD_BLOCK_SIZE + 1);
			u32 off = get_random_u32() % RESSD_BLOCK_SIZE;
			u32 seed = get_random_u32(), want;
			SHASH_DESC_ON_STACK(desc, tfm);

			get_random_bytes(buf + off, len);
			want = ref_crc32c(seed, buf + off, len);
			KUNIT_EXPECT_EQ_MSG(test, ressd_crc32c_update(seed, buf + off, len), want,
					    "in use (%s), len %u off %u",
					    ressd_csum_driver(), len, off);
			desc->tfm = tfm;
			*(u32 *)shash_desc_ctx(desc) = seed;
			KUNIT_ASSERT_EQ(test, crypto_shash_update(desc, buf + off, len), 0);
			KUNIT_EXPECT_EQ_MSG(test, *(u32 *)shash_desc_ctx(desc), want,
					    "%s, len %u off %u",
					    crypto_shash_driver_name(tfm), len, off);
		}
		crypto_free_shash(tfm);
	}
	KUNIT_EXPECT_GE(test, found, 1U);
	KUNIT_EXPECT_TRUE_MSG(test, in_use_seen, "%s is not among the crc32c drivers",
			      ressd_csum_driver());
}

/*
 * Drivers that are not dm-ressd's crc32c: a sum, and a true crc32c whose
 * state is 8 bytes (its first 4 the crc): only the size check refuses it.
 */
static int bad_init(struct shash_desc *desc)
{
	memset(shash_desc_ctx(desc), 0xff, crypto_shash_descsize(desc->tfm));
	return 0;
}

static int bad_update(struct shash_desc *desc, const u8 *data, unsigned int len)
{
	u32 *ctx = shash_desc_ctx(desc);

	while (len--)
		*ctx += *data++;
	return 0;
}

static int wide_update(struct shash_desc *desc, const u8 *data, unsigned int len)
{
	u32 *ctx = shash_desc_ctx(desc);

	*ctx = ref_crc32c(*ctx, data, len);
	return 0;
}

static int bad_final(struct shash_desc *desc, u8 *out)
{
	__le32 v = cpu_to_le32(~*(u32 *)shash_desc_ctx(desc));

	memcpy(out, &v, sizeof(v));
	return 0;
}

static struct shash_alg bad_algs[] = { {
	.digestsize = 4,
	.descsize = sizeof(u32),
	.init = bad_init,
	.update = bad_update,
	.final = bad_final,
	.base = {
		.cra_name = "ressd-test-sum",
		.cra_driver_name = "ressd-test-sum",
		.cra_priority = 1,
		.cra_blocksize = 1,
		.cra_module = THIS_MODULE,
	},
}, {
	.digestsize = 4,
	.descsize = 2 * sizeof(u32),
	.init = bad_init,
	.update = wide_update,
	.final = bad_final,
	.base = {
		.cra_name = "ressd-test-wide",
		.cra_driver_name = "ressd-test-wide",
		.cra_priority = 1,
		.cra_blocksize = 1,
		.cra_module = THIS_MODULE,
	},
} };

static void ressd_csum_test_refuse(struct kunit *test)
{
	u8 *buf = kunit_kmalloc(test, RESSD_BLOCK_SIZE, GFP_KERNEL);
	struct crypto_shash *tfm;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_EQ(test, crypto_register_shashes(bad_algs, ARRAY_SIZE(bad_algs)), 0);
	for (i = 0; i < ARRAY_SIZE(bad_algs); i++) {
		/* The algorithm itself loads: only the check refuses it. */
		tfm = crypto_alloc_shash(bad_algs[i].base.cra_driver_name, 0, 0);
		KUNIT_EXPECT_FALSE(test, IS_ERR(tfm));
		if (!IS_ERR(tfm))
			crypto_free_shash(tfm);
		tfm = ressd_csum_get(bad_algs[i].base.cra_driver_name, buf);
		KUNIT_EXPECT_EQ_MSG(test, PTR_ERR_OR_ZERO(tfm), -EBADMSG, "%s",
				    bad_algs[i].base.cra_driver_name);
		if (!IS_ERR(tfm))
			crypto_free_shash(tfm);
	}
	crypto_unregister_shashes(bad_algs, ARRAY_SIZE(bad_algs));
	tfm = ressd_csum_get("ressd-test-none", buf);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(tfm), -ENOENT);
}

static struct kunit_case ressd_csum_test_cases[] = {
	KUNIT_CASE(ressd_csum_test_pick),
	KUNIT_CASE(ressd_csum_test_drivers),
	KUNIT_CASE(ressd_csum_test_refuse),
	{}
};

static struct kunit_suite ressd_csum_test_suite = {
	.name = "dm_ressd_csum",
	.test_cases = ressd_csum_test_cases,
};

kunit_test_suites(&ressd_csum_test_suite);

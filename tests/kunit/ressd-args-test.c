// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suites for the pure helpers of the table line
 * and the superblock:
 *
 *   dm_ressd_args	tunables, sector numbers and geometry
 *   dm_ressd_sb	superblock encoding, checksum and every validity check
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "dm-ressd.h"

/* ---- dm_ressd_args ---- */

#define E_SWM RESSD_E_SMALL_WRITE_MAX
#define E_MB RESSD_E_MOVER_BATCH

struct tunable_case {
	const char *key;
	const char *value;
	bool ok;
	const char *error;	/* expected message when !ok */
};

static const struct tunable_case tunable_cases[] = {
	{ "small_write_max", "8", true, NULL },
	{ "small_write_max", "16", true, NULL },
	{ "SMALL_WRITE_MAX", "256", true, NULL },
	{ "small_write_max", "8184", true, NULL },
	{ "small_write_max", "8192", false, E_SWM },
	{ "small_write_max", "0", false, E_SWM },
	{ "small_write_max", "12", false, E_SWM },
	{ "small_write_max", "4294967296", false, "Invalid small_write_max" },
	{ "small_write_max", "+8", false, "Invalid small_write_max" },
	{ "small_write_max", "-8", false, "Invalid small_write_max" },
	{ "small_write_max", "8k", false, "Invalid small_write_max" },
	{ "small_write_max", "", false, "Invalid small_write_max" },
	{ "high_watermark", "1", true, NULL },
	{ "high_watermark", "100", true, NULL },
	{ "high_watermark", "0", false, "high_watermark must be 1 to 100" },
	{ "high_watermark", "101", false, "high_watermark must be 1 to 100" },
	{ "high_watermark", "4294967295", false, "high_watermark must be 1 to 100" },
	{ "low_watermark", "0", true, NULL },
	{ "low_watermark", "99", true, NULL },
	{ "low_watermark", "100", false, "low_watermark must be 0 to 99" },
	{ "low_watermark", "0x10", false, "Invalid low_watermark" },
	{ "mover_batch", "16", true, NULL },
	{ "mover_batch", "8192", true, NULL },
	{ "mover_batch", "8", false, E_MB },
	{ "mover_batch", "8200", false, E_MB },
	{ "mover_batch", "1028", false, E_MB },
	{ "mover_batch", "18446744073709551616", false, "Invalid mover_batch" },
	{ "nosuchkey", "1", false, "Unknown optional argument" },
	{ "", "1", false, "Unknown optional argument" },
};

static void tunable_case_desc(const struct tunable_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s=%s", c->key, c->value);
}

KUNIT_ARRAY_PARAM(tunable, tunable_cases, tunable_case_desc);

static void ressd_args_test_tunable(struct kunit *test)
{
	const struct tunable_case *c = test->param_value;
	struct ressd_tunables t, before;
	const char *err = NULL;
	int r;

	ressd_default_tunables(&t);
	before = t;
	r = ressd_parse_tunable(&t, c->key, c->value, &err);
	if (c->ok) {
		KUNIT_EXPECT_EQ(test, r, 0);
		KUNIT_EXPECT_NULL(test, err);
	} else {
		KUNIT_EXPECT_EQ(test, r, -EINVAL);
		KUNIT_EXPECT_STREQ(test, err, c->error);
		/* A refused value leaves every tunable as it was. */
		KUNIT_EXPECT_EQ(test, memcmp(&t, &before, sizeof(t)), 0);
	}
}

static void ressd_args_test_defaults(struct kunit *test)
{
	struct ressd_tunables t;

	ressd_default_tunables(&t);
	KUNIT_EXPECT_EQ(test, t.small_write_max, 16U);
	KUNIT_EXPECT_EQ(test, t.high_watermark, 50U);
	KUNIT_EXPECT_EQ(test, t.low_watermark, 0U);
	KUNIT_EXPECT_EQ(test, t.mover_batch, 1024U);
}

static void ressd_args_test_sector(struct kunit *test)
{
	sector_t s = 1;

	KUNIT_EXPECT_EQ(test, ressd_parse_sector("0", &s), 0);
	KUNIT_EXPECT_EQ(test, s, (sector_t)0);
	KUNIT_EXPECT_EQ(test, ressd_parse_sector("18446744073709551615", &s), 0);
	KUNIT_EXPECT_EQ(test, s, (sector_t)U64_MAX);
	KUNIT_EXPECT_EQ(test, ressd_parse_sector("18446744073709551616", &s), -EINVAL);
	KUNIT_EXPECT_EQ(test, ressd_parse_sector("-1", &s), -EINVAL);
	KUNIT_EXPECT_EQ(test, ressd_parse_sector("+1", &s), -EINVAL);
	KUNIT_EXPECT_EQ(test, ressd_parse_sector("1x", &s), -EINVAL);
	KUNIT_EXPECT_EQ(test, ressd_parse_sector(" 1", &s), -EINVAL);
	KUNIT_EXPECT_EQ(test, ressd_parse_sector("", &s), -EINVAL);
	KUNIT_EXPECT_EQ(test, ressd_parse_sector(NULL, &s), -EINVAL);
}

struct geometry_case {
	const char *name;
	struct ressd_geometry g;
	const char *error;	/* NULL: valid */
};

#define GIB (2ULL * 1024 * 1024)	/* sectors */
#define M64 (U64_MAX - 7)		/* largest multiple of 8 */
/* origin offset, length, device size; log offset, size, device size */
#define G(oo, ol, od, lo, ls, ld, same) { oo, ol, od, lo, ls, ld, same }
#define E_LEN "Length must be a multiple of 8 sectors"
#define E_OOFF "Origin offset must be a multiple of 8 sectors"
#define E_LOFF "Log offset must be a multiple of 8 sectors"
#define E_LSZ "Log size must be a multiple of 8 sectors"
#define E_OEND "Origin range exceeds the origin device"
#define E_LEND "Log range exceeds the log device"
#define E_OVL "Log range overlaps origin range"

static const struct geometry_case geometry_cases[] = {
	{ "two devices", G(0, GIB, GIB, 0, 65536, GIB, false), NULL },
	{ "log after", G(0, GIB - 65536, GIB, GIB - 65536, 65536, GIB, true), NULL },
	{ "log before", G(65536, GIB - 65536, GIB, 0, 65536, GIB, true), NULL },
	{ "smallest log", G(0, 8, GIB, 0, 144, GIB, false), NULL },
	{ "log one block short", G(0, 8, GIB, 0, 136, GIB, false),
	  "Log range too small: at least 72 KiB" },
	{ "same ranges, two devices", G(0, GIB, GIB, 0, 65536, GIB, false), NULL },
	{ "zero length", G(0, 0, GIB, 0, 65536, GIB, false), E_LEN },
	{ "odd length", G(0, 1001, GIB, 0, 65536, GIB, false), E_LEN },
	{ "odd origin offset", G(4, 8, GIB, 0, 65536, GIB, false), E_OOFF },
	{ "odd log offset", G(0, 8, GIB, 3, 65536, GIB, false), E_LOFF },
	{ "odd log size", G(0, 8, GIB, 0, 65540, GIB, false), E_LSZ },
	{ "log too small", G(0, 8, GIB, 0, 24, GIB, false),
	  "Log range too small: at least 72 KiB" },
	{ "log too large", G(0, 8, U64_MAX, 0, M64, U64_MAX, false), "Log range too large" },
	{ "origin too large", G(0, (RESSD_MAX_BLOCK + 2) * 8, U64_MAX, 0, 256, GIB, false),
	  "Origin range too large" },
	{ "origin past end", G(8, GIB, GIB, 0, 256, GIB, false), E_OEND },
	{ "origin offset overflows", G(M64, 8, U64_MAX, 0, 256, GIB, false), E_OEND },
	{ "log past end", G(0, 8, GIB, GIB - 32, 256, GIB, false), E_LEND },
	{ "log offset overflows", G(0, 8, GIB, M64, 256, U64_MAX, false), E_LEND },
	{ "overlap at the end", G(0, GIB - 65536, GIB, GIB - 65544, 65536, GIB, true), E_OVL },
	{ "overlap at the start", G(65536, GIB - 65536, GIB, 0, 65544, GIB, true), E_OVL },
	{ "log inside origin", G(0, GIB, GIB, 4096, 256, GIB, true), E_OVL },
};

static void geometry_case_desc(const struct geometry_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(geometry, geometry_cases, geometry_case_desc);

static void ressd_args_test_geometry(struct kunit *test)
{
	const struct geometry_case *c = test->param_value;
	const char *err = ressd_check_geometry(&c->g);

	if (!c->error)
		KUNIT_EXPECT_NULL(test, err);
	else if (!err)
		KUNIT_FAIL(test, "accepted, expected \"%s\"", c->error);
	else
		KUNIT_EXPECT_STREQ(test, err, c->error);
}

static struct kunit_case ressd_args_test_cases[] = {
	KUNIT_CASE_PARAM(ressd_args_test_tunable, tunable_gen_params),
	KUNIT_CASE(ressd_args_test_defaults),
	KUNIT_CASE(ressd_args_test_sector),
	KUNIT_CASE_PARAM(ressd_args_test_geometry, geometry_gen_params),
	{}
};

static struct kunit_suite ressd_args_test_suite = {
	.name = "dm_ressd_args",
	.test_cases = ressd_args_test_cases,
};

/* ---- dm_ressd_sb ---- */

static const struct ressd_geometry sb_geo = {
	.origin_offset = 0, .origin_sectors = GIB, .origin_dev_sectors = GIB,
	.log_offset = 0, .log_sectors = 65536, .log_dev_sectors = GIB,
};

static struct ressd_disk_sb *sb_make(struct kunit *test, u64 location)
{
	struct ressd_disk_sb *sb = kunit_kzalloc(test, RESSD_BLOCK_SIZE, GFP_KERNEL);
	struct ressd_sb_info info = {
		.nonce = 0x0123456789abcdefULL, .generation = 7,
		.nr_slots = ressd_nr_slots(sb_geo.log_sectors),
		.tail_slot = 3, .tail_seq = 42,
	};
	struct ressd_tunables t;

	KUNIT_ASSERT_NOT_NULL(test, sb);
	ressd_default_tunables(&t);
	ressd_sb_encode(sb, location, &info, &sb_geo, &t);
	return sb;
}

static void ressd_sb_test_csum_vector(struct kunit *test)
{
	/* crc32c("123456789") is 0xe3069283; the kernel's raw form is its
	 * complement with seed ~0, which a nonce of 0xffffffff gives.
	 */
	KUNIT_EXPECT_EQ(test, ressd_csum(0xffffffffULL, "123456789", 9), 0x1cf96d7cU);
}

static void ressd_sb_test_roundtrip(struct kunit *test)
{
	struct ressd_disk_sb *a = sb_make(test, 0), *b = sb_make(test, 1);

	KUNIT_EXPECT_NULL(test, ressd_sb_check(a, 0, &sb_geo));
	KUNIT_EXPECT_NULL(test, ressd_sb_check(b, 1, &sb_geo));
	KUNIT_EXPECT_EQ(test, le64_to_cpu(a->magic), RESSD_SB_MAGIC);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(a->generation), 7ULL);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(a->tail_slot), 3U);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(a->tail_seq), 42ULL);
	/* Everything after the structure is zero. */
	KUNIT_EXPECT_NULL(test, memchr_inv(a + 1, 0, RESSD_BLOCK_SIZE - sizeof(*a)));
	/* Copy A is not valid at copy B's place. */
	KUNIT_EXPECT_STREQ(test, ressd_sb_check(a, 1, &sb_geo),
			   "Superblock at the wrong location");
}

/* Flipping any bit of the block makes it invalid. */
static void ressd_sb_test_every_bit(struct kunit *test)
{
	struct ressd_disk_sb *sb = sb_make(test, 0);
	u8 *p = (u8 *)sb;
	unsigned int bit;

	for (bit = 0; bit < RESSD_BLOCK_SIZE * 8; bit += 61) {
		p[bit / 8] ^= 1 << (bit % 8);
		KUNIT_EXPECT_NOT_NULL_MSG(test, ressd_sb_check(sb, 0, &sb_geo),
					  "bit %u", bit);
		p[bit / 8] ^= 1 << (bit % 8);
	}
	KUNIT_EXPECT_NULL(test, ressd_sb_check(sb, 0, &sb_geo));
}

static void ressd_sb_test_fields(struct kunit *test)
{
	struct ressd_geometry g = sb_geo;
	struct ressd_disk_sb *sb;
	struct ressd_sb_info info = {
		.nonce = 5, .generation = 1,
		.nr_slots = ressd_nr_slots(sb_geo.log_sectors),
	};
	struct ressd_tunables t;

	ressd_default_tunables(&t);
	sb = kunit_kzalloc(test, RESSD_BLOCK_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, sb);

	ressd_sb_encode(sb, 0, &info, &g, &t);
	sb->magic = 0;
	KUNIT_EXPECT_STREQ(test, ressd_sb_check(sb, 0, &g), "Bad superblock magic");

	ressd_sb_encode(sb, 0, &info, &g, &t);
	sb->reserved[3] = 1;
	KUNIT_EXPECT_STREQ(test, ressd_sb_check(sb, 0, &g), "Bad superblock checksum");

	info.incompat = 1;
	ressd_sb_encode(sb, 0, &info, &g, &t);
	KUNIT_EXPECT_STREQ(test, ressd_sb_check(sb, 0, &g), "Unknown incompatible feature");
	info.incompat = 0;

	info.tail_slot = info.nr_slots;
	ressd_sb_encode(sb, 0, &info, &g, &t);
	KUNIT_EXPECT_STREQ(test, ressd_sb_check(sb, 0, &g), "Superblock checkpoint out of range");
	info.tail_slot = 0;

	info.tail_seq = RESSD_MAX_SEQ;
	ressd_sb_encode(sb, 0, &info, &g, &t);
	KUNIT_EXPECT_NULL(test, ressd_sb_check(sb, 0, &g));
	info.tail_seq = RESSD_MAX_SEQ + 1;
	ressd_sb_encode(sb, 0, &info, &g, &t);
	KUNIT_EXPECT_STREQ(test, ressd_sb_check(sb, 0, &g), "Superblock checkpoint out of range");
	info.tail_seq = 42;

	ressd_sb_encode(sb, 0, &info, &g, &t);
	g.origin_sectors -= 8;
	KUNIT_EXPECT_STREQ(test, ressd_sb_check(sb, 0, &g),
			   "Superblock geometry does not match the table");
	g = sb_geo;
	g.log_offset = 8;
	KUNIT_EXPECT_STREQ(test, ressd_sb_check(sb, 0, &g),
			   "Superblock geometry does not match the table");
}

/*
 * The epoch stays below 2^62 as the sequence numbers do: recovery writes
 * epoch + 1, and an epoch that wrapped to 0 would let a stale record of an
 * earlier life pass replay's epoch guard.
 */
static void ressd_sb_test_epoch(struct kunit *test)
{
	static const struct {
		u64 epoch;
		bool valid;
	} cases[] = {
		{ 0, true }, { 1, true }, { RESSD_MAX_EPOCH, true },
		{ RESSD_MAX_EPOCH + 1, false }, { 1ULL << 63, false },
		{ U64_MAX - 1, false }, { U64_MAX, false },
	};
	struct ressd_disk_sb *sb = kunit_kzalloc(test, RESSD_BLOCK_SIZE, GFP_KERNEL);
	struct ressd_sb_info info = {
		.nonce = 9, .generation = 3,
		.nr_slots = ressd_nr_slots(sb_geo.log_sectors),
		.tail_slot = 1, .tail_seq = 5,
	};
	struct ressd_tunables t;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, sb);
	KUNIT_EXPECT_EQ(test, RESSD_MAX_EPOCH, (1ULL << 62) - 1);
	ressd_default_tunables(&t);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const char *why;

		info.epoch = cases[i].epoch;
		ressd_sb_encode(sb, 1, &info, &sb_geo, &t);
		why = ressd_sb_check(sb, 1, &sb_geo);
		if (cases[i].valid)
			KUNIT_EXPECT_NULL_MSG(test, why, "epoch %llu", cases[i].epoch);
		else
			KUNIT_EXPECT_STREQ_MSG(test, why, "Superblock checkpoint out of range",
					       "epoch %llu", cases[i].epoch);
	}
}

/*
 * Unknown read-only compatible features leave a copy valid: whether it may
 * be loaded depends on the table's mode, which ressd_meta_load() decides.
 * Unknown incompatible features make it invalid.
 */
static void ressd_sb_test_features(struct kunit *test)
{
	struct ressd_disk_sb *sb = kunit_kzalloc(test, RESSD_BLOCK_SIZE, GFP_KERNEL);
	struct ressd_sb_info info = {
		.nonce = 11, .generation = 1,
		.nr_slots = ressd_nr_slots(sb_geo.log_sectors),
	};
	struct ressd_tunables t;

	KUNIT_ASSERT_NOT_NULL(test, sb);
	ressd_default_tunables(&t);
	info.ro_compat = ~RESSD_FEATURE_RO_COMPAT_SUPP;
	ressd_sb_encode(sb, 0, &info, &sb_geo, &t);
	KUNIT_EXPECT_NULL(test, ressd_sb_check(sb, 0, &sb_geo));
	KUNIT_EXPECT_EQ(test, le32_to_cpu(sb->ro_compat), ~RESSD_FEATURE_RO_COMPAT_SUPP);
	info.compat = ~RESSD_FEATURE_COMPAT_SUPP;
	ressd_sb_encode(sb, 0, &info, &sb_geo, &t);
	KUNIT_EXPECT_NULL(test, ressd_sb_check(sb, 0, &sb_geo));
	info.incompat = ~RESSD_FEATURE_INCOMPAT_SUPP;
	ressd_sb_encode(sb, 0, &info, &sb_geo, &t);
	KUNIT_EXPECT_STREQ(test, ressd_sb_check(sb, 0, &sb_geo), "Unknown incompatible feature");
}

static void ressd_sb_test_nr_slots(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, ressd_nr_slots(0), 0U);
	KUNIT_EXPECT_EQ(test, ressd_nr_slots(16), 0U);
	KUNIT_EXPECT_EQ(test, ressd_nr_slots(24), 1U);
	KUNIT_EXPECT_EQ(test, ressd_nr_slots(65536), 8190U);
	KUNIT_EXPECT_EQ(test, ressd_nr_slots(U64_MAX), RESSD_MAX_SLOTS);
}

static struct kunit_case ressd_sb_test_cases[] = {
	KUNIT_CASE(ressd_sb_test_csum_vector),
	KUNIT_CASE(ressd_sb_test_roundtrip),
	KUNIT_CASE(ressd_sb_test_every_bit),
	KUNIT_CASE(ressd_sb_test_fields),
	KUNIT_CASE(ressd_sb_test_epoch),
	KUNIT_CASE(ressd_sb_test_features),
	KUNIT_CASE(ressd_sb_test_nr_slots),
	{}
};

static struct kunit_suite ressd_sb_test_suite = {
	.name = "dm_ressd_sb",
	.test_cases = ressd_sb_test_cases,
};

kunit_test_suites(&ressd_args_test_suite, &ressd_sb_test_suite);

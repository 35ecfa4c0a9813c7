// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite dm_ressd: the pure helpers of the target itself (dm-ressd.c).
 *
 * The table line: every tunable at, inside and outside its range, the
 * defaults, sector numbers, and the geometry checks of the origin and log
 * ranges with the kernel's exact messages.
 *
 * The classifier's directed cases check sequential streams, interleaved
 * streams up to and beyond the number remembered, sizes at and around
 * small_write_max, odd sizes, and that a busy stream survives random
 * writes between its pieces.  The randomized case compares every decision
 * with a reference model written differently (streams with last-use times,
 * the least recently used one replaced).  The generator is a seeded
 * xorshift, so a failure names its seed and replays exactly.
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "dm-ressd.h"
#include "ressd-kunit.h"

/* ---- the table line: tunables, sector numbers and geometry ---- */

#define E_SWM RESSD_E_SMALL_WRITE_MAX
#define E_MB RESSD_E_MOVER_BATCH
#define E_DM "Invalid dev_model"
#define E_DMU "dev_model unit must be 0 or a multiple of 8 sectors from 16 to 131072"
#define E_DMO "dev_model unit offset must be a multiple of 8 sectors below the unit"
#define E_DMN "dev_model open units must be at most 256"
#define E_DMC "dev_model costs must be at most 1000000000 ns"
#define Z12 "000000000001:"		/* a field of 12 digits */

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
	{ "dev_model", "none", true, NULL },
	{ "DEV_MODEL", "NONE", true, NULL },
	{ "dev_model", "1024:0:8:50000:36500:52100:1500000:210000:41000:0:0", true, NULL },
	{ "dev_model", "0:0:0:50000:31000:62000:1500000:176000:27000:0:0", true, NULL },
	{ "dev_model", "16:8:256:0:0:0:0:0:0:1000000000:1", true, NULL },
	{ "dev_model", "131072:131064:1:1:1:1:1:1:1:1:1", true, NULL },
	{ "dev_model", "0:0:0:0:0:0:0:0:0:0:0", true, NULL },
	{ "dev_model", "1024:0:8:50000:36500:52100:1500000:210000:41000:0", false, E_DM },
	{ "dev_model", "1024:0:8:50000:36500:52100:1500000:210000:41000:0:0:0", false, E_DM },
	{ "dev_model", "1024:0:8:50000:36500:52100:1500000:210000:41000:0:", false, E_DM },
	{ "dev_model", "1024::8:50000:36500:52100:1500000:210000:41000:0:0", false, E_DM },
	{ "dev_model", "1024:0:8:+50000:36500:52100:1500000:210000:41000:0:0", false, E_DM },
	{ "dev_model", "1024:0:8:4294967296:36500:52100:1500000:210000:41000:0:0", false, E_DM },
	{ "dev_model", "1024,0,8,50000,36500,52100,1500000,210000,41000,0,0", false, E_DM },
	{ "dev_model", "", false, E_DM },
	{ "dev_model", "nonex", false, E_DM },
	/* Longer than 11 fields of 10 digits: refused, whatever it says. */
	{ "dev_model", Z12 Z12 Z12 Z12 Z12 Z12 Z12 Z12 Z12 Z12 "000000000001", false, E_DM },
	{ "dev_model", "8:0:0:0:0:0:0:0:0:0:0", false, E_DMU },
	{ "dev_model", "1020:0:0:0:0:0:0:0:0:0:0", false, E_DMU },
	{ "dev_model", "131080:0:0:0:0:0:0:0:0:0:0", false, E_DMU },
	{ "dev_model", "1024:4:0:0:0:0:0:0:0:0:0", false, E_DMO },
	{ "dev_model", "1024:1024:0:0:0:0:0:0:0:0:0", false, E_DMO },
	{ "dev_model", "0:8:0:0:0:0:0:0:0:0:0", false, E_DMO },
	{ "dev_model", "1024:0:257:0:0:0:0:0:0:0:0", false, E_DMN },
	{ "dev_model", "1024:0:8:0:0:0:0:0:0:0:1000000001", false, E_DMC },
	{ "dev_model", "1024:0:8:1000000001:0:0:0:0:0:0:0", false, E_DMC },
	{ "mover_policy", "fifo", true, NULL },
	{ "mover_policy", "density", true, NULL },
	{ "MOVER_POLICY", "Density", true, NULL },
	{ "mover_policy", "lifo", false, "mover_policy must be fifo or density" },
	{ "mover_policy", "", false, "mover_policy must be fifo or density" },
	{ "mover_policy", "density ", false, "mover_policy must be fifo or density" },
	{ "log_mode", "always", true, NULL },
	{ "log_mode", "never", true, NULL },
	{ "LOG_MODE", "Auto", true, NULL },
	{ "log_mode", "sometimes", false, "log_mode must be always, never or auto" },
	{ "log_mode", "", false, "log_mode must be always, never or auto" },
	{ "data_csum", "0", true, NULL },
	{ "DATA_CSUM", "1", true, NULL },
	{ "data_csum", "2", false, "data_csum must be 0 or 1" },
	{ "data_csum", "", false, "data_csum must be 0 or 1" },
	{ "data_csum", "+0", false, "data_csum must be 0 or 1" },
	{ "data_csum", "4294967296", false, "data_csum must be 0 or 1" },
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
	KUNIT_EXPECT_FALSE(test, ressd_devmodel_set(&t.dev_model));
	KUNIT_EXPECT_EQ(test, t.mover_policy, (unsigned int)RESSD_POLICY_FIFO);
	KUNIT_EXPECT_EQ(test, t.log_mode, (unsigned int)RESSD_LOG_ALWAYS);
	KUNIT_EXPECT_EQ(test, t.data_csum, 1U);
}

/* A model survives format and parse, field by field, in table order. */
static void ressd_args_test_devmodel_roundtrip(struct kunit *test)
{
	static const char *const lines[] = {
		"none",
		"1024:0:8:50000:36500:52100:1500000:210000:41000:0:0",
		"16:8:256:1:2:3:4:5:6:7:8",
		"131072:131064:1:1000000000:1000000000:1000000000:1000000000:1000000000:1000000000:1000000000:1000000000",
	};
	static const u32 want[RESSD_DM_FIELDS] = { 16, 8, 256, 1, 2, 3, 4, 5, 6, 7, 8 };
	char buf[RESSD_DM_STR_MAX];
	struct ressd_devmodel m, back;
	u32 v[RESSD_DM_FIELDS];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(lines); i++) {
		KUNIT_ASSERT_EQ(test, ressd_devmodel_parse(lines[i], &m), 0);
		ressd_devmodel_format(&m, buf, sizeof(buf));
		KUNIT_EXPECT_STREQ(test, buf, lines[i]);
		KUNIT_ASSERT_EQ(test, ressd_devmodel_parse(buf, &back), 0);
		KUNIT_EXPECT_EQ(test, memcmp(&m, &back, sizeof(m)), 0);
	}
	/* The order of the fields is the struct's documented one. */
	KUNIT_ASSERT_EQ(test, ressd_devmodel_parse(lines[2], &m), 0);
	KUNIT_EXPECT_EQ(test, m.unit_sectors, 16U);
	KUNIT_EXPECT_EQ(test, m.unit_offset, 8U);
	KUNIT_EXPECT_EQ(test, m.open_units, 256U);
	KUNIT_EXPECT_EQ(test, m.w_req_ns, 1U);
	KUNIT_EXPECT_EQ(test, m.w_page_ns, 2U);
	KUNIT_EXPECT_EQ(test, m.copy_ns, 3U);
	KUNIT_EXPECT_EQ(test, m.erase_ns, 4U);
	KUNIT_EXPECT_EQ(test, m.r_req_ns, 5U);
	KUNIT_EXPECT_EQ(test, m.r_page_ns, 6U);
	KUNIT_EXPECT_EQ(test, m.rw4k_ns, 7U);
	KUNIT_EXPECT_EQ(test, m.ow4k_ns, 8U);
	ressd_devmodel_to_array(&m, v);
	for (i = 0; i < RESSD_DM_FIELDS; i++)
		KUNIT_EXPECT_EQ(test, v[i], want[i]);
	/* A model of all zeros is no model: it prints as "none". */
	KUNIT_ASSERT_EQ(test, ressd_devmodel_parse("0:0:0:0:0:0:0:0:0:0:0", &m), 0);
	KUNIT_EXPECT_FALSE(test, ressd_devmodel_set(&m));
	ressd_devmodel_format(&m, buf, sizeof(buf));
	KUNIT_EXPECT_STREQ(test, buf, "none");
}

/*
 * The costs of each dm-ftlsim preset's model against the closed forms of
 * ftlsim.md, worked out by hand: full merge P * c + 2e, partial merge after
 * L pages (P - L) * c + e, switch e, and a 4 KiB random write beta_w +
 * alpha_w + full merge (9.76 ms on ssd-a, 227.6 ms on ssd-b).
 */
struct preset_cost {
	const char *name;
	const char *model;
	u32 pages;
	u64 full, partial_1, sw, rw4k, seq_8, read_8;
};

static const struct preset_cost preset_costs[] = {
	{ "ssd-a", "1024:0:8:50000:36500:52100:1500000:210000:41000:0:0", 128,
	  9668800, 8116700, 1500000, 9755300, 342000, 538000 },
	{ "ssd-b", "4096:0:4:50000:47900:436600:2000000:441000:41000:0:0", 512,
	  227539200, 225102600, 2000000, 227637100, 433200, 769000 },
	{ "sd-card", "128:0:4:50000:187300:279900:1000000:830000:43000:0:0", 16,
	  6478400, 5198500, 1000000, 6715700, 1548400, 1174000 },
	{ "sd-worst", "8192:0:2:50000:407600:407600:2000000:600000:60000:0:0", 1024,
	  421382400, 418974800, 2000000, 421840000, 3310800, 1080000 },
};

static void ressd_plan_test_preset_costs(struct kunit *test)
{
	static const char ssd_c[] = "0:0:0:50000:31000:62000:1500000:176000:27000:0:0";
	struct ressd_devmodel m;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(preset_costs); i++) {
		const struct preset_cost *c = &preset_costs[i];

		KUNIT_ASSERT_EQ_MSG(test, ressd_devmodel_parse(c->model, &m), 0, "%s", c->name);
		KUNIT_ASSERT_NULL_MSG(test, ressd_devmodel_check(&m), "%s", c->name);
		KUNIT_EXPECT_EQ_MSG(test, ressd_cost_unit_pages(&m), c->pages, "%s", c->name);
		KUNIT_EXPECT_EQ_MSG(test, ressd_cost_full_merge(&m), c->full, "%s", c->name);
		KUNIT_EXPECT_EQ_MSG(test, ressd_cost_partial_merge(&m, 1), c->partial_1,
				    "%s", c->name);
		KUNIT_EXPECT_EQ_MSG(test, ressd_cost_partial_merge(&m, c->pages), c->sw,
				    "%s", c->name);
		KUNIT_EXPECT_EQ_MSG(test, ressd_cost_partial_merge(&m, 0), 0ULL, "%s", c->name);
		KUNIT_EXPECT_EQ_MSG(test, ressd_cost_switch_merge(&m), c->sw, "%s", c->name);
		KUNIT_EXPECT_EQ_MSG(test, ressd_cost_rw4k(&m), c->rw4k, "%s", c->name);
		KUNIT_EXPECT_EQ_MSG(test, ressd_cost_write(&m, 8), c->seq_8, "%s", c->name);
		KUNIT_EXPECT_EQ_MSG(test, ressd_cost_read(&m, 8), c->read_8, "%s", c->name);
		/* A measured figure takes the place of the derived one. */
		m.rw4k_ns = 123456;
		KUNIT_EXPECT_EQ_MSG(test, ressd_cost_rw4k(&m), 123456ULL, "%s", c->name);
	}
	/* Without a unit there are no merges. */
	KUNIT_ASSERT_EQ(test, ressd_devmodel_parse(ssd_c, &m), 0);
	KUNIT_EXPECT_EQ(test, ressd_cost_full_merge(&m), 0ULL);
	KUNIT_EXPECT_EQ(test, ressd_cost_switch_merge(&m), 0ULL);
	KUNIT_EXPECT_EQ(test, ressd_cost_partial_merge(&m, 3), 0ULL);
	KUNIT_EXPECT_EQ(test, ressd_cost_rw4k(&m), 81000ULL);
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

/* ---- the classifier of small random writes ---- */

static bool ressd_t_cls(struct ressd_classifier *c, sector_t start,
			unsigned int sectors)
{
	return ressd_classify(c, start, sectors, 16);
}

static void ressd_cls_test_sequential(struct kunit *test)
{
	struct ressd_classifier c = {};
	sector_t s;

	/*
	 * The first two 4 KiB writes of a stream are random (a random write
	 * may happen to start where another ended), the rest are not.
	 */
	KUNIT_EXPECT_TRUE(test, ressd_t_cls(&c, 800, 8));
	KUNIT_EXPECT_TRUE(test, ressd_t_cls(&c, 808, 8));
	for (s = 816; s < 816 + 64 * 8; s += 8)
		KUNIT_EXPECT_FALSE(test, ressd_t_cls(&c, s, 8));
	/* A gap or a step back is random again. */
	KUNIT_EXPECT_TRUE(test, ressd_t_cls(&c, s + 8, 8));
	KUNIT_EXPECT_TRUE(test, ressd_t_cls(&c, 800, 8));
	/* An 8 KiB write continued: a stream at once. */
	KUNIT_EXPECT_TRUE(test, ressd_t_cls(&c, 3000, 16));
	KUNIT_EXPECT_FALSE(test, ressd_t_cls(&c, 3016, 8));
	/* Overwriting the same block over and over is random. */
	KUNIT_EXPECT_TRUE(test, ressd_t_cls(&c, 4000, 8));
	KUNIT_EXPECT_TRUE(test, ressd_t_cls(&c, 4000, 8));
}

static void ressd_cls_test_sizes(struct kunit *test)
{
	struct ressd_classifier c = {};

	/* At and around small_write_max (16 sectors), each a new stream. */
	KUNIT_EXPECT_TRUE(test, ressd_classify(&c, 1000, 8, 16));
	KUNIT_EXPECT_TRUE(test, ressd_classify(&c, 2000, 16, 16));
	KUNIT_EXPECT_FALSE(test, ressd_classify(&c, 3000, 24, 16));
	KUNIT_EXPECT_FALSE(test, ressd_classify(&c, 4000, 2048, 16));
	KUNIT_EXPECT_TRUE(test, ressd_classify(&c, 5000, 24, 24));
	KUNIT_EXPECT_FALSE(test, ressd_classify(&c, 6000, 32, 24));
	/* A large write starts a stream that a small one then continues. */
	KUNIT_EXPECT_FALSE(test, ressd_classify(&c, 4000 + 2048, 8, 16));
	/* Odd sizes: the stream continues at the exact sector. */
	KUNIT_EXPECT_TRUE(test, ressd_classify(&c, 9001, 3, 16));
	KUNIT_EXPECT_TRUE(test, ressd_classify(&c, 9004, 13, 16));
	KUNIT_EXPECT_FALSE(test, ressd_classify(&c, 9017, 5, 16));
	KUNIT_EXPECT_TRUE(test, ressd_classify(&c, 9023, 8, 16));
}

/* @streams sequential streams written round robin, @rounds pieces each. */
static unsigned int ressd_t_interleave(unsigned int streams, unsigned int rounds)
{
	struct ressd_classifier c = {};
	unsigned int r, i, random = 0;

	for (r = 0; r < rounds; r++)
		for (i = 0; i < streams; i++)
			random += ressd_t_cls(&c, (sector_t)i * 1000000 + r * 8, 8);
	return random;
}

static void ressd_cls_test_interleaved(struct kunit *test)
{
	/* Up to RESSD_STREAMS streams: only the first two pieces of each. */
	KUNIT_EXPECT_EQ(test, ressd_t_interleave(1, 50), 2U);
	KUNIT_EXPECT_EQ(test, ressd_t_interleave(3, 50), 6U);
	KUNIT_EXPECT_EQ(test, ressd_t_interleave(RESSD_STREAMS, 50), 2 * RESSD_STREAMS);
	/* One more than remembered: round robin evicts each before its turn. */
	KUNIT_EXPECT_EQ(test, ressd_t_interleave(RESSD_STREAMS + 1, 50),
			(RESSD_STREAMS + 1) * 50);
}

static void ressd_cls_test_lru(struct kunit *test)
{
	struct ressd_classifier c = {};
	sector_t s = 100000;
	unsigned int i;

	/* 8 KiB: a stream from its next piece on. */
	KUNIT_EXPECT_TRUE(test, ressd_t_cls(&c, s, 16));
	s += 16;
	/* RESSD_STREAMS - 1 random writes between two pieces: remembered. */
	for (i = 0; i < RESSD_STREAMS - 1; i++)
		KUNIT_EXPECT_TRUE(test, ressd_t_cls(&c, 8 * (1000 + 10 * i), 8));
	KUNIT_EXPECT_FALSE(test, ressd_t_cls(&c, s, 8));
	s += 8;
	/* The hit made it the most recent again: another such gap is fine. */
	for (i = 0; i < RESSD_STREAMS - 1; i++)
		KUNIT_EXPECT_TRUE(test, ressd_t_cls(&c, 8 * (5000 + 10 * i), 8));
	KUNIT_EXPECT_FALSE(test, ressd_t_cls(&c, s, 8));
	s += 8;
	/* RESSD_STREAMS random writes push it out. */
	for (i = 0; i < RESSD_STREAMS; i++)
		KUNIT_EXPECT_TRUE(test, ressd_t_cls(&c, 8 * (9000 + 10 * i), 8));
	KUNIT_EXPECT_TRUE(test, ressd_t_cls(&c, s, 8));
}

/* The reference: each stream with the time it was last used. */
struct ressd_t_stream {
	sector_t end;
	u64 len;
	u64 used;
	bool valid;
};

static void ressd_cls_test_model(struct kunit *test)
{
	struct ressd_t_stream model[RESSD_STREAMS] = {};
	struct ressd_classifier c = {};
	sector_t ends[32];
	u64 seed = 0x5eed0001, t;
	unsigned int i, k, nends = 0;

	for (t = 1; t <= 20000; t++) {
		u64 r = ressd_kunit_xorshift(&seed);
		unsigned int sectors = 8 * (1 + (r >> 8) % 4);
		unsigned int small = 8 * (1 + (r >> 16) % 3);
		sector_t start;
		bool want = true, got;

		/* Continue a recent end most of the time, else anywhere. */
		if (nends && r % 4)
			start = ends[(r >> 24) % nends];
		else
			start = 8 * ((r >> 32) % 4096);

		/* A hit continues the most recent stream ending there. */
		for (i = RESSD_STREAMS, k = 0; k < RESSD_STREAMS; k++)
			if (model[k].valid && model[k].end == start &&
			    (i == RESSD_STREAMS || model[k].used > model[i].used))
				i = k;
		if (i < RESSD_STREAMS) {
			/* Two 4 KiB blocks of it at least before this one. */
			want = model[i].len < 16 && sectors <= small;
			model[i].len += sectors;
		} else {
			/* A free entry, else the least recently used. */
			for (i = 0, k = 0; i < RESSD_STREAMS; i++) {
				if (!model[i].valid) {
					k = i;
					break;
				}
				if (model[i].used < model[k].used)
					k = i;
			}
			i = k;
			want = sectors <= small;
			model[i].len = sectors;
		}
		model[i].valid = true;
		model[i].end = start + sectors;
		model[i].used = t;
		ends[nends < ARRAY_SIZE(ends) ? nends++ : (r >> 40) % ARRAY_SIZE(ends)] =
			start + sectors;

		got = ressd_classify(&c, start, sectors, small);
		if (got != want) {
			KUNIT_FAIL(test, "seed %#x step %llu: write %llu+%u (max %u)",
				   0x5eed0001, t, (u64)start, sectors, small);
			KUNIT_FAIL(test, "classifier %d, model %d", got, want);
			return;
		}
	}
}

static struct kunit_case ressd_test_cases[] = {
	KUNIT_CASE_PARAM(ressd_args_test_tunable, tunable_gen_params),
	KUNIT_CASE(ressd_args_test_defaults),
	KUNIT_CASE(ressd_args_test_devmodel_roundtrip),
	KUNIT_CASE(ressd_plan_test_preset_costs),
	KUNIT_CASE(ressd_args_test_sector),
	KUNIT_CASE_PARAM(ressd_args_test_geometry, geometry_gen_params),
	KUNIT_CASE(ressd_cls_test_sequential),
	KUNIT_CASE(ressd_cls_test_sizes),
	KUNIT_CASE(ressd_cls_test_interleaved),
	KUNIT_CASE(ressd_cls_test_lru),
	KUNIT_CASE(ressd_cls_test_model),
	{}
};

static struct kunit_suite ressd_test_suite = {
	.name = "dm_ressd",
	.test_cases = ressd_test_cases,
};

kunit_test_suites(&ressd_test_suite);

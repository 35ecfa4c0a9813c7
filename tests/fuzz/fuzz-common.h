/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Shared by the fuzz targets and the corpus generator (tests/fuzz/).
 *
 * A fuzz-replay input is a compact encoding of a log image: a 20-byte
 * header, then chunks that write bytes into an all-zero image of
 * 2 + nr_slots blocks (superblock copies A and B, then the log slots).
 * See Documentation/fuzzing.md for the byte layout.
 */
#ifndef RESSD_FUZZ_COMMON_H
#define RESSD_FUZZ_COMMON_H

#include "dm-ressd-codec.h"
#include "dm-ressd-index.h"

#define FZ_MAX_SLOTS		64	/* log slots of a fuzzed image */
#define FZ_MIN_SLOTS		2	/* the constructor's minimum */
#define FZ_HDR_SIZE		20
#define FZ_CHUNK_HDR		5	/* u8 block, le16 offset, le16 length */

/* Flags of a fuzz-replay input: let the fuzzer skip checksum walls. */
#define FZ_RESEAL_SB		0x01	/* recompute both superblock checksums */
#define FZ_FIX_DATA		0x02	/* recompute entry checksums from the data */
#define FZ_RESEAL_REC		0x04	/* recompute record trailer checksums */

struct fz_image {
	u32 nr_slots;
	u8 flags;
	u8 fail_read;		/* replay's read number this makes fail (0: none) */
	u64 origin_blocks;
	u64 origin_offset;	/* sectors */
	u64 log_offset;		/* sectors */
	u8 *blk;		/* (2 + nr_slots) blocks; block 2 + s is slot s */
};

static inline u8 *fz_block(const struct fz_image *im, u32 b)
{
	return im->blk + (size_t)b * RESSD_BLOCK_SIZE;
}

static inline u8 *fz_slot(const struct fz_image *im, u32 s)
{
	return fz_block(im, RESSD_SB_BLOCKS + s);
}

/* Expand an input; false when it is too short to hold the header. */
bool fz_image_expand(const u8 *data, size_t size, struct fz_image *im);
void fz_image_free(struct fz_image *im);
/* Encode @im compactly (trailing zeros of each block dropped); its size. */
size_t fz_image_compact(const struct fz_image *im, u8 *out, size_t cap);
void fz_geometry(const struct fz_image *im, struct ressd_geometry *g);

/* What one run of the replay target saw (also printed by the generator). */
struct fz_report {
	const char *sb_why[RESSD_SB_BLOCKS];	/* NULL: copy valid */
	int sb_best;		/* -1: no valid copy (refused, or formatted) */
	bool read_only;		/* unknown ro_compat features: a read-only table only */
	bool replayed;
	int ret;
	const char *error;
	struct ressd_replay rp;
	u64 mapped;
	u64 extents;
	u32 reads;
};

/*
 * Load the superblock like the constructor does, replay the log twice, and
 * check every invariant and the independent model of the design document.
 * Aborts (a fuzzer finding) on any violation.
 */
void fz_replay_check(const struct fz_image *im, struct fz_report *rep);

/* The independent checks the design document describes (pure, no index). */
const char *fz_rec_expect(const u8 *blk, const struct ressd_log_geo *lg, u32 slot);
/*
 * The format's search for the trailer of the record that starts at @start
 * with @seq and an epoch in [@min_epoch, @max_epoch], over the blocks @get
 * returns: NULL when found (its slot in *@found), else why not.  *@reads:
 * how many slots it looked at, from @start on, in order.
 */
const char *fz_find_expect(const u8 *(*get)(void *ctx, u32 slot), void *ctx,
			   const struct ressd_log_geo *lg, u32 start, u64 seq,
			   u64 min_epoch, u64 max_epoch, u32 *found, u32 *reads);
const char *fz_sb_expect(const u8 *blk, u64 location, const struct ressd_geometry *g);
u32 fz_meta_csum(const u8 *blk, u64 nonce);

void fz_fail(const char *fmt, ...) __attribute__((__noreturn__, __format__(printf, 1, 2)));
#define fz_assert(cond, fmt, ...) do { \
	if (!(cond)) fz_fail("%s:%d: %s: " fmt, __FILE__, __LINE__, #cond, ##__VA_ARGS__); \
} while (0)
#define fz_verbose shim_verbose
#define fz_log(fmt, ...) do { if (fz_verbose) fprintf(stderr, fmt "\n", ##__VA_ARGS__); } while (0)

/* Two reasons (either may be NULL) are the same. */
static inline bool fz_streq(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* Little-endian field access at byte offsets (the doc's tables). */
static inline u64 fz_get64(const u8 *p, size_t off)
{
	u64 v;

	memcpy(&v, p + off, 8);
	return le64toh(v);
}

static inline u32 fz_get32(const u8 *p, size_t off)
{
	u32 v;

	memcpy(&v, p + off, 4);
	return le32toh(v);
}

static inline u16 fz_get16(const u8 *p, size_t off)
{
	u16 v;

	memcpy(&v, p + off, 2);
	return le16toh(v);
}

static inline void fz_put32(u8 *p, size_t off, u32 v)
{
	v = htole32(v);
	memcpy(p + off, &v, 4);
}

#endif /* RESSD_FUZZ_COMMON_H */

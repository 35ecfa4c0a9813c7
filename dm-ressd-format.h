/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The on-disk format of dm-ressd's reserved area.
 *
 * This header is shared, unchanged, by the kernel module and the user-space
 * tools (ressdsetup, the fuzzers): it only uses fixed-width little-endian
 * types, which the tools map through a small shim.
 *
 * The reserved area ("log range") is cut into 4 KiB blocks:
 *
 *   block 0        superblock copy A
 *   block 1        superblock copy B
 *   block 2 ..     the circular log: slot s is block 2 + s
 *
 * Each superblock state is written to both copies in turn, each write with
 * a generation one above the last; the valid copy with the higher
 * generation wins.  The log holds records: nr_data data blocks
 * followed by one trailer block (struct ressd_disk_rec) that names them, so
 * that the log is written strictly in slot order even though a record's
 * trailer is written after its data (data blocks are written, and their
 * writes completed, as they arrive; the trailer commits them at a flush, a
 * FUA, when the record is full, or at the end of the log).  The trailer at
 * slot t describes the data in slots t - nr_data .. t - 1, its "start" is
 * t - nr_data.  A record never wraps: the last record of a lap ends with a
 * trailer at the last slot (padding with dead entries if need be), and the
 * next record starts at slot 0.
 *
 * Replay starts at the superblock's checkpoint (tail_slot, tail_seq), where
 * tail_slot is the start of the oldest live record, and follows the chain
 * (the record there must have an epoch of at least tail_epoch, the epoch of
 * the record before it, or the current one when the checkpoint is at the
 * head: so a stale record that an earlier recovery cut off is never taken
 * for the record at a checkpoint written later):
 * the record after the one whose trailer is at t starts at t + 1 (or at 0
 * when t is the last slot), carries seq + 1, and an epoch no smaller than
 * its predecessor's and no larger than the superblock's.  Its trailer is the
 * first slot u from its start on, at most RESSD_REC_MAX_ITEMS slots further
 * and before the end of the log, whose block is a valid trailer for slot u
 * with that seq, an acceptable epoch, and u - nr_data equal to the start.
 * Blocks in between that are not such a trailer (its data blocks, stale
 * trailers of earlier laps) are skipped.  The epoch goes up by one in the
 * checkpoint that every recovery writes before the first new record, so
 * that a stale record left beyond a torn one by an earlier life of the log
 * can never be mistaken for the continuation of the new chain.
 *
 * Within a record the invalidations apply first, then the entries in order.
 *
 * Every metadata block starts with magic, checksum, version and its own
 * location, and its crc32c is seeded with the volume's random nonce, so that
 * blocks of another volume, another format or another place are rejected.
 */
#ifndef DM_RESSD_FORMAT_H
#define DM_RESSD_FORMAT_H

#define RESSD_BLOCK_SIZE	4096
#define RESSD_BLOCK_SHIFT	12
#define RESSD_SECTORS_PER_BLOCK	8	/* 512-byte sectors in a block */
#define RESSD_SB_BLOCKS		2	/* superblock copies A and B */

/* "ReSSD-sb" and "ReSSD-lg" as little-endian u64 */
#define RESSD_SB_MAGIC		0x62732d4453536552ULL
#define RESSD_REC_MAGIC		0x676c2d4453536552ULL

/* On-disk format versions this code reads; it writes RESSD_FORMAT_VERSION. */
#define RESSD_FORMAT_VERSION	2	/* 1: header before the data */
#define RESSD_FORMAT_MIN	2
#define RESSD_FORMAT_MAX	2

/*
 * Feature flags: unknown incompat flags refuse activation, unknown ro_compat
 * flags allow only a read-only table.
 */
/*
 * The superblock carries tail_epoch, the epoch of the chain at the
 * checkpoint (a lower bound for the epoch of the record there).  Code that
 * does not know it reads the log as before, with no lower bound.
 */
#define RESSD_FEATURE_COMPAT_TAIL_EPOCH	1U	/* bit 0 */

/*
 * Records may hold ordered entries (RESSD_ENTRY_ORDERED): code that does not
 * know them would take such a record for a damaged one and stop replay
 * there.  Set while the table asks for them (data_csum 0) and for as long as
 * the log still holds one; recovery clears it otherwise.
 */
#define RESSD_FEATURE_INCOMPAT_ORDERED	1U	/* bit 0 */

#define RESSD_FEATURE_COMPAT_SUPP	RESSD_FEATURE_COMPAT_TAIL_EPOCH
#define RESSD_FEATURE_RO_COMPAT_SUPP	0U
#define RESSD_FEATURE_INCOMPAT_SUPP	RESSD_FEATURE_INCOMPAT_ORDERED

/* Largest values a valid on-disk block may carry. */
#define RESSD_MAX_BLOCK		((1ULL << 48) - 1)	/* origin blocks */
#define RESSD_MAX_SLOTS		0x4000000U	/* log slots: 2^26, a 256 GiB log */
/*
 * Sequence numbers (records, checkpoints) stay below 2^62: no log gets near
 * it, and replay, which follows seq + 1 and compares numbers, can then
 * never see them wrap.
 */
#define RESSD_MAX_SEQ		((1ULL << 62) - 1)
/*
 * The superblock's epoch, likewise: recovery raises it by one and replay
 * requires each record's epoch to lie between its predecessor's and the
 * superblock's, a guard that an epoch wrapping to 0 would undo.
 */
#define RESSD_MAX_EPOCH		((1ULL << 62) - 1)
/*
 * Superblock generations stay below 2^62 too: the newest copy is the one
 * with the larger generation, which a generation wrapping to 0 would lose.
 */
#define RESSD_MAX_GENERATION	((1ULL << 62) - 1)
/*
 * What a log written to must have left of its numbers: sequence numbers
 * for the records an activation writes and generations for its superblock
 * writes (2^40 each), and the epoch its recovery takes.  Numbers grow by
 * one a record, a superblock write (two a state) or an activation, so only a forged or
 * damaged superblock starts this near the end; it is for a read-only table:
 * written to, the log would take numbers that a load or replay refuses, and
 * lose what was written then.
 */
#define RESSD_SEQ_HEADROOM	0x10000000000ULL	/* 2^40 */

/* A superblock with these numbers is for a read-only table (above). */
static inline bool ressd_sb_numbers_exhausted(u64 generation, u64 epoch, u64 tail_seq)
{
	return epoch >= RESSD_MAX_EPOCH || tail_seq > RESSD_MAX_SEQ - RESSD_SEQ_HEADROOM ||
	       generation > RESSD_MAX_GENERATION - RESSD_SEQ_HEADROOM;
}

/*
 * Superblock, at blocks 0 and 1 of the log range.  The rest of the 4 KiB
 * block is zero and covered by the checksum.
 */
struct ressd_disk_sb {
	__le64 magic;		/*   0: RESSD_SB_MAGIC */
	__le32 csum;		/*   8: crc32c of the block, this field zero */
	__le32 version;		/*  12: format version */
	__le64 location;	/*  16: 0 for copy A, 1 for copy B */
	__le64 generation;	/*  24: +1 per superblock write */
	__le64 nonce;		/*  32: random, chosen at format time */
	__le32 compat;		/*  40: compatible features */
	__le32 ro_compat;	/*  44: read-only compatible features */
	__le32 incompat;	/*  48: incompatible features */
	__le32 block_size;	/*  52: RESSD_BLOCK_SIZE */
	__le64 origin_offset;	/*  56: sectors, start of the normal area */
	__le64 origin_sectors;	/*  64: sectors, size of the normal area */
	__le64 log_offset;	/*  72: sectors, start of the log range */
	__le64 log_sectors;	/*  80: sectors, size of the log range */
	__le32 nr_slots;	/*  88: log slots after the superblocks */
	__le32 small_write_max;	/*  92: tunables at the last write (info) */
	__le32 mover_batch;	/*  96 */
	__le32 high_watermark;	/* 100 */
	__le32 low_watermark;	/* 104 */
	__le32 tail_slot;	/* 108: checkpoint: first slot of the oldest */
	__le64 tail_seq;	/* 112:   live record, and its sequence number */
	__le64 epoch;		/* 120: +1 at every recovery, see below */
	__le64 tail_epoch;	/* 128: the chain's epoch at the checkpoint */
	__u8 reserved[120];	/* 136: zero */
} __packed;			/* 256 */

/* One data block of a record: where it belongs, and its data's crc32c. */
struct ressd_disk_entry {
	__le64 block;		/*   0: original 4 KiB block in the normal area */
	__le32 csum;		/*   8: crc32c of the data, seeded with nonce */
} __packed;			/*  12 */

/* A range of original blocks whose logged copies died before this record. */
struct ressd_disk_inval {
	__le64 block;		/*   0: first original block */
	__le32 nr_blocks;	/*   8 */
} __packed;			/*  12 */

/*
 * Record trailer: one log slot, after the nr_data data blocks it names
 * (entries[i] is the block in slot - nr_data + i).  entries[] holds nr_data
 * entries, then nr_inval invalidation ranges (same size).
 */
struct ressd_disk_rec {
	__le64 magic;		/*   0: RESSD_REC_MAGIC */
	__le32 csum;		/*   8: crc32c of the block, this field zero */
	__le32 version;		/*  12: format version */
	__le64 nonce;		/*  16: the volume's nonce */
	__le64 seq;		/*  24: +1 per record */
	__le32 slot;		/*  32: this trailer's own slot */
	__le16 nr_data;		/*  36: data blocks just before it */
	__le16 nr_inval;	/*  38: invalidation ranges */
	__le32 tail_slot;	/*  40: the writer's checkpoint when sealed */
	__le32 flags;		/*  44: zero */
	__le64 tail_seq;	/*  48 */
	__le64 epoch;		/*  56: the superblock's epoch when written */
	struct ressd_disk_entry entries[]; /* 64 */
} __packed;

/* An entry whose data died before its record was sealed: skip it. */
#define RESSD_DEAD_BLOCK	U64_MAX
/*
 * An ordered entry: its data was written, and the write completed, before
 * the trailer was written with PREFLUSH, so the trailer is durable only
 * where the data is.  It needs no crc32c (csum is zero) and replay takes it
 * without reading it.  Only with RESSD_FEATURE_INCOMPAT_ORDERED; the flag
 * sits above RESSD_MAX_BLOCK in the block field.
 */
#define RESSD_ENTRY_ORDERED	0x4000000000000000ULL	/* bit 62 */

/* An entry's block field marks it ordered: bit 62 set, bit 63 clear. */
static inline bool ressd_entry_ordered(u64 block)
{
	return block >> 62 == 1;
}

#define RESSD_REC_HDR_SIZE	64
#define RESSD_REC_MAX_ITEMS \
	((RESSD_BLOCK_SIZE - RESSD_REC_HDR_SIZE) / sizeof(struct ressd_disk_entry))

#endif /* DM_RESSD_FORMAT_H */

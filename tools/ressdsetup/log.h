/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The reserved area read from user space: superblock checks, record
 * decoding, finding a record's trailer and the replay.
 *
 * A deliberately independent checker, as thin_check is to dm-thin: this is
 * a second implementation of the rules of dm-ressd-format.c
 * (ressd_sb_check, ressd_rec_decode, ressd_rec_find, ressd_replay), with
 * the same messages, written from the format and not compiled from the
 * module's code, so that a mistake in one is not copied into the other.
 * tests/host/ressdsetup.sh checks that both reach the same result on every
 * seed log of tests/fuzz (gen-corpus replays each with the module's code).
 * On top it tells what a checker wants to know: what lies where the chain
 * stops, which entries are torn, and whether records of the current life
 * lie beyond the end of the chain.
 */
#ifndef RESSD_LOG_H
#define RESSD_LOG_H

#include <stdbool.h>

#include "dev.h"
#include "label.h"

/* The geometry of a table line, in sectors. */
struct ressd_geo {
	u64 origin_offset;
	u64 origin_sectors;
	u64 log_offset;
	u64 log_sectors;
};

/* Log slots in a log range of @log_sectors (dm-ressd-format.c: ressd_nr_slots). */
u32 ressd_nr_slots(u64 log_sectors);
/*
 * The kernel constructor's geometry checks (dm-ressd.c: ressd_check_geometry)
 * that do not need the origin device: NULL or its message.
 */
const char *geo_check(const struct ressd_geo *g, u64 log_dev_sectors);

/* The log range on its device, read with read-ahead. */
struct logdev {
	const struct rdev *d;
	u64 base;		/* bytes: start of the log range on the device */
	u64 nr_blocks;		/* 4 KiB blocks in the range */
	u8 *ra;
	u64 ra_start;		/* cached blocks [ra_start, ra_start + ra_nr) */
	u32 ra_nr;
	u64 reads;		/* block reads asked for */
};

int logdev_init(struct logdev *l, const struct rdev *d, u64 base, u64 nr_blocks);
void logdev_exit(struct logdev *l);
/* Block @b of the range (0, 1: superblocks; 2 + s: slot s): 0 or -errno. */
int logdev_read(struct logdev *l, u64 b, void *buf);

/* A decoded superblock (valid or not: whatever the fields say). */
struct sb_info {
	u64 nonce, generation, location, tail_seq, epoch, tail_epoch;
	u32 version, nr_slots, tail_slot, block_size;
	u32 compat, ro_compat, incompat;
	struct ressd_geo geo;
	struct ressd_tun t;
};

void sb_decode(const void *blk, struct sb_info *i);
/*
 * ressd_sb_check(): NULL when the copy at @location is valid for @g, else
 * the kernel's message; @detail gets the value found and the one expected.
 * With @g NULL, the geometry is not compared (only nr_slots against the
 * copy's own log size).
 */
const char *sb_check(const void *blk, u64 location, const struct ressd_geo *g,
		     char *detail, size_t n);

/* What a record is checked against (struct ressd_log_geo). */
struct log_geo {
	u64 nonce;
	u32 nr_slots;
	u64 origin_blocks;
};

struct rec {
	u64 seq, epoch, tail_seq;
	u32 slot;		/* the trailer's own slot */
	u32 tail_slot, nr_data, nr_inval;
};

/*
 * ressd_rec_decode(): NULL for a well-formed record trailer at @slot, else
 * why not.  The trailer at @slot names the data in slot - nr_data .. slot - 1.
 */
const char *rec_decode(const void *blk, const struct log_geo *lg, u32 slot, struct rec *r);

/* ressd_rec_start(): the first slot of a record, its first data block or its trailer. */
static inline u32 rec_start(const struct rec *r)
{
	return r->slot - r->nr_data;
}

/* ressd_rec_next_slot(): where the record after the one whose trailer is at @slot starts. */
static inline u32 rec_next_slot(const struct log_geo *lg, u32 slot)
{
	return slot + 1 >= lg->nr_slots ? 0 : slot + 1;
}

/* One record of the chain (pass 1), for dump and check. */
struct rec_info {
	struct rec r;
	bool applied;		/* at or after the newest checkpoint */
	u32 dead;		/* entries marked dead by the writer */
	u32 torn;		/* entries whose data failed its crc32c */
};

struct torn_entry {
	u64 seq;
	u32 rec_start;		/* the record's first slot */
	u32 rec_slot;		/* its trailer's slot */
	u32 index;		/* entry number in its record */
	u32 slot;		/* the entry's data slot: rec_start + index */
	u64 block;
	u32 want, got;		/* crc32c in the trailer, of the data read */
};

/* The mapping block -> slot (the kernel's rb-tree index, as a hash table). */
struct bmap {
	u64 *keys;		/* U64_MAX: empty */
	u32 *vals;
	u64 mask;
	u64 count;
};

struct replay {
	/* in */
	struct logdev *l;
	const struct log_geo *lg;
	u32 tail_slot;		/* the superblock's checkpoint */
	u64 tail_seq;
	u64 tail_epoch;		/* the superblock's checkpoint epoch (0: none) */
	u64 epoch;		/* the superblock's epoch */
	/* out: as struct ressd_replay */
	u32 head;
	u64 next_seq;
	u64 last_epoch;
	u32 new_tail_slot;
	u64 new_tail_seq;
	u32 used;
	u32 records;		/* records applied */
	u64 entries;		/* entries applied */
	u64 bad_data;		/* torn entries */
	u64 ordered;		/* entries taken without a checksum */
	u64 invalidated;	/* blocks unmapped by invalidations */
	const char *stop;	/* why the chain ends */
	/* out: more */
	u32 walked;		/* slots of the chain from the superblock's checkpoint */
	u32 stop_slot;		/* where the chain ends: the start the next record would have */
	u32 stop_last;		/* the last slot searched for its trailer (stop_slot - 1: none) */
	bool stop_miss;		/* a block with the record magic was refused: stop says why */
	u32 stop_miss_slot;	/* the first such block (the reason is its) */
	bool stop_has_rec;	/* it is a well-formed trailer: stop_rec */
	struct rec stop_rec;
	struct rec_info *recs;	/* the chain, in order */
	u32 nr_recs;
	struct torn_entry *torn;
	size_t nr_torn;
	u64 *slot_block;	/* per slot: the block it holds live, or U64_MAX */
	struct bmap map;
	const char *error;	/* why replay failed (a return of -EINVAL or -EIO) */
};

/*
 * ressd_replay(), plus the records and torn entries noted on the way.
 * 0; -EINVAL with rp->error "Log checkpoint does not match the log" or "Log
 * changed while it was replayed"; -ENOMEM; or a read error (-errno,
 * rp->error "Error reading the log").
 */
int replay_run(struct replay *rp);
void replay_free(struct replay *rp);

/* Records outside the chain, from its end around to its start. */
struct scan_result {
	u32 slots;		/* slots looked at */
	u32 old;		/* records older than the chain (earlier laps) */
	u32 stale;		/* seq not older, but from before the last recovery */
	u32 orphans;		/* of the current life, beyond the chain's end */
	struct rec first_orphan;
	/*
	 * Records only a newer superblock lets exist: an epoch above the
	 * superblock's, or a checkpoint above the newest the chain knows.
	 */
	u32 newer;
	struct rec first_newer;
};

/*
 * Look at every slot outside the chain for record trailers of this volume:
 * a record of the current life (epoch at least the superblock's) with a
 * sequence number the chain did not reach is an orphan, lost to replay.
 */
int scan_outside(struct replay *rp, struct scan_result *s);

/* The live mapping sorted by block: pairs (block, slot). */
struct map_pair {
	u64 block;
	u32 slot;
};
struct map_pair *replay_mapping(const struct replay *rp, u64 *n);

#endif

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Mutation check of tests/host/ressdsetup.sh: break ressdsetup in one place
# at a time, in a scratch copy of the tree (the tree itself is never
# touched), and make sure the test fails each time.  Run by hand, as root:
#
#   bash tools/ressdsetup/tests/mutate.sh [name...]
#
# Prints one line per mutation: "caught <name>: <the test's FAIL line>" or
# "MISSED <name>"; exits non-zero when one was missed.  About 10 s each.
set -uo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/ressdsetup-mutate.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
rsync -a --exclude .git --exclude .out --exclude '*.o' --exclude '*.ko' --exclude '*.d' \
	--exclude '*.cmd' --exclude results "$top/" "$work/tree/" || exit 1

# name@file@old text@new text (Python string escapes allowed)
mutations=$(cat <<'EOF'
crc-seed@tools/ressdsetup/crc32c.h@return (u32)nonce ^ (u32)(nonce >> 32);@return (u32)nonce;
crc-poly@tools/ressdsetup/crc32c.c@#define CRC32C_POLY_LE\t0x82F63B78u@#define CRC32C_POLY_LE\t0xEDB88320u
block-csum-field@tools/ressdsetup/crc32c.c@crc = crc32c(crc, &zero, sizeof(zero));@crc = crc32c(crc, p + CSUM_OFFSET, sizeof(zero));
entries-before-inval@tools/ressdsetup/log.c@	for (i = 0; i < r->nr_inval; i++) {\n		struct ressd_disk_inval inv;\n\n		memcpy(&inv, items + (r->nr_data + i) * sizeof(inv), sizeof(inv));\n		rp->invalidated@	for (i = 0; i < r->nr_inval && 0; i++) {\n		struct ressd_disk_inval inv;\n\n		memcpy(&inv, items + (r->nr_data + i) * sizeof(inv), sizeof(inv));\n		rp->invalidated
torn-inserted@tools/ressdsetup/log.c@		if (got != le32_get(e.csum)) {@		if (got != le32_get(e.csum) && 0) {
apply-from-sb-tail@tools/ressdsetup/log.c@		if (seq >= rp->new_tail_seq) {@		if (seq >= rp->tail_seq) {
no-epoch-check@tools/ressdsetup/log.c@		if (!w && (m.epoch < min_epoch || m.epoch > rp->epoch))@		if (!w && (m.epoch < min_epoch * 0 || m.epoch > rp->epoch))
no-seq-check@tools/ressdsetup/log.c@		if (!w && m.seq != seq)@		if (!w && m.seq < seq)
no-start-check@tools/ressdsetup/log.c@		if (!w && rec_start(&m) != start)@		if (!w && rec_start(&m) != start && 0)
trailer-at-start-only@tools/ressdsetup/log.c@	for (u = start; u <= last; u++) {@	for (u = start; u <= start; u++) {
search-one-slot-more@tools/ressdsetup/log.c@	last = end < lg->nr_slots - 1 ? (u32)end : lg->nr_slots - 1;@	last = end < lg->nr_slots - 1 ? (u32)end + 1 : lg->nr_slots - 1;
data-not-skipped@tools/ressdsetup/log.c@		if (le64_get(rec->magic) != RESSD_REC_MAGIC)\n			continue;@		if (le64_get(rec->magic) != RESSD_REC_MAGIC && 0)\n			continue;
last-miss-says-why@tools/ressdsetup/log.c@		if (!miss) {@		if (1) {
data-after-header@tools/ressdsetup/log.c@		u32 slot = rec_start(r) + i, got;@		u32 slot = r->slot + 1 + i, got;
wrap-off-by-one@tools/ressdsetup/log.h@	return slot + 1 >= lg->nr_slots ? 0 : slot + 1;@	return slot + 1 > lg->nr_slots ? 0 : slot + 1;
no-lap-limit@tools/ressdsetup/log.c@		if (walked >= lg->nr_slots) {@		if (walked > lg->nr_slots) {
no-checkpoint-check@tools/ressdsetup/log.c@		if (seq == rp->new_tail_seq && slot != rp->new_tail_slot)\n			goto bad_checkpoint;@		if (0)\n			goto bad_checkpoint;
sb-no-geometry@tools/ressdsetup/log.c@			if (found[k] != want[k]) {@			if (found[k] != want[k] && 0) {
sb-newest-loses@tools/ressdsetup/ressdsetup.c@		if (!c->sb_why[i] && (c->best < 0 || c->sbi[i].generation > c->sbi[c->best].generation))@		if (!c->sb_why[i] && (c->best < 0 || c->sbi[i].generation < c->sbi[c->best].generation))
no-orphan-scan@tools/ressdsetup/log.c@		} else if (r.epoch < rp->epoch) {@		} else if (1) {
format-one-copy@tools/ressdsetup/ressdsetup.c@	c->blank = block_is_zero(c->sbblk[0]) && block_is_zero(c->sbblk[1]);@	c->blank = block_is_zero(c->sbblk[0]);
no-epoch-bound@tools/ressdsetup/log.c@	if (i.epoch > RESSD_MAX_EPOCH) {@	if (i.epoch > RESSD_MAX_EPOCH && 0) {
ro-compat-ignored@tools/ressdsetup/ressdsetup.c@	if (c->sbi[c->best].ro_compat & ~RESSD_FEATURE_RO_COMPAT_SUPP)@	if (c->sbi[c->best].ro_compat & ~RESSD_FEATURE_RO_COMPAT_SUPP && 0)
torn-not-a-problem@tools/ressdsetup/ressdsetup.c@		problem(c, "torn entry: record@		say(c, "torn entry: record
dump-runs@tools/ressdsetup/ressdsetup.c@		while (e < n && p[e].block == p[e - 1].block + 1 && p[e].slot == p[e - 1].slot + 1)@		while (e < n && p[e].block == p[e - 1].block + 1)
table-order@tools/ressdsetup/ressdsetup.c@		 l->origin_sectors, dev, l->origin_offset, logdev, l->log_offset,\n		 l->log_sectors,@		 l->origin_sectors, dev, l->origin_offset, logdev, l->log_sectors,\n		 l->log_offset,
layout-4k-aligned@tools/ressdsetup/ressdsetup.c@		log_off = (dev.size - reserved) & ~(area - 1);@		log_off = (dev.size - reserved) & ~(u64)4095;
zero-4k-only@tools/ressdsetup/ressdsetup.c@	r = zero_range(log, log_off, 2 * RESSD_BLOCK_SIZE);@	r = zero_range(log, log_off, RESSD_BLOCK_SIZE);
writes-superblock@tools/ressdsetup/ressdsetup.c@	if (!r && log != &dev)\n		r = rdev_sync(log);@	if (!r) {\n		memset(blk, 0xa5, 64);\n		r = rdev_write(log, log_off, blk, 4096);\n		label_encode(blk, &l);\n	}\n	if (!r && log != &dev)\n		r = rdev_sync(log);
min-log-size@tools/ressdsetup/ressdsetup.c@	const u64 min_log = (u64)RESSD_MIN_LOG_BLOCKS * RESSD_BLOCK_SIZE;@	const u64 min_log = (u64)3 * RESSD_BLOCK_SIZE;
label-fields@tools/ressdsetup/label.h@	__le64 origin_offset;	/*  64: sectors: start of the normal area */\n	__le64 origin_sectors;	/*  72: sectors: its length (the mapped device's) */@	__le64 origin_sectors;	/*  72: sectors: its length (the mapped device's) */\n	__le64 origin_offset;	/*  64: sectors: start of the normal area */
no-force-check@tools/ressdsetup/ressdsetup.c@	if (force) {\n		printf@	if (force || 1) {\n		printf
ext4-offset@tools/ressdsetup/probe.c@	if (!at(buf, len, sb + 0x38, "\\x53\\xef", 2))@	if (!at(buf, len, sb + 0x3a, "\\x53\\xef", 2))
no-excl@tools/ressdsetup/dev.c@		if (mode == RDEV_WRITE_EXCL)\n			flags |= O_EXCL;@		if (0)\n			flags |= O_EXCL;
no-mount-check@tools/ressdsetup/ressdsetup.c@	if (path_is_mounted(path, where, sizeof(where))) {@	if (path_is_mounted(path, where, sizeof(where)) && 0) {
confirm-lowercase@tools/ressdsetup/util.c@	return !strcmp(line, "YES");@	return !strcasecmp(line, "YES");
tunable-check@tools/ressdsetup/label.c@	if (t->low_watermark >= t->high_watermark)@	if (t->low_watermark > t->high_watermark)
status-fields@tools/ressdsetup/status.c@		&st->split_reads, &st->moved_blocks, &st->mover_writes,@		&st->moved_blocks, &st->split_reads, &st->mover_writes,
status-used-check@tools/ressdsetup/status.c@			if (st->used > st->total) {@			if (st->used > st->total && 0) {
status-bar@tools/ressdsetup/status.c@		b[i] = (u64)i < fill ? '#' : '.';@		b[i] = (u64)i <= fill ? '#' : '.';
open-args@tools/ressdsetup/ressdsetup.c@	args[n++] = "--table";\n	args[n++] = table;@	args[n++] = "--table";\n	args[n++] = table;\n	args[n++] = "--noudevsync";
drain-skipped@tools/ressdsetup/ressdsetup.c@	if (o->drain && run_dmsetup(drain, NULL)) {@	if (o->drain && !drain[0]) {
EOF
)

missed=0
while IFS='@' read -r name file old new; do
	[ $# -gt 0 ] && ! printf '%s\n' "$@" | grep -qx "$name" && continue
	rsync -a "$top/tools/ressdsetup/" "$work/tree/tools/ressdsetup/" --exclude '*.o' --exclude '*.d' \
		--exclude ressdsetup --exclude tests/ressd-mklog
	make -s -C "$work/tree/tools/ressdsetup" clean >/dev/null 2>&1
	if ! python3 - "$work/tree/$file" "$old" "$new" <<'PY'
import sys
path, old, new = sys.argv[1], sys.argv[2], sys.argv[3]
old = old.encode().decode('unicode_escape')
new = new.encode().decode('unicode_escape')
s = open(path).read()
if s.count(old) != 1:
    sys.exit("mutation text found %d times in %s" % (s.count(old), path))
open(path, 'w').write(s.replace(old, new))
PY
	then
		echo "BROKEN $name: its text is not in $file"
		missed=$((missed + 1))
		continue
	fi
	if bash "$work/tree/tests/host/ressdsetup.sh" >"$work/out" 2>&1; then
		echo "MISSED $name"
		missed=$((missed + 1))
	else
		echo "caught $name: $(grep -m1 '^FAIL' "$work/out" | cut -c1-150)"
	fi
done <<<"$mutations"
echo "mutations: $missed missed"
[ $missed -eq 0 ]

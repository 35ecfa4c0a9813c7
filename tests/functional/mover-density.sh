#!/bin/bash
# Density-first cleaning (mover_policy density, steps c and d of
# Documentation/mover-pricing.md): each round takes one segment from the
# tail, sends home the erase units that have gathered many logged blocks,
# with their blocks from anywhere in the log (far moves, unmapped after with
# an invalidation), and copies the segment's blocks of the sparse units
# forward to the head as new entries.  Under the self-checking writer
# (tests/tools/ressd-writer.c: small and large writes, discards, O_DSYNC and
# FUA writes, several in flight), with the mover running all the time (a
# 4 MiB log over a 64 MiB working set, high_watermark 60).  Oracle: every
# block against the writer's journal after the run, after remove and
# re-create (replay of the copies and of the far invalidations) and after a
# drain; a run is void unless blocks were copied forward, moved from beyond
# the segment and unmapped.  Two models: ssd-a's (sparse and filled units)
# and ssd-b's (every unit filled).
. "$RESSD_TOP/tests/lib/testlib.sh"
. "$RESSD_TOP/tests/lib/writer.sh"

NBLK=16384 SECS=${WRITER_SECONDS:-15}
writer_build

density_case() {	# <name> <model> <seed>
	local j=$TMPDIR/density-$1.journal
	local t="0 $DISK_A_SECTORS ressd $RESSD_DISK_A 0 $RESSD_DISK_B 0 8192 6"
	t="$t high_watermark 60 dev_model $2 mover_policy density"
	note "$1: dev_model $2, mover_policy density"
	rm -f "$j"
	zero_at "$RESSD_DISK_B" 8 0
	dm_create md "$t"
	dmsetup table md | grep -q "mover_policy density" || fail "$1: table: $(dmsetup table md)"
	writer_run md "$j" "$3" "$1"
	# status extras 19-21: copy_forwards far_moves far_dropped
	local copies far dropped
	copies=$(status_field md 19) far=$(status_field md 20) dropped=$(status_field md 21)
	echo "$1: $copies blocks copied forward, $far moved from beyond the segment," \
		"$dropped of them unmapped at once; $(status_field md 18) units whole," \
		"$(status_field md 16) sparse"
	[ "$copies" -gt 0 ] || fail "$1: nothing was copied forward: $(dmsetup status md)"
	[ "$far" -gt 0 ] || fail "$1: no block was moved from beyond the segment"
	[ "$dropped" -gt 0 ] || fail "$1: no far block was unmapped: $(dmsetup status md)"
	# status extra 27: density_d, the last round's threshold: at least 1
	# (0 only before the first round, or after a round in which units with
	# no mapped block left held more of its moves than it could copy
	# forward: with high_watermark 60 it may copy up to three quarters of
	# its region, or half where the region holds many copies; about 9
	# on ssd-a and 25 on ssd-b here), at most the blocks of a unit (one
	# above the densest unit when everything was copied: no unit here
	# gathers a whole unit's blocks)
	local d
	d=$(status_field md 27)
	echo "$1: the last round's threshold: $d logged blocks"
	[ -n "$d" ] && [ "$d" -ge 1 ] && [ "$d" -le $(( ${2%%:*} / 8 )) ] ||
		fail "$1: density_d '$d' (status: $(dmsetup status md))"
	dm_remove md
	dm_create md "$t"
	writer_verify /dev/mapper/md "$j" "$1, after re-create"
	dmsetup message md 0 drain || fail "$1: drain"
	show_status md "after the drain"
	writer_verify /dev/mapper/md "$j" "$1, after the drain"
	dm_remove md
}

# rounds_below <percent>: wait (30 s at most) until the mover of md has
# moved something and the log is below <percent> % full.
rounds_below() {
	local i used
	for i in $(seq 1 150); do
		used=$(status_field md 1)
		[ "$(status_field md 7)" -gt 0 ] &&
			[ $(( ${used%/*} * 100 )) -lt $(( ${used#*/} * $1 )) ] && return
		sleep 0.2
	done
}

# A unit goes home whole once: with all its logged blocks, however many lie
# beyond the segment.  800 distinct blocks of the first two units of ssd-b's
# model (2 MiB each) are logged with the mover held back (high_watermark
# 95), then one crossing of a lower watermark lets it run: the units it
# sends home must take every logged block with them, so that the drain has
# nothing left to write and each unit was written whole exactly once.
# (Rounds once took at most a segment's worth of far moves: each unit went
# home whole with part of its blocks, and was written whole again later.)
whole_once() {
	local t="0 $DISK_A_SECTORS ressd $RESSD_DISK_A 0 $RESSD_DISK_B 0 8192 6" n=800 logged
	t="$t high_watermark 95 dev_model $MODEL_SSD_B mover_policy density"
	note "whole units once: $n blocks of two units, ssd-b's model"
	zero_at "$RESSD_DISK_B" 8 0
	dm_create md "$t"
	cat >"$TMPDIR/whole-once.py" <<'PY'
import mmap, os, random, sys
dev, n, what = sys.argv[1], int(sys.argv[2]), sys.argv[3]
blocks = list(range(int(sys.argv[4]) if len(sys.argv) > 4 else 1024))
random.Random(7).shuffle(blocks)
fd = os.open(dev, (os.O_WRONLY if what == "write" else os.O_RDONLY) | os.O_DIRECT)
buf = mmap.mmap(-1, 4096)
bad = 0
for b in blocks[:n]:
    want = (b"whole-once %8d\n" % b) * 204 + b"\0" * 16
    if what == "write":
        buf[:] = want
        os.pwrite(fd, buf, b * 4096)
    else:
        os.preadv(fd, [buf], b * 4096)
        bad += buf[:] != want
os.close(fd)
if bad:
    print(f"{bad} blocks differ")
sys.exit(1 if bad else 0)
PY
	python3 "$TMPDIR/whole-once.py" /dev/mapper/md $n write || fail "whole units once: the writes failed"
	show_status md "after the writes"
	logged=$(status_field md 2)
	[ "$logged" -gt $(( n * 9 / 10 )) ] || fail "whole units once: $n blocks written, $logged logged"
	dmsetup message md 0 set high_watermark 50 || fail "whole units once: set high_watermark"
	rounds_below 50
	show_status md "after the rounds"
	[ "$(status_field md 7)" -eq "$logged" ] ||
		fail "whole units once: the rounds moved $(status_field md 7) of $logged blocks"
	[ "$(status_field md 2)" -eq 0 ] ||
		fail "whole units once: $(status_field md 2) blocks still mapped after the rounds"
	dmsetup message md 0 drain || fail "whole units once: drain"
	[ "$(status_field md 18)" -eq 2 ] ||
		fail "whole units once: $(status_field md 18) whole-unit writes for 2 units: $(dmsetup status md)"
	python3 "$TMPDIR/whole-once.py" /dev/mapper/md $n read ||
		fail "whole units once: wrong data after the drain"
	echo "whole units once: $logged blocks moved, 2 units written whole, data intact"
	dm_remove md
}

# Far blocks leave the index on a full log too.  1400 distinct blocks of the
# first three units of ssd-b's model are written with the mover paused: the
# log fills and small writes go home.  Resumed, the mover's rounds find the
# log at its limit; the far blocks of the units they send home must still
# be unmapped (with their invalidations, from half the slots kept for home
# writes' invalidations).  (The drop pass once stopped at those slots:
# on a log that small writes kept full no far block was dropped, each was
# moved again by a later round, and on sd-card's model a third of the small
# writes went home.)
far_full() {
	local t="0 $DISK_A_SECTORS ressd $RESSD_DISK_A 0 $RESSD_DISK_B 0 8192 6" n=1400 far dropped
	t="$t high_watermark 90 dev_model $MODEL_SSD_B mover_policy density"
	note "far blocks dropped on a full log: $n blocks of three units, ssd-b's model"
	zero_at "$RESSD_DISK_B" 8 0
	dm_create md "$t"
	dmsetup message md 0 mover pause || fail "far full: mover pause"
	python3 "$TMPDIR/whole-once.py" /dev/mapper/md $n write 1536 ||
		fail "far full: the writes failed"
	show_status md "after the writes"
	[ "$(status_field md 11)" -gt 0 ] || fail "far full: the log never refused a small write"
	dmsetup message md 0 mover resume || fail "far full: mover resume"
	rounds_below 90	# the watermark
	sleep 0.5
	show_status md "after the rounds"
	far=$(status_field md 20) dropped=$(status_field md 21)
	[ "$far" -gt 0 ] || fail "far full: no block was moved from beyond the segment"
	[ $((dropped * 10)) -ge $((far * 9)) ] ||
		fail "far full: $dropped of $far far blocks unmapped"
	dmsetup message md 0 drain || fail "far full: drain"
	python3 "$TMPDIR/whole-once.py" /dev/mapper/md $n read 1536 ||
		fail "far full: wrong data after the drain"
	echo "far full: $dropped of $far far blocks unmapped on a full log, data intact"
	dm_remove md
}

whole_once
far_full
density_case ssd-a "$MODEL_SSD_A" 31
density_case ssd-b "$MODEL_SSD_B" 32
echo "density-first cleaning passed"

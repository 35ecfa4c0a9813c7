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
	dm_remove md
	dm_create md "$t"
	writer_verify /dev/mapper/md "$j" "$1, after re-create"
	dmsetup message md 0 drain || fail "$1: drain"
	show_status md "after the drain"
	writer_verify /dev/mapper/md "$j" "$1, after the drain"
	dm_remove md
}

density_case ssd-a "$MODEL_SSD_A" 31
density_case ssd-b "$MODEL_SSD_B" 32
echo "density-first cleaning passed"

#!/bin/bash
# Data integrity under the self-checking writer (tests/tools/ressd-writer.c;
# I1-I3 and I5 while nothing crashes): 4/8 KiB random writes, large writes
# over recently written small blocks, discards, fsync and O_DSYNC writes,
# several in flight, reads verified on the fly and a full check every few
# thousand ops.  A small log (2 MiB, mover from 50 %) so that it fills and
# the mover runs many times.  Then, with the writer stopped, every block is
# checked after suspend/resume, after a reload of the same table, after
# remove and re-create; and once more after a run beside a suspend/resume
# loop.
. "$RESSD_TOP/tests/lib/testlib.sh"
. "$RESSD_TOP/tests/lib/writer.sh"

A=$RESSD_DISK_A B=$RESSD_DISK_B
NBLK=16384			# the first 64 MiB of the normal area
SECS=${WRITER_SECONDS:-20}	# per writer run
J=$TMPDIR/integrity.journal
T="0 $DISK_A_SECTORS ressd $A 0 $B 0 4096 2 high_watermark 50"
dev=/dev/mapper/it
loop=

stop_loop() {	# the loop stops after a resume; returns its failures
	local rc
	touch "$TMPDIR/stop-loop"
	wait "$loop"
	rc=$?
	loop=
	return $rc
}
cleanup() {	# never leave the device suspended behind a failure
	[ -n "$loop" ] && stop_loop
	dmsetup resume it >/dev/null 2>&1
}
trap cleanup EXIT

writer_build
rm -f "$J"
zero_at "$B" 8 0
dm_create it "$T"
show_status it "before"

note "writer for $SECS s (seed 11), full check every 4000 ops"
"$WRITER" write --dev $dev --blocks $NBLK --seconds "$SECS" --seed 11 \
	--journal "$J" --verify-every 4000 || fail "writer: violation or error (exit $?)"
show_status it "after the writer"
[ "$(( $(status_field it 4) + $(status_field it 5) ))" -gt 0 ] || fail "no write was counted"
writer_verify $dev "$J" "after the writer"

dmsetup suspend it && dmsetup resume it || fail "suspend/resume"
writer_verify $dev "$J" "after suspend/resume"

dmsetup reload it --table "$(dmsetup table it)" && dmsetup resume it || fail "reload"
writer_verify $dev "$J" "after reload with the same table"

dm_remove it
dm_create it "$T"
show_status it "after re-create"
writer_verify $dev "$J" "after remove and re-create"

note "writer for $SECS s (seed 12) beside a suspend/resume loop"
rm -f "$TMPDIR/stop-loop" "$TMPDIR/loop.err"
(
	n=0 bad=0
	while [ ! -e "$TMPDIR/stop-loop" ]; do
		dmsetup suspend it 2>>"$TMPDIR/loop.err" || bad=$((bad + 1))
		sleep 0.3
		dmsetup resume it 2>>"$TMPDIR/loop.err" || bad=$((bad + 1))
		n=$((n + 1))
		sleep 0.5
	done
	echo "suspend/resume loop: $n cycles, $bad failed commands"
	[ $bad -eq 0 ] || grep -v '^Udev is running' "$TMPDIR/loop.err"
	exit $((bad > 0))
) &
loop=$!
"$WRITER" write --dev $dev --blocks $NBLK --seconds "$SECS" --seed 12 \
	--journal "$J" || fail "writer beside suspend/resume: exit $?"
stop_loop || fail "a suspend or resume failed in the loop"
show_status it "after the suspend/resume run"
writer_verify $dev "$J" "after the suspend/resume run"

dm_remove it
dm_create it "$T"
writer_verify $dev "$J" "after the last re-create"
[ "$(status_field it 10)" = rw ] || fail "mode is $(status_field it 10)"
dm_remove it
echo "integrity passed"

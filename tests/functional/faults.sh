#!/bin/bash
# Faults from below (I8: errors come back up and latch a mode, nothing hangs,
# no acknowledged data is lost).  dm-flakey sits under the target for the
# origin and for the log.  In each case the self-checking writer runs on the
# target, then one of the two devices is switched to a fault (flakey
# error_writes, or its table swapped for dm-error) by reload + suspend +
# resume, as a power cut would be in powercut.sh.  Then:
#
#  - the error comes back up: the writer stops with an I/O error (exit 2,
#    never 1: no violation on the way), and a direct write fails with EIO;
#  - the mode latches as Documentation/dm-ressd.rst says: a failed log write
#    or read gives "fail" (all I/O fails), a failed home write of the mover
#    or origin flush gives "ro" (reads still work, writes fail); either
#    raises a table event
#    (the event number grows; dmsetup wait returns);
#  - suspend, resume and remove of the target still work in that state
#    (each under a timeout: a hang fails the test);
#  - after the fault is cleared and the target is re-created (recovery), the
#    writer's verify holds.  Log faults are judged as a power cut at the
#    moment of the switch (crash mode): writes acknowledged but not yet made
#    durable by a flush can only be committed by writing the log, which
#    fails, just as a disk's volatile cache is lost at a power cut; all that
#    was durable before the switch must be there.  Failing origin writes
#    are judged the same way: the record that follows home writes over
#    logged blocks needs an origin flush first, and when that fails the
#    record fails like a failed log write (I2, see inval_flush_case), so
#    writes acknowledged since the last flush may be lost.  Failing origin
#    reads leave everything written: every acknowledged write must be there
#    (live mode).
#
# dm-flakey of 6.1 has no error_reads: reads fail only in its default "down"
# mode, which fails all I/O, like dm-error.  The log read case therefore
# stops the writer first and then reads logged blocks through a log that
# fails everything.  When the kernel's dm-flakey has error_reads, one more
# case uses it on the origin.  A last case fails the origin flush that must
# precede a record carrying invalidations (see inval_flush_case).
. "$RESSD_TOP/tests/lib/testlib.sh"
. "$RESSD_TOP/tests/lib/writer.sh"

A=$RESSD_DISK_A B=$RESSD_DISK_B
SA=$DISK_A_SECTORS SB=$DISK_B_SECTORS
NBLK=4096			# the writer's blocks: the first 16 MiB
LOGSZ=16384			# an 8 MiB log: the mover runs during the writes
err_writes() { echo "0 $2 flakey $1 0 0 1 1 error_writes"; }
err_reads() { echo "0 $2 flakey $1 0 0 1 1 error_reads"; }
err_all() { echo "0 $2 error"; }
wpid=
injected=0 survived=0

cleanup() {
	[ -n "$wpid" ] && kill -KILL "$wpid" 2>/dev/null
	dmsetup resume ft_a >/dev/null 2>&1
	dmsetup resume ft_b >/dev/null 2>&1
}
trap cleanup EXIT

events() { dmsetup info ft | sed -n 's/^Event number: *//p'; }
mode() { status_field ft 10; }

# t <seconds> <what> <command...>: a command that must finish in time and succeed.
t() {
	local s=$1 what=$2
	shift 2
	timeout -k 5 "$s" "$@" >"$TMPDIR/t.out" 2>&1
	local rc=$?
	[ $rc -eq 124 ] || [ $rc -eq 137 ] && { cat "$TMPDIR/t.out"; dmesg | tail -n 40; fail "hung: $what"; }
	[ $rc -eq 0 ] || { cat "$TMPDIR/t.out"; fail "$what: exit $rc"; }
}

# dd_one <read|write> <block>: one 4 KiB direct I/O through the target;
# prints ok or the error.
dd_one() {
	local err
	if [ "$1" = write ]; then
		err=$(timeout 30 dd if=/dev/zero of=/dev/mapper/ft bs=4k count=1 seek="$2" \
			oflag=direct conv=notrunc status=none 2>&1)
	else
		err=$(timeout 30 dd if=/dev/mapper/ft of=/dev/null bs=4k count=1 skip="$2" \
			iflag=direct status=none 2>&1)
	fi
	local rc=$?
	[ $rc -eq 124 ] && fail "hung: dd $1 of block $2"
	[ $rc -eq 0 ] && echo ok || echo "$err"
}

# set_dev <flakey device> <table>: switch it, as a power cut switches.
set_dev() {
	dmsetup reload "$1" --table "$2" || fail "reload $1 with '$2'"
	t 30 "suspend $1" dmsetup suspend "$1"
	t 30 "resume $1" dmsetup resume "$1"
}

# wait_mode <mode> <seconds>
wait_mode() {
	local i
	for ((i = 0; i < $2 * 5; i++)); do
		[ "$(mode)" = "$1" ] && return 0
		sleep 0.2
	done
	fail "mode did not latch to $1 in $2 s: $(dmsetup status ft)"
}

# fault_case <n> <log|origin> <fault table function> <expected mode> <how>
#   how: writer  the fault hits while the writer runs
#        idle    the writer stops first; then the fault, then reads of
#                logged blocks (and a drain for origin faults)
fault_case() {
	local n=$1 where=$2 fn=$3 want=$4 how=$5
	local dev=ft_b disk=$B size=$SB seed=$((2000 + n)) J=$TMPDIR/faults-$n.journal
	local W=$TMPDIR/faults-$n.writer cut rc ev0 ev1 r
	[ "$where" = origin ] && dev=ft_a disk=$A size=$SA
	note "case $n: $where, $fn, $how, expect mode $want (seed $seed)"
	rm -f "$J"
	zero_at /dev/mapper/ft_b 8 0
	dm_create ft "$TABLE"
	"$WRITER" write --dev /dev/mapper/ft --blocks $NBLK --seconds 300 --seed $seed \
		--journal "$J" >"$W" 2>&1 &
	wpid=$!
	wait_for_line "$W" '^started' 120 $wpid
	sleep "$((1 + RANDOM % 3)).$((RANDOM % 10))"
	if [ "$how" = idle ]; then
		kill -TERM $wpid
		wait $wpid
		rc=$?
		wpid=
		[ $rc -eq 0 ] || { cat "$W"; fail "writer before the fault: exit $rc"; }
		[ "$(status_field ft 2)" -gt 0 ] || fail "no block is logged: $(dmsetup status ft)"
	fi
	show_status ft "before the fault"
	ev0=$(events)
	cut=$("$WRITER" now)
	set_dev "$dev" "$($fn "$disk" "$size")"
	injected=$((injected + 1))

	if [ "$how" = writer ]; then
		# The writer must stop with an I/O error, soon.
		if [ "$where" = origin ]; then
			t 120 "drain with a failing origin" sh -c \
				"dmsetup message ft 0 drain; true"
		fi
		local i
		for ((i = 0; i < 600; i++)); do
			kill -0 $wpid 2>/dev/null || break
			sleep 0.1
		done
		kill -0 $wpid 2>/dev/null && { cat "$W"; fail "the writer still runs 60 s after the fault"; }
		wait $wpid
		rc=$?
		wpid=
		cat "$W"
		[ $rc -eq 1 ] && fail "the writer found a violation"
		[ $rc -eq 2 ] || fail "the writer exited $rc, expected an I/O error (2)"
		grep -q 'Input/output error' "$W" || fail "the writer's error is not EIO"
	else
		# Reads of every written block: some are in the log.
		r=$(timeout 60 dd if=/dev/mapper/ft of=/dev/null bs=64k count=$((NBLK / 16)) \
			iflag=direct 2>&1)
		[ $? -eq 124 ] && fail "hung: reading through the target"
		if [ "$where" = log ] || [ "$fn" != err_writes ]; then
			grep -q 'Input/output error' <<<"$r" || fail "reading through a failed $where: '$r'"
		fi
		if [ "$where" = origin ] && [ "$want" = ro ]; then
			t 120 "drain with a failing origin" sh -c "dmsetup message ft 0 drain; true"
		fi
	fi
	if [ "$want" = rw ]; then
		# Read errors from home are returned and latch nothing.
		[ "$(mode)" = rw ] || fail "a home read error changed the mode: $(mode)"
		[ "$(events)" = "$ev0" ] || fail "a home read error raised an event"
		echo "ok: reads -> EIO, mode rw"
	else
		wait_mode "$want" 30
		t 10 "dmsetup wait for event $ev0" dmsetup wait ft "$ev0"
		ev1=$(events)
		[ "$ev1" -gt "$ev0" ] || fail "no table event: event number $ev0 -> $ev1"
		echo "ok: mode $want, event $ev0 -> $ev1"
	fi
	if [ "$want" != rw ]; then
		r=$(dd_one write 7)
		grep -q 'Input/output error' <<<"$r" || fail "a write in mode $want gave '$r', not EIO"
	fi
	r=$(dd_one read 0)
	if [ "$want" = fail ]; then
		grep -q 'Input/output error' <<<"$r" || fail "a read in mode fail gave '$r', not EIO"
	elif [ "$where" = log ] || [ "$fn" = err_writes ]; then
		[ "$r" = ok ] || fail "a read in mode ro failed: $r"
	fi
	echo "ok: write -> EIO, read -> ${r:0:40}"
	t 60 "suspend the target in mode $want" dmsetup suspend ft
	t 60 "resume the target in mode $want" dmsetup resume ft
	[ "$(mode)" = "$want" ] || fail "mode $want did not stay latched over resume: $(mode)"
	show_status ft "in mode $want"
	t 60 "remove the target in mode $want" dmsetup remove ft

	# The fault clears; re-create: recovery, then every block is checked.
	set_dev "$dev" "$(flakey_pass "$disk" "$size")"
	dm_create ft "$TABLE"
	show_status ft "after recovery"
	[ "$(mode)" = rw ] || fail "mode after recovery: $(mode)"
	if [ "$where" = log ] || [ "$want" = ro ]; then
		writer_verify /dev/mapper/ft "$J" "case $n" crash "$cut"
	else
		writer_verify /dev/mapper/ft "$J" "case $n"
	fi
	t 60 "remove the recovered target" dmsetup remove ft
	survived=$((survived + 1))
}

# The origin fails the flush that must come before a record carrying
# invalidations (dm-ressd-design.rst, "Direct writes over logged blocks").
# The large write over X goes home into the origin's volatile cache, which
# then loses it (flakey drops it, as a power cut would) and fails the flush.
# The record that holds X's invalidation must then not reach the log: with
# it, replay would unmap X, which would read home data older than its
# flushed logged copy (I2).  The mode is ro (reads of logged blocks still
# work), flushes fail, nothing more is written to the log.  After the fault
# clears, recovery gives back what was flushed, X its flushed logged copy.
inval_flush_case() {
	local X=100 Z=300 Y=500 b r ev0
	note "case $1: origin flush before a record with invalidations fails, expect mode ro"
	zero_at /dev/mapper/ft_b 8 0
	dm_create ft "$TABLE"
	t 10 "pause the mover" dmsetup message ft 0 mover pause
	for b in $X $Z; do
		make_block old "$b" | dd of=/dev/mapper/ft bs=4096 seek="$b" oflag=direct \
			conv=notrunc,fsync status=none || fail "writing block $b"
	done
	[ "$(status_field ft 2)" = 2 ] || fail "X and Z were not logged: $(dmsetup status ft)"
	dd if=/dev/mapper/ft of="$TMPDIR/y-before" bs=4096 skip=$Y count=1 iflag=direct \
		status=none || fail "reading Y"
	for ((b = X - 4; b < X + 60; b++)); do make_block new "$b"; done >"$TMPDIR/big"
	set_dev ft_a "$(flakey_drop "$A" "$SA")"
	dd if="$TMPDIR/big" of=/dev/mapper/ft bs=256K seek=$(((X - 4) * 4096)) count=1 \
		oflag=direct,seek_bytes conv=notrunc status=none || fail "the large write over X"
	[ "$(status_field ft 2)" = 1 ] || fail "X's logged copy is still mapped: $(dmsetup status ft)"
	ev0=$(events)
	set_dev ft_a "$(err_writes "$A" "$SA")"
	injected=$((injected + 1))
	# An O_DSYNC small write seals the record that holds X's invalidation.
	r=$(make_block y "$Y" | timeout 30 dd of=/dev/mapper/ft bs=4096 seek=$Y \
		oflag=direct,dsync conv=notrunc status=none 2>&1)
	[ $? -eq 124 ] && fail "hung: the O_DSYNC write"
	# Its record fails, since the origin flush before it failed (the old
	# code wrote it and failed only the flush the kernel sends after it).
	grep -q 'Input/output error' <<<"$r" || fail "the O_DSYNC write gave '$r', not EIO"
	wait_mode ro 30
	t 10 "dmsetup wait for event $ev0" dmsetup wait ft "$ev0"
	echo "ok: O_DSYNC write -> EIO (its flush), mode ro, event $ev0 -> $(events)"
	cmp -s <(timeout 30 dd if=/dev/mapper/ft bs=4096 skip=$Z count=1 iflag=direct \
		status=none) <(make_block old $Z) || fail "the logged block Z does not read back in mode ro"
	r=$(timeout 30 dd if=/dev/null of=/dev/mapper/ft conv=fsync status=none 2>&1)
	grep -q 'Input/output error' <<<"$r" || fail "a flush in mode ro gave '$r', not EIO"
	# The origin works again: a retried flush must still fail, since the
	# large write's invalidation never reached the log (a success would
	# promise it durable, and recovery maps X back to its logged copy).
	set_dev ft_a "$(flakey_pass "$A" "$SA")"
	r=$(timeout 30 dd if=/dev/null of=/dev/mapper/ft conv=fsync status=none 2>&1)
	grep -q 'Input/output error' <<<"$r" ||
		fail "a flush after the origin came back gave '$r', not EIO (the record with X's invalidation was never written)"
	echo "ok: logged block reads back, flush -> EIO, also once the origin works again"
	t 60 "remove the target in mode ro" dmsetup remove ft
	dm_create ft "$TABLE"
	[ "$(mode)" = rw ] || fail "mode after recovery: $(mode)"
	cmp -s <(dd if=/dev/mapper/ft bs=4096 skip=$Z count=1 iflag=direct status=none) \
		<(make_block old $Z) || fail "Z, flushed, was lost"
	# Y: its write failed (EIO), so its old content or the new one.
	if ! cmp -s <(dd if=/dev/mapper/ft bs=4096 skip=$Y count=1 iflag=direct status=none) \
		<(make_block y $Y) && ! cmp -s <(dd if=/dev/mapper/ft bs=4096 skip=$Y count=1 \
		iflag=direct status=none) "$TMPDIR/y-before"; then
		fail "Y reads neither its old content nor the failed write"
	fi
	# X: its flushed logged copy (the newer write never reached the disk).
	if ! cmp -s <(dd if=/dev/mapper/ft bs=4096 skip=$X count=1 iflag=direct status=none) \
		<(make_block old $X); then
		fail "X reads '$(dd if=/dev/mapper/ft bs=4096 skip=$X count=1 iflag=direct \
			status=none | head -c 32 | tr -d '\0')', not its flushed logged copy (I2)"
	fi
	echo "ok: after recovery Z is intact, X reads its flushed logged copy"
	t 60 "remove the recovered target" dmsetup remove ft
	survived=$((survived + 1))
}

writer_build
dm_create ft_a "$(flakey_pass $A $SA)"
dm_create ft_b "$(flakey_pass $B $SB)"
TABLE="0 $SA ressd /dev/mapper/ft_a 0 /dev/mapper/ft_b 0 $LOGSZ 2 high_watermark 50"

fault_case 1 log err_writes fail writer
fault_case 2 log err_all fail writer
fault_case 3 log err_all fail idle
fault_case 4 origin err_writes ro writer
fault_case 5 origin err_all ro writer
fault_case 6 origin err_all ro idle
if dmsetup create ft_probe --table "$(err_reads $A 8)" >/dev/null 2>&1; then
	dm_remove ft_probe
	fault_case 7 origin err_reads rw idle
else
	note "this kernel's dm-flakey has no error_reads: read faults come from dm-error above"
fi
inval_flush_case 8

dm_remove ft_a
dm_remove ft_b
echo "faults injected: $injected, survived: $survived"
[ "$survived" -eq "$injected" ] || fail "survived $survived of $injected"
echo "faults passed"

#!/bin/bash
# Corrupt metadata (I7: self-validating metadata; I8: bad input never gives
# an oops, a hang or silent damage).  A real run of the target writes a log:
# the self-checking writer runs over a small log (so the mover has wrapped
# it and earlier laps' trailers are still in it), the target is removed
# without draining (the log holds records), and the log range is copied.
# The intact copy is activated once: the writer's verify must pass (every
# acknowledged write is there after a clean remove) and every block's
# generation is noted.  Then tests/tools/ressd-corrupt.c mutates the copy
# (superblock and trailer fields flipped, or set to bad values behind a good
# checksum, zeroed blocks, a truncated log, duplicated records, a ring of
# records over a whole lap; `ressd-corrupt list` names them all), and for
# each mutated image written back the target is created:
#
#  - refused: the kernel must name the reason (a "device-mapper: table:"
#    line) and the device must be gone; the refusals are counted by message;
#  - activated: every block must read back valid (never garbage or another
#    block's data), never newer than from the intact log, and equal to it
#    unless a damaged record names the block (ressd-corrupt check); then the
#    target must be removable.
#
# Never an oops, KASAN report or hang (guest-init.sh reads the kernel log;
# every create and remove runs under a timeout).  Nothing here writes to the
# normal area through the target, and the mover stays off (high_watermark
# 100), so the origin must be unchanged at the end.
. "$RESSD_TOP/tests/lib/testlib.sh"
. "$RESSD_TOP/tests/lib/writer.sh"

A=$RESSD_DISK_A B=$RESSD_DISK_B SA=$DISK_A_SECTORS
NBLK=1024			# the writer's blocks: the first 4 MiB
LOGSZ=2048			# a 1 MiB log: 254 slots
J=$TMPDIR/corrupt.journal
IMG=$TMPDIR/corrupt-base.img
T_RUN="0 $SA ressd $A 0 $B 0 $LOGSZ 4 high_watermark 50 mover_batch 128"
T_CHECK="0 $SA ressd $A 0 $B 0 $LOGSZ 4 high_watermark 100 mover_batch 128"

writer_build
corrupt_build

note "a real log: the writer over a $((LOGSZ / 2)) KiB log, then remove without draining"
zero_at "$B" 8 0
dm_create cl "$T_RUN"
"$WRITER" write --dev /dev/mapper/cl --blocks $NBLK --seconds 6 --seed 4242 --journal "$J" \
	--mix w4=40,w8=15,seq=5,dsync=8,read=20,fsync=4 >"$TMPDIR/writer.out" 2>&1 ||
	{ cat "$TMPDIR/writer.out"; fail "writer"; }
tail -n 3 "$TMPDIR/writer.out"
show_status cl "after the writer"
[ "$(status_field cl 7)" -gt 0 ] || fail "the mover never ran: the log did not wrap"
[ "$(status_field cl 2)" -gt 0 ] || fail "no block is logged"
dm_remove cl
dd if="$B" of="$IMG" bs=512 count=$LOGSZ iflag=direct status=none || fail "copying the log"
sum_origin() { dd if="$A" bs=4k count=$NBLK iflag=direct status=none | md5sum; }
origin_sum=$(sum_origin)

note "the intact log"
dm_create cl "$T_CHECK"
show_status cl "intact"
writer_verify /dev/mapper/cl "$J" "intact log"
"$MUT" scan /dev/mapper/cl $NBLK "$TMPDIR/base.scan" || fail "scan of the intact log"
dm_remove cl
"$MUT" list "$IMG" >"$TMPDIR/mutations" || fail "ressd-corrupt list"
n=$(wc -l <"$TMPDIR/mutations")
# CORRUPT_STEP=k tries every k-th mutation from a random start (default 2,
# to keep make test short; 1 tries them all).
STEP=${CORRUPT_STEP:-2}
first=$((RANDOM % STEP))
echo "$n mutations; trying every ${STEP}th from $first"

kmsg_take "the intact log"

declare -A refused_by active_in
tried=0 refused=0 activated=0 violations=0
for ((i = first; i < n; i += STEP)); do
	name=$("$MUT" apply "$IMG" $i "$B" 0) || fail "ressd-corrupt apply $i"
	tried=$((tried + 1))
	timeout -k 5 60 dmsetup create cl --table "$T_CHECK" >"$TMPDIR/cl.out" 2>&1
	rc=$?
	[ $rc -eq 124 ] || [ $rc -eq 137 ] && { dmesg | tail -n 40; fail "$name: create hung"; }
	if [ $rc -ne 0 ]; then
		kmsg_take "$name"
		msg=$(sed -n 's/.*device-mapper: table: [0-9]*:[0-9]*: ressd: //p' <<<"$KMSG" | head -n 1)
		msg=${msg% (-*)}
		[ -n "$msg" ] && [ "$msg" != "Unknown error" ] ||
			{ tail -n 5 <<<"$KMSG"; fail "$name: refused without a message of its own"; }
		dmsetup info cl >/dev/null 2>&1 && fail "$name: refused, but the device is there"
		echo "$name: refused: $msg"
		refused=$((refused + 1))
		refused_by[$msg]=$(( ${refused_by[$msg]:-0} + 1 ))
		continue
	fi
	dmsetup mknodes cl >/dev/null 2>&1
	mode=$(status_field cl 10)
	if timeout 120 "$MUT" check "$IMG" $i "$TMPDIR/base.scan" /dev/mapper/cl $NBLK \
		>"$TMPDIR/check.out" 2>&1; then
		activated=$((activated + 1))
		active_in[$mode]=$(( ${active_in[$mode]:-0} + 1 ))
		echo "$name: activated ($mode): $(tail -n 1 "$TMPDIR/check.out" | cut -d: -f2-)"
	else
		violations=$((violations + 1))
		echo "VIOLATION $name (mode $mode):"
		cat "$TMPDIR/check.out"
		dmesg | grep -F 'device-mapper' | tail -n 5
	fi
	timeout -k 5 60 dmsetup remove --retry cl || fail "$name: remove failed or hung"
	kmsg_take "$name"
done

# The intact log again, to leave the disk as it was found.
dd if="$IMG" of="$B" bs=512 oflag=direct conv=notrunc status=none
[ "$(sum_origin)" = "$origin_sum" ] || fail "the normal area changed: something wrote home"

echo "refusals by message:"
for m in "${!refused_by[@]}"; do
	printf '%5d  %s\n' "${refused_by[$m]}" "$m"
done | sort -k2
echo "activations by mode:"
for m in "${!active_in[@]}"; do
	printf '%5d  %s\n' "${active_in[$m]}" "$m"
done
echo "images tried: $tried, refused: $refused, safe activations: $activated, violations: $violations"
[ $violations -eq 0 ] || fail "$violations images gave wrong data"
[ $refused -gt 0 ] && [ $activated -gt 0 ] || fail "only one outcome: the mutations did not reach"
echo "corrupt-log passed"

#!/bin/bash
# The guest half of scripts/vmkill.sh (a whole guest killed during I/O, its
# disks recovered in a new guest).  VMKILL_PHASE says which boot this is:
#
#   write    create the target on the scratch disks (recovering what a
#            killed guest left), start the self-checking writer with a new
#            journal beside the results (on the host, so that it outlives
#            the guest), print "started" and write until the guest is killed
#   verify   create the target (recovery of the log the killed guest left),
#            check every block against the journal in crash mode: each must
#            hold data no older than its newest write whose flush or O_DSYNC
#            completion the journal recorded (all of those were on the
#            host's disk image before the kill), then remove the target
#
# The table: origin on disk A, a 4 MiB log on disk B (so the log wraps and
# the mover runs), the writer on the first 64 MiB.
. "$RESSD_TOP/tests/lib/testlib.sh"
. "$RESSD_TOP/tests/lib/writer.sh"

A=$RESSD_DISK_A B=$RESSD_DISK_B
NBLK=16384
J=$RESSD_RES/../vmkill.journal
T="0 $DISK_A_SECTORS ressd $A 0 $B 0 8192 2 high_watermark 30"
writer_build

case ${VMKILL_PHASE:-} in
write)
	if [ "${VMKILL_FIRST:-0}" = 1 ]; then
		zero_at "$B" 8 0	# a new log
		rm -f "$J"
	fi
	dm_create vk "$T"
	show_status vk "at start"
	rm -f "$J"		# a fresh journal: the last one was verified
	seed=$((RANDOM * 32768 + RANDOM))
	echo "writer seed $seed"
	"$WRITER" write --dev /dev/mapper/vk --blocks $NBLK --seconds 3000 --seed $seed \
		--journal "$J" --threads 4 2>&1 | while read -r line; do
		echo "$line"
		# the host waits for this line, then kills the guest
		[[ $line == started* ]] && echo "VMKILL-STARTED" >"$RESSD_RES/vmkill.started"
	done
	fail "the writer ended before the guest was killed"
	;;
verify)
	[ -s "$J" ] || fail "no journal from the killed guest"
	dm_create vk "$T"
	show_status vk "after recovery"
	# Every flush and O_DSYNC completion in the journal happened before
	# the kill, whatever the killed guest's clock said: cut after them all.
	writer_verify /dev/mapper/vk "$J" "after the kill" crash 4611686018427387904
	echo "lost (acked, not durable, allowed): $(writer_field "$TMPDIR/verify.out" "older")"
	dm_remove vk
	;;
*)
	fail "VMKILL_PHASE must be write or verify (run by scripts/vmkill.sh)"
	;;
esac

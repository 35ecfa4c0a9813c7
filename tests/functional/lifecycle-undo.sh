#!/bin/bash
# An interrupted suspend (issue 12, defect 10).  A home write hangs in the
# origin (dm-delay, 8 s); "dmsetup suspend" waits for it and is interrupted
# by a signal; device-mapper then calls presuspend_undo.  Without one the
# target stayed "suspending" until the next full suspend and resume: every
# small write went home, the mover stopped.  Small random writes after the
# interrupted suspend must go to the log again.
. "$RESSD_TOP/tests/lib/testlib.sh"

A=$RESSD_DISK_A B=$RESSD_DISK_B SA=$DISK_A_SECTORS
dm_create un_org "0 $SA delay $A 0 0 $A 0 0"
D=/dev/mapper/un
zero_at $B 8 0
dm_create un "0 $SA ressd /dev/mapper/un_org 0 $B 0 4096"

dm_switch un_org "0 $SA delay $A 0 0 $A 0 8000"
dd if=/dev/zero of=$D bs=64k seek=100 count=1 oflag=direct conv=notrunc status=none & hpid=$!
sleep 1
dmsetup suspend un & spid=$!
sleep 1
kill -TERM $spid	# background jobs ignore SIGINT
wait_pid $spid 30 || stuck "the interrupted suspend did not return"
wait $spid && fail "the suspend finished although a write was in flight"
dmsetup info un | grep -q 'State: *ACTIVE' || fail "the device is not active: $(dmsetup info un)"
wait_pid $hpid 30 || stuck "the delayed write did not finish"
dm_switch un_org "0 $SA delay $A 0 0 $A 0 0"

before=$(status_field un 4)
for b in 7 3 11 5 9; do
	make_block undo $b | dd of=$D bs=4096 seek=$b oflag=direct conv=notrunc status=none ||
		fail "write $b"
done
after=$(status_field un 4)
echo "redirected writes: $before before, $after after; $(dmsetup status un)"
[ $((after - before)) -eq 5 ] || fail "small writes after the interrupted suspend did not go to the log"
dmsetup suspend un && dmsetup resume un || fail "a full suspend and resume"
for b in 7 3 11 5 9; do
	cmp -s <(dd if=$D bs=4096 skip=$b count=1 iflag=direct status=none) <(make_block undo $b) ||
		fail "block $b"
done
dm_remove un
dm_remove un_org
echo "small writes went to the log again after an interrupted suspend"

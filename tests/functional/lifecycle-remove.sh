#!/bin/bash
# Remove in fail mode with a record in flight (issue 12, defect 7).  The
# log sits behind dm-delay: reads fail (dm-error), writes take 3 s.  A large
# write over a logged block puts its invalidation in the open record; a
# failed log read latches fail; remove then seals that record in presuspend,
# and the worker writes it.  Postsuspend must wait for that write before the
# destructor frees what its completion touches: before the fix it waited
# only in rw mode, the remove returned at once, and the completion 3 s later
# used freed memory (KASAN in the debug kernel).  Afterwards the log, read
# again, holds the record: block 20 still reads its logged data and block
# 10 the newer home write.
. "$RESSD_TOP/tests/lib/testlib.sh"

A=$RESSD_DISK_A B=$RESSD_DISK_B SA=$DISK_A_SECTORS SB=$DISK_B_SECTORS
delay_log lr_log $B
L=/dev/mapper/lr_log D=/dev/mapper/lr
T="0 $SA ressd $A 0 $L 0 4096"
dm_create lr "$T"
for b in 10 20; do
	make_block logged "$b" | dd of=$D bs=4096 seek=$b oflag=direct conv=notrunc status=none ||
		fail "write $b"
done
dmsetup message lr 0 commit || fail "commit"
[ "$(status_field lr 2)" = 2 ] || fail "expected 2 logged blocks: $(dmsetup status lr)"

note "log reads fail, log writes take 3 s"
delay_log_reads_fail lr_log $B 3000
# 64 KiB over blocks 0..15: home; its invalidation of 10 waits in the open record
dd if=/dev/zero of=$D bs=64k count=1 oflag=direct conv=notrunc status=none || fail "large write"
dd if=$D of=/dev/null bs=4096 skip=20 count=1 iflag=direct status=none 2>/dev/null &&
	fail "a read of a logged block succeeded with failing log reads"
[ "$(status_field lr 10)" = fail ] || fail "mode is not fail: $(dmsetup status lr)"

note "remove with the invalidation record still to be written"
t0=$(date +%s%N)
dmsetup remove lr & rpid=$!
wait_pid $rpid 60 || stuck "remove did not finish in 60 s"
wait $rpid || fail "remove failed"
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
echo "remove took $ms ms"
sleep 5		# a completion that outlives the target would come now
kmsg_take "remove in fail mode"
[ $ms -ge 2500 ] || fail "remove did not wait for the record's 3 s log write ($ms ms)"

note "the record is in the log: recover and read"
dm_switch lr_log "0 $SB delay $B 0 0 $B 0 0"
dm_create lr "$T"
cmp -s <(dd if=$D bs=4096 skip=20 count=1 iflag=direct status=none) <(make_block logged 20) ||
	fail "block 20 lost its logged data"
cmp -s <(dd if=$D bs=4096 skip=10 count=1 iflag=direct status=none) <(head -c 4096 /dev/zero) ||
	fail "block 10 does not hold the newer home write"
[ "$(status_field lr 2)" = 1 ] || fail "expected 1 logged block after recovery: $(dmsetup status lr)"
dm_remove lr
dm_remove lr_log
dm_remove lr_log_err
echo "remove in fail mode waited for the log write and lost nothing"

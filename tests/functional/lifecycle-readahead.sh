#!/bin/bash
# A failed read-ahead from the log (issue 12, defect 11).  A suspended dm
# device fails REQ_RAHEAD bios at once (as an LVM log volume does while it
# is suspended); the page cache then reads the page again without
# read-ahead, which waits for the resume.  Before the fix any failed log
# read latched fail mode.  A buffered read of logged blocks while the log's
# device is suspended must leave the target in rw and return the data.
. "$RESSD_TOP/tests/lib/testlib.sh"

A=$RESSD_DISK_A B=$RESSD_DISK_B SA=$DISK_A_SECTORS SB=$DISK_B_SECTORS
dm_create ra_log "0 $SB linear $B 0"
D=/dev/mapper/ra
zero_at /dev/mapper/ra_log 8 0
dm_create ra "0 $SA ressd $A 0 /dev/mapper/ra_log 0 4096"
blocks=(130 128 134 132 138 136 142 140)
for b in "${blocks[@]}"; do
	make_block ra $b | dd of=$D bs=4096 seek=$b oflag=direct conv=notrunc status=none ||
		fail "write $b"
done
dmsetup message ra 0 commit || fail "commit"
echo 3 >/proc/sys/vm/drop_caches
blockdev --flushbufs $D

dmsetup suspend ra_log || fail "suspend the log device"
dd if=$D of="$TMPDIR/ra.out" bs=4096 skip=128 count=16 status=none & rpid=$!
sleep 2
dmsetup resume ra_log || fail "resume the log device"
wait_pid $rpid 30 || stuck "the buffered read did not finish after the resume"
wait $rpid || fail "the buffered read failed"
echo "status: $(dmsetup status ra)"
[ "$(status_field ra 10)" = rw ] || fail "a failed read-ahead latched $(status_field ra 10)"
for b in "${blocks[@]}"; do
	cmp -s <(dd if="$TMPDIR/ra.out" bs=4096 skip=$((b - 128)) count=1 status=none) \
		<(make_block ra $b) || fail "block $b read back wrong"
done
dm_remove ra
dm_remove ra_log
echo "a failed read-ahead from the log failed only itself"

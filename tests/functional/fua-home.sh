#!/bin/bash
# A FUA write sent home over a block whose invalidation is not yet durable
# (issue 12, defect 2; I1).  Block X is logged and flushed (record R1); a
# 64 KiB write over X goes home without FUA, and its invalidation waits in
# the open record R2; then a 64 KiB FUA write over X goes home (X is no
# longer in the index).  It must not complete before R2 is durable: a power
# cut right after it would otherwise keep R1 without R2, and replay would
# map X back to R1's copy, older than the completed FUA write.  The FUA
# write comes from libaio with O_SYNC (FUA, and no flush after it, as from a
# file system's journal commit; a synchronous O_DSYNC write to a block
# device is always followed by a flush).  The power cut: dm-flakey under
# both devices drops every write from then on.
. "$RESSD_TOP/tests/lib/testlib.sh"

A=$RESSD_DISK_A B=$RESSD_DISK_B SA=$DISK_A_SECTORS SB=$DISK_B_SECTORS
X=100
dm_create fh_a "$(flakey_pass $A $SA)"
dm_create fh_b "$(flakey_pass $B $SB)"
zero_at /dev/mapper/fh_b 8 0
T="0 $SA ressd /dev/mapper/fh_a 0 /dev/mapper/fh_b 0 4096 2 high_watermark 100"
dm_create fh "$T"
D=/dev/mapper/fh

make_block old $X | dd of=$D bs=4096 seek=$X oflag=direct conv=notrunc,fsync status=none ||
	fail "write X"
[ "$(status_field fh 2)" = 1 ] || fail "X was not logged: $(dmsetup status fh)"
dd if=/dev/zero of=$D bs=64k seek=$((X * 4096)) count=1 oflag=direct,seek_bytes \
	conv=notrunc status=none || fail "the large write over X"
[ "$(status_field fh 2)" = 0 ] || fail "X is still in the index: $(dmsetup status fh)"
fio --name=fua --filename=$D --rw=write --bs=64k --offset=$((X * 4096)) --size=64k \
	--ioengine=libaio --direct=1 --sync=1 --iodepth=1 --buffer_pattern=0x5a \
	--output="$TMPDIR/fio.txt" || { cat "$TMPDIR/fio.txt"; fail "the FUA write"; }
echo "status after the FUA write: $(dmsetup status fh)"

note "power cut"
power_cut_load fh_a $A $SA fh_b $B $SB
power_cut_switch fh_a fh_b
dm_remove fh
dm_switch fh_a "$(flakey_pass $A $SA)"
dm_switch fh_b "$(flakey_pass $B $SB)"
dm_create fh "$T"
echo "status after recovery: $(dmsetup status fh)"
got=$(dd if=$D bs=4096 skip=$X count=1 iflag=direct status=none | head -c 16 | od -An -c | tr -s ' ')
cmp -s <(dd if=$D bs=4096 skip=$X count=1 iflag=direct status=none) \
	<(head -c 4096 /dev/zero | tr '\0' '\132') ||
	fail "X lost the completed FUA write (reads '$got'): the invalidation was not durable"
dm_remove fh
dm_remove fh_a
dm_remove fh_b
echo "a FUA write home waited for the invalidation before it"

#!/bin/bash
# Far blocks, then FUA writes home over them, then a power cut (I1, I2).
# With mover_policy density a dense unit goes home with all its logged
# blocks; those beyond the round's segment ("far") stay in the log and are
# unmapped with an invalidation in the open record (ressd_round_drop_far()).
# A FUA write home over such a block must not complete before that
# invalidation is durable: replay from the checkpoint would otherwise map
# the block back to its far copy, older than the completed FUA write.
# 832 blocks of the first two units of ssd-b's model are logged and
# flushed with the mover held back; then the log's writes are delayed 8 s
# (dm-delay: fio takes seconds to start in the emulators), and a lower watermark lets one round send both units home
# (far blocks unmapped, their invalidations on the way to the log); at once
# the far blocks are written home again with 64 KiB FUA writes (libaio,
# O_SYNC: FUA with no flush after it); then the power is cut (dm-flakey
# under both devices drops every write from then on, those still held by
# dm-delay too) and the target is created again: every block must read the
# FUA writes' data.
. "$RESSD_TOP/tests/lib/testlib.sh"

A=$RESSD_DISK_A B=$RESSD_DISK_B SA=$DISK_A_SECTORS SB=$DISK_B_SECTORS
N=832
dm_create ff_a "$(flakey_pass $A $SA)"
dm_create ff_b "$(flakey_pass $B $SB)"
# log_delay <ms>: the table of ff_bd, the log's writes delayed <ms>.
log_delay() { echo "0 $SB delay /dev/mapper/ff_b 0 0 /dev/mapper/ff_b 0 $1"; }
dm_create ff_bd "$(log_delay 0)"
zero_at /dev/mapper/ff_bd 8 0
T="0 $SA ressd /dev/mapper/ff_a 0 /dev/mapper/ff_bd 0 8192 6 high_watermark 95"
T="$T dev_model $MODEL_SSD_B mover_policy density"
dm_create ff "$T"
D=/dev/mapper/ff

# Old data, 4 KiB writes (logged) to the two units (blocks 0-511, 512-1023):
# first 320 blocks of their first quarters, then every block of their second
# halves.  The round's segment (the oldest 256 slots) holds first-quarter
# blocks only, so the second halves are far blocks all, and no block of
# theirs is still mapped once the round has dropped them: the FUA writes
# over them record no invalidation of their own, and nothing but the far
# drop's invalidations can make them wait.
cat >"$TMPDIR/far-old.py" <<'PY'
import mmap, os, random, sys
dev = sys.argv[1]
first = list(range(0, 160)) + list(range(512, 672))
second = list(range(256, 512)) + list(range(768, 1024))
random.Random(11).shuffle(first)
random.Random(12).shuffle(second)
fd = os.open(dev, os.O_WRONLY | os.O_DIRECT)
buf = mmap.mmap(-1, 4096)
for b in first + second:
    buf[:] = (b"far-old %8d\n" % b) * 240 + b"\0" * 16
    os.pwrite(fd, buf, b * 4096)
os.fsync(fd)
os.close(fd)
PY
python3 "$TMPDIR/far-old.py" $D || fail "the small writes"
logged=$(status_field ff 2)
[ "$logged" -gt $((N * 9 / 10)) ] || fail "$N blocks written, $logged logged: $(dmsetup status ff)"

note "the log's writes delayed; one round sends both units home, their far blocks unmapped"
dm_switch ff_bd "$(log_delay 8000)"
dmsetup message ff 0 set high_watermark 50 || fail "set high_watermark"
for i in $(seq 1 300); do
	[ "$(status_field ff 21)" -gt 0 ] && break
	sleep 0.05
done
echo "status after the round: $(dmsetup status ff)"
[ "$(status_field ff 21)" -gt 0 ] || fail "no far block was unmapped: $(dmsetup status ff)"

note "FUA writes home over the far blocks, then the power cut"
fio --filename=$D --rw=write --bs=64k --size=1m --ioengine=libaio --direct=1 --sync=1 \
	--iodepth=4 --buffer_pattern=0x5a --output="$TMPDIR/fio.txt" \
	--name=fua1 --offset=1m --name=fua2 --offset=3m ||
	{ cat "$TMPDIR/fio.txt"; fail "the FUA writes"; }
power_cut_load ff_a $A $SA ff_b $B $SB
power_cut_switch ff_a ff_b
echo "status at the cut: $(dmsetup status ff)"
# The writes dm-delay still holds go on to the cut (and are lost).
dm_switch ff_bd "$(log_delay 0)"
dm_remove ff
dm_switch ff_a "$(flakey_pass $A $SA)"
dm_switch ff_b "$(flakey_pass $B $SB)"
dm_create ff "$T"
echo "status after recovery: $(dmsetup status ff)"
bad=$(python3 -c '
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
bad = 0
for b in list(range(256, 512)) + list(range(768, 1024)):
    bad += os.pread(fd, 4096, b * 4096) != b"\x5a" * 4096
print(bad)' $D) || fail "reading the far blocks back"
[ "$bad" = 0 ] || fail "$bad of 512 blocks lost their completed FUA write (older data read back)"
dm_remove ff
dm_remove ff_bd
dm_remove ff_a
dm_remove ff_b
echo "after the far blocks' drop, every completed FUA write came back after the power cut"

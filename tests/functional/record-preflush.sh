#!/bin/bash
# A record of more than one bio on a shared device (issue 12, defect 5; I2).
# Block X is logged and flushed; a large write over X goes home (in the
# device's volatile cache) and its invalidation joins the open record; 300
# small writes join it too, held by a long commit delay, and a commit seals
# the record with PREFLUSH|FUA: 301 blocks, more than one bio's 256
# vectors.  The block layer orders a bio only behind its own preflush, so
# the bio with the trailer must carry it: a trailer bio without one can
# reach the medium before the home write.  dm-log-writes below the target
# records the order; dm-delay between the two holds every flush for 500 ms
# (as a device with a slow cache flush), so that a bio not ordered behind
# one completes first.  The disk is rebuilt as it was just after the first
# FUA write to the log after the home write, recovered, and X must read its
# logged copy or the newer home data, nothing older.  The layout is
# inval-order.sh's "one device".
. "$RESSD_TOP/tests/lib/testlib.sh"

A=$RESSD_DISK_A B=$RESSD_DISK_B
MIB=2048
NORMAL=$((64 * MIB)) LOGS=$((4 * MIB))
SRC=$((NORMAL + LOGS))
M=/dev/mapper
X=100
DELAY=/sys/module/dm_ressd/parameters/commit_delay_us
replay_build
block_at() { dd if="$1" bs=4096 skip="$2" count=1 iflag=direct status=none; }
trap 'echo 0 >$DELAY' EXIT

dm_create rp_src "0 $SRC linear $A 0"
dm_create rp_base "0 $SRC linear $A $SRC"
dd if=/dev/zero of=$M/rp_src bs=1M count=$(( SRC / MIB )) oflag=direct status=none ||
	fail "zeroing the disk"
dd if=$M/rp_src of=$M/rp_base bs=1M iflag=direct oflag=direct status=none ||
	fail "copying the disk to the base"
zero_at "$B" 8 0
dm_create rp_lw "0 $SRC log-writes $M/rp_src $B"
dm_create rp_dl "0 $SRC delay $M/rp_lw 0 0 $M/rp_lw 0 0 $M/rp_lw 0 500"
T="0 $NORMAL ressd $M/rp_dl 0 $M/rp_dl $NORMAL $LOGS 4 mover_batch 4160 high_watermark 100"
dm_create rp "$T"
D=$M/rp

make_block old "$X" >"$TMPDIR/old"
dd if="$TMPDIR/old" of=$D bs=4096 seek=$X oflag=direct conv=fsync status=none || fail "writing X"
for ((b = X - 4; b < X + 60; b++)); do make_block new "$b"; done >"$TMPDIR/big"
dd if="$TMPDIR/big" of=$D bs=256K seek=$(((X - 4) * 4096)) count=1 \
	oflag=direct,seek_bytes status=none || fail "the large write"
dmsetup message rp_lw 0 mark home-written || fail "log-writes mark"

echo 5000000 >$DELAY
fio --name=held --filename=$D --rw=randwrite --bs=4k --offset=16M --size=32M --number_ios=300 \
	--ioengine=libaio --direct=1 --iodepth=300 --randseed=3 --output="$TMPDIR/fio.txt" &
fpid=$!
# all 300 held in the open record (the commit delay keeps them pending)
for ((i = 0; i < 300; i++)); do
	[ "$(status_field rp 4)" -ge 301 ] && break
	kill -0 $fpid 2>/dev/null || break
	sleep 0.1
done
echo "before the commit: $(dmsetup status rp)"
[ "$(status_field rp 4)" -ge 301 ] || fail "the small writes did not all reach the open record"
[ "$(status_field rp 2)" = 0 ] || fail "small writes were written before the commit (not pending)"
dmsetup message rp 0 commit || fail "commit"
wait_pid $fpid 60 || stuck "the small writes did not complete"
wait $fpid || { cat "$TMPDIR/fio.txt"; fail "fio"; }
echo 0 >$DELAY
echo "after: $(dmsetup status rp)"
dm_remove rp
dm_remove rp_dl
dm_remove rp_lw

fua_after_mark "$B" $NORMAL
m=$M_AT p=$P_FUA
# The record: the log-area writes after the mark, the largest FUA one first.
big=$(awk -v m="$m" -v n=$NORMAL '$1 >= m && $2 >= n && $3 >= 8 * 256' "$TMPDIR/entries" | wc -l)
echo "mark at entry $m; entries from it on:"; awk -v m="$m" '$1 >= m' "$TMPDIR/entries"
[ "$big" -gt 0 ] || fail "no log write of 256 blocks or more: the record was not built"
echo "  $("$REPLAY" info --log "$B")"
echo "  the disk just after the first FUA log write (entries 0..$p), recovered:"
"$REPLAY" apply --log "$B" --dev $M/rp_base --range "0:$p" || fail "replay"
dm_create rp_c "0 $NORMAL ressd $M/rp_base 0 $M/rp_base $NORMAL $LOGS 4 mover_batch 4160 high_watermark 100"
got=$(block_at $M/rp_c $X | head -c 64 | tr -d ' \n\0')
echo "  X reads '$got'"
if ! cmp -s <(block_at $M/rp_c $X) "$TMPDIR/old" &&
	! cmp -s <(block_at $M/rp_c $X) <(make_block new $X); then
	fail "X reads '$got': older than its durable logged copy (I2)"
fi
dm_remove rp_c
dm_remove rp_base
dm_remove rp_src
echo "the trailer of a multi-bio record is ordered behind a flush"

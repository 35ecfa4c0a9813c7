#!/bin/bash
# A write sent home before its block was logged must not land over the
# mover's copy of a newer logged write (issue 12, defect 12; I5).
#
# W, a 64 KiB write over block X, is mapped home while X is not logged; it
# is then held in flight by blk-throttle (a cgroup whose io.max lets the
# origin take 16 KiB/s).  S, a 4 KiB write to X from outside that cgroup, is
# logged and completes: reads of X now return S, and that is the order the
# target chose.  A drain moves S home.  The mover must wait for W before it
# writes S over it: otherwise W lands after S's copy, and once the mover
# unmaps X, reads return W, older than S, with no write in between.
#
# Needs blk-throttle (CONFIG_BLK_DEV_THROTTLING), which the Debian kernel has
# and the UML debug kernel does not: make test runs it in the vm layer.
. "$RESSD_TOP/tests/lib/testlib.sh"

A=$RESSD_DISK_A B=$RESSD_DISK_B SA=$DISK_A_SECTORS
X=1000
CG=/sys/fs/cgroup

mountpoint -q $CG || mount -t cgroup2 none $CG || fail "cannot mount cgroup2"
grep -qw io $CG/cgroup.controllers || fail "no io controller in cgroup2 (blk-throttle)"
echo +io >$CG/cgroup.subtree_control || fail "cannot enable the io controller"
mkdir -p $CG/ressd-slow
majmin=$(lsblk -dno MAJ:MIN "$A" | tr -d ' ')
echo "$majmin wbps=16384" >$CG/ressd-slow/io.max || fail "cannot throttle $A ($majmin)"

zero_at "$B" 8 0
T="0 $SA ressd $A 0 $B 0 4096 2 high_watermark 100"
dm_create ho "$T"
D=/dev/mapper/ho

for ((b = X; b < X + 16; b++)); do make_block w "$b"; done >"$TMPDIR/w"
# W, from the throttled cgroup: mapped home now, on the origin in about 4 s.
sh -c "echo \$\$ >$CG/ressd-slow/cgroup.procs && exec dd if=$TMPDIR/w of=$D bs=64k \
	seek=$((X * 4096)) count=1 oflag=direct,seek_bytes conv=notrunc status=none" &
wpid=$!
sleep 0.5
kill -0 $wpid 2>/dev/null || fail "the throttled write W finished at once: the throttle did not hold it"
[ "$(status_field ho 2)" = 0 ] || fail "something was logged before S: $(dmsetup status ho)"

# S, the newer write of X, logged.
make_block s $X | dd of=$D bs=4096 seek=$X oflag=direct conv=notrunc,fsync status=none ||
	fail "writing S"
[ "$(status_field ho 2)" = 1 ] || fail "S was not logged: $(dmsetup status ho)"
cmp -s <(dd if=$D bs=4096 skip=$X count=1 iflag=direct status=none) <(make_block s $X) ||
	fail "X does not read S right after S completed"
kill -0 $wpid 2>/dev/null || fail "W finished before the drain: the throttle did not hold it"

note "drain while W is held in flight"
timeout 60 dmsetup message ho 0 drain || fail "the drain failed or hung"
if kill -0 $wpid 2>/dev/null; then
	echo "W still in flight when the drain returned"
else
	echo "W completed before the drain returned"
fi
wait $wpid || fail "W failed"
[ "$(status_field ho 2)" = 0 ] || fail "X is still logged after the drain: $(dmsetup status ho)"
got=$(dd if=$D bs=4096 skip=$X count=1 iflag=direct status=none | head -c 16 | tr -d '\0')
cmp -s <(dd if=$D bs=4096 skip=$X count=1 iflag=direct status=none) <(make_block s $X) ||
	fail "X read S, then after the drain reads '$got' with no write in between (I5)"
echo "ok: X still reads S after the mover moved it home"

dm_remove ho
rmdir $CG/ressd-slow 2>/dev/null
echo "a home write in flight before its block was logged did not land over the mover's copy"

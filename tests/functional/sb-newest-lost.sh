#!/bin/bash
# The newest superblock copy lost (I1, I8).  A load takes the valid copy
# with the larger generation, so a torn write of one copy leaves the other.
# But a copy can also rot after its write was durable.  Each state was
# written to one copy: the other was then one checkpoint older, and the
# region that the lost checkpoint released may already hold newer records.
# The chain from the older checkpoint ended at once, and the target
# activated with an empty log: writes acknowledged after a flush read back
# older data, without a word.  Now each state goes to both copies before
# anything depends on it, and where the copy that lost the load may have
# been the newer (a log written the old way), recovery refuses a log with
# records only a newer superblock allows.
#   1. reuse: 110 flushed writes, a drain (checkpoint at the head), 110
#      flushed writes of new data over the same blocks, which wrap into the
#      region the drain released; remove; flip a bit of the newest copy.
#      Oracle: activates; every block reads its newest data.
#   1b. the same log written the old way: the other copy put back as it
#      was before the drain.  Oracle: refused with the target's message, a
#      read-only table too (what it would serve is older than what was
#      acknowledged).
#   1c. the same old-way log, the newest copy valid but resealed two
#      generations below the other (ressd-corrupt's
#      sb-newest-sealed-older-generation): the older copy wins, and the
#      loser is not the generation before it.  Oracle: refused.
#   2. a torn write: the same log with the *older* copy damaged.  Oracle:
#      activates; every block reads its newest data (no false refusal in a
#      log whose records span two laps).
#   3. no reuse, the log written the old way: from that log, a drain and 12
#      flushed writes that stay in the free space; remove; the older copy
#      put back as it was before the drain, the newest flipped.  The chain
#      from the older checkpoint is whole and its records carry the newer
#      checkpoint.  Oracle: activates; every block reads its newest data.
. "$RESSD_TOP/tests/lib/testlib.sh"

A=$RESSD_DISK_A B=$RESSD_DISK_B
LOGSZ=2048			# a 1 MiB log: 254 slots
T="0 $DISK_A_SECTORS ressd $A 0 $B 0 $LOGSZ 2 high_watermark 100"
D=/dev/mapper/snl
IMG=$TMPDIR/snl.img
N=110				# flushed writes of a phase: 220 slots

# spread blocks (never a stream), "<tag> <block>" repeated; read checks
cat >"$TMPDIR/snl.py" <<'EOF'
import os, sys
mode, dev, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
tags = sys.argv[4:]		# write: the tag; read: "tag:count" pairs
fd = os.open(dev, os.O_RDWR if mode == "write" else os.O_RDONLY)
bad = 0
for i in range(n):
    b = (i * 7919) % 200000
    if mode == "write":
        os.pwrite(fd, (b"%s %d\n" % (tags[0].encode(), b) * 1024)[:4096], b * 4096)
        os.fsync(fd)
        continue
    # read: "tag:count" pairs, the first count blocks have tag, and so on
    want = None
    k = i
    for t in tags:
        name, cnt = t.split(":")
        if k < int(cnt):
            want = (b"%s %d\n" % (name.encode(), b) * 1024)[:4096]
            break
        k -= int(cnt)
    got = os.pread(fd, 4096, b * 4096)
    if got != want:
        bad += 1
        if bad <= 5:
            at = next(j for j in range(4096) if got[j] != want[j])
            print("block %d (write %d), from byte %d: %r, not %r" %
                  (b, i, at, got[at:at + 16], want[at:at + 16]))
os.close(fd)
sys.exit(1 if bad else 0)
EOF
writes() { python3 "$TMPDIR/snl.py" write $D "$1" "$2" || fail "writing $2"; }
verify() {	# <when> <n> <tag:count>...
	local when=$1 n=$2
	shift 2
	echo 3 >/proc/sys/vm/drop_caches
	python3 "$TMPDIR/snl.py" read $D "$n" "$@" || fail "$when: acknowledged writes read back older data"
	echo "$when: $n blocks read back their newest data"
}
gen() { od -An -tu8 -j $(($1 * 4096 + 24)) -N8 "$IMG" | tr -d ' '; }
newest() { [ "$(gen 0)" -gt "$(gen 1)" ] && echo 0 || echo 1; }
flip() {	# <copy>: one bit of its generation, the checksum left as it is
	local off=$(($1 * 4096 + 24)) v
	v=$(od -An -tu1 -j $off -N1 "$IMG" | tr -d ' ')
	printf "\\$(printf '%03o' $((v ^ 1)))" |
		dd of="$B" bs=1 seek=$off conv=notrunc status=none || fail "flip"
	sync
}
# activate <what>: create with a copy in doubt, which recovery must have
# looked through the log for (else the case is void)
activate() {
	kmsg_take "before $1"
	dm_create snl "$T"
	kmsg_take "$1"
	grep -q "looking through the log for newer records" <<<"$KMSG" ||
		{ tail -n 5 <<<"$KMSG"; fail "$1: recovery did not look through the log"; }
}
restore() { dd if="$IMG" of="$B" bs=512 oflag=direct conv=notrunc status=none || fail "restore"; }
refused() {	# <what> <dmsetup create args...>: refused for the newer log
	local what=$1 msg
	shift
	kmsg_take "before $what"
	timeout -k 5 60 dmsetup create snl "$@" 2>/dev/null && return 1
	kmsg_take "$what"
	msg=$(sed -n 's/.*ressd-meta: recovery failed: //p' <<<"$KMSG" | head -n 1)
	dmsetup info snl >/dev/null 2>&1 && fail "$what: refused, but the device is there"
	[[ $msg == "Log is newer than its superblock"* ]] ||
		{ tail -n 5 <<<"$KMSG"; fail "$what: refused, but not for the newer log"; }
	grep -E "is not the newest|is newer:" <<<"$KMSG" | head -n 2
	echo "$what: refused: ${msg% (-*)}"
}

note "1. the newest copy lost after its region was reused"
zero_at "$B" 8 0
dm_create snl "$T"
writes $N one
dd if="$B" of="$TMPDIR/sb-pre" bs=4096 count=2 iflag=direct status=none || fail "copying the superblocks"
dmsetup message snl 0 drain || fail "drain"
[ "$(status_field snl 2)" = 0 ] || fail "the drain left $(status_field snl 2) blocks logged"
writes $N two
echo "status: $(dmsetup status snl)"
[ "$(status_field snl 2)" -ge $N ] || fail "the second writes are not all logged: void"
dm_remove snl
dd if="$B" of="$IMG" bs=512 count=$LOGSZ iflag=direct status=none || fail "copying the log"
new=$(newest)
echo "superblock generations: A $(gen 0), B $(gen 1): the newest is copy $new"
[ "$(gen "$new")" -gt $(($(gen $((1 - new))) + 1)) ] &&
	fail "the copies are $(gen 0) and $(gen 1): the older is not the generation before"
flip "$new"
activate "newest copy lost"
verify "newest copy lost" $N two:$N
dm_remove snl

note "1b. the same, the log written the old way (one copy a state)"
restore
old_way() {	# <copy>: put back the superblock it held before the drain
	dd if="$TMPDIR/sb-pre" of="$B" bs=4096 skip="$1" seek="$1" count=1 conv=notrunc \
		oflag=direct status=none || fail "putting back copy $1"
}
old_way $((1 - new))
flip "$new"
refused "the newest copy lost" --table "$T" ||
	{ verify "activated" $N two:$N; fail "activated, yet the checkpoint's region holds newer records"; }
refused "the newest copy lost, read-only" --readonly --table "$T" ||
	{ verify "activated read-only" $N two:$N; dm_remove snl; fail "a read-only table activated"; }

note "1c. the same, the newest copy resealed two generations below the other"
corrupt_build
restore
old_way $((1 - new))
dd if="$B" of="$TMPDIR/old-way.img" bs=512 count=$LOGSZ iflag=direct status=none || fail "copying the log"
"$MUT" list "$TMPDIR/old-way.img" >"$TMPDIR/mutations" 2>/dev/null || fail "ressd-corrupt list"
i=$(awk '$2 == "sb-newest-sealed-older-generation" { print $1 }' "$TMPDIR/mutations")
[ -n "$i" ] || fail "ressd-corrupt has no mutation sb-newest-sealed-older-generation"
"$MUT" apply "$TMPDIR/old-way.img" "$i" "$B" 0 >/dev/null || fail "ressd-corrupt apply"
refused "the newest copy resealed older" --table "$T" ||
	{ verify "activated" $N two:$N; fail "activated, yet the checkpoint's region holds newer records"; }

note "2. the older copy damaged (a torn write of it)"
restore
flip $((1 - new))
activate "older copy damaged"
verify "older copy damaged" $N two:$N
dd if="$B" of="$TMPDIR/sb-pre" bs=4096 count=2 iflag=direct status=none || fail "copying the superblocks"
dmsetup message snl 0 drain || fail "drain"
M=12
writes $M three
verify "and $M new writes" $N three:$M two:$((N - M))
dm_remove snl

note "3. the newest copy lost, its region not reused, the log written the old way"
dd if="$B" of="$IMG" bs=512 count=$LOGSZ iflag=direct status=none || fail "copying the log"
new=$(newest)
echo "superblock generations: A $(gen 0), B $(gen 1): the newest is copy $new"
old_way $((1 - new))
flip "$new"
activate "newest copy lost, no reuse"
verify "newest copy lost, no reuse" $N three:$M two:$((N - M))
dm_remove snl
echo "ok: a lost newest superblock copy loses nothing; a log written the old way is refused where it outran its superblock"

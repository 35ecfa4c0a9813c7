#!/bin/bash
# A write home to a block that is not logged, in flight when the mover
# starts filling its erase unit (I5).  A fill reads the unit's blocks that
# are not logged from home and writes the unit whole: had it read home
# before that write completed, its own write would carry the block's older
# data and land after the user's, losing an acknowledged write.  The fill
# first holds the unit's home writes and waits for those in flight
# (ressd_mover_fill()).  fill-units.sh slows home reads under a random
# writer; here the user's write is held in flight for certain: dm-delay
# holds every write to the normal area for 2.5 s, the unit's other blocks
# are logged, and the drain starts once dm-delay reports the write held.
# Oracle: every block of the unit reads back its newest data (the logged
# ones theirs, the 16 written home theirs, the rest what the disk held
# before), after the drain and after re-create; void unless the unit was
# written whole with blocks read from home.
. "$RESSD_TOP/tests/lib/testlib.sh"

A=$RESSD_DISK_A B=$RESSD_DISK_B
U=1024				# an erase unit of ssd-b's model (512 blocks)
D=/dev/mapper/fi

cat >"$TMPDIR/fi.py" <<'EOF'
import mmap, os, sys
mode, dev, tag, first, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
step = int(sys.argv[6]) if len(sys.argv) > 6 else 1
def block(b):
    return (b"%s %d\n" % (tag.encode(), b) * 1024)[:4096]
if mode == "home":			# one O_DIRECT write of n blocks: goes home
    buf = mmap.mmap(-1, n * 4096)
    buf.write(b"".join(block(first + i) for i in range(n)))
    fd = os.open(dev, os.O_WRONLY | os.O_DIRECT)
    os.pwritev(fd, [buf], first * 4096)
    os.close(fd)
elif mode == "log":			# spread single blocks, O_DIRECT: logged
    buf = mmap.mmap(-1, 4096)
    fd = os.open(dev, os.O_WRONLY | os.O_DIRECT)
    for i in range(n):
        buf.seek(0)
        buf.write(block(first + i * step))
        os.pwritev(fd, [buf], (first + i * step) * 4096)
    os.close(fd)
EOF
# the unit as the disk holds it now, then what each block must read
dd if="$A" of="$TMPDIR/unit" bs=4096 skip=$U count=512 iflag=direct status=none || fail "reading the unit"
expect() {
	cp "$TMPDIR/unit" "$TMPDIR/want"
	python3 - "$TMPDIR/want" $U <<'EOF'
import sys
path, u = sys.argv[1], int(sys.argv[2])
with open(path, "r+b") as f:
    for i in range(0, 512, 37):		# the logged blocks
        if 200 <= i < 216:
            continue
        f.seek(i * 4096); f.write((b"log %d\n" % (u + i) * 1024)[:4096])
    for i in range(200, 216):		# the write home
        f.seek(i * 4096); f.write((b"home %d\n" % (u + i) * 1024)[:4096])
EOF
}
check() {	# <when>
	echo 3 >/proc/sys/vm/drop_caches
	dd if=$D of="$TMPDIR/got" bs=4096 skip=$U count=512 iflag=direct status=none || fail "$1: read"
	cmp "$TMPDIR/got" "$TMPDIR/want" >/dev/null && { echo "$1: the unit reads back its newest data"; return; }
	cmp -l "$TMPDIR/got" "$TMPDIR/want" | awk '{ print int(($1 - 1) / 4096) }' | uniq | head -n 8 |
		while read -r i; do
			echo "block $((U + i)): $(dd if="$TMPDIR/got" bs=4096 skip="$i" count=1 status=none | head -c 12 | tr '\0\n' '. ')"
		done
	fail "$1: blocks of the unit read back older data"
}

zero_at "$B" 8 0
dm_create fi_o "0 $DISK_A_SECTORS delay $A 0 0 $A 0 2500"
t="0 $DISK_A_SECTORS ressd /dev/mapper/fi_o 0 $B 0 8192 4 high_watermark 100 dev_model $MODEL_SSD_B"
dm_create fi "$t"
python3 "$TMPDIR/fi.py" log $D log $U 14 37 || fail "logged writes"
[ "$(status_field fi 2)" -ge 13 ] || fail "the unit's blocks are not logged: $(dmsetup status fi)"
expect
t0=$(date +%s%N)
python3 "$TMPDIR/fi.py" home $D home $((U + 200)) 16 &
home=$!
# dm-delay's status: reads, writes and flushes it holds
for _ in $(seq 100); do
	[ "$(dmsetup status fi_o | awk '{ print $5 }')" -ge 1 ] && break
	sleep 0.05
done
[ "$(dmsetup status fi_o | awk '{ print $5 }')" -ge 1 ] ||
	fail "the write home is not held by dm-delay: void ($(dmsetup status fi_o))"
dmsetup message fi 0 drain || fail "drain"
wait $home || fail "the write home failed"
echo "write home and drain: $(( ($(date +%s%N) - t0) / 1000000 )) ms"
echo "after the drain: $(dmsetup status fi)"
[ "$(status_field fi 2)" = 0 ] || fail "the drain left blocks logged"
# status extras 15, 18: fill_read_bytes, units_whole
[ "$(status_field fi 18)" -ge 1 ] && [ "$(status_field fi 15)" -gt 0 ] ||
	fail "the unit was not filled: void ($(dmsetup status fi))"
check "after the drain"
dm_remove fi
dm_create fi "$t"
check "after re-create"
dm_remove fi
dm_remove fi_o
echo "ok: a fill waited for the write home in flight in its unit"

#!/bin/bash
# A part of a round that copies more than 256 blocks forward
# (mover_policy density with a large mover_batch).  The mover copies a
# part's sparse blocks forward a record's worth at a time, in one carrier
# bio of a page per block; a bio holds at most BIO_MAX_VECS (256) pages, and
# the block layer BUG()s on more: the chunk was min(mover_batch blocks - 1,
# the 336 entries a record holds).  Here mover_batch is 8192 sectors (1024
# blocks: a segment of 2048 slots, released in four parts of 512 or more)
# and the log's oldest region is built so that the one round the writes
# start copies about 1360 blocks forward: units of 64 KiB (sd-card's
# model), written in order, six in seven of them with one 4 KiB block and
# the rest with three apart (never a stream), so that every one-block unit
# is copied forward, within the round's bound (three quarters of its
# segment, 1536; half the room of a 16 MiB log at 70 % a part, about 600).
# After the round the writes left do not bring the log back to 70 %.
# Oracle: every block written reads back its own pattern after the round,
# after remove and re-create (replay of the copies) and after a drain; the
# run is void unless more than 4 x 256 blocks were copied forward (so
# that one part at least copied more than a bio holds).
. "$RESSD_TOP/tests/lib/testlib.sh"

LOG_SECTORS=32768			# 16 MiB: 4094 slots
MODEL=128:0:4:49996:187304:279900:1000000:830000:43000:6647741:6636589
NU=2500					# 64 KiB units: 156 MiB of the origin; 3214 writes
need=$((NU * 128))
[ "$DISK_A_SECTORS" -ge "$need" ] || fail "disk A has $DISK_A_SECTORS sectors, the test needs $need"

cat >"$TMPDIR/fwd.py" <<'EOF'
import mmap, os, sys

def blocks(nu):
    """the blocks written, in order: one for six units in seven, three apart for the rest"""
    for u in range(nu):
        if u % 7:
            yield [u * 16 + u % 16]
        else:
            yield [u * 16, u * 16 + 5, u * 16 + 10]

def pattern(b):
    head = b"ressd-fwd %d\n" % b
    return (head * (4096 // len(head) + 1))[:4096]

mode, dev, nu = sys.argv[1], sys.argv[2], int(sys.argv[3])
buf = mmap.mmap(-1, 4096)
fd = os.open(dev, (os.O_WRONLY if mode == "write" else os.O_RDONLY) | os.O_DIRECT)
n = bad = 0
for bs in blocks(nu):
    for b in bs:
        n += 1
        if mode == "write":
            buf[:] = pattern(b)
            if os.pwritev(fd, [buf], b * 4096) != 4096:
                sys.exit("short write at block %d" % b)
        else:
            if os.preadv(fd, [buf], b * 4096) != 4096 or buf[:] != pattern(b):
                bad += 1
                if bad <= 5:
                    print("block %d: %r" % (b, buf[:24]))
os.close(fd)
print("%s %d blocks" % (mode, n))
sys.exit(1 if bad else 0)
EOF

verify() {	# <when>
	python3 "$TMPDIR/fwd.py" read /dev/mapper/fc "$NU" >"$TMPDIR/verify.out" ||
		{ cat "$TMPDIR/verify.out"; fail "$1: blocks read back other data"; }
	echo "$1: $(cat "$TMPDIR/verify.out"), every one its own"
}

t="0 $DISK_A_SECTORS ressd $RESSD_DISK_A 0 $RESSD_DISK_B 0 $LOG_SECTORS 8"
t="$t mover_batch 8192 high_watermark 70 dev_model $MODEL mover_policy density"
zero_at "$RESSD_DISK_B" 8 0
dm_create fc "$t"
python3 "$TMPDIR/fwd.py" write /dev/mapper/fc "$NU" || fail "the writes"
# status extra 19: copy_forwards; wait for the round the writes started
copies=0
for _ in $(seq 120); do
	copies=$(status_field fc 19)
	[ "$copies" -gt 1024 ] && break
	sleep 0.5
done
echo "status after the writes: $(dmsetup status fc)"
echo "copied forward: $copies blocks; density threshold $(status_field fc 27)"
[ "$copies" -gt 1024 ] || fail "the round copied $copies blocks forward, not more than 4 x 256: void"
verify "after the round"
dm_remove fc
dm_create fc "$t"
verify "after re-create"
dmsetup message fc 0 drain || fail "drain"
verify "after the drain"
dm_remove fc
echo "ok: a round copied $copies blocks forward (a part more than a bio holds), every block its own after replay and drain"

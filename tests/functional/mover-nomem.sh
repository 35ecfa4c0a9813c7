#!/bin/bash
# A mover round that cannot allocate its buffers.  A round allocates them
# as it starts (its plan, pages for a batch, readahead); an allocation
# that failed made the round fail, and a failed round latches the target
# read-only ("the mover failed"): a moment of memory pressure, which is
# when reclaim writes through the target, made it refuse every write for
# good.  It now tries again later.  The UML debug kernels have failslab:
# the mover's next slab allocations fail (task-filter, the mover thread
# only; ignore-gfp-wait off: the round allocates with GFP_KERNEL).
# Oracle: failslab reports the failures injected (else the run is void);
# the target stays rw, the mover brings the log below its watermark
# anyway, and every block written reads back its own pattern, after the
# mover, after re-create and after a drain.
. "$RESSD_TOP/tests/lib/testlib.sh"

FS=/sys/kernel/debug/failslab
[ -d /sys/kernel/debug/tracing ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null
[ -d $FS ] || fail "this kernel has no failslab (CONFIG_FAILSLAB: the UML debug kernels have it)"
INJECT=3				# failures: the first rounds' allocations

D=/dev/mapper/nm
N=300					# blocks written, each with a flush: 600 slots
# 2 MiB log (510 slots), the mover from half of it
t="0 $DISK_A_SECTORS ressd $RESSD_DISK_A 0 $RESSD_DISK_B 0 4096 2 high_watermark 50"
zero_at "$RESSD_DISK_B" 8 0
dm_create nm "$t"
pid=$(pgrep -x kressd_mover) || fail "no kressd_mover thread"
[ "$(wc -w <<<"$pid")" = 1 ] || fail "more than one mover: $pid"

# the blocks written: spread (never a stream), each "nomem <block>" repeated
cat >"$TMPDIR/nm.py" <<'EOF'
import os, sys
mode, dev, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
fd = os.open(dev, os.O_RDWR)
bad = 0
for i in range(n):
    b = (i * 7919) % 200000
    want = (b"nomem %d\n" % b * 512)[:4096]
    if mode == "write":
        os.pwrite(fd, want, b * 4096)
        os.fsync(fd)
    elif os.pread(fd, 4096, b * 4096) != want:
        bad += 1
        print("block %d differs" % b)
os.close(fd)
sys.exit(1 if bad else 0)
EOF
verify() {	# <when>
	echo 3 >/proc/sys/vm/drop_caches
	python3 "$TMPDIR/nm.py" read $D $N | head -n 5
	[ "${PIPESTATUS[0]}" = 0 ] || fail "$1: blocks read back other data"
	echo "$1: $N blocks, every one its own"
}

echo N >$FS/ignore-gfp-wait
echo Y >$FS/task-filter
echo 0 >$FS/verbose			# no stack traces in the log
echo 100 >$FS/probability
echo 1 >$FS/interval
echo $INJECT >$FS/times
echo 1 >"/proc/$pid/make-it-fail"
trap 'echo 0 2>/dev/null >"/proc/$pid/make-it-fail"; echo 0 >$FS/probability
	echo N >$FS/task-filter' EXIT

python3 "$TMPDIR/nm.py" write $D $N || fail "the writes failed; the target is $(status_field nm 10)"
for _ in $(seq 60); do
	used=$(status_field nm 1)
	[ "$(cat $FS/times)" = 0 ] && [ "${used%%/*}" -lt 255 ] && break
	sleep 0.5
done
echo "status: $(dmsetup status nm)"
left=$(cat $FS/times)
[ "$left" = 0 ] || fail "failslab injected $((INJECT - left)) of $INJECT failures: void"
echo "failslab: $INJECT slab allocations of the mover failed"
[ "$(status_field nm 10)" = rw ] || fail "the target is $(status_field nm 10) after the mover could not allocate"
dmesg | grep -q "the mover failed" && fail "the kernel says the mover failed"
used=$(status_field nm 1)
[ "${used%%/*}" -lt 255 ] || fail "the log stayed at $used: the mover never completed a round"
[ "$(status_field nm 7)" -gt 0 ] || fail "moved_blocks 0"
echo "ok: rw, the log at $used, $(status_field nm 7) blocks moved home"
verify "after the mover"
dm_remove nm
dm_create nm "$t"
verify "after re-create"
dmsetup message nm 0 drain || fail "drain"
verify "after the drain"
dm_remove nm
echo "ok: a round that could not allocate was tried again; the target stayed rw, no data lost"

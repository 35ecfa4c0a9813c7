#!/bin/bash
# Pages that change while they are written (issue 12, defect 6).  The
# trailer's checksums are taken from the callers' pages; a page written
# through mmap can change under writeback, and replay would then drop a
# block as torn although it was flushed.  The target asks for stable pages
# (queue/stable_writes): writeback waits instead.  A writer rewrites mmap'd
# pages of the device while msync runs beside it; after a final msync, a
# commit and a re-create (recovery), every page holds its last content and
# recovery found no torn block.
. "$RESSD_TOP/tests/lib/testlib.sh"

A=$RESSD_DISK_A B=$RESSD_DISK_B SA=$DISK_A_SECTORS
zero_at $B 8 0
T="0 $SA ressd $A 0 $B 0 8192 2 high_watermark 100"
dm_create sp "$T"
D=/dev/mapper/sp
dm=$(grep -lx sp /sys/block/dm-*/dm/name | cut -d/ -f4)
sw=$(cat /sys/block/$dm/queue/stable_writes)
echo "stable_writes: $sw"
[ "$sw" = 1 ] || fail "the target does not ask for stable pages"

python3 - "$D" "$TMPDIR/expect" "${STABLE_SECONDS:-8}" <<'PY' || fail "the mmap writer failed"
import mmap, os, random, sys, threading, time
dev, out, secs = sys.argv[1], sys.argv[2], float(sys.argv[3])
PAGES = 256
fd = os.open(dev, os.O_RDWR)
mm = mmap.mmap(fd, PAGES * 4096, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
gen = [0] * PAGES
stop = time.monotonic() + secs
def page(p, g):
    line = ("page %6d gen %8d\n" % (p, g)).encode()
    return (line * (4096 // len(line) + 1))[:4096]
def syncer():
    while time.monotonic() < stop:
        mm.flush()
t = threading.Thread(target=syncer)
t.start()
rnd = random.Random(6)
n = 0
while time.monotonic() < stop:
    p = rnd.randrange(PAGES)
    gen[p] += 1
    mm[p * 4096:(p + 1) * 4096] = page(p, gen[p])
    n += 1
t.join()
mm.flush()
with open(out, "wb") as f:
    for p in range(PAGES):
        f.write(page(p, gen[p]))
print("rewrote pages %d times" % n)
PY
dmsetup message sp 0 commit || fail "commit"
echo "status: $(dmsetup status sp)"
dm_remove sp
kmsg_take "the mmap writer"
dm_create sp "$T"
rec=$(dmesg | grep -m1 'recovered')
echo "$rec"
torn=$(echo "$rec" | sed -n 's/.*, \([0-9]*\) torn,.*/\1/p')
[ "${torn:-x}" = 0 ] || fail "recovery dropped flushed blocks as torn: $rec"
cmp "$TMPDIR/expect" <(dd if=$D bs=4096 count=256 iflag=direct status=none) ||
	fail "a page does not hold its last content after recovery"
dm_remove sp
echo "pages rewritten under writeback: all durable, none torn"

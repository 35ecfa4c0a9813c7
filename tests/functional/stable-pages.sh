#!/bin/bash
# Pages that change while they are written (issue 12, defect 6).  The
# trailer's checksums are taken from the callers' pages; a page written
# through mmap can change under writeback, and replay would then drop a
# block as torn although it was flushed.  The target asks for stable pages
# (queue/stable_writes): writeback waits instead.  A writer rewrites mmap'd
# pages of the device while msync runs beside it; after a final msync, a
# commit and a re-create (recovery), every page holds its last content and
# recovery found no torn block.
#
# Then the same writer with a power cut (dm-flakey under both devices, as in
# powercut.sh) while pages change under writeback: after recovery every page
# is whole and holds a generation no older than the one its last msync
# before the cut made durable, and no newer than the last one written.
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

# ---- a power cut while pages change under writeback ----
SB=$DISK_B_SECTORS
trap 'dmsetup resume sp_a >/dev/null 2>&1; dmsetup resume sp_b >/dev/null 2>&1' EXIT
dm_create sp_a "$(flakey_pass $A $SA)"
dm_create sp_b "$(flakey_pass $B $SB)"
zero_at /dev/mapper/sp_b 8 0
T="0 $SA ressd /dev/mapper/sp_a 0 /dev/mapper/sp_b 0 8192 2 high_watermark 100"
dm_create sp "$T"
dd if=/dev/zero of=$D bs=4096 count=256 oflag=direct conv=fsync status=none ||
	fail "zeroing the pages"
python3 - "$D" "$TMPDIR/mm-done" "$TMPDIR/mm-go" <<'PY' &
import mmap, os, random, sys, threading, time
dev, out, go = sys.argv[1], sys.argv[2], sys.argv[3]
PAGES = 256
fd = os.open(dev, os.O_RDWR)
mm = mmap.mmap(fd, PAGES * 4096, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
gen = [0] * PAGES
syncs = []		# (monotonic ns when msync returned, gens written before it)
stop = False
def page(p, g):
    line = ("page %6d gen %8d\n" % (p, g)).encode()
    return (line * (4096 // len(line) + 1))[:4096]
def syncer():
    while not stop:
        snap = list(gen)	# each page was written before its gen counts
        mm.flush()
        syncs.append((time.monotonic_ns(), snap))
t = threading.Thread(target=syncer)
t.start()
rnd = random.Random(7)
open(go, "w").close()
end = None
while end is None or time.monotonic() < end:
    p = rnd.randrange(PAGES)
    mm[p * 4096:(p + 1) * 4096] = page(p, gen[p] + 1)
    gen[p] += 1
    if end is None and os.path.exists(go + ".cut"):
        end = time.monotonic() + 1.0	# write on into the void for 1 s
stop = True
t.join()
with open(out, "w") as f:
    f.write(" ".join(map(str, gen)) + "\n")
    for ns, snap in syncs:
        f.write("%d %s\n" % (ns, " ".join(map(str, snap))))
PY
mpid=$!
for i in $(seq 100); do [ -e "$TMPDIR/mm-go" ] && break; sleep 0.1; done
sleep 3
power_cut_load sp_a $A $SA sp_b $B $SB
cut=$(python3 -c 'import time; print(time.monotonic_ns())')
power_cut_switch sp_a sp_b
touch "$TMPDIR/mm-go.cut"
wait_pid $mpid 60 || stuck "the mmap writer does not stop after the cut"
wait $mpid || fail "the mmap writer failed"
dm_remove sp
dm_switch sp_a "$(flakey_pass $A $SA)"
dm_switch sp_b "$(flakey_pass $B $SB)"
kmsg_take "the power cut"
dm_create sp "$T"
dmesg | grep -m1 'recovered'
dd if=$D of="$TMPDIR/after" bs=4096 count=256 iflag=direct status=none ||
	fail "reading the pages back"
python3 - "$TMPDIR/mm-done" "$TMPDIR/after" "$cut" <<'PY' || fail "a page lost its durable content"
import re, sys
done, after, cut = sys.argv[1], sys.argv[2], int(sys.argv[3])
lines = open(done).read().split("\n")
last = list(map(int, lines[0].split()))
floor, nsync = [0] * len(last), 0
for l in lines[1:]:
    if not l:
        continue
    f = list(map(int, l.split()))
    if f[0] < cut:		# this msync returned before the cut
        floor, nsync = f[1:], nsync + 1
data = open(after, "rb").read()
bad = 0
for p in range(len(last)):
    b = data[p * 4096:(p + 1) * 4096]
    m = re.match(rb"page +(\d+) gen +(\d+)\n", b)
    g = int(m.group(2)) if m and int(m.group(1)) == p else None
    if b == bytes(4096) and floor[p] == 0:
        continue
    line = b[:m.end()] if m else b""
    whole = m and (line * (4096 // len(line) + 1))[:4096] == b
    if not whole or g is None or not floor[p] <= g <= last[p]:
        bad += 1
        if bad <= 10:
            print("page %d: %s, allowed gen %d..%d" % (p, "gen %d" % g if whole
                  else "torn or foreign", floor[p], last[p]))
print("%d pages, %d msyncs before the cut, %d pages violate" % (len(last), nsync, bad))
sys.exit(1 if bad or nsync == 0 else 0)
PY
dm_remove sp
dm_remove sp_a
dm_remove sp_b
echo "a power cut under writeback: every page whole, none older than its last msync"

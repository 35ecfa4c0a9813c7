#!/bin/bash
# A write larger than a record holds, with small_write_max above it.  A
# record takes at most 336 data blocks (and mover_batch/8 - 1), but
# small_write_max may be set up to 8184 sectors: a random write of more
# than 336 blocks was classified small, found no record it fits in, and
# went home counted in full_writes ("the log was full"), with log_mode auto
# also in the ghost log, while the log was empty.  Such bios reach the
# target when the writer's pages are physically contiguous: an O_DIRECT
# write from a transparent huge page comes in bios of over 1 MiB (the
# device mapper splits a normal write only at its targets' boundaries).
# Oracle: the 2 MiB write reaches the target in bios of which the first is
# larger than a record (else it would be logged: the run is void), goes
# home without a full_writes count and without using the log, and reads
# back its own pattern before and after re-create; small writes around it
# are still logged.
. "$RESSD_TOP/tests/lib/testlib.sh"

LOG_SECTORS=32768			# 16 MiB
cat >"$TMPDIR/big.py" <<'EOF'
import ctypes, mmap, os, sys

HUGE = 2 << 20
mode, dev, off = sys.argv[1], sys.argv[2], int(sys.argv[3])
def huge_kb(addr):
    """AnonHugePages of the mapping that holds @addr"""
    inside = False
    with open("/proc/self/smaps") as f:
        for l in f:
            w = l.split()
            if "-" in w[0] and ":" not in w[0]:
                lo, hi = (int(x, 16) for x in w[0].split("-"))
                inside = lo <= addr < hi
            elif inside and w[0] == "AnonHugePages:":
                return int(w[1])
    return 0

head = b"ressd-big %d\n" % off
want = (head * (HUGE // len(head) + 1))[:HUGE]
for attempt in range(20):		# a huge page may take compaction: try again
    area = mmap.mmap(-1, 2 * HUGE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    first = ctypes.c_char.from_buffer(area)
    base = ctypes.addressof(first)
    del first				# (an export would keep the area open)
    start = -base % HUGE		# the huge page's place in the area
    area.madvise(mmap.MADV_HUGEPAGE, 0, 2 * HUGE)
    buf = memoryview(area)[start:start + HUGE]
    buf[:] = want
    huge = huge_kb(base + start)
    if huge >= 2048 or attempt == 19:
        break
    buf.release()
    area.close()
    with open("/proc/sys/vm/compact_memory", "w") as f:
        f.write("1")
fd = os.open(dev, (os.O_WRONLY if mode == "write" else os.O_RDONLY) | os.O_DIRECT)
if mode == "write":
    if huge < 2048:
        sys.exit("no transparent huge page for the buffer (AnonHugePages %d kB)" % huge)
    if os.pwritev(fd, [buf], off) != HUGE:
        sys.exit("short write")
else:
    buf[:] = bytes(HUGE)
    if os.preadv(fd, [buf], off) != HUGE or buf != want:
        sys.exit("the 2 MiB at %d read back other data" % off)
os.close(fd)
print("%s 2 MiB at %d, buffer in a huge page (%d kB)" % (mode, off, huge))
EOF

[ -w /sys/kernel/mm/transparent_hugepage/enabled ] ||
	fail "this kernel has no transparent huge pages: the test needs them"
# the buffer asks for one (MADV_HUGEPAGE): "never" would refuse it
THP=/sys/kernel/mm/transparent_hugepage/enabled
thp_was=$(sed 's/.*\[\(.*\)\].*/\1/' "$THP")
trap 'echo "$thp_was" >"$THP"' EXIT
[ "$thp_was" = never ] && echo madvise >"$THP"
sync
echo 3 >/proc/sys/vm/drop_caches

t="0 $DISK_A_SECTORS ressd $RESSD_DISK_A 0 $RESSD_DISK_B 0 $LOG_SECTORS 4"
t="$t small_write_max 8184 mover_batch 8192"
zero_at "$RESSD_DISK_B" 8 0
dm_create big "$t"
OFF=$((300 << 20))			# 300 MiB: no write before it to continue
python3 "$TMPDIR/big.py" write /dev/mapper/big "$OFF" || fail "the 2 MiB write"
st=$(dmsetup status big)
echo "status after the write: $st"
# fields: 1 used/total 4 redirected 5 direct 11 full_writes 13 user_write_bytes
ubytes=$(status_field big 13)
[ "$ubytes" = $((2 << 20)) ] || fail "user_write_bytes $ubytes after a 2 MiB write"
# Its first bio continues nothing: one of at most 336 blocks (a record's
# worth) would have been logged.  None was: the write came in pieces of
# which the first was larger than a record.
[ "$(status_field big 4)" = 0 ] ||
	fail "the write reached the target in bios a record holds (redirected_writes $(status_field big 4)): void"
[ "$(status_field big 5)" -ge 1 ] || fail "direct_writes $(status_field big 5)"
[ "$(status_field big 11)" = 0 ] ||
	fail "a write too large for a record counted as sent home for a full log (full_writes $(status_field big 11))"
used=$(status_field big 1)
[ "${used%%/*}" = 0 ] || fail "the log holds $used slots after a write that went home"
echo "ok: $(status_field big 5) bios, the first over 336 blocks, went home; full_writes 0, log empty"
python3 "$TMPDIR/big.py" read /dev/mapper/big "$OFF" || fail "read back"
# small random writes are still logged
for b in 17 4099 90001; do
	make_block small "$b" | dd of=/dev/mapper/big bs=4096 seek="$b" oflag=direct status=none
done
[ "$(status_field big 4)" = 3 ] || fail "small writes: redirected_writes $(status_field big 4), not 3"
dm_remove big
dm_create big "$t"
python3 "$TMPDIR/big.py" read /dev/mapper/big "$OFF" || fail "read back after re-create"
for b in 17 4099 90001; do
	cmp <(make_block small "$b") <(dd if=/dev/mapper/big bs=4096 skip="$b" count=1 iflag=direct status=none) ||
		fail "block $b after re-create"
done
dm_remove big
echo "ok: a 2 MiB random write with small_write_max 8184 goes home as a large write; its data and the small writes' read back"

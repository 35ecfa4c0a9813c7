#!/bin/bash
# ext4 on top through a power cut (I1 and I2 with the writes a file system
# sends: jbd2 writes its commit blocks with PREFLUSH|FUA, so this is the
# source of flushes that carry data; fsync adds flushes of its own).
# dm-flakey under both devices, as in powercut.sh.  A writer creates files
# and rewrites earlier ones in place (small writes, which the target logs),
# fsyncs each file and its directory, and notes on tmpfs when each write
# began and when its fsyncs returned (CLOCK_MONOTONIC).  At a random moment
# both devices start dropping writes; the writer goes on for a second, then
# stops; the target is removed and re-created (recovery).  Then: mount
# (jbd2 replays its journal), unmount, fsck -fn clean, and every file whose
# last write's fsyncs returned before the cut, with no write begun after
# it, holds exactly that write's content.  Two cuts (POWERCUT_EXT4_CUTS),
# each on a fresh file system.
. "$RESSD_TOP/tests/lib/testlib.sh"

A=$RESSD_DISK_A B=$RESSD_DISK_B SA=$DISK_A_SECTORS SB=$DISK_B_SECTORS
M=/run/ressd-mnt
CUTS=${POWERCUT_EXT4_CUTS:-2}
NORMAL=$((256 * 2048))			# a 256 MiB file system
wpid=
cleanup() {
	[ -n "$wpid" ] && kill -KILL "$wpid" 2>/dev/null
	umount $M 2>/dev/null
	dmsetup resume pe_a >/dev/null 2>&1
	dmsetup resume pe_b >/dev/null 2>&1
}
trap cleanup EXIT
mkdir -p $M
dm_create pe_a "$(flakey_pass $A $SA)"
dm_create pe_b "$(flakey_pass $B $SB)"
FA=/dev/mapper/pe_a FB=/dev/mapper/pe_b
T="0 $NORMAL ressd $FA 0 $FB 0 8192 2 high_watermark 50"
dev=/dev/mapper/pe

for c in $(seq 1 "$CUTS"); do
	run_ms=$((2000 + RANDOM % 4000))
	note "cut $c: after $run_ms ms"
	zero_at $FB 8 0
	dm_create pe "$T"
	mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 $dev || fail mkfs.ext4
	mount $dev $M || fail mount
	rm -f "$TMPDIR/fs-events" "$TMPDIR/fs-stop"
	python3 - $M "$TMPDIR/fs-events" "$TMPDIR/fs-stop" $c <<'PY' &
import hashlib, os, random, sys, time
mnt, evf, stop, seed = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
rnd = random.Random(seed)
ev = open(evf, "w", buffering=1)
def content(n, g, size):
    h = hashlib.sha256(b"%d/%d" % (n, g)).digest()
    return (h * (size // 32 + 1))[:size]
sizes, gens, n = {}, {}, 0
dirs = [os.path.join(mnt, "d%d" % d) for d in range(4)]
for d in dirs:
    os.mkdir(d)
dfd = [os.open(d, os.O_RDONLY) for d in dirs]
for f in dfd:
    os.fsync(f)
while not os.path.exists(stop):
    if n < 8 or rnd.random() < 0.4:		# a new file
        f, g, size = n, 1, rnd.choice([4096, 8192, 12288, 65536, 200000])
        n += 1
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL
    else:					# rewrite one in place, same size
        f = rnd.randrange(n)
        g, size = gens[f] + 1, sizes[f]
        flags = os.O_WRONLY
    ev.write("start %d %d %d\n" % (f, g, time.monotonic_ns()))
    try:
        fd = os.open(os.path.join(dirs[f % 4], "f%d" % f), flags, 0o644)
        os.write(fd, content(f, g, size))
        os.fsync(fd)
        os.close(fd)
        os.fsync(dfd[f % 4])
    except OSError as e:		# after the cut anything goes
        ev.write("error %d %s\n" % (f, e))
        break
    ev.write("done %d %d %d %d\n" % (f, g, size, time.monotonic_ns()))
    sizes[f], gens[f] = size, g
ev.close()
PY
	wpid=$!
	sleep "$(printf '%d.%03d' $((run_ms / 1000)) $((run_ms % 1000)))"
	kill -0 $wpid 2>/dev/null || fail "the file writer died before the cut"
	power_cut_load pe_a $A $SA pe_b $B $SB
	cut=$(python3 -c 'import time; print(time.monotonic_ns())')
	power_cut_switch pe_a pe_b
	sleep 1
	touch "$TMPDIR/fs-stop"
	wait_pid $wpid 120 || stuck "the file writer does not stop after the cut"
	wait $wpid
	wpid=
	umount $M 2>/dev/null || umount -l $M
	dm_remove pe
	dm_switch pe_a "$(flakey_pass $A $SA)"
	dm_switch pe_b "$(flakey_pass $B $SB)"
	kmsg_take "the cut"

	dm_create pe "$T"
	dmesg | grep -m1 'recovered'
	mount $dev $M || fail "mount after recovery"
	python3 - $M "$TMPDIR/fs-events" "$cut" <<'PY' || fail "a file lost its fsynced content"
import hashlib, os, sys
mnt, evf, cut = sys.argv[1], sys.argv[2], int(sys.argv[3])
def content(n, g, size):
    h = hashlib.sha256(b"%d/%d" % (n, g)).digest()
    return (h * (size // 32 + 1))[:size]
durable, later, writes = {}, set(), 0
for l in open(evf):
    w = l.split()
    if w[0] == "done":
        f, g, size, t = map(int, w[1:])
        if t < cut:
            durable[f] = (g, size)
            later.discard(f)
        writes += 1
    elif w[0] == "start":
        f, g, t = map(int, w[1:])
        if f in durable and durable[f][0] < g:
            later.add(f)
bad = 0
for f, (g, size) in sorted(durable.items()):
    if f in later:
        continue
    p = os.path.join(mnt, "d%d" % (f % 4), "f%d" % f)
    try:
        data = open(p, "rb").read()
    except OSError as e:
        data = None
    if data != content(f, g, size):
        bad += 1
        if bad <= 10:
            print("file f%d: %s, want generation %d (%d bytes)" %
                  (f, "missing" if data is None else "%d bytes, other content" % len(data), g, size))
checked = len(durable) - len(durable.keys() & later)
print("%d writes fsynced, %d files checked (fsynced before the cut, not written after), %d bad"
      % (writes, checked, bad))
sys.exit(1 if bad or checked == 0 else 0)
PY
	umount $M || fail "umount after the check"
	fsck.ext4 -fn $dev || fail "fsck after recovery"
	dm_remove pe
done
dm_remove pe_a
dm_remove pe_b
echo "powercut-ext4 passed: $CUTS cuts"

#!/bin/bash
# The data path and its figures: which writes go to the log (4 KiB random:
# nearly all; 1 MiB sequential: none), index memory per mapped block with a
# log filled by lone writes (under 40 bytes), split reads, the mover between
# its watermarks, and the messages commit, drain and mover pause|resume,
# with fio verifying the data throughout.  Prints the figures it measures.
# The phases use disjoint regions, so that the first one's data can be
# verified at the end:
#   rand4k [0, 256M)  fill [256M, 512M)  seq1m [512M, 576M)  wm [600M, 1G)
# and a last target with the smallest log (its own data, verified by fio).
. "$RESSD_TOP/tests/lib/testlib.sh"

A=$RESSD_DISK_A B=$RESSD_DISK_B
LOGSZ=65536				# 32 MiB: 8190 slots
zero_at "$B" 8 0
T="0 $DISK_A_SECTORS ressd $A 0 $B 0 $LOGSZ"
dm_create dp "$T"
dev=/dev/mapper/dp
f() { status_field dp "$1"; }
used() { f 1 | cut -d/ -f1; }
slots=$(f 1 | cut -d/ -f2)

fio_run() {	# <name> <fio args...>
	local name=$1
	shift
	fio --name="$name" --filename=$dev --ioengine=libaio --direct=1 \
		--group_reporting "$@" >"$TMPDIR/$name.txt" 2>&1 ||
		{ tail -n 20 "$TMPDIR/$name.txt"; fail "fio $name"; }
}

note "4 KiB random writes with the mover paused: redirected to the log"
dmsetup message dp 0 mover pause || fail "mover pause"
r0=$(f 4) d0=$(f 5)
fio_run rand4k --rw=randwrite --bs=4k --iodepth=32 --io_size=16M --size=256M \
	--verify=crc32c --do_verify=0 --verify_state_save=0
r1=$(f 4) d1=$(f 5)
red=$((r1 - r0)) dir=$((d1 - d0))
echo "figure: 4 KiB random writes: $red redirected, $dir direct: $((100 * red / (red + dir)))% redirected"
[ $((red + dir)) -eq 4096 ] || fail "counted $((red + dir)) writes, fio wrote 4096"
[ $((100 * red / 4096)) -ge 95 ] || fail "only $red of 4096 random writes redirected"
[ "$(f 2)" -gt 0 ] || fail "nothing mapped after redirected writes"

note "reads of the logged data: fio verifies what it wrote (served from the log)"
s0=$(f 6)
fio_run rand4k --rw=randwrite --bs=4k --iodepth=32 --io_size=16M --size=256M \
	--verify=crc32c --verify_only=1 --verify_state_save=0
note "a sequential read across logged and home blocks is split"
dd if=$dev of=/dev/null bs=1M count=256 iflag=direct status=none || fail "read"
s1=$(f 6)
echo "figure: split reads: $((s1 - s0))"
[ "$s1" -gt "$s0" ] || fail "no split read counted"

note "fill the log (mover still paused): index bytes per mapped block"
# The index costs about 34 bytes a log slot (a 32-byte node and a bucket
# root for every 4 slots), allocated with the target; per mapped
# block add what the record trailers take.  Lone writes (queue depth 1) are
# the worst case: each one used to cost a record header of its own (64 bytes
# per mapped block); their data now shares one trailer per full record or
# flush.  Design rule: under 40 bytes per mapped 4 KiB block.
fio_run fill --rw=randwrite --bs=4k --iodepth=1 --io_size=24M --offset=256M --size=256M \
	--randrepeat=0
u=$(used) m=$(f 2) ib=$(f 3) full=$(f 11)
echo "figure: log $u/$slots slots used, $m blocks mapped, index $ib bytes = $((ib / m)).$(( (ib * 10 / m) % 10 )) bytes per mapped block, $((ib / slots)) per slot; $full writes went home (log full)"
[ "$u" -gt $((slots * 9 / 10)) ] || fail "log not filled: $u/$slots"
[ "$full" -gt 0 ] || fail "no write passed through with a full log"
[ "$m" -gt 0 ] && [ "$m" -lt "$u" ] || fail "mapped blocks $m against $u used slots"
[ $((ib / slots)) -le 34 ] || fail "index uses $((ib / slots)) bytes per log slot (34 expected)"
[ $((ib * 10 / m)) -lt 400 ] || fail "index uses $((ib / m)).$(( (ib * 10 / m) % 10 )) bytes per mapped block (rule: under 40)"
[ "$(f 7)" -eq 0 ] || fail "the paused mover moved blocks"

note "1 MiB sequential writes: none redirected (mover resumed)"
dmsetup message dp 0 mover resume || fail "mover resume"
r0=$(f 4) d0=$(f 5)
fio_run seq1m --rw=write --bs=1M --iodepth=4 --io_size=64M --offset=512M --size=64M
r1=$(f 4) d1=$(f 5)
echo "figure: 1 MiB sequential writes: $((r1 - r0)) redirected, $((d1 - d0)) direct"
[ $((r1 - r0)) -eq 0 ] || fail "$((r1 - r0)) sequential 1 MiB writes redirected"
[ $((d1 - d0)) -eq 64 ] || fail "$((d1 - d0)) direct writes for 64 x 1 MiB"

note "the resumed mover brings the log below the high watermark"
for i in $(seq 1 120); do
	[ "$(used)" -lt $((slots / 2)) ] && break
	sleep 1
done
echo "figure: after the mover: $(used)/$slots used, moved_blocks $(f 7), mover_writes $(f 8)"
[ "$(used)" -lt $((slots / 2)) ] || fail "mover did not go below the high watermark: $(used)/$slots"
[ "$(f 7)" -gt 0 ] && [ "$(f 8)" -gt 0 ] || fail "mover counters did not move"
[ "$(f 7)" -ge "$(f 8)" ] || fail "fewer blocks moved than mover bios"

note "commit writes metadata"
c0=$(f 9)
dd if=/dev/urandom of=$dev bs=4k count=1 seek=150000 oflag=direct status=none
dmsetup message dp 0 commit || fail "commit"
[ "$(f 9)" -gt "$c0" ] || fail "commit wrote nothing"

note "drain moves everything home; the data is still there"
dmsetup message dp 0 drain || fail "drain"
[ "$(used)" -eq 0 ] || fail "after drain: $(used) slots used"
[ "$(f 2)" -eq 0 ] || fail "after drain: $(f 2) blocks mapped"
fio_run rand4k --rw=randwrite --bs=4k --iodepth=32 --io_size=16M --size=256M \
	--verify=crc32c --verify_only=1 --verify_state_save=0
dmsetup message dp 0 mover pause
if dmsetup message dp 0 drain 2>/dev/null; then
	fail "drain with a paused mover should be refused"
fi
dmsetup message dp 0 mover resume

note "the watermarks: fill past high with small writes, the mover stops near low"
dmsetup message dp 0 set high_watermark 40 || fail "set"
dmsetup message dp 0 set low_watermark 10 || fail "set"
run_watched 300 dp fio_run wm --rw=randwrite --bs=4k --iodepth=16 --io_size=20M \
	--offset=600M --size=400M --randrepeat=0
for i in $(seq 1 120); do
	[ "$(used)" -le $((slots * 40 / 100)) ] && break
	sleep 1
done
echo "figure: after the watermark run: $(used)/$slots used, mover pauses for foreground I/O $(f 12)"
[ "$(used)" -le $((slots * 40 / 100)) ] || fail "above the high watermark: $(used)/$slots"
dm_remove dp

# The smallest log (16 slots, RESSD_INVAL_RESERVE of them kept for
# invalidations, a record of one block and its trailer a write) never
# reaches a high_watermark of 90 %: the mover must start where the log
# first refuses a small write for room, or every small write goes home.
note "the smallest log, high_watermark 90: the mover starts where small writes run out of room"
zero_at "$B" 8 0
dm_create dq "0 $DISK_A_SECTORS ressd $A 0 $B 0 144 6 mover_batch 16 small_write_max 8 high_watermark 90"
dev=/dev/mapper/dq
fio_run tiny --rw=randwrite --bs=4k --iodepth=1 --io_size=2M --size=256M \
	--verify=crc32c --do_verify=1 --verify_state_save=0
echo "figure: 512 writes to a log of 16 slots: $(status_field dq 4) redirected," \
	"$(status_field dq 11) sent home for room, $(status_field dq 7) moved home"
[ "$(status_field dq 7)" -gt 0 ] || fail "the mover never ran: the log stayed below high_watermark"
# (the old code logged 4, then sent every write home)
[ "$(status_field dq 4)" -gt 16 ] || fail "only $(status_field dq 4) of 512 small writes logged"
# low_watermark 50 lies above that mark: a round must still go below the
# mark, or it finds nothing to move and the thread starts it again at once.
note "low_watermark above that mark: the mover goes below it and then sleeps"
dmsetup message dq 0 set low_watermark 50 || fail "set low_watermark"
m0=$(status_field dq 7)
fio_run tiny2 --rw=randwrite --bs=4k --iodepth=1 --io_size=1M --size=256M \
	--offset=256M --verify=crc32c --do_verify=1 --verify_state_save=0
sleep 1
pid=$(pgrep -x kressd_mover) || fail "no kressd_mover thread"
ticks() { awk '{ print $14 + $15 }' "/proc/$pid/stat"; }
t0=$(ticks)
sleep 2
t1=$(ticks)
echo "figure: low_watermark 50: $(( $(status_field dq 7) - m0 )) moved home," \
	"mover thread CPU over 2 s idle: $((t1 - t0)) ticks"
[ $((t1 - t0)) -le 20 ] || fail "the mover spins with nothing to move ($((t1 - t0)) ticks in 2 s)"
dm_remove dq
echo "data path checks passed"

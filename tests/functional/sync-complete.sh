#!/bin/bash
# A device that completes each bio in its submitter's context (brd, a RAM
# disk: no interrupt, no queue), with data_csum 0.  There the log write in
# flight completes inside the task that submits, and the chunks of small
# writes without crc32c go from the writers' own tasks: the task that ends
# a plug of writes writes them (aio writes too), and a task whose inline
# write completed within its submission while they waited writes them at
# the end of its plug (__ressd_log_plug_due()) or at once, with a bio had
# without waiting (6.12, whose plugs end inside the submission), instead of
# the worker after a hop.  The other tests' disks complete in interrupts,
# so only this one takes those paths:
#
#  - fio, 4 KiB random writes, libaio QD32 from one job and from 4, fio's
#    crc32c verified after the writes (and the last run's again after
#    re-create); the writers' tasks must have written at least a quarter of
#    the log writes, and on 6.1 the worker (worker_log_writes) at most 4 a
#    record (metadata_commits).  From 4 jobs: 6.1 about 0.7 a record, the
#    tasks 90 % (before, the worker 7 a record, then 2); 6.12 about 3.5 a
#    record, the tasks 40 % (before, 4.9 and 11 %);
#  - the self-checking writer (threads, fsync, FUA, discards, reads, the
#    mover running), its blocks checked as it goes and after it, then
#    again with a power cut while it runs (both devices, dm-flakey over
#    brd, dropping writes at once): after re-create every write that a
#    flush or FUA made durable before the cut reads back.
# brd is not in the UML debug kernels; vm-6.1 and vm-6.12 run this test.
. "$RESSD_TOP/tests/lib/testlib.sh"
. "$RESSD_TOP/tests/lib/writer.sh"

ORIGIN=131072		# 64 MiB of /dev/ram0, through dm-flakey
LOGSZ=32768		# a 16 MiB log on the next 16 MiB, through dm-flakey
NBLK=4096		# the writer's blocks: the first 16 MiB
SECS=${SYNC_COMPLETE_WRITER_SECONDS:-6}
RAM=/dev/ram0

[ -e /sys/module/brd ] && fail "brd is loaded already: this test needs a RAM disk of its own"
modprobe brd rd_nr=1 rd_size=$(((ORIGIN + LOGSZ) / 2)) || fail "modprobe brd"
wpid=
cleanup_brd() {
	[ -z "$wpid" ] || kill -KILL "$wpid" 2>/dev/null
	dmsetup remove sc 2>/dev/null
	dmsetup remove sc_a 2>/dev/null
	dmsetup remove sc_b 2>/dev/null
	rmmod brd 2>/dev/null
}
trap cleanup_brd EXIT
[ -b $RAM ] || fail "no $RAM after modprobe brd"
writer_build

dm_create sc_a "$(flakey_pass $RAM $ORIGIN)"
dm_create sc_b "$(flakey_pass $RAM $LOGSZ $ORIGIN)"
zero_at /dev/mapper/sc_b 8 0
T="0 $ORIGIN ressd /dev/mapper/sc_a 0 /dev/mapper/sc_b 0 $LOGSZ 2 data_csum 0"
dm_create sc "$T"
dev=/dev/mapper/sc

common=(--filename=$dev --ioengine=libaio --direct=1 --size=16M --bs=4k
	--rw=randwrite --iodepth=32 --verify=crc32c --verify_state_save=0
	--group_reporting)
for jobs in 1 4; do
	note "fio: 4 KiB random writes, QD32, $jobs job(s), verified"
	s0=$(status_field sc 26) m0=$(status_field sc 9) w0=$(status_field sc 28)
	fio --name=w$jobs --numjobs=$jobs --offset_increment=16M \
		--do_verify=1 --verify_fatal=1 "${common[@]}" >"$TMPDIR/fio-$jobs.txt" 2>&1 ||
		{ tail -n 30 "$TMPDIR/fio-$jobs.txt"; fail "fio write+verify, $jobs job(s)"; }
	grep -E "WRITE:|READ:" "$TMPDIR/fio-$jobs.txt"
	s=$(($(status_field sc 26) - s0)) m=$(($(status_field sc 9) - m0))
	w=$(($(status_field sc 28) - w0))
	echo "log writes: $s of the writers' tasks, $w of the worker; records: $m"
	[ "$m" -gt 0 ] || fail "no record written ($(dmsetup status sc))"
	[ $((4 * s)) -ge $((s + w)) ] ||
		fail "$jobs job(s): the writers' tasks wrote $s of $((s + w)) log writes (the worker $w, $m records)"
	# 6.1 plugs each direct write: its end finds the inline write done.
	[ "$(uname -r | cut -d. -f1-2)" != 6.1 ] || [ "$w" -le $((4 * m)) ] ||
		fail "$jobs job(s): the worker wrote $w of the log writes ($s the writers' tasks, $m records)"
done
dmsetup message sc 0 commit || fail "commit"
dm_remove sc
dm_create sc "$T"
fio --name=w4 --numjobs=4 --offset_increment=16M --verify_only=1 --verify_fatal=1 \
	"${common[@]}" >"$TMPDIR/fio-v.txt" 2>&1 ||
	{ tail -n 30 "$TMPDIR/fio-v.txt"; fail "fio verify after re-create"; }
echo "ok: fio's data after re-create"

note "the writer"
J=$TMPDIR/sync-complete.journal
rm -f "$J"
writer_run sc "$J" 7272 "writer"
[ "$(status_field sc 7)" -gt 0 ] || fail "the mover did not run: $(dmsetup status sc)"
[ "$(status_field sc 26)" -gt 0 ] || fail "no log write from the writers' tasks: $(dmsetup status sc)"

note "the writer again, and a power cut while it runs"
W=$TMPDIR/sync-complete.writer
"$WRITER" write --dev $dev --blocks $NBLK --seconds 300 --seed 7273 --journal "$J" \
	--mix w4=30,w8=12,seq=8,dsync=6,discard=4,read=30,fsync=3,wb=4,wc=4 >"$W" 2>&1 &
wpid=$!
wait_for_line "$W" '^started' 120 $wpid
sleep 3
# Stop checking reads: after the cut they may see dropped writes.
kill -USR1 $wpid
wait_for_line "$W" '^reads-off' 30 $wpid
dmsetup reload sc_a --table "$(flakey_drop $RAM $ORIGIN)" &&
	dmsetup reload sc_b --table "$(flakey_drop $RAM $LOGSZ $ORIGIN)" || fail "loading the cut"
kill -0 $wpid 2>/dev/null || { cat "$W"; fail "the writer died before the cut"; }
cut=$("$WRITER" now)
power_cut_switch sc_a sc_b
sleep 1
kill -TERM $wpid 2>/dev/null
wait $wpid
rc=$?
wpid=
cat "$W"
# After the cut anything goes (exit 2: the target failed I/O), but no violation.
[ $rc -ne 1 ] || fail "the writer reported a violation"
show_status sc "after the cut"
dm_remove sc
dm_switch sc_a "$(flakey_pass $RAM $ORIGIN)"
dm_switch sc_b "$(flakey_pass $RAM $LOGSZ $ORIGIN)"
dm_create sc "$T"
writer_verify $dev "$J" "after the cut" crash "$cut"
dm_remove sc
dm_remove sc_a
dm_remove sc_b
echo "sync-complete passed"

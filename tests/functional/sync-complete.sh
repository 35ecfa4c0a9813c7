#!/bin/bash
# A device that completes each bio in its submitter's context (brd, a RAM
# disk: no interrupt, no queue), with data_csum 0.  There the log write in
# flight completes inside the task that submits, and the chunks of small
# writes without crc32c go from the writers' own tasks: the task that ends
# a plug of writes writes them (aio writes too), and so does a task inside
# whose plug the log write before them completed (__ressd_log_plug_due()),
# instead of the worker after a hop.  The other tests' disks complete in
# interrupts, so only this one takes those paths:
#
#  - fio, 4 KiB random writes, libaio QD32 from one job and from 4, fio's
#    crc32c verified after the writes (and the last run's again after
#    re-create); the worker may have written no more log writes
#    (worker_log_writes) than there are records (metadata_commits): the
#    writes that wait go out in their own tasks' chunks (before, the
#    worker wrote about 7 a record from 4 jobs);
#  - the self-checking writer (threads, fsync, FUA, discards, the mover
#    running), then a power cut of the log device (dm-flakey dropping
#    writes): every write a flush or FUA made durable reads back after
#    re-create.
# brd is not in the UML debug kernels: the vm layers run this test.
. "$RESSD_TOP/tests/lib/testlib.sh"
. "$RESSD_TOP/tests/lib/writer.sh"

ORIGIN=131072		# 64 MiB of /dev/ram0
LOGSZ=32768		# a 16 MiB log on the next 16 MiB, through dm-flakey
NBLK=4096		# the writer's blocks: the first 16 MiB
SECS=${SYNC_COMPLETE_WRITER_SECONDS:-6}
RAM=/dev/ram0

[ -e /sys/module/brd ] && fail "brd is loaded already: this test needs a RAM disk of its own"
modprobe brd rd_nr=1 rd_size=$(((ORIGIN + LOGSZ) / 2)) || fail "modprobe brd"
cleanup_brd() {
	dmsetup remove sc 2>/dev/null
	dmsetup remove sc_b 2>/dev/null
	rmmod brd 2>/dev/null
}
trap cleanup_brd EXIT
[ -b $RAM ] || fail "no $RAM after modprobe brd"
writer_build

log_pass() { echo "0 $LOGSZ flakey $RAM $ORIGIN 1 0"; }
log_drop() { echo "0 $LOGSZ flakey $RAM $ORIGIN 0 1 1 drop_writes"; }
dm_create sc_b "$(log_pass)"
zero_at /dev/mapper/sc_b 8 0
T="0 $ORIGIN ressd $RAM 0 /dev/mapper/sc_b 0 $LOGSZ 2 data_csum 0"
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
	[ "$w" -le "$m" ] ||
		fail "$jobs job(s): the worker wrote $w of the log writes ($s the writers' tasks, $m records)"
done
dmsetup message sc 0 commit || fail "commit"
dm_remove sc
dm_create sc "$T"
fio --name=w4 --numjobs=4 --offset_increment=16M --verify_only=1 --verify_fatal=1 \
	"${common[@]}" >"$TMPDIR/fio-v.txt" 2>&1 ||
	{ tail -n 30 "$TMPDIR/fio-v.txt"; fail "fio verify after re-create"; }
echo "ok: fio's data after re-create"

note "the writer, then a power cut of the log device"
J=$TMPDIR/sync-complete.journal
rm -f "$J"
writer_run sc "$J" 7272 "writer"
[ "$(status_field sc 7)" -gt 0 ] || fail "the mover did not run: $(dmsetup status sc)"
[ "$(status_field sc 26)" -gt 0 ] || fail "no log write from the writers' tasks: $(dmsetup status sc)"
dmsetup reload sc_b --table "$(log_drop)" || fail "reload sc_b"
cut=$("$WRITER" now)
dmsetup suspend --nolockfs sc_b && dmsetup resume sc_b || fail "switching sc_b to dropping"
dm_remove sc
dm_switch sc_b "$(log_pass)"
dm_create sc "$T"
writer_verify $dev "$J" "after the cut" crash "$cut"
dm_remove sc
dm_remove sc_b
echo "sync-complete passed"

#!/bin/bash
# "drain" racing a suspend and a remove (issue 12, defect 8).  A drain runs
# inside the table's SRCU read section (a message); a suspend marks the
# target suspending, which stops the mover, and then waits for that section
# to end.  Before the fix the drain waited for a log that no longer
# emptied, and the suspend (or remove) for the drain: both for ever.  Now
# the drain returns EBUSY once a suspend begins.  The origin sits behind
# dm-delay (1 s a write) so that the drain is still running when the suspend
# comes; before the suspend, small writes keep arriving (elsewhere on the
# device), so that the mover's round in progress cannot empty the log by
# itself.  A remove (the device must be closed: no writes beside it) must
# end the drain as well.
# Afterwards a drain completes and every block holds its data.  Last, two
# drains, the first one interrupted while its round runs: the second one
# must still end (below).
. "$RESSD_TOP/tests/lib/testlib.sh"

A=$RESSD_DISK_A B=$RESSD_DISK_B SA=$DISK_A_SECTORS
dm_create dr_org "0 $SA delay $A 0 0 $A 0 0"
O=/dev/mapper/dr_org D=/dev/mapper/dr
zero_at $B 8 0
T="0 $SA ressd $O 0 $B 0 16384 2 high_watermark 100"
FIO=(--name=dr --filename=$D --rw=randwrite --bs=4k --size=64M --direct=1 --ioengine=psync
	--randseed=8 --verify=crc32c --verify_state_save=0)

fill() {	# 600 small random writes into the log; the mover stays idle
	fio "${FIO[@]}" --number_ios=600 --do_verify=0 --output="$TMPDIR/fio.txt" ||
		{ cat "$TMPDIR/fio.txt"; fail "fio fill"; }
	[ "$(status_field dr 2)" -gt 500 ] || fail "the log holds too little: $(dmsetup status dr)"
}

# drain_then <what> [bg]: start a drain, let it run (with small writes
# beside it: bg), then <what> (suspend or remove), which must finish; the
# drain must end too.
drain_then() {
	bpid=
	dm_switch dr_org "0 $SA delay $A 0 0 $A 0 1000"
	if [ "${2:-}" = bg ]; then
		fio --name=bg --filename=$D --rw=randwrite --bs=4k --offset=128M --size=64M \
			--direct=1 --ioengine=psync --rate_iops=40 --time_based --runtime=8 \
			--output="$TMPDIR/bg.txt" &
		bpid=$!
	fi
	sleep 1
	dmsetup message dr 0 drain >"$TMPDIR/drain.out" 2>&1 & dpid=$!
	sleep 3
	kill -0 $dpid 2>/dev/null || { cat "$TMPDIR/drain.out"; fail "the drain ended before the $1"; }
	dmsetup "$1" dr & spid=$!
	wait_pid $spid 90 || stuck "$1 did not finish in 90 s beside a drain"
	wait $spid || fail "$1 failed"
	wait_pid $dpid 30 || stuck "the drain did not end after the $1"
	wait $dpid && fail "the drain reported success although the $1 interrupted it"
	echo "drain ended: $(tr '\n' ' ' <"$TMPDIR/drain.out")"
	echo "ok: $1 beside a drain"
	[ "$1" = suspend ] && { dmsetup resume dr || fail "resume"; }
	if [ -n "$bpid" ]; then
		wait_pid $bpid 60 || stuck "the background writes did not finish"
		wait $bpid || { cat "$TMPDIR/bg.txt"; fail "background writes"; }
	fi
}

dm_create dr "$T"
fill
drain_then suspend bg
dm_switch dr_org "0 $SA delay $A 0 0 $A 0 0"
dmsetup message dr 0 drain || fail "a drain after the resume"
[ "$(status_field dr 2)" = 0 ] || fail "the log is not empty after a drain: $(dmsetup status dr)"
fio "${FIO[@]}" --number_ios=600 --verify_only --output="$TMPDIR/fio.txt" ||
	{ cat "$TMPDIR/fio.txt"; fail "fio verify after the drain"; }

fill
drain_then remove
dm_switch dr_org "0 $SA delay $A 0 0 $A 0 0"
dm_create dr "$T"
fio "${FIO[@]}" --number_ios=600 --verify_only --output="$TMPDIR/fio.txt" ||
	{ cat "$TMPDIR/fio.txt"; fail "fio verify after the remove"; }

# Two drains, the first one killed (SIGKILL) while its round runs,
# the second one asked after a small write the first one's round does not
# hold.  The mover runs below high_watermark while a drain is asked: the
# first one to leave turned that off for both, and the second one waited
# for a log the mover no longer emptied (for ever on an idle device).
# (The round of 600 blocks takes several seconds at 1 s a write home; each
# dmsetup is given 2 s to reach the kernel: /proc/<pid>/wchan would say
# where it sleeps, but reading it trips KASAN in the UML 6.12 kernel's
# own __get_wchan().  A first drain that ends before the kill makes the
# run void.)
fill
dm_switch dr_org "0 $SA delay $A 0 0 $A 0 1000"
dmsetup message dr 0 drain >"$TMPDIR/drain-a.out" 2>&1 & apid=$!
sleep 2				# its round has taken the log's records
dd if=/dev/urandom of=$D bs=4k seek=40000 count=1 oflag=direct status=none || fail "a small write"
dmsetup message dr 0 drain >"$TMPDIR/drain-b.out" 2>&1 & bpid=$!
sleep 2
kill -0 $apid 2>/dev/null || fail "the first drain ended before it was interrupted: void"
kill -KILL $apid	# dmsetup holds SIGINT back while in its ioctl
wait $apid && fail "the interrupted drain reported success"
wait_pid $bpid 60 || { kill -INT $bpid; stuck "the second drain did not end after the first one was interrupted"; }
wait $bpid || { cat "$TMPDIR/drain-b.out"; fail "the second drain failed"; }
[ "$(status_field dr 2)" = 0 ] || fail "the log is not empty after the second drain: $(dmsetup status dr)"
echo "ok: a drain goes on when another one is interrupted"
dm_switch dr_org "0 $SA delay $A 0 0 $A 0 0"
dm_remove dr
dm_remove dr_org
echo "drain beside suspend, remove and another drain passed"

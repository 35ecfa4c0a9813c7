#!/bin/bash
# Soak (make soak): for $SOAK_SECONDS (default 1800) the self-checking writer
# and fio with verification run against one target while a controller
# suspends and resumes it, reloads its table, changes tunables, pauses and
# resumes the mover and commits; the log is small, so the mover runs all the
# time and the log wraps many times.  Each cycle ends in one of three ways:
#
#   clean    the writer stops; every block is checked against the journal
#            (live: nothing completed may be missing) and the target stays
#   recreate the same, then the target is removed and created again
#            (recovery of a cleanly stopped log) and checked again
#   cut      a power cut (dm-flakey drops every write below the target, as
#            in tests/functional/powercut.sh); recovery; every block must hold data no
#            older than its newest write durable at the cut (crash mode).  The
#            journal starts afresh afterwards.
#
# The journal carries on across clean and recreate cycles, so data written
# many cycles (and reloads, and mover rounds) ago is still checked.  fio
# writes and verifies its own region (4-64 KiB random writes, crc32c) once a
# cycle, before any cut.  Prints one line a cycle and a summary; fails on the
# first violation, fio verify error, hang (run_watched) or kernel report.
#
#   SOAK_SECONDS   total time (default 1800)
#   SOAK_SEED      seed of the controller's choices (default: time)
#   SOAK_TRACE=1   trace every command (set -x) into soak.trace in the results
. "$RESSD_TOP/tests/lib/testlib.sh"
. "$RESSD_TOP/tests/lib/writer.sh"

A=$RESSD_DISK_A B=$RESSD_DISK_B
SA=$DISK_A_SECTORS SB=$DISK_B_SECTORS
SECONDS_TOTAL=${SOAK_SECONDS:-1800}
SEED=${SOAK_SEED:-$(date +%s)}
NBLK=16384			# writer: blocks [0, 16384), 64 MiB
FIO_OFF=$((NBLK * 4096))	# fio: the 32 MiB after it
FIO_SIZE=32M
LOG=8192			# a 4 MiB log: it wraps every few seconds
RANDOM=$SEED
wpid=

cleanup() {
	[ -n "$wpid" ] && kill -KILL "$wpid" 2>/dev/null
	dmsetup resume sk >/dev/null 2>&1
	dmsetup resume sk_a >/dev/null 2>&1
	dmsetup resume sk_b >/dev/null 2>&1
}
trap cleanup EXIT

if [ "${SOAK_TRACE:-0}" = 1 ]; then
	exec 7>>"${RESSD_RES:-$TMPDIR}/soak.trace"
	BASH_XTRACEFD=7
	PS4='+ $(date +%T.%N | cut -c1-12) '
	set -x
fi
writer_build
dm_create sk_a "$(flakey_pass $A $SA)"
dm_create sk_b "$(flakey_pass $B $SB)"
FA=/dev/mapper/sk_a FB=/dev/mapper/sk_b
zero_at $FB 8 0
T="0 $SA ressd $FA 0 $FB 0 $LOG 4 high_watermark 40 mover_batch 256"
dm_create sk "$T"
echo "soak: $SECONDS_TOTAL s, seed $SEED, table: $T"

J=$TMPDIR/soak.journal
W=$TMPDIR/soak.writer
rm -f "$J"
start=$(date +%s)
cycle=0 n_clean=0 n_recreate=0 n_cut=0 n_susp=0 n_reload=0 n_set=0 n_pause=0
n_commit=0 n_fio=0 lost_total=0 journal_runs=0

sleep_ms() { sleep "$(printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)))"; }

# reap <pid> <seconds> <what>: wait for a process that was told to stop; if
# it is still there after <seconds> (stuck in I/O), show the blocked tasks
# and the target's state, and fail.
reap() {
	local end=$((SECONDS + $2))
	while [ $SECONDS -lt $end ] && kill -0 "$1" 2>/dev/null; do
		sleep 0.5
	done
	if kill -0 "$1" 2>/dev/null; then
		echo "$3 (pid $1) did not exit in $2 s: $(dmsetup status sk 2>&1)"
		cat "/proc/$1/stack" 2>/dev/null
		echo w >/proc/sysrq-trigger
		dmesg | tail -n 120
		fail "$3 is stuck"
	fi
	wait "$1"
}

# One controller action on the running target; each must finish within
# 120 s (run_watched shows the blocked tasks and fails otherwise).
act() {
	local hw
	case $((RANDOM % 6)) in
	0)
		run_watched 120 sk dmsetup suspend sk
		run_watched 120 sk dmsetup resume sk
		n_susp=$((n_susp + 1)) ;;
	1)
		# a reload with the table the target reports (its current tunables)
		dmsetup reload sk --table "$(dmsetup table sk)" || fail "reload"
		run_watched 120 sk dmsetup resume sk
		n_reload=$((n_reload + 1)) ;;
	2)
		hw=$((20 + RANDOM % 70))
		run_watched 120 sk dmsetup message sk 0 set high_watermark $hw
		n_set=$((n_set + 1)) ;;
	3)
		run_watched 120 sk dmsetup message sk 0 mover pause
		sleep_ms $((200 + RANDOM % 800))
		run_watched 120 sk dmsetup message sk 0 mover resume
		n_pause=$((n_pause + 1)) ;;
	*)
		run_watched 120 sk dmsetup message sk 0 commit
		n_commit=$((n_commit + 1)) ;;
	esac
}

while [ $(($(date +%s) - start)) -lt "$SECONDS_TOTAL" ]; do
	cycle=$((cycle + 1))
	seed=$((SEED + cycle))
	case $((RANDOM % 4)) in 0) how=cut ;; 1) how=recreate ;; *) how=clean ;; esac
	"$WRITER" write --dev /dev/mapper/sk --blocks $NBLK --seconds 600 --seed $seed \
		--journal "$J" >"$W" 2>&1 &
	wpid=$!
	journal_runs=$((journal_runs + 1))
	wait_for_line "$W" '^started' 300 $wpid

	# fio in its own region, with the writer and the controller going on
	fio --name=soak --filename=/dev/mapper/sk --offset=$FIO_OFF --size=$FIO_SIZE \
		--io_size=16M --rw=randwrite --bsrange=4k-64k --ioengine=libaio --iodepth=8 \
		--direct=1 --verify=crc32c --verify_fatal=1 --do_verify=1 --verify_state_save=0 \
		--randseed=$seed >"$TMPDIR/fio.txt" 2>&1 &
	fpid=$!
	busy_ms=$((10000 + RANDOM % 20000))
	t0=$(date +%s%N)
	while [ $((($(date +%s%N) - t0) / 1000000)) -lt $busy_ms ] || kill -0 $fpid 2>/dev/null; do
		kill -0 $wpid 2>/dev/null || { cat "$W"; fail "cycle $cycle: the writer died"; }
		act
		sleep_ms $((300 + RANDOM % 1500))
		if [ $((($(date +%s%N) - t0) / 1000000)) -gt 600000 ]; then
			echo w >/proc/sysrq-trigger
			dmesg | tail -n 60
			fail "cycle $cycle: fio did not finish in 600 s: $(dmsetup status sk)"
		fi
	done
	wait $fpid || { tail -n 30 "$TMPDIR/fio.txt"; fail "cycle $cycle: fio verify"; }
	n_fio=$((n_fio + 1))

	if [ $how = cut ]; then
		kill -USR1 $wpid
		wait_for_line "$W" '^reads-off' 60 $wpid
		power_cut_load sk_a $A $SA sk_b $B $SB
		cut=$("$WRITER" now)
		power_cut_switch sk_a sk_b
		sleep_ms $((300 + RANDOM % 1500))
		kill -KILL $wpid
		reap $wpid 60 "the writer, killed after the cut"
		rc=$?
		wpid=
		[ $rc -ne 1 ] || { cat "$W"; fail "cycle $cycle: the writer reported a violation"; }
		run_watched 120 sk dmsetup remove --retry sk
		dmsetup reload sk_a --table "$(flakey_pass $A $SA)" && dmsetup resume sk_a &&
			dmsetup reload sk_b --table "$(flakey_pass $B $SB)" && dmsetup resume sk_b ||
			fail "restoring flakey"
		dm_create sk "$T"
		writer_verify /dev/mapper/sk "$J" "cycle $cycle after the cut" crash "$cut"
		lost=$(writer_field "$TMPDIR/verify.out" "older")
		lost_total=$((lost_total + ${lost:-0}))
		rm -f "$J"		# a fresh journal after a crash
		n_cut=$((n_cut + 1))
	else
		kill -TERM $wpid
		reap $wpid 120 "the writer, stopped"
		rc=$?
		wpid=
		[ $rc -eq 0 ] || { cat "$W"; fail "cycle $cycle: writer exit $rc"; }
		writer_verify /dev/mapper/sk "$J" "cycle $cycle"
		if [ $how = recreate ]; then
			run_watched 120 sk dmsetup remove --retry sk
			dm_create sk "$T"
			writer_verify /dev/mapper/sk "$J" "cycle $cycle after re-creation"
			n_recreate=$((n_recreate + 1))
		else
			n_clean=$((n_clean + 1))
		fi
	fi
	echo "cycle $cycle ($how) at $(($(date +%s) - start)) s: $(grep -m1 '^verify ' "$TMPDIR/verify.out"); status $(dmsetup status sk | cut -d' ' -f4-)"
done

dm_remove sk
dm_remove sk_a
dm_remove sk_b
echo "soak passed: $cycle cycles in $(($(date +%s) - start)) s (seed $SEED): $n_clean clean, $n_recreate re-created, $n_cut power cuts ($lost_total acknowledged non-durable blocks lost, as allowed); $n_fio fio write+verify runs; $n_susp suspend/resume, $n_reload reloads, $n_set tunable changes, $n_pause mover pauses, $n_commit commits; 0 violations"

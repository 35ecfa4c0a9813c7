#!/bin/bash
# The benchmark protocol (Documentation: ftlsim.md), inside the guest that
# scripts/bench.sh boots.  For each preset: one dm-ftlsim device (virtual
# time) over the scratch disk; for each stack (and each sweep point): the
# device in the same state (tests/bench/lib.sh precondition), the same space carved above
# the emulator (tests/bench/lib.sh), a fresh file system, then each
# workload:
#   randw4k   fio 4 KiB random writes over a file of 8x the reserved area
#   hotw4k    the same, 90 % of them to the file's first tenth (hot and cold
#             blocks; not in the default list)
#   mixed     fio 4 KiB random 70 % reads / 30 % writes over the same file
#   postmark  Postmark, scaled down
#   sqlite    sqlite3 (Python's module), small transactions, each committed
#             with the library's default rollback journal and fsyncs
# Each workload: prepare, settle (sync + write everything home), drop
# caches, zero the ftlsim counters, run, sync -> record "work"; settle ->
# record "drained".  Then, for the presets in BENCH_SWEEP_PRESETS, the
# sweeps of the reserved size and of N (records tagged sweep=...).
#
# usage: bench-guest.sh <out dir> <module dir>
# Parameters come from the environment (scripts/bench.sh sets them).
BENCH_OUT=$1 BENCH_MOD=$2
BENCH_DISK=${BENCH_DISK:-/dev/vda}
exec >"$BENCH_OUT/guest.log" 2>&1	# one boot per preset: the host keeps each
. "$(dirname "$0")/lib.sh"
trap 'echo $? >"$BENCH_OUT/guest.rc"' EXIT
HERE=$(cd "$(dirname "$0")" && pwd)

PRESETS=${BENCH_PRESETS:-ssd-a ssd-b ssd-c}
STACKS=${BENCH_STACKS:-raw ressd writecache writeboost bcache f2fs}
WORKLOADS=${BENCH_WORKLOADS:-randw4k mixed postmark sqlite}
R_MIB=${BENCH_RESERVED_MIB:-32}
R=$((R_MIB * 2048))
SPAN_MIB=$((8 * R_MIB))				# fio's file: 8x the reserved area
RANDW_IOS=${BENCH_RANDW_IOS:-16384}
MIXED_IOS=${BENCH_MIXED_IOS:-16384}
PM_FILES=${BENCH_PM_FILES:-2000}
PM_TRANS=${BENCH_PM_TRANS:-10000}
SQL_ROWS=${BENCH_SQL_ROWS:-200000}
SQL_TRANS=${BENCH_SQL_TRANS:-1000}
export PRECOND_RANDW=${BENCH_PRECOND_RANDW:-32768}

dmesg -C
bench_load_modules
bench_sysctl
if [ -n "${BENCH_WB_KO:-}" ] && ! insmod "$BENCH_WB_KO"; then
	echo "SKIP writeboost: insmod $BENCH_WB_KO failed: $(dmesg | tail -n 1)" >>"$BENCH_OUT/records.txt"
	BENCH_WB_KO=
fi
echo "CONFIG reserved_mib=$R_MIB fio_span_mib=$SPAN_MIB randw_ios=$RANDW_IOS mixed_ios=$MIXED_IOS postmark_files=$PM_FILES postmark_transactions=$PM_TRANS sqlite_rows=$SQL_ROWS sqlite_transactions=$SQL_TRANS disk_mib=$(( $(blockdev --getsz "$BENCH_DISK") / 2048 )) precondition_ssd_c_randw=$PRECOND_RANDW kernel=$(uname -r) dirty_background_bytes=$(cat /proc/sys/vm/dirty_background_bytes) dirty_expire_centisecs=$(cat /proc/sys/vm/dirty_expire_centisecs)" >>"$BENCH_OUT/records.txt"

wl_randw4k() {	# <prepare|run>
	case $1 in
	prepare)
		[ -e $BENCH_MNT/fio.file ] ||
			dd if=/dev/zero of=$BENCH_MNT/fio.file bs=1M count="$SPAN_MIB" oflag=direct status=none ||
			bench_die "writing the fio file"
		;;
	run)
		run_counted fio --name=randw --filename=$BENCH_MNT/fio.file --size="${SPAN_MIB}M" \
			--rw=randwrite --bs=4k --direct=1 --ioengine=psync --number_ios="$RANDW_IOS" \
			--randrepeat=0 --randseed=4242 --norandommap --random_generator=tausworthe64 \
			--end_fsync=1 --output="$BENCH_TMP/fio.txt"
		OPS=$RANDW_IOS
		;;
	esac
}
wl_hotw4k() {
	case $1 in
	prepare) wl_randw4k prepare ;;
	run)
		run_counted fio --name=hotw --filename=$BENCH_MNT/fio.file --size="${SPAN_MIB}M" \
			--rw=randwrite --bs=4k --direct=1 --ioengine=psync --number_ios="$RANDW_IOS" \
			--random_distribution=zoned:90/10:10/90 \
			--randrepeat=0 --randseed=4242 --norandommap --random_generator=tausworthe64 \
			--end_fsync=1 --output="$BENCH_TMP/fio.txt"
		OPS=$RANDW_IOS
		;;
	esac
}
wl_mixed() {
	case $1 in
	prepare) wl_randw4k prepare ;;
	run)
		run_counted fio --name=mixed --filename=$BENCH_MNT/fio.file --size="${SPAN_MIB}M" \
			--rw=randrw --rwmixread=70 --bs=4k --direct=1 --ioengine=psync \
			--number_ios="$MIXED_IOS" --randrepeat=0 --randseed=4343 --norandommap \
			--random_generator=tausworthe64 --end_fsync=1 --output="$BENCH_TMP/fio.txt"
		OPS=$MIXED_IOS
		;;
	esac
}
wl_postmark() {
	case $1 in
	prepare)
		rm -f $BENCH_MNT/fio.file
		rm -rf $BENCH_MNT/pm
		mkdir -p $BENCH_MNT/pm
		;;
	run)
		cat >"$BENCH_TMP/pm.cfg" <<EOF
set location $BENCH_MNT/pm
set number $PM_FILES
set transactions $PM_TRANS
set size 512 16384
set subdirectories 10
set read 4096
set write 4096
set buffering false
set seed 42
set report terse
run $BENCH_TMP/pm.out
quit
EOF
		run_counted postmark "$BENCH_TMP/pm.cfg"
		OPS=$PM_TRANS
		;;
	esac
}
wl_sqlite() {
	case $1 in
	prepare)
		rm -rf $BENCH_MNT/pm $BENCH_MNT/fio.file
		# The database is built once in memory and copied in.
		if [ ! -e "$BENCH_TMP/bench.db" ]; then
			/usr/bin/python3 "$HERE/sqlite-tx.py" load "$BENCH_TMP/bench.db" "$SQL_ROWS" >>"$BENCH_TMP/cmd.log" 2>&1 ||
				bench_die "sqlite load"
		fi
		cp "$BENCH_TMP/bench.db" $BENCH_MNT/bench.db || bench_die "copying the database"
		;;
	run)
		run_counted /usr/bin/python3 "$HERE/sqlite-tx.py" run $BENCH_MNT/bench.db "$SQL_ROWS" "$SQL_TRANS"
		OPS=$SQL_TRANS
		;;
	esac
}

# traced_run <stack> <workload>: is this run traced (TRACE set; a workload
# of BENCH_TRACE_WORKLOADS, default randw4k, of raw or of a dm-ressd stack)?
traced_run() {
	[ -n "${TRACE:-}" ] && case " ${BENCH_TRACE_WORKLOADS:-randw4k} " in *" $2 "*) ;; *) false ;; esac &&
		{ [ "$1" = raw ] || [ "${1%%:*}" = ressd ]; }
}

# run_stack <stack> <workloads...>: one stack on the current ftlsim device:
# create it with a fresh file system, run each workload, remove it.  The
# randw4k runs (BENCH_TRACE_WORKLOADS) of raw and of each dm-ressd stack are
# traced with blktrace when TRACE is set (the LBA-over-time picture: raw and ressd, the
# defaults; tools/model/ftl-replay.py names the writes that cost merges),
# and when the stack's first workload is traced, so is everything before
# its run, from the stack's creation (trace-<preset>-<stack>-prep.txt: the
# device's state when the run begins, for the replay).
run_stack() {
	local st=$1 k0 k1 t0 t1 traced prep=
	shift
	if traced_run "$st" "$1"; then
		prep=$BENCH_OUT/trace-$FTL_PRESET-$st-prep.txt
		trace_start
	fi
	k0=$(kmem_kib)
	stack_create "$st"
	k1=$(kmem_kib)
	grep -q "^SETTINGS stack=$st " "$BENCH_OUT/records.txt" ||
		echo "SETTINGS stack=$st $STACK_SETTINGS" >>"$BENCH_OUT/records.txt"
	fs_make
	say "$FTL_PRESET${SWEEP:+ $SWEEP} $st: created"
	for WORKLOAD in "$@"; do
		say "$FTL_PRESET $st $WORKLOAD: prepare"
		"wl_$WORKLOAD" prepare
		stack_settle
		if [ -n "$prep" ]; then
			trace_stop "$prep"
			prep=
		fi
		phase_start
		traced=
		if traced_run "$st" "$WORKLOAD"; then
			traced=$BENCH_OUT/trace-$FTL_PRESET-$st$([ "$WORKLOAD" = randw4k ] || echo "-$WORKLOAD").txt
			trace_start
		fi
		say "$FTL_PRESET $st $WORKLOAD: run"
		OPS=0
		"wl_$WORKLOAD" run
		sync
		# Reads count as work only for the mixed workload (elsewhere
		# they are the program's own files or the page cache).
		[ "$WORKLOAD" = mixed ] || RUN_RCHAR=0
		record work user_write_bytes="$RUN_WCHAR" user_read_bytes="$RUN_RCHAR" wall_s="$RUN_WALL" ops="$OPS" kmem_kib=$((k1 - k0))
		t0=$(date +%s.%N)
		stack_settle
		t1=$(date +%s.%N)
		record drained user_write_bytes="$RUN_WCHAR" user_read_bytes="$RUN_RCHAR" wall_s="$RUN_WALL" ops="$OPS" kmem_kib=$((k1 - k0)) settle_wall_s="$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')"
		[ -z "$traced" ] || trace_stop "$traced"
		say "$FTL_PRESET $st $WORKLOAD: wall ${RUN_WALL}s; $(dmsetup status ftl | cut -d' ' -f6) $(dmsetup status ftl | tr ' ' '\n' | grep '^wa=')"
		check_kernel_log "$FTL_PRESET-$st-$WORKLOAD"
	done
	stack_remove
	say "$FTL_PRESET $st: removed"
}

# sweep <preset>: fio 4 KiB random writes (randw4k) over the same file,
# raw and dm-ressd (defaults), (1) with reserved areas of about 1.25 %,
# 3.1 % and 6.25 % of the file (12.5 % is the main run's point), (2) with
# the preset's number of open log blocks N replaced by each of
# BENCH_SWEEP_N (the main run has the preset's own N; log-block presets
# only).
sweep() {
	local preset=$1 r0=$R span=$SPAN_MIB d n
	for d in 80 32 16; do
		R=$(( span * 2048 / d / 8 * 8 ))
		SWEEP=reserved=$R
		say "sweep $preset: reserved area $R sectors ($span MiB file)"
		precondition "$preset"
		run_stack ressd randw4k
	done
	R=$r0
	SWEEP=
	[ "$preset" != ssd-c ] || return 0	# page-mapped: no log blocks
	for n in ${BENCH_SWEEP_N-2 4 16}; do
		dm_remove ftl
		ftl_create "$preset" 2 open_logs "$n"
		SWEEP=open_logs=$n
		say "sweep $preset: N = $n open log blocks"
		precondition "$preset"
		run_stack raw randw4k
		precondition "$preset"
		run_stack ressd randw4k
	done
	SWEEP=
	dm_remove ftl
	ftl_create "$preset"
}

for preset in $PRESETS; do
	ftl_create "$preset"
	say "preset $preset: $S sectors, reserved area $R sectors"
	# Per-preset choices: BENCH_STACKS_ssd_b, BENCH_WORKLOADS_ssd_b, ...
	v=BENCH_STACKS_${preset//-/_}
	pstacks=${!v:-$STACKS}
	v=BENCH_WORKLOADS_${preset//-/_}
	pworkloads=${!v:-$WORKLOADS}
	TRACE=1
	for st in $pstacks; do
		if [ "${st%%:*}" = writeboost ] && [ -z "${BENCH_WB_KO:-}" ]; then
			continue
		fi
		precondition "$preset"
		# shellcheck disable=SC2086
		run_stack "$st" $pworkloads
	done
	TRACE=
	case " ${BENCH_SWEEP_PRESETS:-} " in
	*" $preset "*)
		case " $pworkloads " in
		*" randw4k "*) sweep "$preset" ;;
		*) echo "SKIP sweep $preset: randw4k is not among its workloads" >>"$BENCH_OUT/records.txt" ;;
		esac
		;;
	esac
	dm_remove ftl
done
check_kernel_log end
say "done"
exit 0

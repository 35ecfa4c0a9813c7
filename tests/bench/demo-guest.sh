#!/bin/bash
# The demo, inside the guest (scripts/demo.sh boots it): one emulated ssd-a
# (dm-ftlsim, virtual time) on the scratch disk; the same 4 KiB random-write
# workload on ext4 on the raw device, then on ext4 on dm-ressd over the same
# device and space; blktrace of the writes that reach the emulated SSD.
#
# usage: demo-guest.sh <out dir> <module dir>
# Writes <out>/records.txt, <out>/trace-<stack>.txt (time sector bytes of
# each write queued to the ftlsim device), <out>/guest.log, <out>/guest.rc.
BENCH_OUT=$1 BENCH_MOD=$2
BENCH_DISK=${BENCH_DISK:-/dev/vda}
exec >"$BENCH_OUT/guest.log" 2>&1
. "$(dirname "$0")/lib.sh"
trap 'echo $? >"$BENCH_OUT/guest.rc"' EXIT

PRESET=${DEMO_PRESET:-ssd-a}
R=$(( ${DEMO_RESERVED_MIB:-16} * 2048 ))	# reserved area, sectors
SPAN_MIB=${DEMO_SPAN_MIB:-128}			# the file the workload writes in
NR_WRITES=${DEMO_WRITES:-8192}			# 4 KiB writes in the measured phase
STACKS=${DEMO_STACKS:-raw ressd}
# dm-ressd as ressdsetup sets it up for a device whose model it knows: the
# emulated device's own cost model, density-first cleaning (Documentation/
# dm-ressd.rst); DEMO_RESSD_OPTS="" shows the defaults instead.
RESSD_OPTS=${DEMO_RESSD_OPTS-dev_model preset mover_policy density high_watermark 90}

dmesg -C
bench_load_modules
bench_sysctl
ftl_create "$PRESET"
say "ftlsim $PRESET: $S sectors; reserved area $R sectors; file $SPAN_MIB MiB; $NR_WRITES writes"
echo "CONFIG preset=$PRESET disk_sectors=$S reserved_sectors=$R span_mib=$SPAN_MIB writes=$NR_WRITES kernel=$(uname -r)" >"$BENCH_OUT/records.txt"

WORKLOAD=randw4k
for st in $STACKS; do
	ftl_reset_all
	stack_create "$st"
	echo "SETTINGS stack=$st $STACK_SETTINGS" >>"$BENCH_OUT/records.txt"
	fs_make
	say "$st: laying out the $SPAN_MIB MiB file"
	dd if=/dev/zero of=$BENCH_MNT/file bs=1M count="$SPAN_MIB" oflag=direct status=none ||
		bench_die "writing the file"
	stack_settle
	phase_start

	trace_start
	say "$st: $NR_WRITES random 4 KiB writes (fio, O_DIRECT, psync, queue depth 1)"
	run_counted fio --name=randw --filename=$BENCH_MNT/file --size="${SPAN_MIB}M" \
		--rw=randwrite --bs=4k --direct=1 --ioengine=psync --number_ios="$NR_WRITES" \
		--randrepeat=0 --randseed=4242 --norandommap --random_generator=tausworthe64 \
		--end_fsync=1 --output="$BENCH_TMP/fio-$st.txt"
	sync
	record work user_write_bytes="$RUN_WCHAR" wall_s="$RUN_WALL"
	say "$st: after the workload: $(dmsetup status ftl | cut -d' ' -f6-8)"
	t0=$(date +%s.%N)
	stack_settle
	t1=$(date +%s.%N)
	record drained user_write_bytes="$RUN_WCHAR" wall_s="$RUN_WALL" settle_wall_s="$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')"
	say "$st: after drain: $(dmsetup status ftl | cut -d' ' -f6-8)"
	trace_stop "$BENCH_OUT/trace-$st.txt"
	say "$st: $(wc -l <"$BENCH_OUT/trace-$st.txt") writes traced"
	check_kernel_log "$st"
	stack_remove
done
dm_remove ftl
check_kernel_log end
say "done"
exit 0

#!/bin/bash
# The CPU overhead benchmark (make bench-cpu), inside the guest that
# scripts/bench-cpu.sh boots: dm-ressd against dm-linear on one RAM disk
# (brd), so that the device costs next to nothing and what differs is the
# target's own work.  Both targets map the same origin range of /dev/ram0
# (the first SPAN MiB) and exist side by side; dm-ressd's log is the next
# LOG MiB of the same RAM disk.  Cases, in this order:
#
#   read_empty_qd1/_qd32  4 KiB random reads, nothing logged
#   seqwrite_1m           1 MiB sequential writes (index empty)
#   read_full_qd1/_qd32   4 KiB random reads after the log was filled with
#                         4 KiB random writes over the read span (mover
#                         paused; reads hit a mix of log and home)
#   randwrite_qd1/_qd32   4 KiB random writes, mover resumed (default
#                         watermarks); the log is drained before each
#                         dm-ressd run and the drain is measured apart;
#   randwrite_qd32_4j     the same with 4 jobs of QD32 each (fio numjobs,
#                         group_reporting): the CPUs busy;
#                         the random writes also on dm-writecache (SSD
#                         mode, defaults, its cache as large as dm-ressd's
#                         log, on the same RAM disk), the in-kernel target
#                         of the same kind, for reference (CPU_PEERS);
#                         with CPU_CD_VARIANT=<us>, also dm-ressd with
#                         commit_delay_us=<us> (target ressd_cd)
#
# Every run is fio, O_DIRECT, time based; qd1 = psync, qd32 = libaio.  Each
# repetition of a case is one fio invocation with one job per target, run
# one after the other, their order rotated each repetition.  CPU: fio's
# usr/sys (the fio job's rusage) and /proc/stat deltas of the whole guest,
# read by fio's exec_prerun/exec_postrun just before the first and just
# after the last I/O of each job (so kernel threads, the dm-ressd worker and
# mover and interrupts are counted; fio's start-up is not).
#
# usage: cpu-guest.sh <out dir> <module dir>
# Writes <out>/records.txt (CONFIG, FILL and REC lines), <out>/fio/*.json,
# <out>/guest.log, <out>/guest.rc.
# Knobs: CPU_REPS (5), CPU_RUNTIME (3 s per run), CPU_SPAN_MIB (192),
# CPU_LOG_MIB (128), CPU_QD (32), CPU_FILL_PCT (90), CPU_CASES (all),
# CPU_CD_VARIANT (unset: none; <us>: random writes also on dm-ressd with
# commit_delay_us=<us>), CPU_PERF (unset; a case: after its repetitions,
# one more dm-ressd run of it under perf record -a -g, reported by symbol in
# <out>/perf-<case>.txt; not counted in the table), CPU_PERF_FREQ (unset:
# perf's default sampling frequency; samples a second and CPU), CPU_CRC32C (unset:
# dm-ressd's choice at load, the fastest crc32c driver; a driver's name,
# e.g. crc32c-intel: dm-ressd loaded with csum_driver=<name>; under software
# emulation the crc32 instruction costs about 30 us a 4 KiB block, the
# table-driven crc32c-generic about 5 us),
# CPU_PEERS (writecache: the random-write cases also on dm-writecache;
# empty: dm-linear and dm-ressd only),
# CPU_SQLITE_TXNS (300: sqlite3 commits timed a run on ext4 over each
# target, after the cases; 0: none; dm-ressd's status before and after
# each run gives its log writes per commit), CPU_RESSD_ARGS (unset: more
# of dm-ressd's table line: a count and key-value pairs).
# shellcheck source-path=SCRIPTDIR

# fio's exec_prerun/exec_postrun of each job call this script back:
#   --hook pre|post <dir> <target> <default commit_delay_us> <variant> [drain]
# /proc/stat is read last before the first I/O and first after the last;
# with it the voluntary context switches of dm-ressd's mover thread
# ($CPU_MOVER_PID, exported by the main script).
if [ "${1:-}" = --hook ]; then
	hdir=$3 htg=$4 hcd=$5 hvar=$6
	hparam=/sys/module/dm_ressd/parameters/commit_delay_us
	hstat() {	# <file>: /proc/stat and /proc/uptime without a fork
		local l up
		read -r up l </proc/uptime
		{
			while IFS= read -r l; do echo "$l"; done </proc/stat
			echo "uptime $up"
			while read -r l up; do
				[ "$l" = voluntary_ctxt_switches: ] && echo "mover_csw $up"
			done <"/proc/${CPU_MOVER_PID:-self}/status"
		} >"$1"
	}
	hstatus() {	# <file>
		dmsetup status ressd | cut -d' ' -f4- >"$1"
	}
	# A job of several clones (numjobs): the first clone's pre and the
	# last clone's post count, so that the window holds every clone's I/O
	# (and the drain follows the last).
	exec 9>"$hdir/$htg.lock"
	flock 9
	hn=0
	[ -s "$hdir/$htg.clones" ] && read -r hn <"$hdir/$htg.clones"
	case $2 in
	pre) echo $((hn + 1)) >"$hdir/$htg.clones"; [ "$hn" = 0 ] || exit 0 ;;
	post) echo $((hn - 1)) >"$hdir/$htg.clones"; [ "$hn" = 1 ] || exit 0 ;;
	esac
	case $2 in
	pre)
		if [[ $htg == ressd* ]]; then
			hstatus "$hdir/$htg.st0"
		fi
		if [ "$htg" = ressd_cd ]; then
			echo "$hvar" >$hparam
		fi
		hstat "$hdir/$htg.stat0"
		;;
	post)
		hstat "$hdir/$htg.stat1"
		echo "$hcd" >$hparam
		if [[ $htg == ressd* ]]; then
			hstatus "$hdir/$htg.st1"
		fi
		if [ "${7:-}" = drain ]; then
			hstat "$hdir/$htg.drain0"
			date +%s.%N >"$hdir/$htg.dt0"
			if [ "$htg" = writecache ]; then
				# Every dirty block home: a suspend with flush_on_suspend
				# writes them all back and waits.
				export DM_DISABLE_UDEV=1
				dmsetup message wc 0 flush_on_suspend && dmsetup suspend wc &&
					dmsetup resume wc
			else
				DM_DISABLE_UDEV=1 dmsetup message ressd 0 drain
			fi
			echo $? >"$hdir/$htg.drain_rc"
			date +%s.%N >"$hdir/$htg.dt1"
			hstat "$hdir/$htg.drain1"
			if [ "$htg" = writecache ]; then
				dmsetup status wc | cut -d' ' -f4- >"$hdir/$htg.st2"
			else
				hstatus "$hdir/$htg.st2"
			fi
		fi
		;;
	esac
	exit 0
fi

SELF=$(readlink -f "$0")
BENCH_OUT=$1 BENCH_MOD=$2
BENCH_DISK=${BENCH_DISK:-/dev/vda}
exec >"$BENCH_OUT/guest.log" 2>&1
. "$(dirname "$0")/lib.sh"
trap 'echo $? >"$BENCH_OUT/guest.rc"' EXIT

REPS=${CPU_REPS:-5}
RUNTIME=${CPU_RUNTIME:-3}
SPAN_MIB=${CPU_SPAN_MIB:-192}
LOG_MIB=${CPU_LOG_MIB:-128}
QD=${CPU_QD:-32}
FILL_PCT=${CPU_FILL_PCT:-90}
CASES=${CPU_CASES:-read_empty_qd1 read_empty_qd32 seqwrite_1m read_full_qd1 read_full_qd32 randwrite_qd1 randwrite_qd32 randwrite_qd32_4j}
CD_VARIANT=${CPU_CD_VARIANT:-}
PEERS=${CPU_PEERS-writecache}
case $PEERS in
"" | writecache) ;;
*) bench_die "CPU_PEERS must be writecache or empty, not '$PEERS'" ;;
esac
RAM=/dev/ram0
L=$((SPAN_MIB * 2048))		# origin range, sectors
R=$((LOG_MIB * 2048))		# log range, sectors (right after it)
REC=$BENCH_OUT/records.txt
FIO_DIR=$BENCH_OUT/fio
RUN_DIR=$BENCH_TMP/fio-run
CD_PARAM=/sys/module/dm_ressd/parameters/commit_delay_us
mkdir -p "$FIO_DIR" "$RUN_DIR"
rm -f "$REC" "$FIO_DIR"/*.json

# ---- helpers ----

# The INFO fields of dm-ressd's status, comma-separated.
rs_status() {
	dmsetup status ressd | cut -d' ' -f4- | tr ' ' ','
}
rs_field() {	# <1-based INFO field>
	dmsetup status ressd | cut -d' ' -f4- | cut -d' ' -f"$1"
}
rs_used() { rs_field 1 | cut -d/ -f1; }
rs_total() { rs_field 1 | cut -d/ -f2; }
rs_mapped() { rs_field 2; }
rs_msg() {	# <message words...>
	dmq message ressd 0 "$@" || bench_die "dmsetup message ressd 0 $*: $(dmesg | tail -n 3)"
}

# stat_delta <prefix> <before> <after>: /proc/stat deltas as key=value
# (ticks of USER_HZ summed over all CPUs; sys includes irq and softirq;
# elapsed_s from /proc/uptime).
stat_delta() {
	awk -v p="$1" 'FNR == 1 { f++ }
		$1 == "cpu" { for (i = 2; i <= NF; i++) v[f, i] = $i }
		$1 == "ctxt" { c[f] = $2 }
		$1 == "intr" { n[f] = $2 }
		$1 == "uptime" { up[f] = $2 }
		$1 == "mover_csw" { mv[f] = $2 }
		END {
			u = v[2,2] + v[2,3] - v[1,2] - v[1,3]
			s = v[2,4] + v[2,7] + v[2,8] - v[1,4] - v[1,7] - v[1,8]
			id = v[2,5] + v[2,6] - v[1,5] - v[1,6]
			st = v[2,9] - v[1,9]
			printf "%s_user=%d %s_sys=%d %s_irq=%d %s_softirq=%d %s_idle=%d %s_steal=%d %s_ctxt=%d %s_intr=%d", p, u, p, s, p, v[2,7] - v[1,7], p, v[2,8] - v[1,8], p, id, p, st, p, c[2] - c[1], p, n[2] - n[1]
			printf " %s_elapsed_s=%.3f %s_mover_csw=%d", p, up[2] - up[1], p, mv[2] - mv[1]
		}' "$2" "$3"
}

# The fio arguments of a case's workload.
case_fio_args() {	# <case>
	local common="--direct=1 --size=${SPAN_MIB}M --time_based --runtime=$RUNTIME --norandommap --randrepeat=0 --random_generator=tausworthe64"
	case $1 in
	read_*_qd1) echo "$common --rw=randread --bs=4k --ioengine=psync --iodepth=1" ;;
	read_*_qd32) echo "$common --rw=randread --bs=4k --ioengine=libaio --iodepth=$QD" ;;
	seqwrite_1m) echo "$common --rw=write --bs=1M --ioengine=psync --iodepth=1" ;;
	randwrite_qd1) echo "$common --rw=randwrite --bs=4k --ioengine=psync --iodepth=1" ;;
	randwrite_qd32) echo "$common --rw=randwrite --bs=4k --ioengine=libaio --iodepth=$QD" ;;
	randwrite_qd32_4j) echo "$common --rw=randwrite --bs=4k --ioengine=libaio --iodepth=$QD --numjobs=4 --group_reporting" ;;
	*) bench_die "unknown case $1" ;;
	esac
}

# The targets of a case, in the order of repetition <rep> (rotated).
case_targets() {	# <case> <rep>
	local t=(linear ressd) i n
	[[ $1 == randwrite_* ]] && [ -n "$CD_VARIANT" ] && t+=(ressd_cd)
	[[ $1 == randwrite_* ]] && [ -n "$PEERS" ] && t+=(writecache)
	n=${#t[@]}
	for i in $(seq 0 $((n - 1))); do
		echo "${t[$(((i + $2 - 1) % n))]}"
	done
}

# run_rep <case> <rep>: one fio invocation, one job per target, run one
# after the other (stonewall); fio calls this script back just before the
# first and just after the last I/O of each job (--hook) to read
# /proc/stat and dm-ressd's status, to set commit_delay_us for ressd_cd,
# and, after a dm-ressd random-write job, to drain the log (measured apart).
# One REC line per job.
run_rep() {
	local cs=$1 rep=$2 tg dev id args=() st0 st1 rc drain
	id=$cs-$rep
	rm -rf "$RUN_DIR"
	mkdir -p "$RUN_DIR"
	for tg in $(case_targets "$cs" "$rep"); do
		case $tg in
		linear) dev=/dev/mapper/lin ;;
		writecache) dev=/dev/mapper/wc ;;
		*) dev=/dev/mapper/ressd ;;
		esac
		drain=
		[[ $cs == randwrite_* ]] && [ "$tg" != linear ] && drain=drain
		args+=(--name="$tg" --filename="$dev" --stonewall
			--exec_prerun="bash $SELF --hook pre $RUN_DIR $tg $CD_DEFAULT ${CD_VARIANT:-0}"
			--exec_postrun="bash $SELF --hook post $RUN_DIR $tg $CD_DEFAULT ${CD_VARIANT:-0} $drain")
	done
	# shellcheck disable=SC2046	# the workload's words
	(cd "$RUN_DIR" && fio $(case_fio_args "$cs") --output-format=json \
		--output="$FIO_DIR/$id.json" "${args[@]}") >"$RUN_DIR/fio.out" 2>&1
	rc=$?
	echo "$CD_DEFAULT" >$CD_PARAM
	if [ $rc -ne 0 ]; then
		cat "$RUN_DIR/fio.out" "$FIO_DIR/$id.json" 2>/dev/null | tail -n 30
		bench_die "fio $id failed (exit $rc)"
	fi
	if grep '"error" :' "$FIO_DIR/$id.json" | grep -qv '"error" : 0,'; then
		bench_die "fio $id reports an error: $(grep '"error" :' "$FIO_DIR/$id.json" | tr -s ' \n' ' ')"
	fi
	for tg in $(case_targets "$cs" "$rep"); do
		grep -q "\"jobname\" : \"$tg\"" "$FIO_DIR/$id.json" || bench_die "fio $id: no job $tg in the output"
		if [ ! -s "$RUN_DIR/$tg.stat0" ] || [ ! -s "$RUN_DIR/$tg.stat1" ]; then
			cat "$RUN_DIR"/*.txt 2>/dev/null | tail -n 20
			bench_die "fio $id: no /proc/stat snapshots for $tg (exec_prerun/exec_postrun)"
		fi
		st0=- st1=- drain=
		if [[ $tg == ressd* ]]; then
			st0=$(tr ' ' ',' <"$RUN_DIR/$tg.st0")
			st1=$(tr ' ' ',' <"$RUN_DIR/$tg.st1")
			[ "$(cut -d, -f10 <<<"$st1")" = rw ] || bench_die "dm-ressd left rw mode in $id/$tg: $st1"
		fi
		if [ -e "$RUN_DIR/$tg.dt0" ]; then
			[ "$(cat "$RUN_DIR/$tg.drain_rc")" = 0 ] || bench_die "drain after $id/$tg failed: $(cat "$RUN_DIR/$tg.st2")"
			if [ "$tg" = writecache ]; then
				# error, blocks, free blocks, under writeback: all free
				awk '{ exit !($1 == 0 && $2 == $3 && $4 == 0) }' "$RUN_DIR/$tg.st2" ||
					bench_die "dm-writecache not clean after its write-back in $id: $(cat "$RUN_DIR/$tg.st2")"
			else
				[ "$(cut -d' ' -f1 "$RUN_DIR/$tg.st2" | cut -d/ -f1)" = 0 ] ||
					bench_die "log not empty after the drain in $id/$tg: $(cat "$RUN_DIR/$tg.st2")"
			fi
			drain="drain_wall_s=$(cat "$RUN_DIR/$tg.dt0" "$RUN_DIR/$tg.dt1" | awk 'NR == 1 { a = $1 } NR == 2 { printf "%.3f", $1 - a }') $(stat_delta drain "$RUN_DIR/$tg.drain0" "$RUN_DIR/$tg.drain1")"
			[[ $tg == ressd* ]] && drain+=" st2=$(tr ' ' ',' <"$RUN_DIR/$tg.st2")"
		fi
		echo "REC case=$cs target=$tg rep=$rep fio=fio/$id.json $(stat_delta stat "$RUN_DIR/$tg.stat0" "$RUN_DIR/$tg.stat1") st0=$st0 st1=$st1 $drain" >>"$REC"
	done
	say "$id: $(grep -o '"iops" : [0-9.]*' "$FIO_DIR/$id.json" | awk '$3 > 0 { printf "%d ", $3 }')IOPS ($(case_targets "$cs" "$rep" | tr '\n' ' '))"
}

run_case() {	# <case>
	local rep
	for rep in $(seq 1 "$REPS"); do
		run_rep "$1" "$rep"
	done
	[ "${CPU_PERF:-}" = "$1" ] && perf_run "$1"
	check_kernel_log "$1"
}

# perf_run <case>: one dm-ressd run of the case under perf, whole guest
# (the worker, the mover and interrupts included); where the cycles go,
# self time by symbol, and the call chains of dm-ressd's symbols.  Then one
# dm-linear run of it under perf, and the two side by side: samples per
# 1000 I/Os by symbol (perf-<case>-diff.txt), the cost dm-ressd adds.
perf_one() {	# <case> <target> <perf.data> <fio output>; the I/Os done
	local dev=/dev/mapper/ressd
	[ "$2" = linear ] && dev=/dev/mapper/lin
	# shellcheck disable=SC2046	# the workload's words
	perf record -q -a -g ${CPU_PERF_FREQ:+-F "$CPU_PERF_FREQ"} -o "$3" -- fio $(case_fio_args "$1") --name=perf \
		--filename=$dev --output="$4" >"$RUN_DIR/perf.out" 2>&1 ||
		{ tail -n 20 "$RUN_DIR/perf.out"; bench_die "perf record of $1 on $2 failed"; }
	grep -o 'issued rwts: total=[0-9,]*' "$4" | head -n 1 | cut -d= -f2 |
		awk -F, '{ print $1 + $2 + $3 + $4 }'
}
perf_syms() {	# <perf.data>: "<samples> <symbol>" lines
	perf report -i "$1" --no-children --sort sym --stdio -g none -n 2>/dev/null |
		awk '$1 ~ /%$/ && $2 ~ /^[0-9]+$/ { s = $2; $1 = $2 = ""; sub(/^ +/, ""); print s, $0 }'
}
perf_busy() {	# <perf.data> <I/Os>: samples but idle per 1000 I/Os
	perf_syms "$1" | awk -v n="$2" '!/safe_halt|default_idle/ { c += $1 } END { printf "%.2f", c * 1000 / n }'
}
perf_run() {
	local cs=$1 data=$BENCH_TMP/perf.data ldata=$BENCH_TMP/perf-linear.data
	local txt=$BENCH_OUT/perf-$1.txt n nl t tl
	command -v perf >/dev/null || bench_die "CPU_PERF: no perf in the guest"
	n=$(perf_one "$cs" ressd "$data" "$RUN_DIR/perf-fio.out")
	{
		echo "# perf record -a -g, one dm-ressd run of $cs: $(grep -o 'IOPS=[^,]*' "$RUN_DIR/perf-fio.out" | head -n 1)"
		perf report -i "$data" --no-children --sort sym --stdio -g none --percent-limit 0.5 2>/dev/null | grep -v '^$'
		echo "# call chains of the symbols above 2 %"
		perf report -i "$data" --no-children --sort sym --stdio -g callee,2 --max-stack 10 --percent-limit 2 2>/dev/null |
			grep -v '^$' | grep -v native_safe_halt
		echo "# self time by task and symbol (above 0.3 %)"
		perf report -i "$data" --no-children --sort comm,sym --stdio -g none --percent-limit 0.3 2>/dev/null |
			grep -v '^$'
		echo "# callers of dm-ressd's symbols (children)"
		perf report -i "$data" --children --sort sym --stdio -g none --percent-limit 1 2>/dev/null |
			grep -E 'ressd|^#' | grep -v '^$'
	} >"$txt"
	# as after each random-write run; a read case leaves the index as it was
	[[ $cs == randwrite_* ]] && rs_msg drain
	nl=$(perf_one "$cs" linear "$ldata" "$RUN_DIR/perf-fio-linear.out")
	{
		echo "# samples (cpu-clock, both CPUs) per 1000 I/Os by symbol, idle left out: $cs,"
		echo "# dm-ressd $n I/Os, dm-linear $nl I/Os (one run each under perf record -a -g)"
		printf '%10s %10s %10s  %s\n' ressd linear added symbol
		t=$(perf_busy "$data" "$n")
		tl=$(perf_busy "$ldata" "$nl")
		awk -v a="$t" -v b="$tl" 'BEGIN { printf "%10.2f %10.2f %10.2f  (every symbol but idle)\n", a, b, a - b }'
		join -t '|' -a 1 -a 2 -e 0 -o 0,1.2,2.2 \
			<(perf_syms "$data" | awk -v n="$n" '{ c = $1; $1 = ""; sub(/^ /, ""); printf "%s|%.3f\n", $0, c * 1000 / n }' | sort -t '|' -k1,1) \
			<(perf_syms "$ldata" | awk -v n="$nl" '{ c = $1; $1 = ""; sub(/^ /, ""); printf "%s|%.3f\n", $0, c * 1000 / n }' | sort -t '|' -k1,1) |
			awk -F '|' '$1 !~ /safe_halt|default_idle/ { printf "%10.2f %10.2f %10.2f  %s\n", $2, $3, $2 - $3, $1 }' |
			sort -k3,3 -g -r | head -n 60
	} >"$BENCH_OUT/perf-$cs-diff.txt"
	say "perf of $cs: $txt, $BENCH_OUT/perf-$cs-diff.txt"
}

# Fill the log with 4 KiB random writes over the read span, mover paused,
# until FILL_PCT % of its slots are used.
FILLED=0
fill_log() {
	local total used i=0 chunk
	rs_msg mover pause
	total=$(rs_total)
	chunk=$((total / 10))
	used=$(rs_used)
	while [ $((used * 100)) -lt $((FILL_PCT * total)) ]; do
		i=$((i + 1))
		[ $i -le 30 ] || bench_die "the log does not fill: $(rs_status)"
		fio --name=fill --filename=/dev/mapper/ressd --size="${SPAN_MIB}M" --rw=randwrite --bs=4k \
			--direct=1 --ioengine=libaio --iodepth="$QD" --number_ios="$chunk" \
			--norandommap --randrepeat=0 --randseed=$((1000 + i)) --random_generator=tausworthe64 \
			--output="$RUN_DIR/fill.out" >/dev/null 2>&1 ||
			{ tail -n 20 "$RUN_DIR/fill.out"; bench_die "fio fill $i failed"; }
		used=$(rs_used)
	done
	[ "$(rs_field 10)" = rw ] || bench_die "dm-ressd not rw after the fill: $(rs_status)"
	echo "FILL rounds=$i writes=$((i * chunk)) status=$(rs_status)" >>"$REC"
	say "log filled in $i rounds of $chunk writes: $(rs_status)"
	FILLED=1
}

# ---- set-up ----

dmesg -C
bench_load_modules
# CPU_CRC32C=<driver>: dm-ressd's checksums by that crc32c driver
# (the module parameter csum_driver) instead of the fastest at load.
if [ -n "${CPU_CRC32C:-}" ]; then
	rmmod dm_ressd || bench_die "rmmod dm_ressd"
	insmod "$BENCH_MOD/dm_ressd.ko" csum_driver="$CPU_CRC32C" ||
		bench_die "insmod dm_ressd.ko csum_driver=$CPU_CRC32C: $(dmesg | tail -n 2)"
fi
[ -e /sys/module/brd ] && bench_die "brd is already loaded"
# The RAM disk: the span, dm-ressd's log, and with CPU_PEERS dm-writecache's
# cache (as large as the log).
RAM_MIB=$((SPAN_MIB + LOG_MIB))
[ -n "$PEERS" ] && RAM_MIB=$((RAM_MIB + LOG_MIB))
modprobe brd rd_nr=1 rd_size=$((RAM_MIB * 1024)) max_part=0 ||
	bench_die "modprobe brd"
[ -b $RAM ] || bench_die "$RAM did not appear"
# Every page of the RAM disk allocated once, so that no run pays for it
# (and dm-writecache's cache starts zeroed: it formats it).
dd if=/dev/zero of=$RAM bs=1M count=$RAM_MIB oflag=direct status=none || bench_die "writing $RAM"
# The log's first 8 KiB zeroed: the target formats it.
dd if=/dev/zero of=$RAM bs=4k count=2 seek=$((L / 8)) oflag=direct status=none ||
	bench_die "zeroing the log header"
dm_create lin "0 $L linear $RAM 0"
dm_create ressd "0 $L ressd $RAM 0 $RAM $L $R${CPU_RESSD_ARGS:+ $CPU_RESSD_ARGS}"
# dm-writecache over the same origin range (it maps its origin from sector
# 0), its cache the RAM disk's last LOG MiB.
if [ -n "$PEERS" ]; then
	modprobe dm-writecache || bench_die "modprobe dm-writecache"
	dm_create wc "0 $L writecache s $RAM $RAM 4096 2 start_sector $((L + R))"
	WC_TABLE=$(dmsetup table wc | cut -d' ' -f3- | tr ' ' ',')
else
	WC_TABLE=-
fi
CD_DEFAULT=$(cat $CD_PARAM) || bench_die "no $CD_PARAM"
CPU_MOVER_PID=$(pgrep -x kressd_mover)
[ "$(wc -w <<<"$CPU_MOVER_PID")" = 1 ] || bench_die "no single kressd_mover thread: '$CPU_MOVER_PID'"
export CPU_MOVER_PID
[ "$(rs_field 10)" = rw ] || bench_die "dm-ressd is not rw: $(rs_status)"
[ "$(rs_used)" = 0 ] || bench_die "a fresh log is not empty: $(rs_status)"
echo "CONFIG kernel=$(uname -r) cpus=$(nproc) mem_mib=$(($(awk '/^MemTotal:/ { print $2 }' /proc/meminfo) / 1024)) clk_tck=$(getconf CLK_TCK) fio=$(fio --version) reps=$REPS runtime_s=$RUNTIME span_mib=$SPAN_MIB log_mib=$LOG_MIB qd=$QD fill_pct=$FILL_PCT log_slots=$(rs_total) commit_delay_us=$CD_DEFAULT cd_variant=${CD_VARIANT:--} crc32c=$(cat /sys/module/dm_ressd/parameters/csum_driver) ressd_table=$(dmsetup table ressd | cut -d' ' -f3- | tr ' ' ',') linear_table=$(dmsetup table lin | cut -d' ' -f3- | tr ' ' ',') ram_mib=$RAM_MIB writecache_table=$WC_TABLE" >"$REC"
say "brd $RAM: $RAM_MIB MiB; origin range $L sectors, log $R sectors; $(rs_status)"

# ---- the cases ----

for cs in $CASES; do
	case $cs in
	read_empty_*)
		if [ "$FILLED" != 0 ] || [ "$(rs_mapped)" != 0 ]; then
			bench_die "$cs must run before the log is filled"
		fi
		;;
	read_full_*)
		[ "$FILLED" = 1 ] || fill_log
		;;
	randwrite_*)
		if [ "$FILLED" != drained ]; then
			rs_msg mover resume
			rs_msg drain
			[ "$(rs_used)" = 0 ] || bench_die "log not empty after drain: $(rs_status)"
			FILLED=drained
			say "mover resumed, log drained: $(rs_status)"
		fi
		;;
	esac
	say "case $cs: $(case_fio_args "$cs")"
	run_case "$cs"
done

# ---- sqlite3 commits on ext4 ----

# The latency of a sqlite3 COMMIT (synchronous=FULL, rollback journal: two
# fsyncs and a journal deletion) on ext4 over each target, CPU_SQLITE_TXNS
# transactions a run (0: none), CPU_REPS runs each, the targets
# alternating.  Both map the same range: each run makes a new file system,
# and dm-ressd's log is drained after its run, so that dm-linear then sees
# everything dm-ressd wrote.
SQL_TXNS=${CPU_SQLITE_TXNS:-300}
sqlite_run() {	# <target> <rep>
	local dev=/dev/mapper/ressd mnt=$BENCH_TMP/sqlite-mnt lat=sqlite-$1-$2.lat
	[ "$1" = linear ] && dev=/dev/mapper/lin
	mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$dev" || bench_die "mkfs.ext4 on $dev"
	mkdir -p "$mnt"
	mount "$dev" "$mnt" || bench_die "mount $dev"
	python3 "$(dirname "$SELF")/sqlite-tx.py" load "$mnt/db" 2000 || bench_die "sqlite load on $1"
	sync
	[ "$1" = ressd ] && rs_status >"$BENCH_OUT/sqlite-$2.st0"
	python3 "$(dirname "$SELF")/sqlite-tx.py" run "$mnt/db" 2000 "$SQL_TXNS" "$BENCH_OUT/$lat" ||
		bench_die "sqlite run on $1"
	[ "$1" = ressd ] && echo "SQLITE_STATUS rep=$2 txns=$SQL_TXNS before=$(cat "$BENCH_OUT/sqlite-$2.st0") after=$(rs_status)" >>"$REC"
	umount "$mnt" || bench_die "umount $mnt"
	[ "$1" = ressd ] && rs_msg drain
	echo "SQLITE target=$1 rep=$2 txns=$SQL_TXNS lat=$lat" >>"$REC"
}
if [ "$SQL_TXNS" != 0 ]; then
	# A read_full case last left the mover paused and the log full.
	if [ "$FILLED" = 1 ]; then
		rs_msg mover resume
		rs_msg drain
		FILLED=drained
	fi
	for ((rep = 1; rep <= REPS; rep++)); do
		if [ $((rep % 2)) = 1 ]; then
			sqlite_run linear "$rep"
			sqlite_run ressd "$rep"
		else
			sqlite_run ressd "$rep"
			sqlite_run linear "$rep"
		fi
	done
	say "sqlite3 commits: $REPS runs of $SQL_TXNS on each target"
	check_kernel_log sqlite
fi

dm_remove wc ressd lin
check_kernel_log end
say "done"
exit 0

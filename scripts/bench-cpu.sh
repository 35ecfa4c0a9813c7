#!/bin/bash
# The CPU overhead benchmark (make bench-cpu): dm-ressd against dm-linear
# on a RAM disk (brd), side by side in one guest boot.  On a Debian 12
# machine, as root:
#
#   bash scripts/bench-cpu.sh
#
# installs what it needs, builds dm_ressd.ko against the Debian kernel's
# headers, boots that kernel once under QEMU (virtme-ng; software emulation
# unless RESSD_KVM=1; takes $RESSD_VM_LOCK), and inside it
# (tests/bench/cpu-guest.sh) runs fio on dm-linear and on dm-ressd over the
# same range of one brd device: 4 KiB random reads with an empty and with a
# full index (queue depth 1 and 32), 1 MiB sequential writes, 4 KiB random
# writes (queue depth 1 and 32, mover resumed; also on dm-writecache, the
# in-kernel target of the same kind, for reference), and then the latency of
# sqlite3 commits on ext4 over dm-linear and dm-ressd.  Each case runs CPU_REPS
# times, the targets interleaved; the table gives the medians of IOPS, MB/s
# and CPU time per I/O and the medians of the per-repetition ratios
# dm-ressd / dm-linear.  Writes
# results/cpu/{cpu.md,cpu.json,records.txt,guest.log}.  About 8 minutes
# under software emulation on 2 cores.
#
# Knobs (environment): CPU_REPS (5), CPU_RUNTIME (3 s per run),
# CPU_SPAN_MIB (192), CPU_LOG_MIB (128), CPU_QD (32), CPU_FILL_PCT (90),
# CPU_CASES (all: read_empty_qd1 read_empty_qd32 seqwrite_1m read_full_qd1
# read_full_qd32 randwrite_qd1 randwrite_qd32 randwrite_qd32_4j), CPU_CD_VARIANT (unset; <us>:
# random writes also on dm-ressd with commit_delay_us=<us>), RESSD_KVM (0),
# CPU_PEERS (writecache; empty: the random writes on dm-linear and dm-ressd
# only), CPU_PERF (unset; a case: one more dm-ressd run of it under perf, its
# report in perf-<case>.txt, a dm-linear run beside it in
# perf-<case>-diff.txt), CPU_PERF_FREQ (perf's samples a second; unset:
# its default), CPU_CRC32C (unset: dm-ressd's choice, the
# fastest crc32c driver at load; a driver's name, e.g. crc32c-intel: the
# module parameter csum_driver), CPU_SQLITE_TXNS (300 commits a
# run; 0: no sqlite3 runs), CPU_RESSD_ARGS (unset; more of dm-ressd's table,
# e.g. "2 log_mode never"), CPU_RESULTS (results/cpu), RESSD_GUEST_APPEND
# (unset; words added to the guest kernel's command line, e.g.
# "clocksource=tsc tsc=reliable": under TCG the HPET, the guest's clock
# otherwise, costs microseconds a read; shown in cpu.md).
# shellcheck source-path=SCRIPTDIR
set -euo pipefail
. "$(dirname "$0")/common.sh"

case ${1:-} in
-h | --help) sed -n '2,39p' "$0"; exit 0 ;;
"") ;;
*) ressd_die "unknown argument $1 (see --help)" ;;
esac

start=$(date +%s)
bash "$RESSD_TOP/scripts/deps.sh"
# Debian's python3, not whatever python3 is first in PATH.
py=/usr/bin/python3
[ -x "$py" ] || py=python3

out=$RESSD_TOP/.out/cpu
res=${CPU_RESULTS:-$RESSD_TOP/results/cpu}
rm -rf "$out"
mkdir -p "$out/guest" "$res"
ressd_log "building dm_ressd.ko"
ressd_build_bench_modules "$out"

envs=""
for v in $(compgen -v | grep -E '^CPU_' || true); do
	[ "$v" = CPU_RESULTS ] && continue
	envs+="$v='${!v}' "
done
ressd_log "booting the Debian kernel $RESSD_KVER (software emulation unless RESSD_KVM=1)"
gstart=$(date +%s)
load0=$(cut -d' ' -f1-3 /proc/loadavg)
rc=0
RESSD_GUEST_TIMEOUT=${RESSD_GUEST_TIMEOUT:-2400} ressd_boot "$out/guest" 64M "$out/console.log" \
	"env $envs bash $RESSD_TOP/tests/bench/cpu-guest.sh $out/guest $RESSD_BDIR" || rc=$?
gsecs=$(( $(date +%s) - gstart ))
load1=$(cut -d' ' -f1-3 /proc/loadavg)
ressd_log "guest ran $gsecs s"
cp "$out/guest/guest.log" "$res/guest.log" 2>/dev/null || true
if [ $rc -ne 0 ]; then
	tail -n 30 "$out/guest/guest.log" 2>/dev/null || tail -n 30 "$out/console.log"
	rm -f "$res/cpu.md" "$res/cpu.json"
	ressd_die "the CPU benchmark failed in the guest (exit $rc); logs: $out/guest/guest.log, $out/console.log"
fi
commit=$(git -C "$RESSD_TOP" rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=
if git -C "$RESSD_TOP" status --porcelain 2>/dev/null | grep -qv '^??'; then
	dirty=" (with uncommitted changes)"
fi
"$py" "$RESSD_TOP/tools/ressd-cpu-report.py" "$out/guest" "$res" \
	"date=$(date -u +%Y-%m-%dT%H:%MZ)" "commit=$commit$dirty" \
	"guest=Debian kernel $RESSD_KVER under QEMU $([ "${RESSD_KVM:-0}" = 1 ] && echo KVM || echo TCG), 2 vCPUs, ${RESSD_GUEST_MEM:-2G}${RESSD_GUEST_APPEND:+, kernel command line + $RESSD_GUEST_APPEND}" \
	"host_cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo) x $(nproc)" \
	"guest_seconds=$gsecs" "host_loadavg=before $load0, after $load1" \
	"module_sources_sha256=$(cd "$RESSD_BDIR" && find . -name '*.[ch]' | sort | xargs cat | sha256sum | cut -c1-16)" ||
	ressd_die "the report failed (records: $out/guest/records.txt)"
cp "$out/guest/records.txt" "$res/records.txt"
cp "$out"/guest/perf-*.txt "$res/" 2>/dev/null || true
ressd_log "CPU benchmark finished in $(( $(date +%s) - start )) s; results in $res/cpu.md, $res/cpu.json"

#!/bin/bash
# The benchmark protocol (make bench; make bench BENCH_ARGS=--quick): every
# stack on the same emulated low-end SSD (tools/ftlsim, virtual time) with the
# same space for its log or cache, the workloads of the protocol, figures in
# results/bench.md, results/bench.json and results/bench-<preset>.png.
#
#   bash scripts/bench.sh [--quick] [--presets "ssd-a ssd-b"] [--stacks "raw ressd"]
#                         [--workloads "randw4k sqlite"]
#
# Stacks: raw (ext4), ressd (ext4 on dm-ressd, defaults), ressd:<k>=<v>,...
# (dm-ressd with those settings, e.g. ressd:high_watermark=75,low_watermark=0;
# ressd:dev_model=preset gives the preset's own model), ressd:setup (the
# settings 'ressdsetup probe --model <preset>' recommends: its format line,
# without the reserved size, which the protocol fixes; the default lists
# include it), writecache (ext4 on dm-writecache, SSD
# mode), writeboost (ext4 on dm-writeboost, built from Debian's
# dm-writeboost-dkms source, unpacked, not installed; skipped where it does
# not build, as on 6.12), bcache (ext4 on bcache, writeback), f2fs.
# Workloads: randw4k, mixed, postmark, sqlite (tests/bench/bench-guest.sh);
# hotw4k (randw4k with 90 % of the writes to a tenth of the file) on request.
#
# Full: presets ssd-a ssd-b ssd-c, a 32 MiB reserved area, every stack
# (ressd:setup included), about an hour under software emulation (37
# minutes without the sweeps).  --quick: ssd-a with every stack and
# workload, ssd-b with raw, dm-ressd, ressd:setup and dm-writecache on
# randw4k and sqlite; a 16 MiB reserved area;
# the reserved-size sweep only; under 15 minutes on 2 cores once the
# dependencies are installed.  One guest boot per preset (each takes the
# lock $RESSD_VM_LOCK); RESSD_KVM=1 uses KVM.  Sizes can be changed with
# the BENCH_* variables read below; BENCH_RESULTS moves the results.
# Sweeps (fio 4 KiB random writes, raw and dm-ressd): the reserved size at
# about 1.25, 3.1, 6.25 and 12.5 % of the file written, and N (open log
# blocks) at BENCH_SWEEP_N besides the preset's own (full: 2 4 16; quick:
# none), for the presets in BENCH_SWEEP_PRESETS (quick: ssd-a; full: ssd-a
# ssd-b; empty: none).
# Traces (blktrace of the writes reaching the emulated SSD, for
# tools/model/ftl-replay.py): the runs of raw and of each dm-ressd stack of
# the workloads in BENCH_TRACE_WORKLOADS (default randw4k), in
# .out/bench/guest/trace-<preset>-<stack>[-<workload>].txt (no suffix for
# randw4k), and trace-<preset>-<stack>-prep.txt from the stack's creation
# when its first workload is traced.
set -euo pipefail
. "$(dirname "$0")/common.sh"

quick=0
presets= stacks= workloads=
while [ $# -gt 0 ]; do
	case $1 in
	--quick) quick=1 ;;
	--presets) presets=$2; shift ;;
	--stacks) stacks=$2; shift ;;
	--workloads) workloads=$2; shift ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
	*) ressd_die "unknown argument $1 (see --help)" ;;
	esac
	shift
done

start=$(date +%s)
if ! bash "$RESSD_TOP/scripts/deps.sh" bench; then
	ressd_log "warning: installing the benchmark packages failed; trying the base set"
	bash "$RESSD_TOP/scripts/deps.sh"
fi
py=/usr/bin/python3
[ -x "$py" ] || py=python3

if [ $quick = 1 ]; then
	: "${presets:=ssd-a ssd-b}"
	# ssd-b: dm-ressd against raw and the nearest peer only (time).
	[ -n "$stacks" ] || export BENCH_STACKS_ssd_b=${BENCH_STACKS_ssd_b:-raw ressd ressd:setup writecache}
	: "${stacks:=raw ressd ressd:setup writecache writeboost bcache f2fs}"
	[ -n "$workloads" ] || export BENCH_WORKLOADS_ssd_b=${BENCH_WORKLOADS_ssd_b:-randw4k sqlite}
	export BENCH_RESERVED_MIB=${BENCH_RESERVED_MIB:-16}
	export BENCH_SWEEP_PRESETS=${BENCH_SWEEP_PRESETS-ssd-a}
	export BENCH_SWEEP_N=${BENCH_SWEEP_N-}
	export BENCH_RANDW_IOS=${BENCH_RANDW_IOS:-4096}
	export BENCH_MIXED_IOS=${BENCH_MIXED_IOS:-4096}
	export BENCH_PM_FILES=${BENCH_PM_FILES:-1000}
	export BENCH_PM_TRANS=${BENCH_PM_TRANS:-10000}
	export BENCH_SQL_ROWS=${BENCH_SQL_ROWS:-140000}
	export BENCH_SQL_TRANS=${BENCH_SQL_TRANS:-200}
else
	export BENCH_RESERVED_MIB=${BENCH_RESERVED_MIB:-32}
	export BENCH_SWEEP_PRESETS=${BENCH_SWEEP_PRESETS-ssd-a ssd-b}
	export BENCH_SWEEP_N=${BENCH_SWEEP_N-2 4 16}
	export BENCH_RANDW_IOS=${BENCH_RANDW_IOS:-8192}
	export BENCH_MIXED_IOS=${BENCH_MIXED_IOS:-8192}
	export BENCH_PM_FILES=${BENCH_PM_FILES:-4000}
	export BENCH_PM_TRANS=${BENCH_PM_TRANS:-30000}
	export BENCH_SQL_ROWS=${BENCH_SQL_ROWS:-560000}
	export BENCH_SQL_TRANS=${BENCH_SQL_TRANS:-600}
fi
: "${presets:=ssd-a ssd-b ssd-c}"
: "${stacks:=raw ressd ressd:setup writecache writeboost bcache f2fs}"
: "${workloads:=randw4k mixed postmark sqlite}"
export BENCH_PRESETS=$presets BENCH_STACKS=$stacks BENCH_WORKLOADS=$workloads

out=$RESSD_TOP/.out/bench
res=${BENCH_RESULTS:-$RESSD_TOP/results}
rm -rf "$out"
mkdir -p "$out/guest" "$res"
# ressd:setup: what 'ressdsetup probe --model <preset>' recommends, as
# BENCH_SETUP_<preset> (the guest's tests/bench/lib.sh reads it).
all_stacks=" $stacks "
for v in $(compgen -v BENCH_STACKS_ || true); do
	all_stacks+=" ${!v} "
done
if [[ "$all_stacks" == *" ressd:setup "* ]]; then
	make -s -C "$RESSD_TOP/tools/ressdsetup" >"$out/ressdsetup-build.log" 2>&1 ||
		{ cat "$out/ressdsetup-build.log"; ressd_die "building ressdsetup (for ressd:setup)"; }
	for preset in $presets; do
		v=BENCH_SETUP_${preset//-/_}
		[ -z "${!v:-}" ] || continue
		opts=$("$RESSD_TOP/tools/ressdsetup/ressdsetup" probe --model "$preset" 2>>"$out/probe.log" |
			"$py" "$RESSD_TOP/tools/ressd-report.py" setup-opts) ||
			ressd_die "ressdsetup probe --model $preset gave no settings"
		export "$v=$opts"
		ressd_log "ressd:setup on $preset: $opts"
	done
fi
ressd_log "building dm_ressd.ko and dm_ftlsim.ko"
ressd_build_bench_modules "$out"
wb_ko=
if [[ " $stacks " == *" writeboost "* ]]; then
	if wb_ko=$(ressd_build_writeboost "$out"); then
		cp "$wb_ko" "$out/guest/dm-writeboost.ko"
		wb_ko=$out/guest/dm-writeboost.ko
	else
		ressd_log "warning: dm-writeboost does not build against $RESSD_KDIR: $(tail -n 3 "$out/writeboost.log" | tr '\n' ' ')"
		echo "SKIP writeboost: does not build against $RESSD_KDIR: $(grep -m1 -i error "$out/writeboost.log" || tail -n 1 "$out/writeboost.log")" >>"$out/guest/records.txt"
		wb_ko=
	fi
fi

wb_version=
if [ -n "$wb_ko" ] && wb_src=$(ressd_writeboost_source 2>/dev/null); then
	wb_version=$(basename "$wb_src")
fi
# The guest's environment goes in a file: on the kernel's command line
# (where the guest's command travels) the settings of four presets no longer
# fit, and the guest would not boot.
envf=$out/guest/bench.env
# (POSIX quotes: the guest's shell may be dash.)
bench_env() {
	local q="'\\''"
	printf "%s='%s'\n" "$1" "${2//\'/$q}" >>"$envf"
}
: >"$envf"
bench_env BENCH_WB_KO "$wb_ko"
bench_env BENCH_WB_VERSION "$wb_version"
for v in $(compgen -v | grep -E '^(BENCH_|BCACHE_|RESSD_OPTS|WC_OPTS|WB_OPTS)'); do
	case $v in BENCH_WB_KO | BENCH_WB_VERSION | BENCH_PRESETS) continue ;; esac
	bench_env "$v" "${!v}"
done
# One boot per preset: the lock is released in between, so that other
# guests on this machine are not held up for the whole run.  Raw and the
# other stacks of one preset always share a boot (ratios from one run).
gstart=$(date +%s)
rc=0
for preset in $presets; do
	ressd_log "booting the Debian kernel $RESSD_KVER: preset $preset, stacks '$stacks', workloads '$workloads'"
	pstart=$(date +%s)
	prc=0
	RESSD_GUEST_TIMEOUT=${RESSD_GUEST_TIMEOUT:-14400} ressd_boot "$out/guest" 1G "$out/console-$preset.log" \
		"set -a; . $envf; BENCH_PRESETS=$preset; set +a; bash $RESSD_TOP/tests/bench/bench-guest.sh $out/guest $RESSD_BDIR" || prc=$?
	ressd_log "preset $preset: guest ran $(( $(date +%s) - pstart )) s (exit $prc)"
	cat "$out/guest/guest.log" >>"$out/guest-all.log" 2>/dev/null || true
	if [ $prc -ne 0 ]; then
		rc=$prc
		tail -n 30 "$out/guest/guest.log" 2>/dev/null || tail -n 30 "$out/console-$preset.log"
		echo "SKIP $preset: the guest stopped (exit $prc) after what is listed; see bench-guest.log" >>"$out/guest/records.txt"
		ressd_log "preset $preset stopped in the guest (exit $prc); logs: $out/guest-all.log, $out/console-$preset.log"
	fi
done
gsecs=$(( $(date +%s) - gstart ))
cp "$out/guest-all.log" "$res/bench-guest.log" 2>/dev/null || true
commit=${RESSD_COMMIT:-$(git -C "$RESSD_TOP" rev-parse --short HEAD 2>/dev/null || echo unknown)}
dirty=$(git -C "$RESSD_TOP" status --porcelain 2>/dev/null | grep -qv '^??' && echo " (with uncommitted changes)" || true)
"$py" "$RESSD_TOP/tools/ressd-report.py" bench "$out/guest" "$res" \
	"date=$(date -u +%Y-%m-%dT%H:%MZ)" "commit=$commit$dirty" "mode=$([ $quick = 1 ] && echo quick || echo full)" \
	"guest=Debian kernel $RESSD_KVER under QEMU $([ "${RESSD_KVM:-0}" = 1 ] && echo KVM || echo TCG), 2 vCPUs, 2 GiB" \
	"guest_seconds=$gsecs" \
	"module_sources_sha256=$(cd "$RESSD_BDIR" && cat $(find . -name '*.[ch]' | sort) | sha256sum | cut -c1-16)" >"$out/report.txt"
cp "$out/guest/records.txt" "$res/bench-records.txt"
ressd_log "benchmark finished in $(( $(date +%s) - start )) s: $res/bench.md, $res/bench.json, $res/bench-*.png"
exit $rc

#!/bin/bash
# The demo (make demo): raw ext4 against ext4 on dm-ressd on an emulated
# low-end SSD.  On a fresh Debian 12 machine, as root:
#
#   bash scripts/demo.sh
#
# installs what it needs, builds dm_ressd.ko and dm_ftlsim.ko against the
# Debian kernel's headers, boots that kernel once under QEMU (virtme-ng;
# software emulation unless RESSD_KVM=1), and inside it runs the same 4 KiB
# random-write workload on ext4 on an emulated ssd-a (tools/ftlsim, virtual
# time), first directly, then on dm-ressd over the same device and space.
# Prints a table (modelled throughput, device time before and after the
# drain, write amplification, erases, merges, wall time, ratio) and writes
# results/demo/{demo.txt,demo.json,demo-lba.png}.
#
# Knobs (environment): DEMO_PRESET (ssd-a), DEMO_RESERVED_MIB (16),
# DEMO_SPAN_MIB (128), DEMO_WRITES (8192), DEMO_RESSD_OPTS (dm-ressd's
# optional arguments: "dev_model preset mover_policy density high_watermark
# 90", the preset's own device model; "" for the defaults), RESSD_KVM (0).
set -euo pipefail
. "$(dirname "$0")/common.sh"

start=$(date +%s)
bash "$RESSD_TOP/scripts/deps.sh"
# Debian's python3 (with python3-matplotlib), not whatever python3 is first in PATH.
py=/usr/bin/python3
[ -x "$py" ] || py=python3

out=$RESSD_TOP/.out/demo
res=$RESSD_TOP/results/demo
rm -rf "$out"
mkdir -p "$out/guest" "$res"
ressd_log "building dm_ressd.ko and dm_ftlsim.ko"
ressd_build_bench_modules "$out"

envs=""
for v in DEMO_PRESET DEMO_RESERVED_MIB DEMO_SPAN_MIB DEMO_WRITES DEMO_STACKS DEMO_RESSD_OPTS; do
	[ -n "${!v+set}" ] && envs+="$v='${!v}' "
done
ressd_log "booting the Debian kernel $RESSD_KVER (software emulation unless RESSD_KVM=1)"
gstart=$(date +%s)
rc=0
ressd_boot "$out/guest" 1G "$out/console.log" \
	"env $envs bash $RESSD_TOP/tests/bench/demo-guest.sh $out/guest $RESSD_BDIR" || rc=$?
ressd_log "guest ran $(( $(date +%s) - gstart )) s"
cp "$out/guest/guest.log" "$res/guest.log" 2>/dev/null || true
if [ $rc -ne 0 ]; then
	tail -n 30 "$out/guest/guest.log" 2>/dev/null || tail -n 30 "$out/console.log"
	ressd_die "the demo failed in the guest (exit $rc); logs: $out/guest/guest.log, $out/console.log"
fi
"$py" "$RESSD_TOP/tools/ressd-report.py" demo "$out/guest" "$res"
cp "$out/guest/records.txt" "$res/records.txt"
ressd_log "demo finished in $(( $(date +%s) - start )) s; results in $res"

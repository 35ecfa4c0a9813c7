#!/bin/bash
# Kill a whole guest during I/O and recover its disks in a new one
# (tests/crash/vmkill-guest.sh is the guest half):
#
#   scripts/vmkill.sh [uml|vm]     default uml; VMKILL_CYCLES (default 3)
#
# Each cycle boots a guest that creates dm-ressd on the scratch disks and
# runs the self-checking writer (journal on the host), kills the guest's
# processes (SIGKILL: QEMU, or every UML process) 3 to 15 s after the writer
# started, then boots a new guest on the same disk images, which recovers
# the log and verifies every block in crash mode.  The next cycle writes on
# top of what was recovered.  A guest whose page cache and in-flight
# requests vanish is a machine losing power, except that what its disks had
# acknowledged survives (the disk images are host files, written through
# with cache=none under QEMU).  Prints "N passed, N failed".
set -uo pipefail
. "$(dirname "$0")/common.sh"
kind=${1:-uml}
cycles=${VMKILL_CYCLES:-3}
export RESSD_OUT_NAME=vmkill-$kind-$RESSD_KERNEL
out=$RESSD_TOP/.out/$RESSD_OUT_NAME
rm -rf "$out"
mkdir -p "$RESSD_TOP/.out"

for ((c = 1; c <= cycles; c++)); do
	ressd_log "vmkill cycle $c: write, then kill the $kind guest"
	first=0
	[ $c -eq 1 ] && first=1
	RESSD_KEEP_DISKS=1 VMKILL_PHASE=write VMKILL_FIRST=$first \
		bash "$RESSD_TOP/scripts/test-guest.sh" "$kind" \
		"$RESSD_TOP/tests/crash/vmkill-guest.sh" >"$out.write-$c.txt" 2>&1 &
	gpid=$!
	t=0
	while [ ! -e "$out/results/vmkill.started" ] && kill -0 $gpid 2>/dev/null && [ $t -lt 1200 ]; do
		sleep 1
		t=$((t + 1))
	done
	if [ ! -e "$out/results/vmkill.started" ]; then
		kill $gpid 2>/dev/null
		wait $gpid
		ressd_fail vmkill "cycle $c: the writer did not start"
		sed 's/^/    /' "$out.write-$c.txt" | tail -n 20
		break
	fi
	delay=$((3 + RANDOM % 13))
	sleep $delay
	# every process of this guest: they all name its disk image
	pkill -KILL -f "$out/disk-a.img"
	wait $gpid
	echo "  cycle $c: killed the guest ${delay} s after the writer started"
	grep -E '^(status|writer seed)' "$out/results/vmkill-guest.log" | sed 's/^/    /'

	RESSD_KEEP_DISKS=1 VMKILL_PHASE=verify \
		bash "$RESSD_TOP/scripts/test-guest.sh" "$kind" \
		"$RESSD_TOP/tests/crash/vmkill-guest.sh" >"$out.verify-$c.txt" 2>&1
	rc=$?
	grep -E '^(status|verify|lost|FAIL)' "$out/results/vmkill-guest.log" | sed 's/^/    /'
	if [ $rc -eq 0 ]; then
		ressd_pass vmkill "cycle $c: recovered and verified"
	else
		ressd_fail vmkill "cycle $c: recovery or verification failed"
		sed 's/^/    /' "$out.verify-$c.txt" | tail -n 20
	fi
done
ressd_report

#!/bin/bash
# Runs inside a guest (the UML debug kernel as PID 1, the Debian kernel
# under virtme-ng, or as PID 1 the Debian arm64 kernel or the arm64 KUnit
# kernel under qemu-system-aarch64): loads the module, runs each test
# script with a timeout, and writes one line per test to $RES/results.txt:
#
#   PASS <name> <seconds>
#   FAIL <name> <seconds> <reason>
#
# A test fails when its script exits non-zero or when the kernel log during
# the test shows a warning, a BUG, a KASAN/UBSAN/lockdep report or a trace.
#
# usage: guest-init.sh <uml|vm|kunit|arm64> <results dir> <module dir> [test ...]
# (kunit: the KUnit modules, in the UML kernel or the arm64 KUnit kernel)
set -u
kind=$1 RES=$2 MOD=$3
shift 3
TOP=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/common.sh
. "$TOP/scripts/common.sh"

if [ "$kind" != vm ]; then
	# UML: we are init.  The root is the host's, through hostfs (arm64:
	# its own, on 9p).
	ressd_guest_pid1
fi
export RESSD_TOP=$TOP RESSD_KIND=$kind RESSD_MOD=$MOD RESSD_RES=$RES
export DM_DISABLE_UDEV=1
export TMPDIR=/run/ressd-tmp
mkdir -p "$TMPDIR"
if [ "$kind" = vm ] || [ "$kind" = arm64 ]; then
	export RESSD_DISK_A=/dev/vda RESSD_DISK_B=/dev/vdb
else
	export RESSD_DISK_A=/dev/ubda RESSD_DISK_B=/dev/ubdb
fi

finish() {
	sync
	echo "GUEST-DONE" >>"$RES/results.txt"
	if [ "$kind" != vm ]; then
		/bin/busybox poweroff -f
	fi
	exit 0
}

# Any boot-time noise stays in boot.dmesg; each test starts with a clear log.
dmesg >"$RES/boot.dmesg" 2>&1
dmesg -C

if [ "$kind" = vm ] || [ "$kind" = arm64 ]; then
	modprobe -a dm-mod dm-flakey dm-log-writes libcrc32c crc32c 2>>"$RES/boot.dmesg"
fi

# dm-ftlsim, when built, is loaded first: the tests and the KUnit module use it.
ftlsim_rc=0
if [ -e "$MOD/tools/ftlsim/dm_ftlsim.ko" ]; then
	insmod "$MOD/tools/ftlsim/dm_ftlsim.ko" 2>>"$RES/insmod.err" || ftlsim_rc=1
fi

if [ "$kind" = kunit ]; then
	# The KUnit modules' suites run when they are loaded (the model of
	# dm-ftlsim, then dm-ressd's, after both targets so that their own
	# messages come before the first suite); the host parses KTAP.
	start=$(date +%s)
	[ $ftlsim_rc = 0 ] && insmod "$MOD/dm_ressd.ko" &&
		insmod "$MOD/tools/ftlsim/dm_ftlsim_kunit.ko" &&
		insmod "$MOD/tests/kunit/dm_ressd_kunit.ko"
	rc=$?
	dmesg >"$RES/kunit.dmesg" 2>&1
	echo "INSMOD $rc $(( $(date +%s) - start ))" >>"$RES/results.txt"
	finish
fi

if [ $ftlsim_rc != 0 ] || ! insmod "$MOD/dm_ressd.ko" 2>>"$RES/insmod.err"; then
	echo "FAIL insmod 0 $(tr '\n' ' ' <"$RES/insmod.err")" >>"$RES/results.txt"
	finish
fi

for t in "$@"; do
	name=$(basename "$t" .sh)
	start=$(date +%s)
	timeout -k 10 "${RESSD_TEST_TIMEOUT:-900}" bash "$t" >"$RES/$name.log" 2>&1
	rc=$?
	# Clean up whatever the test left behind, so the next one starts afresh.
	dmsetup remove_all --force --retry >/dev/null 2>&1
	grep -q ' /run/ressd-mnt' /proc/mounts && umount -l /run/ressd-mnt
	dmesg >"$RES/$name.dmesg" 2>&1
	dmesg -C
	secs=$(( $(date +%s) - start ))
	if [ $rc -ne 0 ]; then
		reason="exit $rc: $(grep -m1 '^FAIL' "$RES/$name.log" | cut -c1-200)"
		[ $rc -eq 124 ] && reason="timed out"
		echo "FAIL $name $secs $reason" >>"$RES/results.txt"
	elif bad=$(ressd_kernel_log_bad "$RES/$name.dmesg"); then
		echo "FAIL $name $secs kernel log: $bad" >>"$RES/results.txt"
	else
		echo "PASS $name $secs" >>"$RES/results.txt"
	fi
done
rmmod dm_ressd 2>>"$RES/rmmod.err" || echo "FAIL rmmod 0 $(cat "$RES/rmmod.err")" >>"$RES/results.txt"
if grep -q '^dm_ftlsim ' /proc/modules; then
	rmmod dm_ftlsim 2>>"$RES/rmmod.err" || echo "FAIL rmmod 0 $(cat "$RES/rmmod.err")" >>"$RES/results.txt"
fi
dmesg >"$RES/unload.dmesg" 2>&1
if bad=$(ressd_kernel_log_bad "$RES/unload.dmesg"); then
	echo "FAIL module-unload 0 kernel log: $bad" >>"$RES/results.txt"
fi
finish

#!/bin/bash
# Boot a guest once and run test scripts inside it.
#
#   scripts/test-guest.sh vm    [test ...]   Debian kernel under QEMU (virtme-ng)
#   scripts/test-guest.sh uml   [test ...]   UML debug kernel (KASAN, lockdep)
#   scripts/test-guest.sh kunit              KUnit suites in the UML kernel
#   scripts/test-guest.sh arm64 [test ...]   Debian's arm64 kernel under
#                                            qemu-system-aarch64 (6.1 only;
#                                            default: the smoke set below)
#   scripts/test-guest.sh kunit-arm64        KUnit suites in an arm64 debug
#                                            kernel of the series under
#                                            qemu-system-aarch64
#
# The kernel is of the series RESSD_KERNEL (6.1 by default, or 6.12): the
# Debian image of that series for vm, the UML kernel built from its
# linux-source for uml and kunit, the arm64 kernel built from it for
# kunit-arm64, and the modules built against that very kernel.  The layer
# is named <kind>-<series> (vm-6.1, kunit-6.12, kunit-arm64-6.1, ...).
#
# Tests default to every tests/functional/*.sh.  Prints one line per test and a
# closing "N passed, N failed"; writes the counts to .out/<layer>/counts; exits
# non-zero on any failure.  Guests take $RESSD_VM_LOCK, one at a time.
set -uo pipefail
. "$(dirname "$0")/common.sh"

kind=${1:?usage: test-guest.sh vm|uml|kunit|arm64|kunit-arm64 [test ...]}
shift
case $kind in vm | uml | kunit | arm64 | kunit-arm64) ;; *) ressd_die "unknown guest kind $kind" ;; esac
[ $kind = arm64 ] && [ "$RESSD_KERNEL" != 6.1 ] && ressd_die "the arm64 guest runs Debian's 6.1 kernel only"
layer=$kind-$RESSD_KERNEL
# The arm64 smoke set: create, write, power cuts and recovery, the mover,
# remove, each with an oracle (the self-checking writer, fio's checksums).
RESSD_ARM64_SMOKE=(datapath integrity powercut fio-verify lifecycle-remove)

tests=()
for t in "$@"; do
	[ -f "$t" ] || t=$RESSD_TOP/tests/functional/$t.sh
	[ -f "$t" ] || ressd_die "no such test: $t"
	tests+=("$(cd "$(dirname "$t")" && pwd)/$(basename "$t")")
done
if [ $kind = arm64 ] && [ ${#tests[@]} -eq 0 ]; then
	for t in "${RESSD_ARM64_SMOKE[@]}"; do
		tests+=("$RESSD_TOP/tests/functional/$t.sh")
	done
elif [ ${kind%-arm64} != kunit ] && [ ${#tests[@]} -eq 0 ]; then
	tests=("$RESSD_TOP"/tests/functional/*.sh)
fi

# RESSD_OUT_NAME: another directory under .out (default: the layer);
# RESSD_KEEP_DISKS=1 keeps its scratch disks from the previous boot (a
# guest killed and booted again on the same disks: scripts/vmkill.sh).
out=$RESSD_TOP/.out/${RESSD_OUT_NAME:-$layer}
res=$out/results
if [ "${RESSD_KEEP_DISKS:-0}" = 1 ]; then
	rm -rf "$res" "$out/counts" "$out/build"
else
	rm -rf "$out"
fi
mkdir -p "$res"

fail_all() {	# <reason>: every planned test fails with it
	local t
	ressd_fail "$layer" "$1"
	for t in "${tests[@]}"; do
		ressd_fail "$layer" "$(basename "$t" .sh): not run"
	done
	ressd_report "$out/counts"
	exit $?
}

# 1. Build the modules (and for UML the KUnit modules) against the guest kernel.
if [ $kind = vm ]; then
	kver=$(ressd_debian_kver) || ressd_die "no Debian kernel with headers (run make deps)"
	kdir=/usr/src/linux-headers-$kver
	arch=()
elif [ $kind = arm64 ] || [ $kind = kunit-arm64 ]; then
	guest=$(ressd_arm64_prepare) || fail_all "arm64 guest: could not install its packages or build it"
	kimage=
	if [ $kind = arm64 ]; then
		kdir=$(ressd_cross_headers arm64 arm64) || fail_all "arm64 guest: no headers"
	else
		kdir=$(bash "$RESSD_TOP/scripts/uml-kernel.sh" arm64) || fail_all "kunit-arm64-kernel-build"
		kimage=$kdir/arch/arm64/boot/Image
	fi
	arch=(ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-)
else
	kdir=$(bash "$RESSD_TOP/scripts/uml-kernel.sh") || fail_all "uml-kernel-build"
	arch=(ARCH=um)
fi
bdir=$out/build
if ! ressd_build_modules "$kdir" "$bdir" "$out/build.log" "${arch[@]}"; then
	tail -n 20 "$out/build.log"
	fail_all "build: module does not build against $kdir (see $out/build.log)"
fi

# The guest tests of tools/ressdsetup run the tool built here (the guest
# sees the tree read-only).
if printf '%s\n' "${tests[@]}" | grep -q '/tools/ressdsetup/'; then
	make -C "$RESSD_TOP/tools/ressdsetup" >"$out/tools.log" 2>&1 ||
		fail_all "build: tools/ressdsetup (see $out/tools.log)"
fi

# The arm64 guest has no compiler: the test programs are built here.
prebuilt=
if [ $kind = arm64 ]; then
	prebuilt=$out/prebuilt
	mkdir -p "$prebuilt"
	{ aarch64-linux-gnu-gcc -static -O2 -Wall -Wextra -o "$prebuilt/ressd-writer" \
		"$RESSD_TOP/tests/tools/ressd-writer.c" "$RESSD_TOP/tools/lib/crc32c.c" -lpthread &&
		aarch64-linux-gnu-gcc -static -O2 -Wall -Wextra -o "$prebuilt/ressd-replay" \
			"$RESSD_TOP/tests/crash/ressd-replay.c" &&
		aarch64-linux-gnu-gcc -static -O2 -Wall -Wextra -I"$RESSD_TOP/tools/ressdsetup" \
			-o "$prebuilt/ressd-corrupt" "$RESSD_TOP/tests/tools/ressd-corrupt.c" \
			"$RESSD_TOP/tools/ressdsetup/crc32c.c" "$RESSD_TOP/tools/lib/crc32c.c"; } \
		>"$out/prebuilt.log" 2>&1 ||
		fail_all "build: the test programs for arm64 (see $out/prebuilt.log)"
fi

# 2. Scratch disks (sparse files).
truncate -s "${RESSD_DISK_A_SIZE:-1G}" "$out/disk-a.img"
truncate -s "${RESSD_DISK_B_SIZE:-512M}" "$out/disk-b.img"

# 3. Boot.  Test settings (CRASH_*, RESSD_TEST_TIMEOUT) are passed into the guest.
genv=$(env | grep -E '^(CRASH_[A-Z0-9_]+|SOAK_[A-Z0-9_]+|PROBE_[A-Z0-9_]+|CORRUPT_[A-Z0-9_]+|TABLE_FUZZ_[A-Z0-9_]+|VMKILL_[A-Z0-9_]+|POWERCUT_[A-Z0-9_]+|STABLE_[A-Z0-9_]+|RESSD_TEST_TIMEOUT)=[A-Za-z0-9_.:-]*$' | tr '\n' ' ')
ressd_log "booting the $layer guest (${#tests[@]} tests)"
start=$(date +%s)
# The guest's command is a script in $out, never the kernel's command line:
# virtme-ng passes --exec there, and a long list of tests overran the
# 2048 bytes x86 keeps (the guest then hung before running anything).
[ -n "$prebuilt" ] && genv+=" RESSD_PREBUILT=$prebuilt"
printf '#!/bin/bash\nexec env %s bash %s %s %s %s %s\n' "$genv" "$RESSD_TOP/tests/guest-init.sh" \
	"${kind%-arm64}" "$res" "$bdir" "${tests[*]}" >"$out/init.sh"
chmod +x "$out/init.sh"
if [ $kind = vm ]; then
	# The guest sees the host read-only, except $out: its results, and
	# what a test keeps for the next boot (vmkill's journal beside them).
	ressd_boot_vm "$kver" "$out" "$out/console.log" "bash $out/init.sh" "$out/disk-a.img" "$out/disk-b.img"
elif [ $kind = arm64 ] || [ $kind = kunit-arm64 ]; then
	RESSD_ARM64_KERNEL=$kimage ressd_boot_arm64 "$guest" "$out" "$out/console.log" "$out/init.sh" "$out/disk-a.img" "$out/disk-b.img"
else
	ressd_boot_uml "$kdir" "$out/console.log" "$out/init.sh" "$out/disk-a.img" "$out/disk-b.img"
fi
grc=$?
ressd_log "guest ran $(( $(date +%s) - start )) s (exit $grc)"

touch "$res/results.txt"
if ! grep -q '^GUEST-DONE' "$res/results.txt"; then
	ressd_fail "$layer" "guest: did not finish (exit $grc; see $out/console.log)"
	tail -n 15 "$out/console.log" | sed 's/^/    /'
fi

# 4. KUnit: parse the KTAP the suites printed.
if [ ${kind%-arm64} = kunit ]; then
	src=$(ressd_source_tree)
	if ! grep -q '^INSMOD 0 ' "$res/results.txt"; then
		ressd_fail "$layer" "loading the modules with the KUnit suites failed"
	fi
	ressd_kunit_judge "$layer" "$res/kunit.dmesg" "$out" "$src/tools/testing/kunit/kunit.py"
	ressd_report "$out/counts"
	exit $?
fi

# 5. Functional tests: one result line each.
for t in "${tests[@]}"; do
	name=$(basename "$t" .sh)
	line=$(grep -m1 -E "^(PASS|FAIL) $name " "$res/results.txt")
	case $line in
	PASS*)
		ressd_pass "$layer" "$name ($(cut -d' ' -f3 <<<"$line") s)" ;;
	FAIL*)
		ressd_fail "$layer" "$name ($(cut -d' ' -f3 <<<"$line") s): $(cut -d' ' -f4- <<<"$line")"
		tail -n 15 "$res/$name.log" 2>/dev/null | sed 's/^/    /'
		# A report in the kernel log: its first 40 lines, the stack
		# included, since the guest's files do not outlive CI's clone.
		case $line in
		*" kernel log: "*)
			echo "    the kernel's report ($res/$name.dmesg):"
			grep -m1 -A39 -E "$RESSD_BAD_KERNEL_LOG" "$res/$name.dmesg" | sed 's/^/      /' ;;
		esac ;;
	*)
		ressd_fail "$layer" "$name: no result (guest died or timed out)" ;;
	esac
done
# Failures outside any one test: loading or unloading the module.
while read -r line; do
	ressd_fail "$layer" "$line"
done < <(grep -E '^FAIL (insmod|rmmod|module-unload) ' "$res/results.txt")
ressd_report "$out/counts"

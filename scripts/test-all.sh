#!/bin/bash
# make test: every layer of tests, one closing summary line.
#
#   scripts/test-all.sh           deps, check, host, fuzz (30 s a target),
#                                 kunit-6.1, kunit-6.12, uml-6.12, crash,
#                                 vm-6.1, vm-6.12, boot-6.1 (root on dm-ressd,
#                                 killed, booted)
#   scripts/test-all.sh --quick   the same without the vm layers
#
# The two kernels (scripts/deps.sh test installs both): KUnit runs in the
# UML debug kernel of each; the functional tests run in each Debian kernel
# under QEMU (vm-6.1, vm-6.12) and under KASAN and lockdep in the 6.12 debug
# kernel (uml-6.12), each layer leaving out the few tests named below; the
# crash harness runs in the 6.1 debug kernel.
# Running the functional tests in both debug kernels as well would take
# make test past CI's limit: `RESSD_KERNEL=6.1 make test-uml` is the one
# this leaves out, one command away; so are the arm64 layers (`make
# test-arm64`, the smoke set, about 5 minutes; `make kunit-arm64`, about 2
# minutes once its kernel is built; `make test-boot-arm64`, about 9
# minutes), which would take make test past 75.
#
# crash is the replay crash harness tests/crash/replay.sh with 50 states
# (CRASH_STATES and CRASH_OPS, passed into the guest, size it;
# Documentation/testing.md).  A test may take 10 minutes (the crash harness
# 25) before it fails as hung.
#
# Each layer prints its own PASS/FAIL lines; this script adds up their counts
# and prints "N passed, N failed" alone on the last line, exiting non-zero on
# any failure.
set -uo pipefail
. "$(dirname "$0")/common.sh"
cd "$RESSD_TOP"

layers=(check host fuzz kunit-6.1 kunit-6.12 uml-6.12 crash vm-6.1 vm-6.12 boot-6.1)
[ "${1:-}" = --quick ] && layers=(check host fuzz kunit-6.1 kunit-6.12 uml-6.12 crash)

start=$(date +%s)
passed=0 failed=0
if ! bash scripts/deps.sh test; then
	echo "FAIL [deps] installing dependencies"
	echo "0 passed, 1 failed"
	exit 1
fi
for layer in "${layers[@]}"; do
	t0=$(date +%s)
	series=${layer##*-}
	case $layer in
	check) bash scripts/check.sh; rc=$?; counts=.out/check/counts ;;
	host) bash scripts/test-host.sh; rc=$?; counts=.out/host/counts ;;
	fuzz) bash scripts/fuzz.sh --seconds 20; rc=$?; counts=.out/fuzz/counts ;;
	kunit-*)
		RESSD_KERNEL=$series bash scripts/test-guest.sh kunit
		rc=$?
		counts=.out/$layer/counts ;;
	uml-*)	# every functional test but the emulated SSD's timing calibration,
		# which measures the Debian kernel (vm) and takes 4 minutes here,
		# home-order, which needs blk-throttle (cgroups), not built
		# into the UML debug kernel, and csum-driver, which unloads and
		# loads dm_ressd.ko again: the UML 6.12 debug kernel's KASAN then
		# reports a global-out-of-bounds write in its own load_module()
		# (the vm layers run it; the UML 6.1 debug kernel passes it),
		# and large-small-write, whose bios over 1 MiB come from a
		# transparent huge page, which UML does not have
		mapfile -t uml_tests < <(ls tests/functional/*.sh |
			grep -Ev '/(ftlsim-calibration|home-order|csum-driver|large-small-write)\.sh$')
		RESSD_KERNEL=$series RESSD_TEST_TIMEOUT=600 bash scripts/test-guest.sh uml "${uml_tests[@]}"
		rc=$?
		counts=.out/$layer/counts ;;
	crash)	# about 6 to 7 minutes in UML (two geometries, 50 states)
		RESSD_KERNEL=6.1 RESSD_OUT_NAME=crash RESSD_TEST_TIMEOUT=1500 CRASH_STATES=50 \
			bash scripts/test-guest.sh uml tests/crash/replay.sh
		rc=$?
		counts=.out/crash/counts ;;
	boot-*)	# about 3 minutes: 6 boots
		RESSD_KERNEL=$series bash tests/boot/root-initramfs.sh
		rc=$?
		counts=.out/$layer/counts ;;
	vm-*)	# every functional test but the input fuzzers (table-fuzz,
		# corrupt-log, format-rule), sb-newest-lost (a damaged
		# superblock copy) and sb-bounds (superblocks at the end of
		# their numbers): they test parsing and the choice of a
		# superblock, the same code in either kernel, and the uml layer
		# runs them whole under KASAN;
		# and mover-nomem, which needs failslab (the Debian kernels have
		# no fault injection; the UML debug kernels do)
		mapfile -t vm_tests < <(ls tests/functional/*.sh |
			grep -Ev '/(table-fuzz|corrupt-log|format-rule|sb-newest-lost|sb-bounds|mover-nomem)\.sh$')
		# and the tool against the target (vm only: the probe needs the
		# Debian kernel's timers, and guest-ressdsetup, a process or more
		# a block, takes 4 minutes here but over 20 in UML)
		vm_tests+=(tools/ressdsetup/tests/guest-*.sh)
		# vm-6.12 leaves out what exercises the test bench and the tool
		# rather than the target (the emulated SSD's timing calibration,
		# 2 minutes; guest-ressdsetup, the tool's commands against the
		# target, 4): the same code on either kernel, and without them
		# make test stays under 75 minutes
		[ "$series" = 6.12 ] && mapfile -t vm_tests < <(printf '%s\n' "${vm_tests[@]}" |
			grep -Ev '/(ftlsim-calibration|guest-ressdsetup)\.sh$')
		RESSD_KERNEL=$series RESSD_TEST_TIMEOUT=600 bash scripts/test-guest.sh vm "${vm_tests[@]}"
		rc=$?
		counts=.out/$layer/counts ;;
	esac
	if [ -r "$counts" ]; then
		read -r p f <"$counts"
	else
		p=0 f=1
	fi
	# A layer that failed without counting a failure still fails the run.
	[ $rc -ne 0 ] && [ "$f" -eq 0 ] && f=1
	passed=$((passed + p))
	failed=$((failed + f))
	ressd_log "layer $layer: $p passed, $f failed in $(( $(date +%s) - t0 )) s"
	rm -f "$counts"
done
ressd_log "all layers took $(( $(date +%s) - start )) s"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

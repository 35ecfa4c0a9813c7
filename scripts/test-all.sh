#!/bin/bash
# make test: every layer of tests, one closing summary line.
#
#   scripts/test-all.sh           deps, check, host, fuzz (20 s a target),
#                                 kunit-6.1, kunit-6.12, uml-6.12, crash (30
#                                 states), vm-6.1, vm-6.12 (the tests below)
#   scripts/test-all.sh --quick   the same without the vm layers
#   scripts/test-all.sh --full    every test in every layer it can run in:
#                                 uml-6.12, crash (50 states), vm-6.1 and
#                                 vm-6.12 whole, boot-6.1 (root on dm-ressd,
#                                 killed, booted); about twice make test
#
# The two kernels (scripts/deps.sh test installs both): KUnit runs in the
# UML debug kernel of each; the functional tests run under KASAN and
# lockdep in the 6.12 debug kernel (uml-6.12), each but the few named below,
# and in Debian's kernels under QEMU (vm-6.1, vm-6.12); the crash harness
# runs in the 6.1 debug kernel.
#
# make test must end within CI's 90 minutes on a 2-core machine where QEMU
# and UML run about half as fast as where the layers were first sized (the
# whole set, --full, took 70 minutes there; here uml-6.12 alone takes 30,
# vm-6.1 whole 36, the crash harness 16: about two hours in all).  So
# make test runs each functional test once under KASAN and lockdep
# (uml-6.12), and in the Debian kernels what a debug kernel cannot stand
# in for: vm-6.1 runs the tests of concurrency (two CPUs; UML has one),
# durability, the file system and the tool, and leaves out those that
# check one context's logic (parsing, messages, status, the lifecycle
# steps) which uml-6.12 runs whole; vm-6.12 runs the three that uml-6.12
# cannot.  The input fuzzers run on a part of their inputs (a random part
# each run), the crash harness 30 states.  Left out of make test and run by
# --full or by hand: the timing tests of the emulated SSD and of the tool's
# probe (ftlsim-calibration, guest-probe: they measure the host's timers
# and fail on a slow or busy one), the tool's commands against the target
# (guest-ressdsetup, 7 minutes), the root file system booted (boot-6.1,
# `make test-boot`), RESSD_KERNEL=6.1 make test-uml, and the arm64 layers
# (`make test-arm64`, `make kunit-arm64`, `make test-boot-arm64`).
#
# crash is the replay crash harness tests/crash/replay.sh (CRASH_STATES and
# CRASH_OPS, passed into the guest, size it; Documentation/testing.md).  A
# test may take 10 minutes (the crash harness 25) before it fails as hung.
#
# Each layer prints its own PASS/FAIL lines; this script adds up their counts
# and prints "N passed, N failed" alone on the last line, exiting non-zero on
# any failure.
set -uo pipefail
. "$(dirname "$0")/common.sh"
cd "$RESSD_TOP"

full=false
layers=(check host fuzz kunit-6.1 kunit-6.12 uml-6.12 crash vm-6.1 vm-6.12)
case ${1:-} in
--quick) layers=(check host fuzz kunit-6.1 kunit-6.12 uml-6.12 crash) ;;
--full) full=true layers+=(boot-6.1) ;;
"") ;;
*) echo "usage: test-all.sh [--quick|--full]" >&2; exit 2 ;;
esac

# The vm layers of make test (above).  Checked by uml-6.12 alone: one
# context's logic, the same in any kernel.
uml_whole='lifecycle-(held|readahead|remove|retry|undo)|log-mode|messages|mover-forward-chunk|integrity|record-preflush|status-wa|table-matrix|fua-home|data-csum'
# Timing tests of the test bench and the tool, and the tool's commands
# against the target, 7 minutes (--full, or by hand).
timing='ftlsim-calibration|guest-probe|guest-ressdsetup'
# What uml-6.12 cannot run (see there).
no_uml='home-order|csum-driver|large-small-write|sync-complete'

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
		# large-small-write, whose bios over 1 MiB come from a
		# transparent huge page, which UML does not have, and
		# sync-complete, which needs brd (not built into the UML debug
		# kernels; both vm layers run it)
		mapfile -t uml_tests < <(ls tests/functional/*.sh |
			grep -Ev "/(ftlsim-calibration|$no_uml)\.sh$")
		# make test: the input fuzzers on a part of their inputs
		# (table-fuzz 60 lines a target, corrupt-log every third
		# mutation from a random start)
		sizes=(TABLE_FUZZ_LINES=60 CORRUPT_STEP=3)
		$full && sizes=()
		env "${sizes[@]}" RESSD_KERNEL=$series RESSD_TEST_TIMEOUT=600 \
			bash scripts/test-guest.sh uml "${uml_tests[@]}"
		rc=$?
		counts=.out/$layer/counts ;;
	crash)	# two geometries, 30 states (--full 50): 8 to 16 minutes in UML
		states=30
		$full && states=50
		RESSD_KERNEL=6.1 RESSD_OUT_NAME=crash RESSD_TEST_TIMEOUT=1500 CRASH_STATES=$states \
			bash scripts/test-guest.sh uml tests/crash/replay.sh
		rc=$?
		counts=.out/crash/counts ;;
	boot-*)	# --full only: 6 boots, 4 to 8 minutes
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
		# make test (see the top): vm-6.1 leaves out what uml-6.12
		# checks whole and the timing tests; vm-6.12 runs what
		# uml-6.12 cannot
		if ! $full && [ "$series" = 6.12 ]; then
			mapfile -t vm_tests < <(printf '%s\n' "${vm_tests[@]}" | grep -E "/($no_uml)\.sh$")
		elif ! $full; then
			mapfile -t vm_tests < <(printf '%s\n' "${vm_tests[@]}" |
				grep -Ev "/($uml_whole|$timing)\.sh$")
		fi
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

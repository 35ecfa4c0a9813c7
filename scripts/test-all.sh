#!/bin/bash
# make test: every layer of tests, one closing summary line.
#
#   scripts/test-all.sh           deps, check, host, fuzz (30 s a target), kunit,
#                                 test-uml, crash, test-vm
#   scripts/test-all.sh --quick   the same without test-vm
#
# crash is the replay crash harness tests/crash/replay.sh in the UML debug
# kernel with 60 states (CRASH_STATES and CRASH_OPS, passed into the guest,
# size it; Documentation/testing.md).  A test may take 10 minutes (the
# crash harness 25) before it fails as hung.
#
# Each layer prints its own PASS/FAIL lines; this script adds up their counts
# and prints "N passed, N failed" alone on the last line, exiting non-zero on
# any failure.
set -uo pipefail
. "$(dirname "$0")/common.sh"
cd "$RESSD_TOP"

layers=(check host fuzz kunit uml crash vm)
[ "${1:-}" = --quick ] && layers=(check host fuzz kunit uml crash)

start=$(date +%s)
passed=0 failed=0
if ! bash scripts/deps.sh; then
	echo "FAIL [deps] installing dependencies"
	echo "0 passed, 1 failed"
	exit 1
fi
for layer in "${layers[@]}"; do
	t0=$(date +%s)
	case $layer in
	check) bash scripts/check.sh; counts=.out/check/counts ;;
	host) bash scripts/test-host.sh; counts=.out/host/counts ;;
	fuzz) bash scripts/fuzz.sh --seconds 30; counts=.out/fuzz/counts ;;
	kunit) bash scripts/test-guest.sh kunit; counts=.out/kunit/counts ;;
	uml)	# every functional test but the emulated SSD's timing calibration,
		# which measures the Debian kernel (vm) and takes 4 minutes here,
		# and home-order, which needs blk-throttle (cgroups), not built
		# into the UML debug kernel
		mapfile -t uml_tests < <(ls tests/functional/*.sh |
			grep -Ev '/(ftlsim-calibration|home-order)\.sh$')
		RESSD_TEST_TIMEOUT=600 bash scripts/test-guest.sh uml "${uml_tests[@]}"
		counts=.out/uml/counts ;;
	crash)	# about 13 minutes in UML (two geometries, 60 states)
		RESSD_OUT_NAME=crash RESSD_TEST_TIMEOUT=1500 CRASH_STATES=60 \
			bash scripts/test-guest.sh uml tests/crash/replay.sh
		counts=.out/crash/counts ;;
	vm)	# every functional test but the input fuzzers (table-fuzz,
		# corrupt-log, format-rule): they test parsing, the same code in
		# either kernel, and the uml layer runs them whole under KASAN
		mapfile -t vm_tests < <(ls tests/functional/*.sh |
			grep -Ev '/(table-fuzz|corrupt-log|format-rule)\.sh$')
		# and the tool against the target (vm only: the probe needs the
		# Debian kernel's timers, and guest-ressdsetup, a process or more
		# a block, takes 4 minutes here but over 20 in UML)
		vm_tests+=(tools/ressdsetup/tests/guest-*.sh)
		RESSD_TEST_TIMEOUT=600 bash scripts/test-guest.sh vm "${vm_tests[@]}"
		counts=.out/vm/counts ;;
	esac
	rc=$?
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

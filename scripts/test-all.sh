#!/bin/bash
# make test: every layer of tests, one closing summary line.
#
#   scripts/test-all.sh           deps, check, host, fuzz (30 s a target), kunit,
#                                 test-uml, crash, test-vm
#   scripts/test-all.sh --quick   the same without test-vm
#
# crash is the replay crash harness tests/crash/replay.sh in the UML debug
# kernel, at its default size (CRASH_STATES and CRASH_OPS, passed into the
# guest, make it larger; Documentation/testing.md).
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
		# which measures the Debian kernel (vm) and takes 4 minutes here
		mapfile -t uml_tests < <(ls tests/vm/*.sh | grep -v '/ftlsim-calibration\.sh$')
		bash scripts/test-guest.sh uml "${uml_tests[@]}"; counts=.out/uml/counts ;;
	crash)	# about 22 minutes in UML (two geometries): a test limit of 40
		RESSD_OUT_NAME=crash RESSD_TEST_TIMEOUT=2400 \
			bash scripts/test-guest.sh uml tests/crash/replay.sh
		counts=.out/crash/counts ;;
	vm)	# the input fuzzers at half size: the uml layer runs them whole
		# under KASAN; their random starts cover the rest over runs
		CORRUPT_STEP=4 TABLE_FUZZ_LINES=50 bash scripts/test-guest.sh vm
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
